// SPDX-License-Identifier: MIT
/* rgbench-bpf: the BPF trigger bench on its own (same as `rgbench bpf ...`). */
#include "rg/bpf.h"

int main(int argc, char **argv)
{
	argv[0] = "bpf";
	return rg_bpf_main(argc, argv);
}
