// SPDX-License-Identifier: MIT
/* The JSON writer (jansson) read back by the project's reader: every number bit for bit, every string as written; the CSV's missing numbers empty. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rg/results.h"
#include "rg/schema.h"
#include "check.h"

/* Doubles that a %.6g writer would change: long mantissas, short decimals that binary cannot hold, tiny and huge. */
static const double awkward[] = {
	1.1010712345678e+06, 0.1, 1e-300, 1.7976931348623157e+308, 0.30000000000000004, 123456789.12345679, 3.0, 1.0 / 3.0,
	6.02214076e23, 299792458.0, 9007199254740993.0, 0.000123456789012345678,
};
#define NAWK (sizeof(awkward) / sizeof(awkward[0]))

/* The i-th awkward value, negative when neg (a difference). */
static double awk(size_t i, bool neg)
{
	double v = awkward[i % NAWK];

	return neg ? -v : v;
}

static bool same(double a, double b)
{
	return (isnan(a) && isnan(b)) || !memcmp(&a, &b, sizeof(a));
}

static void check_array(const char *what, size_t row, const double *got, size_t ngot,
			const double *want, size_t nwant)
{
	CHECK(ngot == nwant, "row %zu %s: %zu values back, %zu written", row, what, ngot, nwant);
	for (size_t i = 0; i < ngot && i < nwant && got; i++)
		CHECK(same(got[i], want[i]), "row %zu %s[%zu]: %.17g back, %.17g written", row, what, i,
		      got[i], want[i]);
}

/* Every D column of the row, by X-macro: its address in struct rg_result and whether it may be negative. */
struct dcol {
	int col;
	size_t off;
	bool neg;
};

static const struct dcol dcols[] = {
#define D_duty_in_ns		offsetof(struct rg_result, duty_in_ns)
#define D_ns_median		offsetof(struct rg_result, ns_median)
#define D_ns_mean		offsetof(struct rg_result, ns_mean)
#define D_ns_stddev		offsetof(struct rg_result, ns_stddev)
#define D_ns_min		offsetof(struct rg_result, ns_min)
#define D_ns_max		offsetof(struct rg_result, ns_max)
#define D_ns_cv			offsetof(struct rg_result, ns_cv)
#define D_delta_ns		offsetof(struct rg_result, delta_ns)
#define D_delta_ci_lo		offsetof(struct rg_result, delta_ci_lo)
#define D_delta_ci_hi		offsetof(struct rg_result, delta_ci_hi)
#define D_delta_ci_level	offsetof(struct rg_result, delta_ci_level)
#define D_aa_floor_ns		offsetof(struct rg_result, aa_floor_ns)
#define D_cpu_ns_median		offsetof(struct rg_result, cpu_ns_median)
#define D_wall_ns_median	offsetof(struct rg_result, wall_ns_median)
#define D_lat_p50_ns		offsetof(struct rg_result, lat_p50_ns)
#define D_lat_p90_ns		offsetof(struct rg_result, lat_p90_ns)
#define D_lat_p99_ns		offsetof(struct rg_result, lat_p99_ns)
#define D_lat_p999_ns		offsetof(struct rg_result, lat_p999_ns)
#define D_lat_max_ns		offsetof(struct rg_result, lat_max_ns)
#define D_mops_median		offsetof(struct rg_result, mops_median)
#define D_mops_mean		offsetof(struct rg_result, mops_mean)
#define D_mops_stddev		offsetof(struct rg_result, mops_stddev)
#define D_mops_per_thread	offsetof(struct rg_result, mops_per_thread)
#define D_cycles_per_pair	offsetof(struct rg_result, cycles_per_pair)
#define D_instructions_per_pair	offsetof(struct rg_result, instructions_per_pair)
#define D_ref_ns_per_cycle	offsetof(struct rg_result, ref_ns_per_cycle)
#define D_ref_cv		offsetof(struct rg_result, ref_cv)
#define D_ref_cycles_per_pair	offsetof(struct rg_result, ref_cycles_per_pair)
#define DCOL_S(name)
#define DCOL_I(name)
#define DCOL_U(name)
#define DCOL_B(name)
#define DCOL_D(name) { RG_COL_##name, D_##name, RG_COL_##name == RG_COL_delta_ns || \
		       RG_COL_##name == RG_COL_delta_ci_lo || RG_COL_##name == RG_COL_delta_ci_hi },
#define X(name, kind, since, doc) DCOL_##kind(name)
	RG_RESULT_COLUMNS(X)
#undef X
};
#define NDCOLS (sizeof(dcols) / sizeof(dcols[0]))

