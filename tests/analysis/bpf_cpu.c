// SPDX-License-Identifier: MIT
/* compare on bpf rows: producer CPU ns per event where both sides kept it per sample, over passes, per-pass CPU deltas when paired; M/s otherwise. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "rg/results.h"

#include "check.h"

#define N 6		/* samples */
#define P 3		/* passes */

/* A bpf row: every string column "" but the ones a verdict reads, numbers NAN. */
static void row_init(struct rg_row *r, const char *guard, const char *baseline)
{
	static char empty[] = "", suite[] = "bpf", ok[] = "ok", driver[] = "driver",
		    alternating[] = "alternating", none[] = "none";

	memset(r, 0, sizeof(*r));
	for (int c = 0; c < RG_NCOLS; c++)
		r->v[c].d = NAN;
	for (int c = 0; c < RG_NCOLS; c++)
		if (c == RG_COL_suite || c == RG_COL_guard || c == RG_COL_scenario ||
		    c == RG_COL_baseline || c == RG_COL_interleave || c == RG_COL_status ||
		    c == RG_COL_reason || c == RG_COL_host || c == RG_COL_layout)
			r->v[c].s = empty;
	r->v[RG_COL_suite].s = suite;
	r->v[RG_COL_guard].s = (char *)guard;
	r->v[RG_COL_scenario].s = driver;
	r->v[RG_COL_status].s = ok;
	r->v[RG_COL_baseline].s = (char *)baseline;
	r->v[RG_COL_interleave].s = strcmp(baseline, "n/a") ? alternating : none;
	r->v[RG_COL_runs].i = 1;
}

struct data {
	double mops[N], cpu[N], dcpu[N], runs[P], druns[P];
};

/*
 * Samples of cpu ns (+ a small spread), wall M/s that swing with the load
 * (the figure compare must not test on), CPU deltas over a baseline of
 * base ns; passes of 2 samples each, their medians stored as runs.
 */
static void fill(struct rg_row *r, struct data *d, double cpu, double base, double mops,
		 bool cpu_kept)
{
	for (int i = 0; i < N; i++) {
		d->cpu[i] = cpu + 0.01 * cpu * ((i * 7) % 5 - 2) / 2.0;
		d->dcpu[i] = d->cpu[i] - base;
		d->mops[i] = mops * (1 + 0.3 * (i % 2));
	}
	for (int p = 0; p < P; p++) {
		d->runs[p] = (d->cpu[2 * p] + d->cpu[2 * p + 1]) / 2;
		d->druns[p] = (d->dcpu[2 * p] + d->dcpu[2 * p + 1]) / 2;
	}
	r->samples_mops = d->mops;
	r->n_mops = N;
	r->v[RG_COL_mops_median].d = mops * 1.15;
	r->v[RG_COL_mops_stddev].d = 0.15 * mops;
	if (!cpu_kept)
		return;
	r->samples_cpu_ns = d->cpu;
	r->n_cpu = N;
	r->v[RG_COL_cpu_ns_median].d = rg_stat_median(d->cpu, N);
	r->runs_ns = d->runs;
	r->n_runs_ns = P;
	r->v[RG_COL_runs].i = P;
	if (strcmp(rg_row_s(r, RG_COL_baseline), "n/a")) {
		r->samples_cpu_delta_ns = d->dcpu;
		r->n_cpu_delta = N;
		r->runs_delta_ns = d->druns;
		r->n_runs_delta = P;
		r->v[RG_COL_delta_ns].d = rg_stat_median(d->druns, P);
	}
}

static void one(const char *what, double cpu_a, double cpu_b, double mops_a, double mops_b,
		bool kept_b, const char *want_metric, const char *want_in_verdict, bool want_called)
{
	struct rg_row a, b;
	struct data da, db;
	struct cmp c = { &a, &b, "" };
	struct res r;

	row_init(&a, "raw_tp", "driver-kfunc");
	row_init(&b, "raw_tp", "driver-kfunc");
	fill(&a, &da, cpu_a, 1.0, mops_a, true);
	fill(&b, &db, cpu_b, 1.0, mops_b, kept_b);
	cmp_compute(&c, "base", false, false, &r);
	CHECK(!strcmp(r.m->name, want_metric), "%s: metric %s, want %s", what, r.m->name, want_metric);
	CHECK(strstr(r.verdict, want_in_verdict) != NULL, "%s: verdict '%s' lacks '%s'", what,
	      r.verdict, want_in_verdict);
	CHECK(r.called == want_called, "%s: called %d, want %d ('%s')", what, r.called, want_called,
	      r.verdict);
	if (!strcmp(want_metric, "cpu_ns_median"))
		CHECK(strstr(r.a, "CPU ns/event") != NULL, "%s: value '%s' names CPU ns/event", what, r.a);
}

/*
 * Pairing on one machine: two bpf rows whose driver batch the runs sized
 * differently (5000, 10000) are one line; two user rows of different batch
 * stay two.
 */
static void batch_pairing(const char *suite, size_t want_lines)
{
	static char user[] = "user", bpf[] = "bpf";
	struct rg_row ra, rb;
	struct side A, B;
	struct cmp *c;
	size_t n = 0, both = 0;

	row_init(&ra, "raw_tp", "driver-kfunc");
	row_init(&rb, "raw_tp", "driver-kfunc");
	ra.v[RG_COL_suite].s = rb.v[RG_COL_suite].s = strcmp(suite, "bpf") ? user : bpf;
	ra.v[RG_COL_batch].i = 5000;
	rb.v[RG_COL_batch].i = 10000;
	memset(&A, 0, sizeof(A));
	memset(&B, 0, sizeof(B));
	A.rows.v = &ra;
	A.rows.n = 1;
	B.rows.v = &rb;
	B.rows.n = 1;
	c = cmp_pair_ab(&A, &B, false, &n);
	for (size_t i = 0; c && i < n; i++)
		both += c[i].a && c[i].b;
	CHECK(c && n == want_lines && both == (want_lines == 1), "%s rows of batch 5000 and 10000: %zu lines, %zu paired",
	      suite, n, both);
	free(c);
}

int main(void)
{
	batch_pairing("bpf", 1);
	batch_pairing("user", 2);
	/* Same CPU time, wall M/s 40% lower on the new side (a loaded host): no change. */
	one("A/A on CPU", 22.0, 22.0, 20.0, 12.0, true, "cpu_ns_median",
	    "no significant change (p=1.000, 3 vs 3 passes, per-pass CPU deltas)", false);
	/* 10% more CPU per event in every pass: slower, on the passes' CPU deltas. */
	one("shift on CPU", 22.0, 24.2, 20.0, 20.0, true, "cpu_ns_median",
	    "3 vs 3 passes, per-pass CPU deltas)", true);
	/* An older file on one side (no samples_cpu_ns): M/s as before, on the samples. */
	one("old file", 22.0, 22.0, 20.0, 20.0, false, "mops_median", "no significant change", false);
	return rg_test_done("analysis.bpf_cpu");
}
