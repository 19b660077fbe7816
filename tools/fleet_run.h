/* SPDX-License-Identifier: MIT */
/* `rgbench fleet`'s entry point (tools/fleet_run.c). */
#ifndef RG_TOOLS_FLEET_RUN_H
#define RG_TOOLS_FLEET_RUN_H

int rg_fleet_run_main(int argc, char **argv);

#endif /* RG_TOOLS_FLEET_RUN_H */
