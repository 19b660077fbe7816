/* SPDX-License-Identifier: MIT */
/* `rgbench fleet`'s entry point (fleet/fleet_run.c): rgbench rolled out to the hosts of an Ansible inventory. */
#ifndef RG_FLEET_RUN_H
#define RG_FLEET_RUN_H

int rg_fleet_main(int argc, char **argv);

#endif /* RG_FLEET_RUN_H */
