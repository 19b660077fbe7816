// SPDX-License-Identifier: MIT
/* The paired difference and its order-statistic interval: exact k and levels, exact intervals, n/a below the floor. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/schema.h"
#include "../check.h"

/* k and level of the median's interval for n samples, against values computed by hand. */
static void check_k(size_t n, size_t want_k, double want_level, double tol)
{
	double level;
	size_t k = rg_stat_median_ci_k(n, &level);

	CHECK(k == want_k && fabs(level - want_level) <= tol,
	      "n=%zu: k %zu level %.17g, want k %zu level %.17g", n, k, level, want_k, want_level);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * rg_stat_sort against qsort: the same order, value for value, for sizes on both sides of
 * its radix threshold; values of every sign and magnitude, repeats, zeros of both signs,
 * infinities and subnormals. (A NaN has no place in qsort's order: not compared.)
 */
static void check_sort(void)
{
	static const size_t sizes[] = { 0, 1, 2, 255, 256, 257, 1000, 20000, 100000 };
	static const double special[] = { 0.0, -0.0, INFINITY, -INFINITY, 5e-324, -5e-324, 1e308, -1e308 };
	unsigned long long s = 0x9e3779b97f4a7c15ull;

	for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
		size_t n = sizes[z], bad = 0;
		double *v = malloc((n ? n : 1) * sizeof(*v)), *w = malloc((n ? n : 1) * sizeof(*w));

		CHECK(v && w, "out of memory");
		if (!v || !w)
			return;
		for (size_t i = 0; i < n; i++) {
			s ^= s << 13, s ^= s >> 7, s ^= s << 17;
			switch (s % 4) {
			case 0: v[i] = special[(s >> 8) % 8]; break;
			case 1: v[i] = (double)((s >> 8) % 50);	/* repeats */ break;
			case 2: v[i] = ldexp((double)(s >> 11), (int)((s >> 3) % 200) - 100 - 53); break;
			default: v[i] = -ldexp((double)(s >> 11), (int)((s >> 5) % 200) - 100 - 53); break;
			}
		}
		memcpy(w, v, n * sizeof(*w));
		qsort(w, n, sizeof(*w), cmp_dbl);
		rg_stat_sort(v, n);
		for (size_t i = 0; i < n; i++)
			bad += !(v[i] == w[i]) || (i && v[i - 1] > v[i]);
		CHECK(!bad, "rg_stat_sort of %zu values: %zu differ from qsort's order", n, bad);
		/* the radix sort (256 values and more) puts every -0 before every +0 */
		bad = 0;
		for (size_t i = 1; i < n; i++)
			bad += v[i - 1] == 0 && v[i] == 0 && !signbit(v[i - 1]) && signbit(v[i]) && n >= 256;
		CHECK(!bad, "rg_stat_sort of %zu values: a +0 before a -0", n);
		free(v);
		free(w);
	}
}

int main(void)
{
	double x[20], b[20], m, lo, hi, lvl;
	struct rg_result r = { 0 };
	char tag[16];

	/*
	 * level(k) = 1 - 2 sum_{i<k} C(n,i) / 2^n. n = 3, 5: no k reaches 95%, so
	 * [min, max] (k = 1) with 1 - 2/2^n; 6: 1 - 2/64; 11: k = 2, 1 - 2*12/2048
	 * (k = 3 would be 1 - 2*67/2048 = 0.9346); 20: k = 6, 1 - 2*21700/2^20.
	 */
	check_sort();
	check_k(3, 1, 0.75, 0);
	check_k(4, 1, 0.875, 0);
	check_k(5, 1, 0.9375, 0);
	check_k(6, 1, 0.96875, 0);
	check_k(9, 2, 123.0 / 128, 0);
	check_k(11, 2, 253.0 / 256, 0);
	check_k(20, 6, 125647.0 / 131072, 0);
	/* n = 100: k = 40 (exact rational level 0.96479979978229...; fractions in Python). */
	check_k(100, 40, 0.9647997997822951, 1e-13);
	/* Past n = 1000 the terms come from logarithms: n = 2000 gives k = 956. */
	check_k(2000, 956, 0.9534471795082162, 1e-9);
	/* The floor: 1 or 2 samples have no interval (2 would be 50% at best). */
	CHECK(rg_stat_median_ci_k(2, &lvl) == 0 && isnan(lvl), "n=2: an interval");
	CHECK(rg_stat_median_ci_k(0, &lvl) == 0 && isnan(lvl), "n=0: an interval");

	/* Differences 1..9 in shuffled rounds against a drifting baseline: median 5, [d(2), d(8)]. */
	static const double d[9] = { 7, 2, 9, 4, 1, 8, 3, 6, 5 };
	for (int i = 0; i < 9; i++) {
		b[i] = 100.0 + 10.0 * i;	/* drift cancels in pairs */
		x[i] = b[i] + d[i];
	}
	CHECK(!rg_stat_paired_delta(x, b, 9, &m, &lo, &hi, &lvl), "paired_delta failed");
	CHECK(m == 5.0 && lo == 2.0 && hi == 8.0 && lvl == 123.0 / 128,
	      "1..9: %g [%g, %g] level %g, want 5 [2, 8] 0.9609375", m, lo, hi, lvl);

	/* Twenty known differences (0.1 .. 2.0 reversed): [d(6), d(15)] = [0.6, 1.5], median 1.05. */
	for (int i = 0; i < 20; i++) {
		b[i] = 3.0;
		x[i] = 3.0 + (20 - i) / 10.0;
	}
	CHECK(!rg_stat_paired_delta(x, b, 20, &m, &lo, &hi, &lvl), "paired_delta failed");
	CHECK(fabs(m - 1.05) < 1e-12 && fabs(lo - 0.6) < 1e-12 && fabs(hi - 1.5) < 1e-12 &&
	      lvl == 125647.0 / 131072, "n=20: %g [%g, %g] level %g", m, lo, hi, lvl);

	/* Identical differences: a zero-width interval at that value, negative allowed. */
	for (int i = 0; i < 9; i++)
		x[i] = b[i] - 0.5;
	CHECK(!rg_stat_paired_delta(x, b, 9, &m, &lo, &hi, NULL), "paired_delta failed");
	CHECK(m == -0.5 && lo == -0.5 && hi == -0.5, "constant: %g [%g, %g]", m, lo, hi);

	/* Three rounds (the floor): [min, max] at 75%, said by the tag. */
	CHECK(!rg_stat_paired_delta((double[]){ 3, 9, 5 }, (double[]){ 1, 1, 1 }, 3, &m, &lo, &hi,
				    &lvl), "paired_delta failed");
	CHECK(m == 4.0 && lo == 2.0 && hi == 8.0 && lvl == 0.75, "n=3: %g [%g, %g] %g", m, lo, hi, lvl);
	CHECK(!strcmp(rg_ci_level_tag(lvl, tag, sizeof(tag)), " 75.0%"), "tag '%s'", tag);
	CHECK(!strcmp(rg_ci_level_tag(0.9375, tag, sizeof(tag)), " 93.8%"), "tag '%s'", tag);
	CHECK(!strcmp(rg_ci_level_tag(0.96875, tag, sizeof(tag)), ""), "tag '%s' at 96.9%%", tag);
	CHECK(!strcmp(rg_ci_level_tag(NAN, tag, sizeof(tag)), ""), "tag '%s' at n/a", tag);

	/* Even count: the median is the mean of the middle two; 4 rounds: [min, max] at 87.5%. */
	CHECK(!rg_stat_paired_delta((double[]){ 3, 1, 4, 2 }, (double[]){ 0, 0, 0, 0 }, 4,
				    &m, &lo, &hi, &lvl), "paired_delta failed");
	CHECK(m == 2.5 && lo == 1.0 && hi == 4.0 && lvl == 0.875, "n=4: %g [%g, %g] %g", m, lo, hi, lvl);

	/* Below the floor: the difference, no interval and no level; none: all n/a. */
	CHECK(!rg_stat_paired_delta((double[]){ 3, 4 }, (double[]){ 1, 1 }, 2, &m, &lo, &hi, &lvl), "n=2");
	CHECK(m == 2.5 && isnan(lo) && isnan(hi) && isnan(lvl), "n=2: %g [%g, %g] %g", m, lo, hi, lvl);
	CHECK(!rg_stat_paired_delta((double[]){ 3 }, (double[]){ 1 }, 1, &m, &lo, &hi, &lvl), "n=1");
	CHECK(m == 2.0 && isnan(lo) && isnan(hi) && isnan(lvl), "n=1: %g [%g, %g] %g", m, lo, hi, lvl);
	CHECK(!rg_stat_paired_delta(NULL, NULL, 0, &m, &lo, &hi, &lvl), "n=0");
	CHECK(isnan(m) && isnan(lo) && isnan(hi) && isnan(lvl), "n=0: %g [%g, %g]", m, lo, hi);

	/* The one setter names the baseline and fills the four columns. */
	for (int i = 0; i < 9; i++) {
		b[i] = 100.0 + 10.0 * i;
		x[i] = b[i] + d[i];
	}
	CHECK(!rg_result_fill(&r, &(struct rg_measured){ .n = 9, .ns = x, .baseline = "noop",
							  .base = b, .nbase = 9 }), "fill failed");
	CHECK(!strcmp(r.baseline, "noop") && r.delta_ns == 5.0 && r.delta_ci_lo == 2.0 &&
	      r.delta_ci_hi == 8.0 && r.delta_ci_level == 123.0 / 128 && r.repetitions == 9,
	      "row: %s %g [%g, %g] %g", r.baseline, r.delta_ns, r.delta_ci_lo, r.delta_ci_hi,
	      r.delta_ci_level);
	free(r.samples_ns);

	/*
	 * Runs, then the two noisy rules after the longest reason the suite sets
	 * (bench/rows.c's disturbance): 3 runs of 2 rounds, medians 2, 3 and 6
	 * (ns_median 3); 10 pairs a round of 3 ns are under 100 ns; the reference
	 * moved 50% (1.0 .. 1.5 ns per add). All three arrive whole (a reason of 256
	 * bytes cut the last one to "the cycl" under qemu-aarch64).
	 */
	static const char disturbed[] =
		"1000 of 1000 rounds still disturbed after 3 re-runs (lowest thread CPU/wall 0.50, "
		"up to 1000000 involuntary switches): too few undisturbed rounds to check them against";
	char want[1024];	/* larger than the reason: a cut one differs */

	memset(&r, 0, sizeof(r));
	snprintf(r.status, sizeof(r.status), "noisy");
	snprintf(r.reason, sizeof(r.reason), "%s", disturbed);
	CHECK(!rg_result_fill(&r, &(struct rg_measured){
		.n = 6, .ns = (double[]){ 1, 3, 2, 4, 5, 7 }, .nruns = 3,
		.run_end = (size_t[]){ 2, 4, 6 }, .round_pairs = 10, .min_round_ns = 100,
		.ref_ns = (double[]){ 1.0, 1.5, 1.0 }, .nref = 3 }), "fill failed");
	CHECK(r.runs == 3 && r.ns_median == 3.0 && r.runs_ns && r.runs_ns[2] == 6.0 &&
	      !r.runs_delta_ns && r.ref_ns_per_cycle == 1.0 && r.ref_cycles_per_pair == 3.0,
	      "runs %ld ns_median %g ref %g", r.runs, r.ns_median, r.ref_ns_per_cycle);
	snprintf(want, sizeof(want), "%s; each round measured only 10 pairs (30 ns), under the 0 us "
		 "minimum: raise --duration; the cycle reference moved 50%% across the rounds "
		 "(more than 10%%)", disturbed);
	CHECK(!strcmp(r.status, "noisy") && !strcmp(r.reason, want), "status %s reason '%s'",
	      r.status, r.reason);
	free(r.samples_ns);
	free(r.runs_ns);
	return rg_test_done("bench stats");
}
