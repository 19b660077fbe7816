// SPDX-License-Identifier: MIT
/* The driver's run-time module build (load.c): the sources from kernel/kmod/module, a .ko, no files left; a clear error without sources. */
#include "../../kernel/kmod/load.c"
#include "../check.h"

/* Usage: test_build KDIR... (the first that holds a Makefile is used; none: exit 77) */
int main(int argc, char **argv)
{
	char tmpdir[64] = "", ko[PATH_MAX], path[PATH_MAX + 16];
	const char *kdir = NULL;
	int rc;

	for (int i = 1; i < argc && !kdir; i++) {
		snprintf(path, sizeof(path), "%s/Makefile", argv[i]);
		if (is_file(path))
			kdir = argv[i];
	}
	if (!kdir) {
		printf("test_build: SKIP: no kernel build headers\n");
		return 77;
	}
	rc = build_module(RG_KMOD_SRC_DIR, kdir, tmpdir, ko, sizeof(ko));
	CHECK(rc == 0, "build against %s from %s: %d", kdir, RG_KMOD_SRC_DIR, rc);
	CHECK(rc || is_file(ko), "no %s", ko);
	CHECK(rc || !strncmp(ko, "/tmp/rgbench-kmod.", 18), "module at %s", ko);
	remove_tmpdir(tmpdir);
	CHECK(!tmpdir[0] || !is_dir(tmpdir), "%s left behind", tmpdir);

	/* Sources elsewhere (RG_KMOD_SRC): -1 after a message, the temporary directory gone. */
	tmpdir[0] = '\0';
	rc = build_module("/nonexistent-rgbench-src", kdir, tmpdir, ko, sizeof(ko));
	CHECK(rc == -1, "missing sources: %d", rc);
	remove_tmpdir(tmpdir);
	CHECK(tmpdir[0] && !is_dir(tmpdir), "%s left behind", tmpdir);
	return rg_test_done("kmod.build");
}
