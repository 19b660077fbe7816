// SPDX-License-Identifier: MIT
/* `rgbench ab`: hands its arguments to ab/ab.sh (qemu boots each kernel in turn), with this rgbench for the guests and the table. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rg/cmdline.h"
#include "rg/paths.h"
#include "rg/ab_run.h"

/*
 * The script: $RG_AB_SCRIPT, else this rgbench's ab.sh (rg/paths.h: the source tree's
 * ab/ab.sh for a build tree's binary; installed, DATADIR/rgbench/ab/, with vm.sh and
 * ab_table.py beside it). RGBENCH tells it which rgbench goes into the guests and which
 * module sources are built against each kernel: this one's. Returns only on failure.
 */
int rg_ab_main(int argc, char **argv)
{
	char found[PATH_MAX] = "";
	const char *script = getenv("RG_AB_SCRIPT") ? getenv("RG_AB_SCRIPT") :
			     rg_path("ab", found, sizeof(found)) ? "" : found;
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char kmod[PATH_MAX], gen[PATH_MAX];
	struct stat st;
	char **args;

	rg_cl_set_prog("rgbench ab");
	if (!*script || stat(script, &st) || !S_ISREG(st.st_mode))
		return rg_cl_error("cannot find ab.sh ('%s'): it is installed beside rgbench "
				   "(share/rgbench/ab/) or in its source checkout (ab/); or set RG_AB_SCRIPT",
				   script);
	if (n > 0) {
		self[n] = '\0';
		if (setenv("RGBENCH", self, 1))
			return rg_cl_error("setenv: %s", strerror(errno));
	}
	/* The module's sources and generated headers, for the build against each kernel. */
	if (!rg_path("kmod", kmod, sizeof(kmod)) && setenv("RG_AB_KMOD_SRC", kmod, 1))
		return rg_cl_error("setenv: %s", strerror(errno));
	if (!rg_path("kmod-gen", gen, sizeof(gen)) && setenv("RG_AB_KMOD_GEN", gen, 1))
		return rg_cl_error("setenv: %s", strerror(errno));
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
