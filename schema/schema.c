// SPDX-License-Identifier: MIT
/* Result rows in the shared schema: statistics and atomic CSV/JSON writers. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rg/schema.h"

#ifndef RG_VERSION
#define RG_VERSION "unknown"
#endif

static void copy_str(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src ? src : "");
}

void rg_results_init(struct rg_resultset *rs, const struct rg_env *env)
{
	time_t now = time(NULL);
	struct tm tm;

	memset(rs, 0, sizeof(*rs));
	rs->env = *env;
	gmtime_r(&now, &tm);
	strftime(rs->timestamp, sizeof(rs->timestamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	rg_results_new_run_id(rs);
}

void rg_results_new_run_id(struct rg_resultset *rs)
{
	unsigned char rnd[8];
	char stamp[24];
	struct tm tm;
	time_t now = time(NULL);

	/* getrandom() may fail only on ancient kernels; then pid and time still differ per run. */
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
		uint64_t v = ((uint64_t)getpid() << 32) ^ (uint64_t)now ^ (uint64_t)clock();

		memcpy(rnd, &v, sizeof(rnd));
	}
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	snprintf(rs->run_id, sizeof(rs->run_id), "%.16s-%02x%02x%02x%02x%02x%02x%02x%02x", stamp,
		 rnd[0], rnd[1], rnd[2], rnd[3], rnd[4], rnd[5], rnd[6], rnd[7]);
}

void rg_results_free(struct rg_resultset *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		free(rs->rows[i].samples_ns);
		free(rs->rows[i].samples_mops);
		free(rs->rows[i].samples_wall_ns);
		free(rs->rows[i].samples_delta_ns);
		free(rs->rows[i].lat_hist_lo);
		free(rs->rows[i].lat_hist_hi);
		free(rs->rows[i].lat_hist_count);
	}
	free(rs->rows);
	rs->rows = NULL;
	rs->n = rs->cap = 0;
}

struct rg_result *rg_results_add(struct rg_resultset *rs, const char *suite,
				 const char *guard, const char *scenario)
{
	struct rg_result *r;

	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 32;
		struct rg_result *rows = realloc(rs->rows, cap * sizeof(*rows));

		if (!rows)
			return NULL;
		rs->rows = rows;
		rs->cap = cap;
	}
	r = &rs->rows[rs->n++];
	memset(r, 0, sizeof(*r));
	copy_str(r->suite, sizeof(r->suite), suite);
	copy_str(r->guard, sizeof(r->guard), guard);
	copy_str(r->scenario, sizeof(r->scenario), scenario);
	copy_str(r->pinning, sizeof(r->pinning), "none");
	copy_str(r->status, sizeof(r->status), "ok");
	copy_str(r->counters, sizeof(r->counters), "n/a");
	copy_str(r->events, sizeof(r->events), "n/a");
	copy_str(r->role, sizeof(r->role), "n/a");
	copy_str(r->baseline, sizeof(r->baseline), "n/a");
	copy_str(r->interleave, sizeof(r->interleave), "none");
	r->threads = 1;
	r->ns_median = r->ns_mean = r->ns_stddev = NAN;
	r->ns_min = r->ns_max = r->ns_cv = NAN;
	r->mops_median = r->mops_mean = r->mops_stddev = r->mops_per_thread = NAN;
	r->cycles_per_pair = r->instructions_per_pair = NAN;
	r->delta_ns = r->delta_ci_lo = r->delta_ci_hi = r->delta_ci_level = NAN;
	r->duty_in_ns = r->ref_ns_per_cycle = r->ref_cv = r->ref_cycles_per_pair = NAN;
	r->cpu_ns_median = r->wall_ns_median = NAN;
	r->lat_p50_ns = r->lat_p90_ns = r->lat_p99_ns = r->lat_p999_ns = r->lat_max_ns = NAN;
	return r;
}

