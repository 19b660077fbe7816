/* SPDX-License-Identifier: MIT */
/* rgbench kmod: load the kernel-context guard module, run it, and turn its CSV into result rows. */
#ifndef RG_KMOD_H
#define RG_KMOD_H

#include <stddef.h>

struct rg_resultset;

/* rgbench kmod [options]; argv[0] is the subcommand's name. */
int rg_kmod_main(int argc, char **argv);

/* Exit status of rg_kmod_main() when the suite cannot run here (a skip). */
#define RG_KMOD_SKIP 77

/*
 * Convert the module's debugfs CSV (header line + rows, as read from
 * /sys/kernel/debug/rgbench_kmod/results) into shared-schema rows appended to
 * rs: one row per guard and scenario, the per-run values (mean over CPUs of ns
 * per pair; sum over CPUs of Mpairs/s) as samples. Returns the number of rows
 * added, or -1 with a one-line reason in err. *nerrors (may be NULL) receives
 * how many re-entry rows the module marked "error".
 */
int rg_kmod_convert(struct rg_resultset *rs, const char *csv, int *nerrors,
		    char *err, size_t errlen);

#endif /* RG_KMOD_H */
