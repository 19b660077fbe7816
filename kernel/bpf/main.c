// SPDX-License-Identifier: MIT
/* rgbench-bpf: the BPF trigger bench on its own (same as `rgbench bpf ...`). */
#include "rg/bpf.h"
#include "rg/cmdline.h"
#include "rg/writer.h"

/* Stop signals and ulimit -f handled from before main (rg/cmdline.h). */
RG_CL_STARTUP_SIGNALS(rg_output_cleanup_signal);
#include "rg/version.h"

int main(int argc, char **argv)
{
	if (rg_version_asked(argc, argv))
		return 0;
	argv[0] = "bpf";
	return rg_bpf_main(argc, argv);
}
