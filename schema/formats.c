// SPDX-License-Identifier: MIT
/* The CSV and JSON formats of a result set: one column list, one row writer for both. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rg/version.h"
#include "schema_int.h"

void rg_csv_put_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

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

/* The length of the valid UTF-8 sequence at p (2 to 4 bytes), or 0. */
static size_t utf8_seq(const unsigned char *p)
{
	size_t need;
	unsigned int cp;

	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		need = 1;
		cp = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		need = 2;
		cp = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		need = 3;
		cp = p[0] & 0x07;
	} else {
		return 0;
	}
	for (size_t k = 1; k <= need; k++) {
		if ((p[k] & 0xc0) != 0x80)	/* also stops at the terminating NUL */
			return 0;
		cp = (cp << 6) | (p[k] & 0x3f);
	}
	if ((need == 2 && cp < 0x800) || (need == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return need + 1;
}

size_t rg_utf8_repair(char *s)
{
	size_t bad = 0;

	for (unsigned char *p = (unsigned char *)s; *p;) {
		size_t n = *p >= 0x80 ? utf8_seq(p) : 1;

		if (!n) {
			*p = '?';
			n = 1;
			bad++;
		}
		p += n;
	}
	return bad;
}

/*
 * A format character that reorders or breaks the text it sits in: the bidi
 * embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069), the
 * marks U+200E, U+200F and U+061C, and the line and paragraph separators
 * U+2028, U+2029. A name holding one would reverse a table's cells or break
 * the one-line promise; p is a valid sequence of n bytes.
 */
static bool is_format_char(const unsigned char *p, size_t n)
{
	if (n == 2)
		return p[0] == 0xd8 && p[1] == 0x9c;
	if (n != 3 || p[0] != 0xe2)
		return false;
	return (p[1] == 0x80 && ((p[2] >= 0xa8 && p[2] <= 0xae) || p[2] == 0x8e || p[2] == 0x8f)) ||
	       (p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9);
}

bool rg_str_is_printable(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = *p >= 0x80 ? utf8_seq(p) : 1;

		if (*p < 0x20 || *p == 0x7f || !n || (n == 2 && p[0] == 0xc2 && p[1] <= 0x9f) ||
		    is_format_char(p, n))
			return false;
		p += n;
	}
	return true;
}

size_t rg_str_printable(char *dst, size_t size, const char *src)
{
	const unsigned char *p = (const unsigned char *)src;
	size_t o = 0;

	while (*p && o + 1 < size) {
		size_t n = *p >= 0x80 ? utf8_seq(p) : 1;

		if (*p == '\t' || *p == '\r' || *p == '\n') {
			dst[o++] = ' ';
		} else if (*p < 0x20 || *p == 0x7f || !n || (n == 2 && p[0] == 0xc2 && p[1] <= 0x9f) ||
			   is_format_char(p, n)) {
			dst[o++] = '?';		/* a control, a bidi/line format character or a byte outside valid UTF-8 */
			n = n ? n : 1;
		} else if (o + n < size) {
			memcpy(dst + o, p, n);
			o += n;
		} else {
			break;			/* never half a character */
		}
		p += n;
	}
	dst[o] = '\0';
	return o;
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