static double *dptr(struct rg_result *r, const struct dcol *d)
{
	return (double *)((char *)r + d->off);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, n;
	char chunk[4096];

	if (!f)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		char *b = realloc(buf, len + n + 1);

		if (!b)
			break;
		buf = b;
		memcpy(buf + len, chunk, n);
		len += n;
		buf[len] = 0;
	}
	fclose(f);
	return buf;
}

int main(void)
{
	struct rg_resultset rs;
	struct rg_env e;
	struct rg_rows back = { 0 };
	char dir[] = "/tmp/rg-roundtrip-XXXXXX", json[64], csv[64], err[1024] = "";
	enum { NROWS = 3, NS = 7, NRUNS = 3, NLAT = 4 };
	double ns[NS], mops[NS], wall[NS], delta[NS], cpu[NS], cpud[NS];
	double run_ns[NRUNS], run_delta[NRUNS];
	char where[NRUNS][RG_RUN_WHERE_LEN] = { "slots 0x1000, \"stack\" \\ 4k", "é ü 中", "" };
	double lo[NLAT] = { 1e-300, 0.1, 1.1010712345678e+06, 1.7976931348623157e+300 };
	double hi[NLAT] = { 0.1, 0.30000000000000004, 1.1010712345679e+06, NAN };
	uint64_t cnt[NLAT] = { 1, 0, 123456789012ull, 7 };
	char *text;

	memset(&e, 0, sizeof(e));
	snprintf(e.host, sizeof(e.host), "h\"q\\u");
	snprintf(e.arch, sizeof(e.arch), "x86_64");
	snprintf(e.cpu_model, sizeof(e.cpu_model), "Zen, \"4\" ∞");
	snprintf(e.kernel, sizeof(e.kernel), "6.1");
	rg_results_init(&rs, &e);
	for (size_t k = 0; k < NROWS; k++) {
		char g[16];
		struct rg_result *r;

		snprintf(g, sizeof(g), "g%zu", k);
		r = rg_results_add(&rs, k == 2 ? "bpf" : "user", g, "pair");
		CHECK(r != NULL, "add");
		if (!r)
			return 1;
		for (size_t i = 0; i < NS; i++) {
			ns[i] = awk(i + k, false);
			mops[i] = awk(i + k + 3, false);
			wall[i] = awk(i + k + 5, false);
			delta[i] = awk(i + k + 1, i % 2);
			cpu[i] = awk(i + k + 2, false);
			cpud[i] = awk(i + k + 4, i % 3 == 0);
		}
		/*
		 * The row's arrays through the one setter (runs of 2, 3 and 2 rounds, paired
		 * against the rounds themselves), then the awkward values (negative
		 * differences, runs of any value) set by hand over what it computed.
		 */
		struct rg_measured m = {
			.n = NS, .ns = ns, .mops = mops, .wall_ns = wall,
			.cpu_ns = k == 2 ? cpu : NULL,
			.baseline = "noop", .base = ns, .nbase = NS, .keep_diffs = true,
			.nruns = NRUNS, .run_end = (const size_t[NRUNS]){ 2, 5, NS },
			.run_where = (const char (*)[RG_RUN_WHERE_LEN])where, .runs_paired = true,
			.hist_lo = lo, .hist_hi = hi, .hist_count = cnt, .nhist = NLAT,
		};
		CHECK(!rg_result_fill(r, &m), "fill");
		memcpy(r->samples_delta_ns, delta, sizeof(delta));
		if (k == 2) {
			r->samples_cpu_delta_ns = malloc(sizeof(cpud));
			CHECK(r->samples_cpu_delta_ns != NULL, "cpu delta samples");
			if (r->samples_cpu_delta_ns)
				memcpy(r->samples_cpu_delta_ns, cpud, sizeof(cpud));
		}
		for (size_t i = 0; i < NRUNS; i++) {
			run_ns[i] = awk(i + k + 6, false);
			run_delta[i] = awk(i + k + 7, true);
		}
		memcpy(r->runs_ns, run_ns, sizeof(run_ns));
		memcpy(r->runs_delta_ns, run_delta, sizeof(run_delta));
		/* Every aggregate column awkward (differences negative); one left missing per row. */
		for (size_t d = 0; d < NDCOLS; d++)
			*dptr(r, &dcols[d]) = d == 3 + k ? NAN : awk(d + 5 * k, dcols[d].neg);
		r->ops = UINT64_C(9007199254740993);
		r->refusals = 3;
		snprintf(r->reason, sizeof(r->reason), "quote \" backslash \\ comma , ünïcode ✓ tab\tend");
		snprintf(r->cpus_why, sizeof(r->cpus_why), "why \"%zu\"", k);
	}
	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(json, sizeof(json), "%s/r.json", dir);
	snprintf(csv, sizeof(csv), "%s/r.csv", dir);
	CHECK(!rg_results_write_json(&rs, json), "write json");
	CHECK(!rg_results_write_csv(&rs, csv), "write csv");

	CHECK(!rg_read_path(json, &back, err, sizeof(err)), "read back %s: %s", json, err);
	CHECK(back.n == rs.n, "%zu rows back, %zu written", back.n, rs.n);
	for (size_t k = 0; k < back.n && k < rs.n; k++) {
		struct rg_result *w = &rs.rows[k];
		const struct rg_row *b = &back.v[k];
		char want[1024];

		for (size_t d = 0; d < NDCOLS; d++) {
			double x = *dptr(w, &dcols[d]), y = b->v[dcols[d].col].d;

			CHECK(same(x, y), "row %zu column %d: %.17g back, %.17g written", k, dcols[d].col, y, x);
		}
		check_array("samples_ns", k, b->samples_ns, b->n_ns, w->samples_ns, w->nsamples);
		check_array("samples_mops", k, b->samples_mops, b->n_mops, w->samples_mops, w->nsamples);
		check_array("samples_wall_ns", k, b->samples_wall_ns, b->n_wall, w->samples_wall_ns, w->nsamples);
		check_array("samples_delta_ns", k, b->samples_delta_ns, b->n_delta, w->samples_delta_ns,
			    w->nsamples);
		check_array("samples_cpu_ns", k, b->samples_cpu_ns, b->n_cpu, w->samples_cpu_ns,
			    w->samples_cpu_ns ? w->nsamples : 0);
		check_array("samples_cpu_delta_ns", k, b->samples_cpu_delta_ns, b->n_cpu_delta,
			    w->samples_cpu_delta_ns, w->samples_cpu_delta_ns ? w->nsamples : 0);
		check_array("runs_ns", k, b->runs_ns, b->n_runs_ns, w->runs_ns, w->nruns);
		check_array("runs_delta_ns", k, b->runs_delta_ns, b->n_runs_delta, w->runs_delta_ns, w->nruns);
		check_array("lat_hist lo", k, b->lat_lo, b->n_lat, w->lat_hist_lo, w->lat_hist_n);
		check_array("lat_hist hi", k, b->lat_hi, b->n_lat, w->lat_hist_hi, w->lat_hist_n);
		for (size_t i = 0; i < b->n_lat && i < NLAT; i++)
			CHECK(b->lat_count[i] == cnt[i], "row %zu lat_hist count[%zu]", k, i);
		CHECK(b->v[RG_COL_ops].u == w->ops, "row %zu ops %llu", k, b->v[RG_COL_ops].u);
		rg_str_printable(want, sizeof(want), w->reason);
		CHECK(!strcmp(b->v[RG_COL_reason].s, want), "row %zu reason '%s', want '%s'", k,
		      b->v[RG_COL_reason].s, want);
		CHECK(!strcmp(b->v[RG_COL_cpus_why].s, w->cpus_why), "row %zu cpus_why '%s'", k,
		      b->v[RG_COL_cpus_why].s);
		CHECK(!strcmp(b->v[RG_COL_unit].s, k == 2 ? "ns/event" : "ns/pair"), "row %zu unit '%s'", k,
		      b->v[RG_COL_unit].s);
		CHECK(!strcmp(b->v[RG_COL_host].s, "h\"q\\u") && !strcmp(b->v[RG_COL_cpu_model].s, "Zen, \"4\" ∞"),
		      "row %zu host '%s', cpu_model '%s'", k, b->v[RG_COL_host].s, b->v[RG_COL_cpu_model].s);
	}
	rg_rows_free(&back);

	/* The CSV: a missing number is an empty field, read back as missing; never the word n/a in a number. */
	unlink(json);	/* the CSV alone: read beside its JSON twin, its rows would be dropped */
	text = slurp(csv);
	CHECK(text && strstr(text, ",ns/pair,") && strstr(text, ",ns/event,"), "CSV unit column: %s", text);
	free(text);
	memset(&back, 0, sizeof(back));
	CHECK(!rg_read_path(csv, &back, err, sizeof(err)), "read back %s: %s", csv, err);
	for (size_t k = 0; k < back.n && k < rs.n; k++)
		for (size_t d = 0; d < NDCOLS; d++)
			CHECK(isnan(back.v[k].v[dcols[d].col].d) == isnan(*dptr(&rs.rows[k], &dcols[d])),
			      "CSV row %zu column %d: missing or not as written", k, dcols[d].col);
	rg_rows_free(&back);
	rg_results_free(&rs);
	unlink(csv);
	rmdir(dir);
	if (!rg_test_failures)
		printf("JSON round trip: %d rows, %zu number columns, 8 arrays and lat_hist, bit for bit\n",
		       NROWS, NDCOLS);
	return rg_test_done("analysis.roundtrip");
}
