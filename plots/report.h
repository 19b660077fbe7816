// SPDX-License-Identifier: MIT
/* `rgbench report`'s private interface (rp_*): the inputs, the hosts, the page being written and its sections. */
#ifndef RG_PLOTS_REPORT_H
#define RG_PLOTS_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "rg/plots.h"

/*
 * report in files, one concern each:
 *   report.c           the command line: options, reading the files, grouping by host, writing
 *   report_host.c      the rows of one host: a row, a guard's cost over noop, a role's row
 *   report_text.c      the page: wrapped paragraphs, bullets, headings, tables that fit
 *   report_sections.c  the sections of one host
 *   report_across.c    --across-hosts: two hosts side by side by role
 *   report_plots.c     links to the PNGs
 */

#define MAX_FILES 64
#define MAX_HOSTS 8
#define MAX_LEFT 32
#define DUTY_SHARE 0.05		/* "guard differences under 5% of a pair's total" */

struct input {
	const char *path;
	struct rg_rows rows;
	long long version;
	char timer[200];	/* JSON "timer", as text; "" when absent */
};

struct host {
	char name[128], arch[32];
	const struct rg_row **rows;
	size_t n;
	long long vmin, vmax;
	bool legacy_roles;	/* some role came from the built-in table */
	char timer[200];
	size_t ndup;
};

/* The page being written, its width and the sections left out (listed at the end). */
struct ctx {
	FILE *f;
	int width;
	bool cycles;		/* --unit cycles: ns figures are reference cycles */
	char left[MAX_LEFT][240];
	int nleft;
};

/* A guard's cost over noop: the paired difference when the row has one, else a difference of medians. */
struct cost {
	double v, lo, hi, ns;
	bool paired;
};

/* report_text.c */
void rp_para(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rp_bullet(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rp_heading(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "Left out: why", in place and in the summary at the end. */
void rp_left_out(struct ctx *c, const char *section, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* t in a fenced block, its widest columns clipped until it fits c->width. */
void rp_table_out(struct ctx *c, struct rg_table *t);
void rp_fmt_ns(char *buf, size_t size, double v);
void rp_fmt_signed(char *buf, size_t size, double v);

/* report_host.c */
/* Measured: ok or noisy. */
bool rp_row_ok(const struct rg_row *r);
/* The first measured row of h that matches (guard NULL, threads or duty < 0: any). */
const struct rg_row *rp_find(const struct host *h, const char *suite, const char *guard,
			     const char *scenario, long long threads, long long duty);
/* A measured user pair row with one thread and no duty. */
bool rp_is_pair1(const struct rg_row *r);
struct cost rp_cost_of(const struct host *h, const struct rg_row *r);
/* The first one-thread pair row whose guard stands for role. */
const struct rg_row *rp_by_role(const struct host *h, const char *role);
/* The cost to divide by: positive, else NAN. */
double rp_cmp_value(const struct cost *k);
/* Add r to h unless h has a row of the same key (then counted in ndup). 0 or -1. */
int rp_add_host_row(struct host *h, const struct rg_row *r);

/* report_sections.c, report_across.c, report_plots.c */
void rp_sec_machine(struct ctx *c, const struct host *h, const struct input *in, size_t nin);
void rp_sec_ranking(struct ctx *c, const struct host *h);
void rp_sec_headline(struct ctx *c, const struct host *h);
void rp_sec_duty(struct ctx *c, const struct host *h);
void rp_sec_threads(struct ctx *c, const struct host *h);
void rp_sec_latency(struct ctx *c, const struct host *h);
/* suite: "bpf" or "kmod". */
void rp_sec_suite(struct ctx *c, const struct host *h, const char *suite);
void rp_sec_across(struct ctx *c, const struct host *A, const struct host *B);
/* out: the --out file or NULL. */
void rp_sec_plots(struct ctx *c, const char *out, const struct input *in, size_t nin);

#endif /* RG_PLOTS_REPORT_H */
