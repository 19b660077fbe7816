// SPDX-License-Identifier: MIT
/* `rgbench compare`'s private interface (cmp_*): the sides, the lines of a comparison and the steps between its files. */
#ifndef RG_ANALYSIS_COMPARE_H
#define RG_ANALYSIS_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "rg/compare.h"
#include "rg/page.h"
#include "rg/results.h"

/*
 * compare in files, one concern each:
 *   compare.c         the command line: options, reading both sides, output to stdout
 *   compare_pair.c    which rows stand side by side (by key, by role, against a baseline)
 *   compare_stats.c   the numbers of one line: metric, change, speedup, U test verdict
 *   compare_header.c  the lines above the table
 *   compare_table.c   the table in each output form
 *   compare_suites.c  --across-suites
 *   compare_across.c   --across-hosts with any number of hosts
 */

#define ALPHA 0.05
#define RG_MAX_RUNS_CMP 256	/* run values a side may have in the cycle test (rgbench --runs: at most 64) */
#define COMMIT_LOG_WIDTH 72

enum out_fmt { OUT_TEXT, OUT_MARKDOWN, OUT_COMMIT, OUT_CSV };

struct side {
	const char *path;
	struct rg_rows rows;
};

/* One line of the comparison: a (base) and/or b (new) row; role when paired by role. */
struct cmp {
	const struct rg_row *a, *b;
	char role[48];		/* "" when paired by key (same guard name) */
};

struct metric {
	enum rg_col median, spread;
	bool higher_better;
	const char *unit, *name;
};

/* Everything computed for one line, as text and as numbers. */
struct res {
	const struct metric *m;
	double va, vb, sa, sb, change, factor, p;
	/* The change's interval in % of va and its actual confidence (NAN: none). */
	double ci_lo, ci_hi, ci_level;
	size_t na, nb;
	char a[48], b[48], a_short[24], b_short[24], chg[24], fac[24], pv[24], verdict[320];
	char ci[48];		/* " [+2.1, +4.4]" and, below 95%, its level (" 90.0%"); "" without one */
	char note_short[16];	/* the commit log's p column when there is no p */
	const char *test;	/* "exact", "normal" or "" */
	bool paired;		/* tested on per-round differences against the baseline */
	bool called;		/* faster or slower: a change called (the A/A check counts them) */
	bool one_run;		/* a user row of one run per side without an A/A floor: never called */
};

/* Lines printed above the table (owned strings). */
struct lines {
	char **v;
	size_t n;
};

/* compare_stats.c */
/* The unit of ns figures: "ns", or "cyc" with --unit cycles (rows through rg_rows_to_cycles). */
const char *cmp_ns_unit(bool cycles);
/* Measured: ok, or noisy (values kept from disturbed runs; the verdict says so). NULL: false. */
bool cmp_row_ok(const struct rg_row *r);
void cmp_fmt_num(char *buf, size_t size, double v);
/* The spread with as many decimals as cmp_fmt_num gives the median. */
void cmp_fmt_spread(char *buf, size_t size, double median, double s);
void cmp_fmt_factor(char *buf, size_t size, double f);
/*
 * One line: alabel names side a in verdicts; ratio_mode: --baseline (value /
 * baseline); cycles: --unit cycles (ns figures are reference cycles).
 */
void cmp_compute(const struct cmp *c, const char *alabel, bool ratio_mode, bool cycles,
		 struct res *r);
/*
 * The test on run-level values (several runs per side): Welch's two-sided t
 * test, each run one value. 0 with *p, -1 when a side has fewer than two
 * values or neither varies.
 */
int cmp_runs_test(const double *xa, size_t na, const double *xb, size_t nb, double *p);

/* compare_pair.c: each returns a malloc'ed array of *n lines, NULL when out of memory. */
struct cmp *cmp_pair_ab(const struct side *A, const struct side *B, bool across, size_t *n);
/* Consumes v (freed, also on failure). */
struct cmp *cmp_pair_roles(struct cmp *v, size_t *n);
/* *nbase: how many rows of the baseline guard there are. */
struct cmp *cmp_pair_baseline(const struct side *S, const char *guard, size_t *n,
			      size_t *nbase);

/* compare_header.c */
__attribute__((format(printf, 2, 3)))
void cmp_addl(struct lines *l, const char *fmt, ...);
/*
 * "base:"/"new:" (or "file:" when B is NULL) lines: path, host, CPU, kernel,
 * rgbench version, rows; then how the sides differ (notes false, as in the
 * commit log: only what those lines do not already say).
 */
void cmp_header_lines(struct lines *l, const struct side *A, const struct side *B, bool across,
		      bool notes);
void cmp_interleave_lines(struct lines *l, const struct cmp *v, size_t n);
void cmp_host_label(const struct side *s, char *buf, size_t size, bool with_cpu);
/* Two files of the same host, CPU, kernel and build: the A/A self-check line (expected vs seen changes). */
void cmp_aa_lines(struct lines *l, const struct side *A, const struct side *B,
		  const struct cmp *v, size_t n, bool cycles);

/* compare_table.c */
/* The lines above a table, each wrapped at width (never cut), then a blank line; nothing in CSV. */
void cmp_print_lines(FILE *f, enum out_fmt fmt, size_t width, const struct lines *hl);
void cmp_print_table(FILE *f, enum out_fmt fmt, size_t width, const struct lines *hl,
		     struct rg_table *t);
/* The width of t printed by rg_table_print_text(): its widest line (0 when out of memory). */
size_t cmp_text_width(const struct rg_table *t);
/* How cmp_emit() prints (compare.c fills it from the command line). */
struct emit_opts {
	enum out_fmt fmt;
	const char *la, *lb;	/* the value columns' labels */
	const char *las, *lbs;	/* the same where narrow (commit log, CSV) */
	bool ratio_mode;	/* --baseline: every row against the baseline guard's */
	bool cycles;		/* --unit cycles */
	bool all;		/* --all or a row selection: every line; else the lines that decide */
	size_t width;		/* the lines above and under the table wrap at it */
};
/* The table of lines v in o->fmt under the lines hl. 0 or -1. */
int cmp_emit(FILE *f, const struct emit_opts *o, const struct cmp *v, size_t n,
	     const struct lines *hl);

/* compare_suites.c */
/* 0, 1 when there was no guard to list, -1 when out of memory. */
int cmp_emit_across_suites(FILE *f, enum out_fmt fmt, size_t width, const struct side *A,
			   const struct side *B, bool cycles, const struct lines *hl);
/* Does the side hold any timed row of suite (user: pair or duty; kmod: loop*)? */
bool cmp_has_timed(const struct side *s, const char *suite);

/* compare_across.c: --across-hosts over any number of hosts (report's matrix, decision, prediction). */
/* Not two files, or two that hold more than two machines. */
bool cmp_fleet_wanted(char **paths, size_t n);
/* The exit status. */
int cmp_fleet_main(char **paths, size_t n, enum out_fmt fmt, long width, bool allow_emulated,
		   const struct rg_select *sel);

#endif /* RG_ANALYSIS_COMPARE_H */
