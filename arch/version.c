// SPDX-License-Identifier: MIT
/* rg_version(): the build's name, from the header cmake/version.cmake makes at every build. */
#include <stdio.h>
#include <string.h>

#include "rg/version.h"
#include "rg_version_gen.h"	/* RG_VERSION_STRING */

const char *rg_version(void)
{
	return RG_VERSION_STRING;
}

int rg_version_asked(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "--version") && strcmp(argv[1], "-V")))
		return 0;
	printf("rgbench %s\n", RG_VERSION_STRING);
	return 1;
}