struct rg_result *rg_results_skip(struct rg_resultset *rs, const char *suite,
				  const char *guard, const char *scenario,
				  const char *fmt, ...)
{
	struct rg_result *r = rg_results_add(rs, suite, guard, scenario);
	va_list ap;

	if (!r)
		return NULL;
	copy_str(r->status, sizeof(r->status), "skipped");
	va_start(ap, fmt);
	vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
	va_end(ap);
	return r;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double rg_stat_median(const double *v, size_t n)
{
	double *tmp, m;

	if (!n)
		return NAN;
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return NAN;
	memcpy(tmp, v, n * sizeof(*tmp));
	qsort(tmp, n, sizeof(*tmp), cmp_double);
	m = n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2.0;
	free(tmp);
	return m;
}

double rg_stat_mean(const double *v, size_t n)
{
	double s = 0;

	if (!n)
		return NAN;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	return s / (double)n;
}

double rg_stat_stddev(const double *v, size_t n)
{
	double m, s = 0;

	if (n < 2)
		return NAN;	/* one sample says nothing about spread: n/a, not 0 */
	m = rg_stat_mean(v, n);
	for (size_t i = 0; i < n; i++)
		s += (v[i] - m) * (v[i] - m);
	return sqrt(s / (double)(n - 1));
}

/* xorshift64*: a small fixed-seed generator for the bootstrap (reproducible intervals). */
static uint64_t boot_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

int rg_stat_paired_delta(const double *x, const double *base, size_t n,
			 double *median, double *lo, double *hi)
{
	double *d, *res, *meds;
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	*median = *lo = *hi = NAN;
	if (!n)
		return 0;
	d = malloc(n * sizeof(*d));
	res = malloc(n * sizeof(*res));
	meds = malloc(RG_BOOT_RESAMPLES * sizeof(*meds));
	if (!d || !res || !meds) {
		free(d);
		free(res);
		free(meds);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		d[i] = x[i] - base[i];
	*median = rg_stat_median(d, n);
	if (n >= 2) {
		for (size_t b = 0; b < RG_BOOT_RESAMPLES; b++) {
			for (size_t i = 0; i < n; i++)
				res[i] = d[boot_next(&seed) % n];
			qsort(res, n, sizeof(*res), cmp_double);
			meds[b] = n % 2 ? res[n / 2] : (res[n / 2 - 1] + res[n / 2]) / 2.0;
		}
		qsort(meds, RG_BOOT_RESAMPLES, sizeof(*meds), cmp_double);
		*lo = meds[(size_t)(0.025 * RG_BOOT_RESAMPLES)];
		*hi = meds[(size_t)(0.975 * RG_BOOT_RESAMPLES) - 1];
	}
	free(d);
	free(res);
	free(meds);
	return 0;
}

int rg_result_set_delta(struct rg_result *r, const char *baseline,
			const double *x, const double *base, size_t n)
{
	copy_str(r->baseline, sizeof(r->baseline), baseline);
	return rg_stat_paired_delta(x, base, n, &r->delta_ns, &r->delta_ci_lo, &r->delta_ci_hi);
}

static double *dup_samples(const double *v, size_t n)
{
	double *d;

	if (!v || !n)
		return NULL;
	d = malloc(n * sizeof(*d));
	if (d)
		memcpy(d, v, n * sizeof(*d));
	return d;
}

int rg_result_set_round_samples(struct rg_result *r, const double *wall_ns,
				const double *x, const double *base, size_t n)
{
	double *w = dup_samples(wall_ns, n), *d = NULL;

	if (wall_ns && n && !w)
		return -ENOMEM;
	if (x && base && n) {
		d = malloc(n * sizeof(*d));
		if (!d) {
			free(w);
			return -ENOMEM;
		}
		for (size_t i = 0; i < n; i++)
			d[i] = x[i] - base[i];
	}
	free(r->samples_wall_ns);
	free(r->samples_delta_ns);
	r->samples_wall_ns = w;
	r->samples_delta_ns = d;
	if (w)
		r->wall_ns_median = rg_stat_median(w, n);
	return 0;
}

int rg_result_set_samples(struct rg_result *r, const double *ns,
			  const double *mops, size_t n)
{
	double *sns = dup_samples(ns, n), *smops = dup_samples(mops, n);

	if ((ns && n && !sns) || (mops && n && !smops)) {
		free(sns);
		free(smops);
		return -ENOMEM;
	}
	free(r->samples_ns);
	free(r->samples_mops);
	r->samples_ns = sns;
	r->samples_mops = smops;
	r->nsamples = n;
	r->repetitions = (long)n;
	if (sns) {
		r->ns_median = rg_stat_median(sns, n);
		r->ns_mean = rg_stat_mean(sns, n);
		r->ns_stddev = rg_stat_stddev(sns, n);
		r->ns_min = r->ns_max = sns[0];
		for (size_t i = 1; i < n; i++) {
			r->ns_min = fmin(r->ns_min, sns[i]);
			r->ns_max = fmax(r->ns_max, sns[i]);
		}
		r->ns_cv = r->ns_mean > 0 ? r->ns_stddev / r->ns_mean : NAN;
	}
	if (smops) {
		r->mops_median = rg_stat_median(smops, n);
		r->mops_mean = rg_stat_mean(smops, n);
		r->mops_stddev = rg_stat_stddev(smops, n);
		r->mops_per_thread = r->threads > 0 ? r->mops_median / (double)r->threads : NAN;
	}
	return 0;
}

int rg_result_set_lat_hist(struct rg_result *r, const double *lo, const double *hi,
			   const uint64_t *count, size_t n)
{
	free(r->lat_hist_lo);
	free(r->lat_hist_hi);
	free(r->lat_hist_count);
	r->lat_hist_n = 0;
	r->lat_hist_lo = malloc((n ? n : 1) * sizeof(double));
	r->lat_hist_hi = malloc((n ? n : 1) * sizeof(double));
	r->lat_hist_count = malloc((n ? n : 1) * sizeof(uint64_t));
	if (!r->lat_hist_lo || !r->lat_hist_hi || !r->lat_hist_count)
		return -ENOMEM;
	memcpy(r->lat_hist_lo, lo, n * sizeof(double));
	memcpy(r->lat_hist_hi, hi, n * sizeof(double));
	memcpy(r->lat_hist_count, count, n * sizeof(uint64_t));
	r->lat_hist_n = n;
	return 0;
}

/* ---- writers ---------------------------------------------------------- */

enum fmt { FMT_CSV, FMT_JSON };

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

/*
 * A string value as one printable line: the reader refuses control characters
 * (a reason from a library may end in '\n'), so tab, CR and LF become spaces,
 * other C0 controls, DEL and C1 controls (UTF-8 C2 80-9F) become '?'.
 */
static void put_str(FILE *f, enum fmt fmt, const char *s)
{
	char buf[1024], *o = buf;

	for (const unsigned char *p = (const unsigned char *)s; *p && o < buf + sizeof(buf) - 1; p++) {
		if (*p == '\t' || *p == '\r' || *p == '\n') {
			*o++ = ' ';
		} else if (*p < 0x20 || *p == 0x7f) {
			*o++ = '?';
		} else if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
			*o++ = '?';
			p++;
		} else {
			*o++ = (char)*p;
		}
	}
	*o = '\0';
	if (fmt == FMT_CSV)
		rg_csv_put_field(f, buf);
	else
		put_json_str(f, buf);
}

static void put_double(FILE *f, enum fmt fmt, double v)
{
	if (isnan(v) || isinf(v))
		fputs(fmt == FMT_CSV ? "n/a" : "null", f);
	else
		fprintf(f, "%.6g", v);
}

/* The value of every column for one row, through the column X-macro. */
#define COL_schema_version(r, rs)	(long)RG_SCHEMA_VERSION
#define COL_rgbench_version(r, rs)	RG_VERSION
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
#define COL_refusals(r, rs)		(r)->refusals
#define COL_ops(r, rs)			(r)->ops
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

static void write_row(FILE *f, enum fmt fmt, const struct rg_resultset *rs,
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
		fprintf(f, ",\"work_units\":%ld", r->work_units);
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

static void write_csv(FILE *f, const struct rg_resultset *rs)
{
	const char *h = rg_results_csv_header();

	/* The X-macro leaves a trailing comma: drop it. */
	fwrite(h, 1, strlen(h) - 1, f);
	fputc('\n', f);
	for (size_t i = 0; i < rs->n; i++)
		write_row(f, FMT_CSV, rs, &rs->rows[i]);
}

static void write_json(FILE *f, const struct rg_resultset *rs)
{
	const struct rg_env *e = &rs->env;

	fprintf(f, "{\"schema_version\":%d,\"rgbench_version\":", RG_SCHEMA_VERSION);
	put_json_str(f, RG_VERSION);
	fputs(",\"run_id\":", f);
	put_json_str(f, rs->run_id);
	fputs(",\"timestamp\":", f);
	put_json_str(f, rs->timestamp);
	fputs(",\"machine\":{\"host\":", f);
	put_json_str(f, e->host);
	fputs(",\"arch\":", f);
	put_json_str(f, e->arch);
	fputs(",\"cpu_vendor\":", f);
	put_json_str(f, e->cpu_vendor);
	fputs(",\"cpu_model\":", f);
	put_json_str(f, e->cpu_model);
	fputs(",\"cpu_part\":", f);
	put_json_str(f, e->cpu_part);
	fputs(",\"kernel\":", f);
	put_json_str(f, e->kernel);
	fputs(",\"virt\":", f);
	put_json_str(f, e->virt);
	fprintf(f, ",\"lse\":%d,\"rseq\":%d,\"preempt\":", e->lse, e->rseq);
	put_json_str(f, e->preempt);
	fprintf(f, ",\"ncpus_online\":%d},\n", e->ncpus_online);
	if (rs->timer.source[0]) {
		fputs("\"timer\":{\"source\":", f);
		put_json_str(f, rs->timer.source);
		fputs(",\"hz\":", f);
		put_double(f, FMT_JSON, rs->timer.hz);
		fputs(",\"resolution_ns\":", f);
		put_double(f, FMT_JSON, rs->timer.resolution_ns);
		fputs(",\"overhead_ns\":", f);
		put_double(f, FMT_JSON, rs->timer.overhead_ns);
		fputs("},\n", f);
	}
	fputs("\"results\":[\n", f);
	for (size_t i = 0; i < rs->n; i++) {
		write_row(f, FMT_JSON, rs, &rs->rows[i]);
		fputs(i + 1 < rs->n ? ",\n" : "\n", f);
	}
	fputs("]}\n", f);
}

/* ---- output paths: temporary and lock names, checks, locks ----------------- */

/* FNV-1a, 64 bits: a short stand-in for a name too long to extend. */
static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* The directory part of path ("." when none) and the start of the name. */
static const char *split_path(const char *path, char *dir, size_t dirlen)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, dirlen, ".");
	else if (slash == path)
		snprintf(dir, dirlen, "/");
	else
		snprintf(dir, dirlen, "%.*s", (int)(slash - path), path);
	return slash ? slash + 1 : path;
}

