// SPDX-License-Identifier: MIT
/* The CSV and JSON formats of a result set: one column list, one row writer for both. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rg/version.h"
#include "schema_int.h"


static void put_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* A string value as one printable line of valid UTF-8: the reader refuses anything else. */
static void put_str(FILE *f, enum rg_fmt fmt, const char *s)
{
	char buf[1024];

	rg_str_printable(buf, sizeof(buf), s);
	if (fmt == FMT_CSV)
		rg_csv_put_field(f, buf);
	else
		put_json_str(f, buf);
}

static void put_double(FILE *f, enum rg_fmt fmt, double v)
{
	if (isnan(v) || isinf(v))
		fputs(fmt == FMT_CSV ? "n/a" : "null", f);
	else
		fprintf(f, "%.6g", v);
}

/* The value of every column for one row, through the column X-macro. */
#define COL_schema_version(r, rs)	(long)RG_SCHEMA_VERSION
#define COL_rgbench_version(r, rs)	rg_version()
#define COL_run_id(r, rs)		(rs)->run_id
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

#define PUT_S(f, fmt, v)	put_str(f, fmt, v)
#define PUT_I(f, fmt, v)	fprintf(f, "%ld", (long)(v))
#define PUT_U(f, fmt, v)	fprintf(f, "%llu", (unsigned long long)(v))
#define PUT_D(f, fmt, v)	put_double(f, fmt, v)
#define PUT_B(f, fmt, v)	fputs((v) ? "1" : "0", f)

static void put_samples(FILE *f, const double *v, size_t n)
{
	fputc('[', f);
	for (size_t i = 0; v && i < n; i++) {
		if (i)
			fputc(',', f);
		put_double(f, FMT_JSON, v[i]);
	}
	fputc(']', f);
}

static void write_row(FILE *f, enum rg_fmt fmt, const struct rg_resultset *rs,
		      const struct rg_result *r)
{
	bool first = true;

	(void)first;
#define X(name, kind, since, doc)					\
	do {								\
		if (fmt == FMT_CSV) {					\
			if (!first)					\
				fputc(',', f);				\
		} else {						\
			fputs(first ? "{\"" #name "\":" : ",\"" #name "\":", f); \
		}							\
		first = false;						\
		PUT_##kind(f, fmt, COL_##name(r, rs));			\
	} while (0);
	RG_RESULT_COLUMNS(X)
#undef X
	if (fmt == FMT_CSV) {
		fputc('\n', f);
	} else {
		fputs(",\"samples_ns\":", f);
		put_samples(f, r->samples_ns, r->nsamples);
		fputs(",\"samples_mops\":", f);
		put_samples(f, r->samples_mops, r->nsamples);
		fputs(",\"samples_wall_ns\":", f);
		put_samples(f, r->samples_wall_ns, r->nsamples);
		fputs(",\"samples_delta_ns\":", f);
		put_samples(f, r->samples_delta_ns, r->nsamples);
		if (r->samples_cpu_ns) {
			/* bpf rows: only where measured, so that other rows stay as they were */
			fputs(",\"samples_cpu_ns\":", f);
			put_samples(f, r->samples_cpu_ns, r->nsamples);
			fputs(",\"samples_cpu_delta_ns\":", f);
			put_samples(f, r->samples_cpu_delta_ns, r->nsamples);
		}
		fprintf(f, ",\"work_units\":%ld", r->work_units);
		if (r->nruns) {
			fputs(",\"runs_ns\":", f);
			put_samples(f, r->runs_ns, r->nruns);
			fputs(",\"runs_delta_ns\":", f);
			put_samples(f, r->runs_delta_ns, r->nruns);
			fputs(",\"runs_where\":[", f);
			for (size_t i = 0; i < r->nruns; i++) {
				if (i)
					fputc(',', f);
				put_str(f, FMT_JSON, r->runs_where ? r->runs_where[i] : "");
			}
			fputc(']', f);
		}
		if (r->lat_hist_count) {
			fputs(",\"lat_hist\":[", f);
			for (size_t i = 0; i < r->lat_hist_n; i++) {
				fputs(i ? ",[" : "[", f);
				put_double(f, FMT_JSON, r->lat_hist_lo[i]);
				fputc(',', f);
				put_double(f, FMT_JSON, r->lat_hist_hi[i]);
				fprintf(f, ",%llu]", (unsigned long long)r->lat_hist_count[i]);
			}
			fputc(']', f);
		}
		fputc('}', f);
	}
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
		write_row(f, FMT_CSV, rs, &rs->rows[i]);
}

/* "k1":v1,"k2":v2 ... for n string values: the JSON header's hand-named fields. */
static void put_json_strs(FILE *f, const char *const kv[][2], size_t n)
{
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s\"%s\":", i ? "," : "", kv[i][0]);
		put_str(f, FMT_JSON, kv[i][1]);
	}
}

void rg_fmt_write_json(FILE *f, const struct rg_resultset *rs)
{
	const struct rg_env *e = &rs->env;
	const char *const run[][2] = {
		{ "rgbench_version", rg_version() }, { "run_id", rs->run_id },
		{ "timestamp", rs->timestamp },
	};
	const char *const machine[][2] = {
		{ "host", e->host }, { "arch", e->arch }, { "cpu_vendor", e->cpu_vendor },
		{ "cpu_model", e->cpu_model }, { "cpu_part", e->cpu_part },
		{ "kernel", e->kernel }, { "virt", e->virt },
	};
	const struct {
		const char *name;
		double v;
	} timer[] = {
		{ "hz", rs->timer.hz }, { "resolution_ns", rs->timer.resolution_ns },
		{ "overhead_ns", rs->timer.overhead_ns },
	};

	fprintf(f, "{\"schema_version\":%d,", RG_SCHEMA_VERSION);
	put_json_strs(f, run, sizeof(run) / sizeof(run[0]));
	fputs(",\"machine\":{", f);
	put_json_strs(f, machine, sizeof(machine) / sizeof(machine[0]));
	fprintf(f, ",\"lse\":%d,\"rseq\":%d,\"preempt\":", e->lse, e->rseq);
	put_str(f, FMT_JSON, e->preempt);
	fprintf(f, ",\"ncpus_online\":%d},\n", e->ncpus_online);
	if (rs->timer.source[0]) {
		fputs("\"timer\":{\"source\":", f);
		put_str(f, FMT_JSON, rs->timer.source);
		for (size_t i = 0; i < sizeof(timer) / sizeof(timer[0]); i++) {
			fprintf(f, ",\"%s\":", timer[i].name);
			put_double(f, FMT_JSON, timer[i].v);
		}
		fputs("},\n", f);
	}
	fputs("\"results\":[\n", f);
	for (size_t i = 0; i < rs->n; i++) {
		write_row(f, FMT_JSON, rs, &rs->rows[i]);
		fputs(i + 1 < rs->n ? ",\n" : "\n", f);
	}
	fputs("]}\n", f);
}

