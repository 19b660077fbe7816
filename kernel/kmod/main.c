// SPDX-License-Identifier: MIT
/* Standalone `rgbench-kmod`: the `rgbench kmod` subcommand as its own program (exit 77: skipped). */
#include "rg/kmod.h"

int main(int argc, char **argv)
{
	return rg_kmod_main(argc, argv);
}
