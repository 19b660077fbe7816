// SPDX-License-Identifier: MIT
/* rg_path(): rgbench's own files, found beside the binary (installed tree or build tree's marker). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rg/cmdline.h"
#include "rg/paths.h"

/* The path from BINDIR to DATADIR/rgbench, e.g. "../share/rgbench" (CMake passes it). */
#ifndef RG_BIN_TO_DATA
#define RG_BIN_TO_DATA "../share/rgbench"
#endif

static const struct {
	const char *name, *installed;	/* below DATADIR/rgbench */
} files[] = {
	{ "plot", "rgplot.py" },
	{ "kmod", "kmod" },
	{ "kmod-gen", "kmod" },
	{ "fleet", "fleet/fleet.sh" },
	{ "ab", "ab/ab.sh" },
};

int rg_self_dir(char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return -1;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	if (strlen(exe) + 1 > len)
		return -1;
	memcpy(buf, exe, strlen(exe) + 1);
	return 0;
}

static int exists(const char *p)
{
	struct stat st;

	return !stat(p, &st);
}

/* name's line of the build tree's marker at marker: 0 with the path in buf, -1 none. */
static int from_marker(const char *marker, const char *name, char *buf, size_t len)
{
	FILE *f = fopen(marker, "re");
	char line[PATH_MAX + 64];
	size_t nl = strlen(name);
	int ret = -1;

	if (!f)
		return -1;
	while (ret && fgets(line, sizeof(line), f)) {
		size_t l = strcspn(line, "\n");

		line[l] = '\0';
		if (!strncmp(line, name, nl) && line[nl] == '=' && l - nl - 1 < len) {
			memcpy(buf, line + nl + 1, l - nl);
			ret = 0;
		}
	}
	fclose(f);
	return ret;
}

int rg_installed(void)
{
	char dir[PATH_MAX], marker[PATH_MAX + 32];

	if (rg_self_dir(dir, sizeof(dir)))
		return 0;
	snprintf(marker, sizeof(marker), "%s/" RG_BUILD_MARKER, dir);
	return !exists(marker);
}

int rg_path(const char *name, char *buf, size_t len)
{
	char dir[PATH_MAX], marker[PATH_MAX + 32];
	int n;

	if (rg_self_dir(dir, sizeof(dir)))
		return -1;
	snprintf(marker, sizeof(marker), "%s/" RG_BUILD_MARKER, dir);
	if (exists(marker))
		return from_marker(marker, name, buf, len) || !exists(buf) ? -1 : 0;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[PATH_MAX + 64], real[PATH_MAX];

		if (strcmp(files[i].name, name))
			continue;
		n = snprintf(path, sizeof(path), "%s/" RG_BIN_TO_DATA "/%s", dir, files[i].installed);
		if (n <= 0 || (size_t)n >= sizeof(path) || !realpath(path, real) || strlen(real) >= len)
			return -1;
		memcpy(buf, real, strlen(real) + 1);
		return 0;
	}
	return -1;
}

int rg_run_script(const char *name, const char *env_var, int argc, char **argv)
{
	char found[PATH_MAX] = "", self[PATH_MAX];
	const char *script = getenv(env_var) ? getenv(env_var) : rg_path(name, found, sizeof(found)) ? "" : found;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct stat st;
	char **args;

	if (!*script || stat(script, &st) || !S_ISREG(st.st_mode))
		return rg_cl_error("cannot find %s.sh ('%s'): it is installed beside rgbench "
				   "(share/rgbench/%s/) or in its source checkout (%s/); or set %s",
				   name, script, name, name, env_var);
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
