/* SPDX-License-Identifier: MIT */
/* The results room's reader (analysis/read/, library rg_read): result files read back into rows, the inputs of a page, the hosts they were measured on, roles, and the standalone check. */
#ifndef RG_RESULTS_H
#define RG_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "rg/schema.h"

/* Files larger than this are refused before they are read. */
#define RG_READ_MAX_BYTES (64u << 20)
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
	/* JSON only (bpf rows): each sample's producer CPU ns per event, and its paired difference. */
	double *samples_cpu_ns, *samples_cpu_delta_ns;
	size_t n_cpu, n_cpu_delta;
	/* JSON only (schema 5, runs > 1): each run's median ns and median paired delta. */
	double *runs_ns, *runs_delta_ns;
	size_t n_runs_ns, n_runs_delta;
	/* JSON "lat_hist" (latency rows): bins [lat_lo, lat_hi) ns per pair, NAN hi = open; NULL when absent. */
	double *lat_lo, *lat_hi;
	unsigned long long *lat_count;
	size_t n_lat;
};

/* A JSON file's "timer": what its rows were timed with (read with the rows, in the same parse). */
struct rg_timer {
	char *source;		/* NULL: no timer with a source (a CSV file, a run without one) */
	double hz, resolution_ns, overhead_ns;	/* NAN when absent or not a number */
};

struct rg_rows {
	struct rg_row *v;
	size_t n, cap;
	char **files;		/* every file read, in order */
	struct rg_timer *timers;	/* timers[i]: files[i]'s */
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

/* Keep the rows whose keep[i] is set (one flag per row, in order), freeing the others; how many are kept. */
size_t rg_rows_keep_marked(struct rg_rows *rows, const bool *keep);

/*
 * compare's row selection (select.c): comma-separated lists of guards, scenarios and roles,
 * and a --rows pattern (fnmatch(3) over "suite/guard/scenario/tN/dD"); NULL: any.
 * with_baselines also keeps the rows a selected row is measured against (its baseline
 * guard and noop, same suite), for pages that compute costs over them.
 */
struct rg_select {
	const char *guards, *scenarios, *roles, *rows;
	bool with_baselines;
};
/* True when r passes every list of s. */
bool rg_select_row(const struct rg_row *r, const struct rg_select *s);
/* Keep the selected rows (and guard also's, when not NULL); how many are kept, (size_t)-1 out of memory. */
size_t rg_rows_select(struct rg_rows *rows, const struct rg_select *s, const char *also);
/* "suite/guard/scenario/tN/dD", the name --rows matches. */
void rg_row_select_name(const struct rg_row *r, char *buf, size_t size);

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

/*
 * Roles (roles.c): what a guard stands for across architectures, a
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
/*
 * Every role of rg/roles.def in its order, the order tables list them; "n/a"
 * (a guard that stands for no role) is one of them. NULL-terminated.
 */
extern const char *const rp_role_order[];
/* roles.def's kernel designs (its RG_KROLE lines), in its order. NULL-terminated. */
extern const char *const rp_kernel_roles[];

/* One input (a file, or a run of a directory) to a page; a page takes any number. */
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

/* A guard's cost over noop: the paired difference when the row has one, else a difference of medians. */
struct cost {
	double v, lo, hi, ns;
	bool paired;
};

/* host_rows.c: the rows of one host */
/* Measured: ok or noisy. */
bool rp_row_ok(const struct rg_row *r);
/* The measured row of h that matches, the smallest key of several (threads or duty < 0: any). O(log n). */
const struct rg_row *rp_find(const struct host *h, const char *suite, const char *guard,
			     const char *scenario, long long threads, long long duty);
/* A measured user pair row with one thread and no duty. */
bool rp_is_pair1(const struct rg_row *r);
struct cost rp_cost_of(const struct host *h, const struct rg_row *r);
/* The row's paired difference (delta_ns) with its interval; v NAN and paired false without one. */
struct cost rp_paired_cost(const struct rg_row *r);
/* Whether h has a measured module tramp row (kmod, scenario tramp-fentry or tramp-rawtp). */
bool rp_has_tramp(const struct host *h);
/* The first one-thread pair row whose guard stands for role. */
const struct rg_row *rp_by_role(const struct host *h, const char *role);
/* The cost to divide by: positive, else NAN. */
double rp_cmp_value(const struct cost *k);

/*
 * inputs.c: every FILE and every run of every DIR of argv[first..argc) into
 * *in, an array of *nin allocated here (any number, as far as memory goes;
 * paths strdup'ed). 0, or -1 with err set; either way rp_inputs_free(*in, *nin)
 * frees what was read, the array included.
 */
int rp_read_inputs(int argc, char **argv, int first, struct input **in, size_t *nin,
		   char *err, size_t errlen);
void rp_inputs_free(struct input *in, size_t nin);

/* hosts.c: host identity */
/* Same machine: host, arch, cpu_vendor, cpu_model, cpu_part (strcmp-like). */
int rp_host_id_cmp(const struct rg_row *a, const struct rg_row *b);
/* True when r was measured on h. */
bool rp_row_of_host(const struct host *h, const struct rg_row *r);
/* The rows of in[] grouped by machine, in order of first appearance; O(n log n). 0, or -1 with err set. */
int rp_group_hosts(const struct input *in, size_t nin, struct host **hosts, size_t *nh,
		   char *err, size_t errlen);
void rp_hosts_free(struct host *hosts, size_t nh);

/* Entry of the standalone rgbench-report check: validate files and summarize. */
int rg_check_main(int argc, char **argv);

#endif /* RG_RESULTS_H */
