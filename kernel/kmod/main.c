// SPDX-License-Identifier: MIT
/* Standalone `rgbench-kmod`: the `rgbench kmod` subcommand as its own program (exit 77: skipped). */
#include "rg/kmod.h"
#include "rg/cmdline.h"
#include "rg/writer.h"

/* Stop signals and ulimit -f handled from before main (rg/cmdline.h). */
RG_CL_STARTUP_SIGNALS(rg_output_cleanup_signal);
#include "rg/version.h"

int main(int argc, char **argv)
{
	if (rg_version_asked(argc, argv))
		return 0;
	return rg_kmod_main(argc, argv);
}