static long name_max(const char *dir)
{
	long m = pathconf(dir, _PC_NAME_MAX);

	return m > 0 ? m : NAME_MAX;
}

/*
 * A hidden file beside path: "DIR/.NAME<suffix>", or "DIR/.rgbench-HASH<suffix>"
 * when that name would exceed the directory's NAME_MAX. Deterministic, so two
 * runs on the same path agree on the lock name. 0 or -ENAMETOOLONG.
 */
static int side_name(char *buf, size_t len, const char *path, const char *suffix)
{
	char dir[PATH_MAX];
	const char *base = split_path(path, dir, sizeof(dir));
	int n;

	if (strlen(base) + 1 + strlen(suffix) <= (size_t)name_max(dir))
		n = snprintf(buf, len, "%.*s.%s%s", (int)(base - path), path, base, suffix);
	else
		n = snprintf(buf, len, "%.*s.rgbench-%016llx%s", (int)(base - path), path,
			     (unsigned long long)name_hash(base), suffix);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int rg_output_tmp_name(char *buf, size_t len, const char *path)
{
	char sfx[32];

	snprintf(sfx, sizeof(sfx), ".%d.tmp", (int)getpid());
	return side_name(buf, len, path, sfx);
}

/* 0 when path does not exist or is a regular file; else why not to replace it. */
static int replaceable(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (S_ISREG(st.st_mode))
		return 0;
	return S_ISDIR(st.st_mode) ? -EISDIR : -EEXIST;
}

/* A fresh temporary file beside path, its name in tmp; NULL with -errno in *err. */
static FILE *open_tmp(const char *path, char *tmp, size_t tmplen, int *err)
{
	FILE *f;
	int fd;

	*err = rg_output_tmp_name(tmp, tmplen, path);
	if (*err)
		return NULL;
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		*err = -errno;
		return NULL;
	}
	f = fdopen(fd, "w");
	if (!f) {
		*err = -errno;
		close(fd);
		unlink(tmp);
	}
	return f;
}

