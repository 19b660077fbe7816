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
 *   hosts.c            host identity: grouping rows by machine, duplicates, labels, the key index
 *   report_fleet.c     every host: the role matrix, the decision table, the prediction
 */

#define MAX_FILES 64
/*
 * The narrowest page whose tables fit (--width of report and of compare over
 * several hosts): the widest fixed table (the ranking) takes 60 columns, so a
 * narrower --width is refused rather than printed wider than asked.
 */
#define RG_REPORT_MIN_WIDTH 60
#define MAX_LEFT 32
#define DUTY_SHARE 0.05		/* "guard differences under 5% of a pair's total" */

struct input {
	const char *path;
	struct rg_rows rows;
	long long version;
	char timer[200];	/* JSON "timer", as text; "" when absent */
};

/* Rows of one file that another file of the same host also holds (the first file's are used). */
struct dup {
	const char *kept, *dropped;	/* the two files */
	const struct rg_row *ek, *ed;	/* an example: the row kept, the one not used */
	size_t n;
};

/*
 * One machine: host name, arch and CPU identification (hosts.c). rows in file
 * order without repeated keys; by_key the same rows sorted by key (rp_find).
 */
struct host {
	char hostname[128], arch[32], vendor[64], model[128], part[64];
	char name[320];		/* its label: the host name, or "name (arch, model)" when another host has the name */
	char kernel[128];	/* the kernel its current design is read from (hosts.c) */
	char kernels[256];	/* every kernel in its rows */
	char virt[64];
	bool emulated;		/* every row measured on an emulated CPU */
	const struct rg_row **rows, **by_key;
	size_t n;
	long long vmin, vmax;
	bool legacy_roles;	/* some role came from the built-in table */
	char timer[200];
	struct dup *dups;
	size_t ndups, ndup;	/* pairs of files, rows not used */
};

/* The page being written, its width and the sections left out (listed at the end). */
/* Folders of pictures a page links: beside it and one <stem>-plots/ per file, at most this many. */
#define RP_MAX_PLOTDIRS 16

