// SPDX-License-Identifier: MIT
/* `rgbench ab`: hands its arguments to ab/ab.sh (qemu boots each kernel in turn), with this rgbench for the guests and the table. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "rg/cmdline.h"
#include "rg/paths.h"
#include "rg/ab_run.h"

/*
 * The script: $RG_AB_SCRIPT, else this rgbench's ab.sh (rg/paths.h: the source tree's
 * ab/ab.sh for a build tree's binary; installed, DATADIR/rgbench/ab/, with vm.sh and
 * ab_table.py beside it), run by rg_run_script(), which sets RGBENCH (the rgbench that goes
 * into the guests and makes the table: this one). Here: the module's sources and generated
 * headers, built against each kernel. Returns only on failure.
 */
int rg_ab_main(int argc, char **argv)
{
	char kmod[PATH_MAX], gen[PATH_MAX];

	rg_cl_set_prog("rgbench ab");
	if (!rg_path("kmod", kmod, sizeof(kmod)) && setenv("RG_AB_KMOD_SRC", kmod, 1))
		return rg_cl_error("setenv: %s", strerror(errno));
	if (!rg_path("kmod-gen", gen, sizeof(gen)) && setenv("RG_AB_KMOD_GEN", gen, 1))
		return rg_cl_error("setenv: %s", strerror(errno));
	return rg_run_script("ab", "RG_AB_SCRIPT", argc, argv);
}