/* Flush, fsync and close a temporary file; removed again on error. 0 or -errno. */
static int close_tmp(FILE *f, const char *tmp)
{
	int err = 0;

	if (fflush(f) || ferror(f) || fsync(fileno(f)))
		err = -(errno ? errno : EIO);
	if (fclose(f) && !err)
		err = -(errno ? errno : EIO);
	if (err)
		unlink(tmp);
	return err;
}

/* Write one file to a fresh temporary name, fsync'ed; the caller renames it. */
static int write_tmp(const struct rg_resultset *rs, const char *path, enum fmt fmt,
		     char *tmp, size_t tmplen)
{
	int err;
	FILE *f = open_tmp(path, tmp, tmplen, &err);

	if (!f)
		return err;
	if (fmt == FMT_CSV)
		write_csv(f, rs);
	else
		write_json(f, rs);
	return close_tmp(f, tmp);
}

/* Rename tmp over path unless path became something other than a regular file. */
static int publish(const char *tmp, const char *path)
{
	int err = replaceable(path);

	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

static int write_atomic(const struct rg_resultset *rs, const char *path, enum fmt fmt)
{
	char tmp[PATH_MAX + 64];
	int err = replaceable(path);

	if (!err)
		err = write_tmp(rs, path, fmt, tmp, sizeof(tmp));
	if (!err)
		err = publish(tmp, path);
	return err;
}

int rg_results_write_csv(const struct rg_resultset *rs, const char *path)
{
	return write_atomic(rs, path, FMT_CSV);
}

int rg_results_write_json(const struct rg_resultset *rs, const char *path)
{
	return write_atomic(rs, path, FMT_JSON);
}

int rg_results_write(const struct rg_resultset *rs, const char *csv, const char *json,
		     char *err, size_t errlen)
{
	const char *path[2] = { csv, json };
	char tmp[2][PATH_MAX + 64];
	bool made[2] = { false, false };
	int rc = 0, i;

	for (i = 0; i < 2 && !rc; i++) {
		if (!path[i])
			continue;
		rc = replaceable(path[i]);
		if (!rc)
			rc = write_tmp(rs, path[i], i ? FMT_JSON : FMT_CSV, tmp[i], sizeof(tmp[i]));
		made[i] = !rc;
	}
	if (rc) {
		snprintf(err, errlen, "cannot write %s: %s", path[i - 1], strerror(-rc));
		for (i = 0; i < 2; i++)
			if (made[i])
				unlink(tmp[i]);
		return rc;
	}
	/* Both complete on disk: the two renames follow each other immediately. */
	for (i = 0; i < 2; i++) {
		if (!path[i])
			continue;
		rc = publish(tmp[i], path[i]);
		if (rc) {
			snprintf(err, errlen, "cannot write %s: %s", path[i], strerror(-rc));
			if (i == 0 && made[1])
				unlink(tmp[1]);
			return rc;
		}
	}
	return 0;
}

int rg_output_write(const char *path, const char *data, size_t len, char *err, size_t errlen)
{
	char tmp[PATH_MAX + 64];
	FILE *f = NULL;
	int rc = replaceable(path);

	if (!rc)
		f = open_tmp(path, tmp, sizeof(tmp), &rc);
	if (f) {
		fwrite(data, 1, len, f);	/* a short write sets ferror(), which close_tmp() reports */
		rc = close_tmp(f, tmp);
	}
	if (!rc)
		rc = publish(tmp, path);
	if (rc)
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(-rc));
	return rc;
}

