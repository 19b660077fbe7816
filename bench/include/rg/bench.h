/* SPDX-License-Identifier: MIT */
/* The userspace suite's entry point: `rgbench [options]`, called by the rgbench command (tools/). */
#ifndef RG_BENCH_H
#define RG_BENCH_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

struct rg_resultset;

/*
 * What the command above the suite plugs in; the suite depends on no other
 * suite. NULL members: not part of this build.
 */
struct rg_bench_hooks {
	/*
	 * The default run's kernel-side rows (rgbench as root, no --guards or
	 * --scenarios, no --no-bpf): appended to rs; quick unless --full; stops
	 * between samples once *stop is set; progress lines to progress (NULL:
	 * quiet). 0 ok, 1 error, 2 no privilege.
	 */
	int (*bpf_default)(struct rg_resultset *rs, int quick, volatile sig_atomic_t *stop,
			   FILE *progress);
	/*
	 * The subcommands: one line for --list ("subcommands: bpf kmod ..."),
	 * or with help one usage line each for --help.
	 */
	void (*subcommands)(FILE *f, bool help);
};

/*
 * rgbench [options]: parse, pick the profile, run the suite, write the CSV and
 * JSON. argv[0] is the program name. Exit status: 0 ok, 1 failure, 2 usage,
 * 128+signal interrupted (no file written).
 */
int rg_bench_main(int argc, char **argv, const struct rg_bench_hooks *hooks);

#endif /* RG_BENCH_H */