struct ctx {
	FILE *f;		/* the page, in memory (rp_page_open()) */
	char *buf;		/* what f holds, once rp_page_emit() closed it */
	size_t blen;
	int width;
	bool cycles;		/* --unit cycles: ns figures are reference cycles */
	char left[MAX_LEFT][240];
	int nleft;
	bool include_noisy;	/* --include-noisy: noisy rows in the headline ratios too */
	/* Where the pictures are (rp_plots_find()): a folder and how the page links into it. */
	char plotdir[RP_MAX_PLOTDIRS][4096], plotrel[RP_MAX_PLOTDIRS][4200];
	int nplotdir;
	unsigned int plots_shown;	/* kinds already linked under a section */
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
/* "a/b" with two decimals and an x ("1.50x"; rg_fmt_fixed beyond), "n/a" when either is NaN. */
void rp_fmt_ratio(char *buf, size_t size, double a, double b);

/* report_host.c */
/* Measured: ok or noisy. */
bool rp_row_ok(const struct rg_row *r);
/* The measured row of h that matches, the smallest key of several (threads or duty < 0: any). O(log n). */
const struct rg_row *rp_find(const struct host *h, const char *suite, const char *guard,
			     const char *scenario, long long threads, long long duty);
/* A measured user pair row with one thread and no duty. */
bool rp_is_pair1(const struct rg_row *r);
struct cost rp_cost_of(const struct host *h, const struct rg_row *r);
/* The first one-thread pair row whose guard stands for role. */
const struct rg_row *rp_by_role(const struct host *h, const char *role);
/* The cost to divide by: positive, else NAN. */
double rp_cmp_value(const struct cost *k);

/*
 * report.c: every FILE and every run of every DIR of argv[first..argc) into in[]
 * (at most MAX_FILES; paths strdup'ed). 0, or -1 with err set.
 */
int rp_read_inputs(int argc, char **argv, int first, struct input *in, size_t *nin,
		   char *err, size_t errlen);
void rp_inputs_free(struct input *in, size_t nin);

/*
 * report.c: the words report and compare share, same letters: --width N,
 * --across-hosts, --unit ns|cycles, --allow-emulated. rp_opt_width() and
 * rp_opt_unit() check a value into *width or *unit: 0, or RG_EXIT_USAGE
 * after the one line.
 */
#define RP_OPTS_PAGE							\
	{ "width", required_argument, NULL, 'w' },			\
	{ "across-hosts", no_argument, NULL, 'a' },			\
	{ "unit", required_argument, NULL, 'u' },			\
	{ "allow-emulated", no_argument, NULL, 'e' }
int rp_opt_width(const char *arg, long *width);
int rp_opt_unit(const char *arg, const char **unit);

/*
 * report.c: a page built in memory, so that a failure writes nothing.
 * rp_page_open(): c->f to write it. 0, or -1 with err set.
 * rp_page_emit(): close it and write it to out ("wrote OUT" on stdout) or,
 * out NULL, to stdout; the exit status (err set on a failure before stdout).
 * Nothing is written after a stop signal (rg_cl_catch_stop_signals()).
 * rp_page_end(): err (when set) as the one line on stderr, or after a stop
 * signal, unless ret is 0, rg_cl_interrupted()'s line and status; the page freed; ret.
 */
int rp_page_open(struct ctx *c, char *err, size_t errlen);
int rp_page_emit(struct ctx *c, const char *out, char *err, size_t errlen);
int rp_page_end(struct ctx *c, int ret, const char *err);

/* hosts.c */
/* Same machine: host, arch, cpu_vendor, cpu_model, cpu_part (strcmp-like). */
int rp_host_id_cmp(const struct rg_row *a, const struct rg_row *b);
/* True when r was measured on h. */
bool rp_row_of_host(const struct host *h, const struct rg_row *r);
/* The rows of in[] grouped by machine, in order of first appearance; O(n log n). 0, or -1 with err set. */
int rp_group_hosts(const struct input *in, size_t nin, struct host **hosts, size_t *nh,
		   char *err, size_t errlen);
void rp_hosts_free(struct host *hosts, size_t nh);

/* report_sections.c, report_across.c, report_plots.c */
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
/* The known roles in the order tables list them, NULL-terminated (report_across.c). */
extern const char *const rp_role_order[];

/* report_fleet.c: every host at once. Emulated hosts only with allow_emulated. */
void rp_sec_fleet(struct ctx *c, const struct host *hosts, size_t nh, bool allow_emulated);
/* The matrix, one line per role and host, as CSV (compare --across-hosts --csv). */
void rp_fleet_csv(FILE *f, const struct host *hosts, size_t nh, bool allow_emulated);
/* The heat map's data for rgplot.py: label,emulated,role,value relative to the current design. */
void rp_fleet_heat_csv(FILE *f, const struct host *hosts, size_t nh);
/* The decision per host for rgbench plot: each candidate's change against the current design. */
void rp_fleet_decision_csv(FILE *f, const struct host *hosts, size_t nh);
/* Both into heat and decision for the rows of n sources (rgbench plot). 0 or -1 (errno). */
int rp_fleet_heat_file(const char *heat, const char *decision, const struct rg_rows *const *rows,
		       size_t n);
/* Every picture of the folders rp_plots_find() found. */
void rp_sec_plots(struct ctx *c);
/* The folders of pictures: beside the report (out: the --out file or NULL), each file's <stem>-plots/. */
void rp_plots_find(struct ctx *c, const char *out, const struct input *in, size_t nin);
/* Under the section it illustrates: a link to KIND.png with its one-line caption, once. */
void rp_plot_link(struct ctx *c, const char *kind);

#endif /* RG_PLOTS_REPORT_H */
