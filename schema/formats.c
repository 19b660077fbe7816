// SPDX-License-Identifier: MIT
/* The CSV and JSON formats of a result set: one column list, its CSV row and its JSON row (jansson). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "rg/version.h"
#include "schema_int.h"


/*
 * CSV: a string value as one printable line of valid UTF-8 (the reader refuses
 * anything else); a missing number is an empty field (schema 6: every reader
 * of CSV, sqlite3's .import, pandas, DuckDB, types the column as numbers).
 */
static void csv_str(FILE *f, const char *s)
{
	char buf[1024];

	rg_str_printable(buf, sizeof(buf), s);
	rg_csv_put_field(f, buf);
}

static void csv_double(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.6g", v);
}

/*
 * JSON: every value is a jansson value, escaped as the reader (jansson)
 * unescapes it; each double is dumped with the fewest digits that read back
 * as the same double (dump(): JSON_REAL_PRECISION of at most 17); a missing
 * number is null. A NULL from jansson (out of memory) marks the whole row bad.
 */
#define JSON_FLAGS (JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17))

static json_t *j_str(const char *s)
{
	char buf[1024];

	rg_str_printable(buf, sizeof(buf), s);
	return json_string(buf);
}

static json_t *j_double(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* Set o[key] to v (taken); false when v or the set failed. */
static bool j_set(json_t *o, const char *key, json_t *v)
{
	return v && !json_object_set_new(o, key, v);
}

/* n doubles as an array, each missing one null; [] when v is NULL. */
static json_t *j_doubles(const double *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && v && i < n; i++) {
		json_t *x = j_double(v[i]);

		if (!x || json_array_append_new(a, x)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* The value of every column for one row, through the column X-macro. */
#define COL_schema_version(r, rs)	(long)RG_SCHEMA_VERSION
#define COL_rgbench_version(r, rs)	rg_version()
#define COL_run_id(r, rs)		(rs)->run_id
#define COL_ab_label(r, rs)		(rs)->ab_label
#define COL_ab_boot(r, rs)		(rs)->ab_boot
#define COL_timestamp(r, rs)		(rs)->timestamp
#define COL_host(r, rs)			(rs)->env.host
#define COL_arch(r, rs)			(rs)->env.arch
#define COL_cpu_vendor(r, rs)		(rs)->env.cpu_vendor
#define COL_cpu_model(r, rs)		(rs)->env.cpu_model
#define COL_cpu_part(r, rs)		(rs)->env.cpu_part
#define COL_kernel(r, rs)		(rs)->env.kernel
#define COL_virt(r, rs)			(rs)->env.virt
#define COL_lse(r, rs)			(rs)->env.lse
#define COL_rseq(r, rs)			(rs)->env.rseq
#define COL_preempt(r, rs)		(rs)->env.preempt
#define COL_pinning(r, rs)		(r)->pinning
#define COL_cpus(r, rs)			(r)->cpus
#define COL_cpus_why(r, rs)		(r)->cpus_why
#define COL_suite(r, rs)		(r)->suite
#define COL_guard(r, rs)		(r)->guard
#define COL_role(r, rs)			(r)->role
#define COL_scenario(r, rs)		(r)->scenario
#define COL_threads(r, rs)		(r)->threads
#define COL_batch(r, rs)		(r)->batch
#define COL_duty_ns(r, rs)		(r)->duty_ns
#define COL_duty_in_ns(r, rs)		(r)->duty_in_ns
#define COL_repetitions(r, rs)		(r)->repetitions
#define COL_runs(r, rs)			(r)->runs
#define COL_unit(r, rs)			rg_result_unit(r)
#define COL_aa_floor_ns(r, rs)	(r)->aa_floor_ns
#define COL_layout(r, rs)		(r)->layout
#define COL_ns_median(r, rs)		(r)->ns_median
#define COL_ns_mean(r, rs)		(r)->ns_mean
#define COL_ns_stddev(r, rs)		(r)->ns_stddev
#define COL_ns_min(r, rs)		(r)->ns_min
#define COL_ns_max(r, rs)		(r)->ns_max
#define COL_ns_cv(r, rs)		(r)->ns_cv
#define COL_baseline(r, rs)		(r)->baseline
#define COL_interleave(r, rs)		(r)->interleave
#define COL_delta_ns(r, rs)		(r)->delta_ns
#define COL_delta_ci_lo(r, rs)		(r)->delta_ci_lo
#define COL_delta_ci_hi(r, rs)		(r)->delta_ci_hi
#define COL_delta_ci_level(r, rs)	(r)->delta_ci_level
#define COL_cpu_ns_median(r, rs)	(r)->cpu_ns_median
#define COL_wall_ns_median(r, rs)	(r)->wall_ns_median
#define COL_discarded(r, rs)		(r)->discarded
#define COL_lat_p50_ns(r, rs)		(r)->lat_p50_ns
#define COL_lat_p90_ns(r, rs)		(r)->lat_p90_ns
#define COL_lat_p99_ns(r, rs)		(r)->lat_p99_ns
#define COL_lat_p999_ns(r, rs)		(r)->lat_p999_ns
#define COL_lat_max_ns(r, rs)		(r)->lat_max_ns
#define COL_mops_median(r, rs)		(r)->mops_median
#define COL_mops_mean(r, rs)		(r)->mops_mean
#define COL_mops_stddev(r, rs)		(r)->mops_stddev
#define COL_mops_per_thread(r, rs)	(r)->mops_per_thread
#define COL_cycles_per_pair(r, rs)	(r)->cycles_per_pair
#define COL_instructions_per_pair(r, rs) (r)->instructions_per_pair
#define COL_ref_ns_per_cycle(r, rs)	(r)->ref_ns_per_cycle
#define COL_ref_cv(r, rs)		(r)->ref_cv
#define COL_ref_cycles_per_pair(r, rs)	(r)->ref_cycles_per_pair
#define COL_counters(r, rs)		(r)->counters
#define COL_events(r, rs)		(r)->events
#define COL_pmu_table(r, rs)		(r)->pmu_table
#define COL_refusals(r, rs)		(r)->refusals
#define COL_ops(r, rs)			(r)->ops
#define COL_prog_runs(r, rs)		(r)->prog_runs
#define COL_status(r, rs)		(r)->status
#define COL_reason(r, rs)		(r)->reason

/* One column's value: CSV text, or a jansson value (NULL when out of memory). */
#define CSV_S(f, v)	csv_str(f, v)
/* A negative integer is a missing one (only ab_boot is ever missing): an empty field, null. */
#define CSV_I(f, v)	((long)(v) < 0 ? 0 : fprintf(f, "%ld", (long)(v)))
#define CSV_U(f, v)	fprintf(f, "%llu", (unsigned long long)(v))
#define CSV_D(f, v)	csv_double(f, v)
#define CSV_B(f, v)	fputs((v) ? "1" : "0", f)
#define JSON_S(v)	j_str(v)
#define JSON_I(v)	((long)(v) < 0 ? json_null() : json_integer((json_int_t)(v)))
#define JSON_U(v)	json_integer((json_int_t)(v))
#define JSON_D(v)	j_double(v)
#define JSON_B(v)	json_integer((v) ? 1 : 0)

static void csv_row(FILE *f, const struct rg_resultset *rs, const struct rg_result *r)
{
	bool first = true;

#define X(name, kind, since, doc)				\
	do {							\
		if (!first)					\
			fputc(',', f);				\
		first = false;					\
		CSV_##kind(f, COL_##name(r, rs));		\
	} while (0);
	RG_RESULT_COLUMNS(X)
#undef X
	fputc('\n', f);
}

/* [[lo_ns, hi_ns or null, count], ...]. */
static json_t *j_lat_hist(const struct rg_result *r)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < r->lat_hist_n; i++) {
		json_t *bin = json_pack("[o,o,I]", j_double(r->lat_hist_lo[i]),
					j_double(r->lat_hist_hi[i]),
					(json_int_t)r->lat_hist_count[i]);

		if (!bin || json_array_append_new(a, bin)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *j_strings(const char (*v)[RG_RUN_WHERE_LEN], size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++) {
		json_t *x = j_str(v ? v[i] : "");

		if (!x || json_array_append_new(a, x)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* One row as a JSON object: the columns in their order, then the arrays. NULL when out of memory. */
static json_t *json_row(const struct rg_resultset *rs, const struct rg_result *r)
{
	json_t *o = json_object();
	bool ok = o != NULL;

#define X(name, kind, since, doc)	ok = ok && j_set(o, #name, JSON_##kind(COL_##name(r, rs)));
	RG_RESULT_COLUMNS(X)
#undef X
	ok = ok && j_set(o, "samples_ns", j_doubles(r->samples_ns, r->nsamples)) &&
	     j_set(o, "samples_mops", j_doubles(r->samples_mops, r->nsamples)) &&
	     j_set(o, "samples_wall_ns", j_doubles(r->samples_wall_ns, r->nsamples)) &&
	     j_set(o, "samples_delta_ns", j_doubles(r->samples_delta_ns, r->nsamples));
	/* bpf rows: only where measured, so that other rows stay as they were */
	if (r->samples_cpu_ns)
		ok = ok && j_set(o, "samples_cpu_ns", j_doubles(r->samples_cpu_ns, r->nsamples)) &&
		     j_set(o, "samples_cpu_delta_ns", j_doubles(r->samples_cpu_delta_ns, r->nsamples));
	ok = ok && j_set(o, "work_units", json_integer(r->work_units));
	if (r->nruns)
		ok = ok && j_set(o, "runs_ns", j_doubles(r->runs_ns, r->nruns)) &&
		     j_set(o, "runs_delta_ns", j_doubles(r->runs_delta_ns, r->nruns)) &&
		     j_set(o, "runs_where", j_strings(r->runs_where, r->nruns));
	if (r->lat_hist_count)
		ok = ok && j_set(o, "lat_hist", j_lat_hist(r));
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* Every column was added by a schema version this writer knows (a typo in `since` fails the build). */
#define X(name, kind, since, doc)					\
	_Static_assert((since) >= 1 && (since) <= RG_SCHEMA_VERSION,	\
		       "RG_RESULT_COLUMNS: " #name "'s since is not 1 .. RG_SCHEMA_VERSION");
RG_RESULT_COLUMNS(X)
#undef X

const char *rg_results_csv_header(void)
{
	return
#define X(name, kind, since, doc) #name ","
	RG_RESULT_COLUMNS(X)
#undef X
	;
}

void rg_fmt_write_csv(FILE *f, const struct rg_resultset *rs)
{
	const char *h = rg_results_csv_header();

	/* The X-macro leaves a trailing comma: drop it. */
	fwrite(h, 1, strlen(h) - 1, f);
	fputc('\n', f);
	for (size_t i = 0; i < rs->n; i++)
		csv_row(f, rs, &rs->rows[i]);
}

/*
 * The fewest significant digits (1 to 17) that read back as exactly v: 0.1 is
 * written 0.1, not 0.10000000000000001; 17 always do. At least as many as v
 * has before the point (below 1e17), so that %g writes 50 as 50, not 5e+01.
 */
static int shortest_digits(double v)
{
	char b[40];
	double mag = fabs(v);
	int p = 1;

	while (p < 17 && mag >= 10.0 && fabs(v) < 1e17) {
		mag /= 10.0;
		p++;
	}
	for (; p < 17; p++) {
		snprintf(b, sizeof(b), "%.*g", p, v);
		if (strtod(b, NULL) == v)
			return p;
	}
	return 17;
}

/*
 * Write v as JSON through jansson: each real dumped alone with its shortest
 * exact precision (JSON_REAL_PRECISION(n), n <= 17), arrays and objects
 * element by element in their order, everything else (strings, escaped as
 * the reader unescapes them) as jansson dumps it. 0 or -EIO.
 */
static int dump(FILE *f, json_t *v)
{
	size_t i;
	json_t *x;
	const char *k;
	int rc = 0;

	if (json_is_real(v))
		return json_dumpf(v, f, JSON_COMPACT | JSON_ENCODE_ANY |
				  JSON_REAL_PRECISION(shortest_digits(json_real_value(v)))) ? -EIO : 0;
	if (json_is_array(v)) {
		fputc('[', f);
		json_array_foreach(v, i, x) {
			if (i)
				fputc(',', f);
			if ((rc = dump(f, x)))
				return rc;
		}
		fputc(']', f);
		return 0;
	}
	if (json_is_object(v)) {
		bool first = true;

		fputc('{', f);
		json_object_foreach(v, k, x) {
			json_t *key = json_string(k);

			if (!first)
				fputc(',', f);
			first = false;
			rc = key ? (json_dumpf(key, f, JSON_FLAGS) ? -EIO : 0) : -ENOMEM;
			json_decref(key);
			if (rc)
				return rc;
			fputc(':', f);
			if ((rc = dump(f, x)))
				return rc;
		}
		fputc('}', f);
		return 0;
	}
	return json_dumpf(v, f, JSON_FLAGS) ? -EIO : 0;
}

/* "key":value, value taken (dumped through jansson); -ENOMEM when value is NULL. */
static int put_kv(FILE *f, const char *sep, const char *key, json_t *v)
{
	int rc;

	if (!v)
		return -ENOMEM;
	fprintf(f, "%s\"%s\":", sep, key);
	rc = dump(f, v);
	json_decref(v);
	return rc;
}

/*
 * One row a line under "results" (the reader's messages name a row by its
 * line), every value through jansson. 0, -ENOMEM or -EIO.
 */
int rg_fmt_write_json(FILE *f, const struct rg_resultset *rs)
{
	const struct rg_env *e = &rs->env;
	json_t *machine, *timer = NULL;
	int rc;

	machine = json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:i,s:i,s:o,s:i}",
			    "host", j_str(e->host), "arch", j_str(e->arch),
			    "cpu_vendor", j_str(e->cpu_vendor), "cpu_model", j_str(e->cpu_model),
			    "cpu_part", j_str(e->cpu_part), "kernel", j_str(e->kernel),
			    "virt", j_str(e->virt), "lse", (int)e->lse, "rseq", (int)e->rseq,
			    "preempt", j_str(e->preempt), "ncpus_online", (int)e->ncpus_online);
	if (rs->timer.source[0]) {
		timer = json_pack("{s:o,s:o,s:o,s:o}", "source", j_str(rs->timer.source),
				  "hz", j_double(rs->timer.hz),
				  "resolution_ns", j_double(rs->timer.resolution_ns),
				  "overhead_ns", j_double(rs->timer.overhead_ns));
		if (!timer) {
			json_decref(machine);
			return -ENOMEM;
		}
	}
	rc = put_kv(f, "{", "schema_version", json_integer(RG_SCHEMA_VERSION));
	if (!rc)
		rc = put_kv(f, ",", "rgbench_version", j_str(rg_version()));
	if (!rc)
		rc = put_kv(f, ",", "run_id", j_str(rs->run_id));
	if (!rc)
		rc = put_kv(f, ",", "timestamp", j_str(rs->timestamp));
	if (!rc) {
		rc = put_kv(f, ",", "machine", machine);
		machine = NULL;
	}
	if (!rc && timer) {
		fputs(",\n", f);
		rc = put_kv(f, "", "timer", timer);
		timer = NULL;
	}
	json_decref(machine);
	json_decref(timer);
	if (rc)
		return rc;
	fputs(",\n\"results\":[\n", f);
	for (size_t i = 0; i < rs->n && !rc; i++) {
		json_t *row = json_row(rs, &rs->rows[i]);

		if (!row)
			return -ENOMEM;
		rc = dump(f, row);
		json_decref(row);
		fputs(i + 1 < rs->n ? ",\n" : "\n", f);
	}
	fputs("]}\n", f);
	return rc;
}
