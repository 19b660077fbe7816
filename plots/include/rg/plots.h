/* SPDX-License-Identifier: MIT */
/* The plots component (library rg_plots): the result-file reader, the U test, tables, roles, and the entry points of compare, plot, report and check. */
#ifndef RG_PLOTS_H
#define RG_PLOTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "rg/schema.h"

/* Files larger than this are refused before they are read. */
#define RG_READ_MAX_BYTES (64u << 20)
/* The Mann-Whitney U test needs at least this many samples per side. */
#define RG_MWU_MIN_SAMPLES 5
/* Exact U distribution when there are no ties and both sides are at most this big. */
#define RG_MWU_EXACT_MAX 25

enum rg_col {
#define X(name, kind, since, doc) RG_COL_##name,
	RG_RESULT_COLUMNS(X)
#undef X
	RG_NCOLS
};

union rg_val {
	char *s;		/* S columns (owned, never NULL) */
	long long i;		/* I and B columns */
	unsigned long long u;	/* U columns */
	double d;		/* D columns; NAN when not measured */
};

/* One result row as read from a file: every schema column plus the samples. */
struct rg_row {
	const char *file;	/* points into rg_rows.files */
	int line;		/* line where the row starts */
	union rg_val v[RG_NCOLS];
	double *samples_ns, *samples_mops;	/* JSON only; NULL when absent */
	size_t n_ns, n_mops;
	/* JSON only (user suite, schema 3): wall ns per round, round-paired difference against the baseline. */
	double *samples_wall_ns, *samples_delta_ns;
	size_t n_wall, n_delta;
	/* JSON "lat_hist" (latency rows): bins [lat_lo, lat_hi) ns per pair, NAN hi = open; NULL when absent. */
	double *lat_lo, *lat_hi;
	unsigned long long *lat_count;
	size_t n_lat;
};

struct rg_rows {
	struct rg_row *v;
	size_t n, cap;
	char **files;		/* every file read, in order */
	size_t nfiles;
};

/*
 * Read one result file (CSV or JSON, told apart by content) or every *.csv and
 * *.json in a directory, appending the rows to out. A CSV file with a JSON
 * sibling of the same stem in the same directory is validated and must carry
 * the same run id, but its rows are dropped (the JSON carries the same rows
 * plus the samples). Rows with the same key (suite, guard, scenario, threads,
 * duty_ns, batch) are refused, and so are files with no rows, string values
 * holding control characters, and anything that is not a regular file or a
 * directory (never opened for a blocking read).
 * On error returns -1 with "FILE:LINE: problem" in err; out may then hold rows
 * and must still be freed.
 */
int rg_read_path(const char *path, struct rg_rows *out, char *err, size_t errlen);

/* The same on a buffer already in memory (name is used in messages): the fuzz entry. */
int rg_read_buffer(const char *name, const char *buf, size_t len,
		   struct rg_rows *out, char *err, size_t errlen);

void rg_rows_free(struct rg_rows *rows);

/* The cycle references --unit cycles takes (ns per cycle): 1 THz to 1 kHz; outside, the row has none. */
#define RG_REF_NS_MIN 1e-3
#define RG_REF_NS_MAX 1e6
/*
 * --unit cycles: every ns figure of each row (medians, spreads, deltas and
 * their interval, latency percentiles, the per-round samples) divided by the
 * row's ref_ns_per_cycle. A row without the reference gets n/a figures and
 * no samples. Returns how many measured rows had no reference.
 */
size_t rg_rows_to_cycles(struct rg_rows *rows);

/*
 * One run found in a directory: a result file, or a JSON with its CSV twin
 * (x.json beside x.csv: the same run; the JSON also has the samples).
 */
struct rg_dir_run {
	char *path;		/* "DIR/name" */
	char *twin;		/* "DIR/x.csv" when path is "DIR/x.json" and it exists, else NULL */
};

/*
 * The runs in a directory (its *.csv and *.json files, hidden and temporary
 * ones left out), sorted by path. 0, or -1 with err set (also when there is
 * none). Free with rg_list_free().
 */
int rg_list_dir(const char *path, struct rg_dir_run **runs, size_t *n, char *err, size_t errlen);
void rg_list_free(struct rg_dir_run *runs, size_t n);

/*
 * Read one listed run into out: the file, or the CSV twin (validated, rows
 * dropped) and then the JSON, refusing a pair whose run ids differ (a run
 * killed between its two renames, or two runs that wrote the same names).
 */
