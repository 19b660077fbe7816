// SPDX-License-Identifier: MIT
/* `rgbench fleet`: hands its arguments to fleet/fleet.sh (Ansible does the fleet's work), with this rgbench for the report. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rg/cmdline.h"
#include "rg/paths.h"
#include "rg/fleet_run.h"

/*
 * The script: $RG_FLEET_SCRIPT, else this rgbench's fleet.sh (rg/paths.h: the source tree's
 * fleet/fleet.sh for a build tree's binary, the playbook beside it and whose commit the
 * package is built from; installed, DATADIR/rgbench/fleet/). RGBENCH tells it which rgbench makes the
 * report: this one. Returns only on failure (RG_EXIT_FAIL).
 */
int rg_fleet_main(int argc, char **argv)
{
	char found[PATH_MAX] = "";
	const char *script = getenv("RG_FLEET_SCRIPT") ? getenv("RG_FLEET_SCRIPT") :
			     rg_path("fleet", found, sizeof(found)) ? "" : found;
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct stat st;
	char **args;

	rg_cl_set_prog("rgbench fleet");
	if (!*script || stat(script, &st) || !S_ISREG(st.st_mode))
		return rg_cl_error("cannot find fleet.sh ('%s'): it is installed beside rgbench "
				   "(share/rgbench/fleet/) or in its source checkout (fleet/); or set RG_FLEET_SCRIPT",
				   script);
	if (n > 0) {
		self[n] = '\0';
		if (setenv("RGBENCH", self, 1))
			return rg_cl_error("setenv: %s", strerror(errno));
	}
	args = calloc((size_t)argc + 2, sizeof(*args));
	if (!args)
		return rg_cl_error("out of memory");
	args[0] = "bash";
	args[1] = (char *)script;
	for (int i = 1; i < argc; i++)
		args[i + 1] = argv[i];
	execvp("bash", args);
	free(args);
	return rg_cl_error("cannot run bash %s: %s", script, strerror(errno));
}
