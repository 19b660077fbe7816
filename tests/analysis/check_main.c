// SPDX-License-Identifier: MIT
/* `check` alone, built with sanitizers so the corpus test catches memory errors, not just crashes. */
#include "rg/results.h"

int main(int argc, char **argv)
{
	return rg_check_main(argc - 1, argv + 1);
}
