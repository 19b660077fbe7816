// SPDX-License-Identifier: MIT
/* `rgbench fleet`: hands its arguments to fleet/fleet.sh (Ansible does the fleet's work), with this rgbench for the report. */
#include "rg/cmdline.h"
#include "rg/paths.h"
#include "rg/fleet_run.h"

/*
 * The script: $RG_FLEET_SCRIPT, else this rgbench's fleet.sh (rg/paths.h: the source tree's
 * fleet/fleet.sh for a build tree's binary, the playbook beside it and whose commit the
 * package is built from; installed, DATADIR/rgbench/fleet/), run by rg_run_script(), which
 * sets RGBENCH (the rgbench that makes the report: this one). Returns only on failure
 * (RG_EXIT_FAIL).
 */
int rg_fleet_main(int argc, char **argv)
{
	rg_cl_set_prog("rgbench fleet");
	return rg_run_script("fleet", "RG_FLEET_SCRIPT", argc, argv);
}
