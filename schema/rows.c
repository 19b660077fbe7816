// SPDX-License-Identifier: MIT
/* Result rows: a run's set of rows, its id, and appending ok or skipped rows. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>
#include <unistd.h>

#include "schema_int.h"

static bool ab_label_ok(const char *s)
{
	size_t n = strlen(s);

	if (n < 1 || n > 32 || !isalnum((unsigned char)s[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._-", s[i]))
			return false;
	return true;
}

/* YYYYMMDDTHHMMSSZ-<16 lowercase hex digits>, as rg_results_new_run_id() writes. */
static bool run_id_ok(const char *s)
{
	if (strlen(s) != 33 || s[8] != 'T' || s[15] != 'Z' || s[16] != '-')
		return false;
	for (int i = 0; i < 33; i++) {
		if (i == 8 || i == 15 || i == 16)
			continue;
		if (i < 15 ? !isdigit((unsigned char)s[i]) : !strchr("0123456789abcdef", s[i]))
			return false;
	}
	return true;
}

/* $RG_RUN_ID, $RG_AB_LABEL and $RG_AB_BOOT (rgbench ab's guests set them); a bad one exits 2. */
static void ab_from_env(struct rg_resultset *rs)
{
	const char *id = getenv("RG_RUN_ID"), *label = getenv("RG_AB_LABEL");
	const char *boot = getenv("RG_AB_BOOT");
	char *end;
	long b;

	rs->ab_boot = -1;
	if (id && *id) {
		if (!run_id_ok(id)) {
			fprintf(stderr, "rgbench: RG_RUN_ID '%.40s' is not a run id "
				"(YYYYMMDDTHHMMSSZ-16 lowercase hex digits)\n", id);
			exit(2);
		}
		snprintf(rs->run_id, sizeof(rs->run_id), "%s", id);
	}
	if (label && *label) {
		if (!ab_label_ok(label)) {
			fprintf(stderr, "rgbench: RG_AB_LABEL '%.40s' is not 1 to 32 of A-Z a-z 0-9 . _ - "
				"(a letter or digit first)\n", label);
			exit(2);
		}
		snprintf(rs->ab_label, sizeof(rs->ab_label), "%s", label);
	}
	if (boot && *boot) {
		errno = 0;
		b = strtol(boot, &end, 10);
		if (*end || errno || b < 1 || b > 100000 || !isdigit((unsigned char)boot[0])) {
			fprintf(stderr, "rgbench: RG_AB_BOOT '%.40s' is not a boot index (1 to 100000)\n", boot);
			exit(2);
		}
		rs->ab_boot = b;
	}
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
	ab_from_env(rs);
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

size_t rg_results_nerror(const struct rg_resultset *rs)
{
	size_t n = 0;

	for (size_t i = 0; i < rs->n; i++)
		n += !strcmp(rs->rows[i].status, "error");
	return n;
}

/* What one row holds beyond itself. */
static void row_free(struct rg_result *r)
{
	free(r->samples_ns);
	free(r->samples_mops);
	free(r->samples_wall_ns);
	free(r->samples_delta_ns);
	free(r->samples_cpu_ns);
	free(r->samples_cpu_delta_ns);
	free(r->lat_hist_lo);
	free(r->lat_hist_hi);
	free(r->lat_hist_count);
	free(r->runs_ns);
	free(r->runs_delta_ns);
	free(r->runs_where);
}

size_t rg_results_keep(struct rg_resultset *rs, bool (*keep)(const struct rg_result *, void *),
		       void *arg)
{
	size_t k = 0;

	for (size_t i = 0; i < rs->n; i++) {
		if (keep(&rs->rows[i], arg))
			rs->rows[k++] = rs->rows[i];
		else
			row_free(&rs->rows[i]);
	}
	rs->n = k;
	return k;
}

void rg_results_free(struct rg_resultset *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		row_free(&rs->rows[i]);
	free(rs->rows);
	rs->rows = NULL;
	rs->n = rs->cap = 0;
}

void *rg_grow(void *v, size_t *cap, size_t n, size_t elem, size_t first)
{
	size_t ncap;

	if (n < *cap)
		return v;
	ncap = *cap ? *cap * 2 : first;
	v = realloc(v, ncap * elem);
	if (v)
		*cap = ncap;
	return v;
}

struct rg_result *rg_results_add(struct rg_resultset *rs, const char *suite,
				 const char *guard, const char *scenario)
{
	struct rg_result *r, *rows;

	rows = rg_grow(rs->rows, &rs->cap, rs->n, sizeof(*rows), 32);
	if (!rows)
		return NULL;
	rs->rows = rows;
	r = &rs->rows[rs->n++];
	memset(r, 0, sizeof(*r));
	copy_str(r->suite, sizeof(r->suite), suite);
	copy_str(r->guard, sizeof(r->guard), guard);
	copy_str(r->scenario, sizeof(r->scenario), scenario);
	copy_str(r->pinning, sizeof(r->pinning), "none");
	copy_str(r->status, sizeof(r->status), "ok");
	copy_str(r->counters, sizeof(r->counters), "n/a");
	copy_str(r->events, sizeof(r->events), "n/a");
	copy_str(r->pmu_table, sizeof(r->pmu_table), "n/a");
	copy_str(r->role, sizeof(r->role), "n/a");
	copy_str(r->baseline, sizeof(r->baseline), "n/a");
	copy_str(r->interleave, sizeof(r->interleave), "none");
	copy_str(r->layout, sizeof(r->layout), "n/a");
	r->threads = 1;
	r->runs = 1;
	r->aa_floor_ns = NAN;
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

const char *rg_result_unit(const struct rg_result *r)
{
	return strcmp(r->suite, "bpf") ? "ns/pair" : "ns/event";
}
