// SPDX-License-Identifier: MIT
/* The paired difference and its bootstrap interval: exact medians, ordered and reproducible intervals. */
#include <math.h>

#include "rg/schema.h"
#include "../check.h"

int main(void)
{
	double x[9], b[9], m, lo, hi, m2, lo2, hi2;
	struct rg_result r = { 0 };

	/* Differences 1..9 in shuffled rounds: median 5, the interval brackets it. */
	static const double d[9] = { 7, 2, 9, 4, 1, 8, 3, 6, 5 };
	for (int i = 0; i < 9; i++) {
		b[i] = 100.0 + 10.0 * i;	/* a drifting baseline: drift cancels in pairs */
		x[i] = b[i] + d[i];
	}
	CHECK(!rg_stat_paired_delta(x, b, 9, &m, &lo, &hi), "paired_delta failed");
	CHECK(m == 5.0, "median %g, want 5", m);
	CHECK(lo >= 1.0 && lo <= 5.0 && hi >= 5.0 && hi <= 9.0 && lo < hi,
	      "interval [%g, %g] does not bracket 5 within [1, 9]", lo, hi);
	/* Fixed seed: the same data gives the same interval. */
	CHECK(!rg_stat_paired_delta(x, b, 9, &m2, &lo2, &hi2), "paired_delta failed");
	CHECK(m2 == m && lo2 == lo && hi2 == hi, "not reproducible: [%g, %g] vs [%g, %g]",
	      lo, hi, lo2, hi2);

	/* Identical differences: a zero-width interval at that value, negative allowed. */
	for (int i = 0; i < 9; i++)
		x[i] = b[i] - 0.5;
	CHECK(!rg_stat_paired_delta(x, b, 9, &m, &lo, &hi), "paired_delta failed");
	CHECK(m == -0.5 && lo == -0.5 && hi == -0.5, "constant: %g [%g, %g]", m, lo, hi);

	/* Even count: the median is the mean of the middle two. */
	CHECK(!rg_stat_paired_delta((double[]){ 3, 1, 4, 2 }, (double[]){ 0, 0, 0, 0 }, 4,
				    &m, &lo, &hi), "paired_delta failed");
	CHECK(m == 2.5, "even median %g, want 2.5", m);

	/* One round: the difference, no interval; none: all n/a. */
	CHECK(!rg_stat_paired_delta((double[]){ 3 }, (double[]){ 1 }, 1, &m, &lo, &hi), "n=1");
	CHECK(m == 2.0 && isnan(lo) && isnan(hi), "n=1: %g [%g, %g]", m, lo, hi);
	CHECK(!rg_stat_paired_delta(NULL, NULL, 0, &m, &lo, &hi), "n=0");
	CHECK(isnan(m) && isnan(lo) && isnan(hi), "n=0: %g [%g, %g]", m, lo, hi);

	/* The row helper names the baseline and fills the three columns. */
	for (int i = 0; i < 9; i++)
		x[i] = b[i] + d[i];
	CHECK(!rg_result_set_delta(&r, "noop", x, b, 9), "set_delta failed");
	CHECK(!strcmp(r.baseline, "noop") && r.delta_ns == 5.0 && r.delta_ci_lo <= 5.0 &&
	      r.delta_ci_hi >= 5.0, "row: %s %g [%g, %g]", r.baseline, r.delta_ns, r.delta_ci_lo,
	      r.delta_ci_hi);
	return rg_test_done("bench stats");
}