/* Output locks this process holds: a flock()ed file beside each output. */
#define RG_MAX_OUTPUT_LOCKS 8
static struct {
	int fd;
	pid_t pid;		/* the taker: a forked child must not remove its parent's */
	char path[PATH_MAX + 64];
} g_locks[RG_MAX_OUTPUT_LOCKS];
static int g_nlocks;

/* Drop the locks from index keep on (the lock goes with the last descriptor). */
static void drop_locks(int keep)
{
	while (g_nlocks > keep) {
		g_nlocks--;
		/* Unlink while still holding it: a waiter that opened it re-checks the inode. */
		if (g_locks[g_nlocks].pid == getpid())
			unlink(g_locks[g_nlocks].path);
		close(g_locks[g_nlocks].fd);
	}
}

void rg_output_release(void)
{
	drop_locks(0);
}

/* 0 locked; 1 with err set (errno EBUSY when another live process holds it). */
static int take_lock(const char *path, char *err, size_t errlen)
{
	static bool registered;
	char lock[PATH_MAX + 64], pid[32];
	struct stat a, b;
	int fd;

	if (g_nlocks == RG_MAX_OUTPUT_LOCKS) {
		snprintf(err, errlen, "%s: too many output files", path);
		errno = EMFILE;
		return 1;
	}
	if (side_name(lock, sizeof(lock), path, ".lock")) {
		snprintf(err, errlen, "%s: path too long", path);
		errno = ENAMETOOLONG;
		return 1;
	}
	if (!registered) {
		atexit(rg_output_release);
		registered = true;
	}
	for (int tries = 0; tries < 100; tries++) {
		ssize_t n;

		fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (fd < 0) {
			int e = errno;

			snprintf(err, errlen, "%s: cannot create the lock file %s: %s", path, lock,
				 strerror(e));
			errno = e;
			return 1;
		}
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			int e = errno;

			n = pread(fd, pid, sizeof(pid) - 1, 0);
			pid[n > 0 ? n : 0] = '\0';
			pid[strcspn(pid, "\n")] = '\0';
			close(fd);
			if (e == EWOULDBLOCK) {
				snprintf(err, errlen, "%s is being written by another rgbench run "
					 "(pid %s, lock %s)", path, *pid ? pid : "?", lock);
				errno = EBUSY;
			} else {
				snprintf(err, errlen, "%s: cannot lock %s: %s", path, lock, strerror(e));
				errno = e;
			}
			return 1;
		}
		/* The holder before us may have unlinked it: then lock the new file. */
		if (!fstat(fd, &a) && !stat(lock, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			break;
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot lock %s: it keeps changing", path, lock);
		errno = EAGAIN;
		return 1;
	}
	/* Whatever a dead holder left in it, the file now says who holds it. */
	{
		int len = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());

		if (ftruncate(fd, 0) || pwrite(fd, pid, (size_t)len, 0) != len) {
			int e = errno;

			snprintf(err, errlen, "%s: cannot write the lock file %s: %s", path, lock,
				 strerror(e));
			unlink(lock);
			close(fd);
			errno = e;
			return 1;
		}
	}
	g_locks[g_nlocks].fd = fd;
	g_locks[g_nlocks].pid = getpid();
	snprintf(g_locks[g_nlocks].path, sizeof(g_locks[g_nlocks].path), "%s", lock);
	g_nlocks++;
	return 0;
}

