/* SPDX-License-Identifier: MIT */
/* `rgbench fleet`'s entry point (tools/fleet.c). */
#ifndef RG_TOOLS_FLEET_H
#define RG_TOOLS_FLEET_H

int rg_fleet_main(int argc, char **argv);

#endif /* RG_TOOLS_FLEET_H */