int rg_read_run(const struct rg_dir_run *run, struct rg_rows *out, char *err, size_t errlen);

/*
 * Each command-line operand paths[0 .. n), a result file or a directory of
 * runs, as runs: fn(run, listed, arg, err, errlen) for the file, or for each
 * run rg_list_dir() finds in the directory (listed true: fn may take
 * run->path, setting it to NULL). Stops at the first fn that returns
 * non-zero. 0, or -1 with err set.
 */
typedef int (*rg_run_fn)(struct rg_dir_run *run, bool listed, void *arg, char *err,
			 size_t errlen);
int rg_each_run(char *const *paths, size_t n, rg_run_fn fn, void *arg, char *err,
		size_t errlen);

/* Refuse two rows with the same key in rows (first error only). 0 or -1. */
int rg_rows_check_unique(const struct rg_rows *rows, size_t from, char *err, size_t errlen);

/* "user/tls/pair threads=1 duty_ns=0 batch=1000" */
void rg_row_key_text(const struct rg_row *r, char *buf, size_t size);
/* Compare two rows by key (strcmp-like). */
int rg_row_key_cmp(const struct rg_row *a, const struct rg_row *b);

static inline const char *rg_row_s(const struct rg_row *r, enum rg_col c) { return r->v[c].s; }
static inline long long rg_row_i(const struct rg_row *r, enum rg_col c) { return r->v[c].i; }
static inline double rg_row_d(const struct rg_row *r, enum rg_col c) { return r->v[c].d; }

/* Mann-Whitney U test, two-sided. */
struct rg_mwu {
	double u1;		/* U statistic of the first sample */
	double u2;		/* n1*n2 - u1 */
	double z;		/* normal approximation z (0 when exact) */
	double p;		/* two-sided p-value */
	bool exact;		/* exact distribution (no ties, small n) */
	bool ties;
};
/* 0, or -1 when a side is empty or memory runs out. */
int rg_mwu_test(const double *x, size_t n1, const double *y, size_t n2, struct rg_mwu *out);

/* A table built cell by cell, then printed aligned, as Markdown or as CSV. */
struct rg_table {
	size_t ncols, nrows, cap;
	char **cells;		/* nrows * ncols, row 0 is the header */
	bool *right;		/* right-align column */
};
void rg_table_init(struct rg_table *t, size_t ncols);
void rg_table_free(struct rg_table *t);
/* Append a row of ncols strings (copied; NULL becomes ""). */
int rg_table_add(struct rg_table *t, const char *const *cells);
void rg_table_print_text(const struct rg_table *t, FILE *f);
void rg_table_print_markdown(const struct rg_table *t, FILE *f);
void rg_table_print_csv(const struct rg_table *t, FILE *f);
/* Display width of a UTF-8 string (code points). */
size_t rg_utf8_width(const char *s);
/*
 * A number for a table cell or a sentence: v with dec decimals while that
 * keeps its magnitude, else in %g form, so the cell stays short and never
 * misleads: 1e7 and beyond with 3 significant digits ("1.23e+12", not 13
 * digits or a cut string), a value that dec decimals would show as 0 with 2
 * ("1e-09", not "0.00"). NaN is "n/a", infinities "inf" and "-inf".
 */
void rg_fmt_fixed(char *buf, size_t size, double v, int dec);

/*
 * Roles (plots/roles.c): what a guard stands for across architectures, a
 * ';'-separated list from the role column (guards.def). Rows without one
 * (files written before roles, role n/a) take the role of their guard name
 * from a built-in table of the names those files used (*from_table set);
 * "" when there is none.
 */
const char *rg_row_role(const struct rg_row *r, bool *from_table);
/* True when the ';'-separated list holds role. */
bool rg_role_has(const char *list, const char *role);
/* True when two lists share a role; the first one of a that b has goes to common. */
bool rg_roles_common(const char *a, const char *b, char *common, size_t size);

/* Entry of the standalone rgbench-report: validate files and summarize. */
int rg_check_main(int argc, char **argv);

/* rgbench compare BASE NEW / rgbench plot FILES... / rgbench report FILES... (argv[0]: the name). */
int rg_compare_main(int argc, char **argv);
int rg_plot_main(int argc, char **argv);
int rg_report_main(int argc, char **argv);

#endif /* RG_PLOTS_H */
