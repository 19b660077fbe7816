// SPDX-License-Identifier: MIT
/* `rgbench report`'s private interface (rp_sec_*): the sections of its page. */
#ifndef RG_ANALYSIS_REPORT_H
#define RG_ANALYSIS_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rg/across.h"
#include "rg/page.h"
#include "rg/results.h"

/*
 * report in files, one concern each:
 *   report.c           the command line: options, reading the files, grouping by host, writing
 *   report_sections.c  the sections of one host: machine, ranking, headline ratios
 *   report_scenarios.c the sections of one host by scenario: duty, threads, latency, re-entry, suites
 *   report_headline.c  the headline tables' lines, from roles.def and guards.def
 *   report_across.c    --across-hosts: two hosts side by side by role
 *   report_plots.c     links to the PNGs
 *   report_calib.c     the calibration against the real trampoline, the rows of a boot
 *   report_boots.c     two kernels of one machine: the base's prediction, the patched measurement
 * and below it: the inputs, hosts and their rows (rg/results.h), the page (rg/page.h), every
 * host at once (rg/across.h).
 */

#define DUTY_SHARE 0.05		/* "guard differences under 5% of a pair's total" */

/* report_sections.c, report_scenarios.c, report_across.c, report_plots.c */
void rp_sec_machine(struct ctx *c, const struct host *h, const struct input *in, size_t nin);
void rp_sec_ranking(struct ctx *c, const struct host *h);
void rp_sec_headline(struct ctx *c, const struct host *h);
void rp_sec_duty(struct ctx *c, const struct host *h);
void rp_sec_threads(struct ctx *c, const struct host *h);
void rp_sec_latency(struct ctx *c, const struct host *h);
/* suite: "bpf" or "kmod". */
void rp_sec_suite(struct ctx *c, const struct host *h, const char *suite);
/* The re-entry outcomes of a suite (kmod: irq/softirq/nmi rows; user: signal rows), guard by context. */
void rp_sec_reentry(struct ctx *c, const struct host *h, const char *suite);
void rp_sec_across(struct ctx *c, const struct host *A, const struct host *B);

/*
 * report_headline.c: the lines of the headline tables of one host. The kernel
 * form: each role of roles (rp_kernel_roles, rg/results.h: roles.def's RG_KROLE
 * roles, in its order) with the row rp_by_role finds, one line per row (roles sharing
 * a row share its line, "a/b"), divided by the merged check's line. The
 * instructions alone: the instruction-only twins (guards.def) of the guards
 * of those roles on the host's arch, then the atomic per-CPU counter
 * (pcpu-atomic), which divides them. A line without a row is missing (r
 * NULL, name says what); a role no guard of the arch holds has no line.
 */
#define RP_HL_MAX 16
struct hl_line {
	const struct rg_row *r;
	char name[64];		/* the role or guard the line looks for */
	char what[96];		/* its design: the role(s) */
};
struct hl_table {
	struct hl_line l[RP_HL_MAX];
	size_t n, by;		/* lines; the line every row is divided by, SIZE_MAX for none */
};
void rp_headline_kernel(const struct host *h, const char *const *roles, struct hl_table *t);
void rp_headline_bare(const struct host *h, const char *const *roles, struct hl_table *t);

/*
 * report_calib.c: the module's tramp rows beside the real trampoline of the
 * same boot (per host); report_boots.c: a base kernel's prediction beside a
 * patched kernel's measurement (files of two kernels of one machine).
 */
void rp_sec_calib(struct ctx *c, const struct host *h);
void rp_sec_boots(struct ctx *c, const struct input *in, size_t nin);

/* What report_boots.c shares with report_calib.c (rp_cal_*): the rows of a boot, the model. */
/* An attach type the module's tramp scenarios model: its scenario, what it runs. */
struct path {
	const char *attach, *scenario, *what;
};
/* The rows of one boot: one machine (host identity) running one kernel. */
struct boot {
	const struct rg_row *id;	/* its first row: host identity, arch, kernel */
	const struct rg_row **rows;
	size_t n, cap;
	const char *design;	/* role of the design its kernel runs, NULL when unknown */
	char why[160];
};

/* real + (design - current): value and interval (both rows' intervals, as the decision table). */
struct pred {
	double v, lo, hi;
};

/* The design the boot's kernel runs: the fleet pages' rule (across_decide.c), from arch and kernel. */
void rp_cal_boot_design(struct boot *b);
int rp_cal_boot_add(struct boot *b, const struct rg_row *r);
/* A measured module row of a tramp scenario whose role holds role; the fewest threads. */
const struct rg_row *rp_cal_tramp_row(const struct boot *b, const char *scenario, const char *role);
/* The running design's tramp row, x86-64's pcpu-xadd also under its older role name. */
const struct rg_row *rp_cal_tramp_current(const struct boot *b, const char *scenario);
/* A row's cost over its floor: delta_ns with its interval, 0 for the floor, else n/a. */
struct cost rp_cal_floor_cost(const struct rg_row *r);
struct pred rp_cal_predict(double real, const struct cost *design, const struct cost *cur);
/* A real BPF row of attach type attach: measured, per event. */
bool rp_cal_real_row(const struct rg_row *r, const char *attach);
const struct path *rp_cal_path_of(const char *attach);
void rp_cal_fmt2(char *buf, size_t size, double v);
void rp_cal_fmt_iv(char *buf, size_t size, double lo, double hi);
void rp_cal_fmt_pct(char *buf, size_t size, double model, double real);

/* Every picture of the folders rp_plots_find() found (rg/page.h). */
void rp_sec_plots(struct ctx *c);

#endif /* RG_ANALYSIS_REPORT_H */
