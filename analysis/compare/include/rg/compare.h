/* SPDX-License-Identifier: MIT */
/* The results room's compare (analysis/compare/, library rg_compare): `rgbench compare` and the Mann-Whitney U test its verdicts use. */
#ifndef RG_COMPARE_H
#define RG_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

/* The Mann-Whitney U test needs at least this many samples per side. */
#define RG_MWU_MIN_SAMPLES 5
/* Exact U distribution when there are no ties and both sides are at most this big. */
#define RG_MWU_EXACT_MAX 25

/* Mann-Whitney U test, two-sided. */
struct rg_mwu {
	double u1;		/* U statistic of the first sample */
	double u2;		/* n1*n2 - u1 */
	double z;		/* normal approximation z (0 when exact) */
	double p;		/* two-sided p-value */
	bool exact;		/* exact distribution (no ties, small n) */
	bool ties;
};
/* 0, or -1 when a side is empty or memory runs out. */
int rg_mwu_test(const double *x, size_t n1, const double *y, size_t n2, struct rg_mwu *out);

/*
 * The interval of the shift between two samples that the U test inverts
 * (Hodges-Lehmann): [D(k), D(N+1-k)] of the N = n1*n2 sorted differences
 * y[j] - x[i], its confidence 1 - 2 P(U <= k-1) under the exact distribution
 * of U (no ties, both sides at most RG_MWU_EXACT_MAX) or its normal
 * approximation, k the largest whose level reaches RG_MWU_CI_NOMINAL; when
 * none does (tiny samples) k = 1, [min, max] of the differences, with its
 * real level.
 */
#define RG_MWU_CI_NOMINAL 0.95
struct rg_mwu_ci {
	double lo, hi;		/* the interval of y - x */
	double level;		/* its actual confidence */
	bool exact;		/* level from the exact distribution */
};
/* 0, or -1 when a side is empty or memory runs out. */
int rg_mwu_shift_ci(const double *x, size_t n1, const double *y, size_t n2, struct rg_mwu_ci *out);

/* rgbench compare BASE NEW | --baseline GUARD FILE | --across-hosts | --across-suites (argv[0]: the name). */
int rg_compare_main(int argc, char **argv);

#endif /* RG_COMPARE_H */
