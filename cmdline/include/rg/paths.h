/* SPDX-License-Identifier: MIT */
/* Where this rgbench's own files are (rgplot.py, the module's sources, the fleet's playbook), found from where the binary is. */
#ifndef RG_PATHS_H
#define RG_PATHS_H

#include <stddef.h>

/*
 * Files of rgbench beside its binary, by name:
 *   plot      rgplot.py (the plots' matplotlib program; its modules sit beside it)
 *   kmod      the kernel module's sources (Kbuild, *.c, *.h)
 *   kmod-gen  the module's generated headers (rg_kguards.h, rg_kguards_extra.h)
 *   fleet     fleet.sh, which runs the Ansible playbook beside it
 *   ab        ab.sh, which boots kernels in turn (rgbench ab; vm.sh and ab_table.py beside it)
 * An installed binary (BINDIR/rgbench) finds them under DATADIR/rgbench, by the path from
 * BINDIR to DATADIR (no absolute path is compiled in: the installed tree can move). A binary
 * of a build tree has a marker file beside it, rgbench-build-tree, written by CMake, with one
 * "name=path" line per file (the source or build tree's path). rg_path() writes the path to
 * buf and returns 0, or returns -1 (no such file, or a path longer than len).
 */
#define RG_BUILD_MARKER "rgbench-build-tree"
int rg_path(const char *name, char *buf, size_t len);

/* 1: the running binary is an installed one (no build-tree marker beside it); else 0. */
int rg_installed(void);

/* The folder of the running binary (/proc/self/exe), or -1. */
int rg_self_dir(char *buf, size_t len);

/*
 * A subcommand that is a bash script (rgbench ab, rgbench fleet): runs NAME.sh, the script
 * env_var names when set, else rg_path(name)'s, with this process's arguments after argv[0],
 * RGBENCH set to this binary (the script's rgbench). Call rg_cl_set_prog() first. Returns
 * only on failure: one line (rg_cl_error), the script not found or not run.
 */
int rg_run_script(const char *name, const char *env_var, int argc, char **argv);

#endif