struct out_id {
	dev_t dev;
	ino_t ino;
	const char *base;
};

/* Everything about one output path that can be known before the run. 0 or 2. */
static int check_path(const char *path, struct out_id *id, char *err, size_t errlen)
{
	char dir[PATH_MAX], side[PATH_MAX + 64];
	const char *base;
	struct stat st;
	size_t len = strlen(path);

	if (!len || path[len - 1] == '/')
		return snprintf(err, errlen, "%s: not a file name", path), 2;
	if (len >= PATH_MAX)
		return snprintf(err, errlen, "%.64s...: path longer than %d bytes", path, PATH_MAX - 1), 2;
	base = split_path(path, dir, sizeof(dir));
	if (!strcmp(base, ".") || !strcmp(base, ".."))
		return snprintf(err, errlen, "%s: not a file name", path), 2;
	if (stat(dir, &st))
		return snprintf(err, errlen, "%s: directory %s does not exist", path, dir), 2;
	if (!S_ISDIR(st.st_mode))
		return snprintf(err, errlen, "%s: %s is not a directory", path, dir), 2;
	if (access(dir, W_OK | X_OK))
		return snprintf(err, errlen, "%s: directory %s is not writable", path, dir), 2;
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	id->base = base;
	if (strlen(base) > (size_t)name_max(dir))
		return snprintf(err, errlen, "%s: file name longer than %ld bytes", path, name_max(dir)), 2;
	if (rg_output_tmp_name(side, sizeof(side), path) || side_name(side, sizeof(side), path, ".lock"))
		return snprintf(err, errlen, "%s: path too long for its temporary file", path), 2;
	if (lstat(path, &st)) {
		if (errno != ENOENT)
			return snprintf(err, errlen, "%s: %s", path, strerror(errno)), 2;
		return 0;
	}
	if (S_ISLNK(st.st_mode))
		return snprintf(err, errlen, "%s: is a symbolic link (rgbench neither follows nor "
				"replaces links; give the target's path)", path), 2;
	if (S_ISDIR(st.st_mode))
		return snprintf(err, errlen, "%s: is a directory", path), 2;
	if (!S_ISREG(st.st_mode))
		return snprintf(err, errlen, "%s: exists and is not a regular file (%s)", path,
				S_ISCHR(st.st_mode) ? "a character device" :
				S_ISBLK(st.st_mode) ? "a block device" :
				S_ISFIFO(st.st_mode) ? "a FIFO" :
				S_ISSOCK(st.st_mode) ? "a socket" : "not a file"), 2;
	return 0;
}

int rg_output_checkv(const char *const *paths, size_t n, char *err, size_t errlen)
{
	struct out_id id[RG_MAX_OUTPUT_LOCKS];
	int held = g_nlocks;

	if (n > RG_MAX_OUTPUT_LOCKS)
		return snprintf(err, errlen, "too many output files"), 2;
	for (size_t i = 0; i < n; i++) {
		if (!paths[i])
			continue;
		if (check_path(paths[i], &id[i], err, errlen))
			return 2;
		for (size_t k = 0; k < i; k++)
			if (paths[k] && id[k].dev == id[i].dev && id[k].ino == id[i].ino &&
			    !strcmp(id[k].base, id[i].base))
				return snprintf(err, errlen, "%s and %s are the same file: each "
						"output needs its own", paths[k], paths[i]), 2;
	}
	for (size_t i = 0; i < n; i++) {
		if (paths[i] && take_lock(paths[i], err, errlen)) {
			int e = errno;

			drop_locks(held);	/* all or nothing: what this call took */
			errno = e;
			return 1;
		}
	}
	return 0;
}

int rg_output_check(const char *csv, const char *json, char *err, size_t errlen)
{
	const char *p[2] = { csv, json };

	return rg_output_checkv(p, 2, err, errlen);
}
