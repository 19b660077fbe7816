/* SPDX-License-Identifier: MIT */
/* The build's version: the release and the commit it was built from (every result's rgbench_version, --version). */
#ifndef RG_VERSION_H
#define RG_VERSION_H

/*
 * "0.1.0-g71b78f6c2a1d" (release, 'g' and the commit's first 12 hex digits), with "-dirty"
 * when the tree had uncommitted changes; taken from git at build time or, in a release
 * tarball, from its stamp (cmake/version.cmake); "0.1.0-unknown" when neither says.
 */
const char *rg_version(void);

/*
 * --version and -V: when argv[1] is one of them, print "rgbench VERSION" on stdout and
 * return 1 (the caller exits 0); else 0. Every command and subcommand asks it first.
 */
int rg_version_asked(int argc, char **argv);

#endif
