/* SPDX-License-Identifier: MIT */
/* Statistics of the result schema: median, mean, standard deviation, percentiles, the distribution-free interval of a median and the paired difference against a baseline (also used by the suites). */
#ifndef RG_STATS_H
#define RG_STATS_H

#include <stddef.h>

double rg_stat_median(const double *v, size_t n);
/* v ascending (NaN after +inf, or before -inf when its sign is set; -0 before +0). */
void rg_stat_sort(double *v, size_t n);
double rg_stat_mean(const double *v, size_t n);
double rg_stat_stddev(const double *v, size_t n);	/* sample (n-1); NAN when n < 2 */
/* p in [0, 100] of sorted v[0..n-1], nearest rank (a value that occurred). NAN when n == 0. */
double rg_stat_percentile(const double *sorted, size_t n, double p);

/*
 * The interval of a median of n samples: the exact distribution-free
 * order-statistic interval [d(k), d(n+1-k)] of the sorted samples, whose
 * confidence is 1 - 2 P(B <= k-1) for B ~ binomial(n, 1/2) (at least that with
 * ties). k is the largest one whose level reaches RG_CI_NOMINAL: n = 6 .. 8
 * give k = 1, 11 gives k = 2 (98.8%), 20 gives k = 6 (95.9%). Below 6 samples
 * no k reaches 95%: n = 3 .. 5 give [min, max] with its real level (75%,
 * 87.5%, 93.75%); below RG_CI_MIN_SAMPLES (1 or 2 samples: 50% at best) there
 * is no interval. Returns k, or 0 with *level NAN when n < RG_CI_MIN_SAMPLES.
 */
#define RG_CI_NOMINAL 0.95
#define RG_CI_MIN_SAMPLES 3
size_t rg_stat_median_ci_k(size_t n, double *level);

/*
 * Student's t distribution with df degrees of freedom (df > 0, not
 * necessarily whole: Welch's test): P(T > t), and the q with P(T <= q) = p.
 * NAN for a bad argument.
 */
double rg_stat_t_sf(double t, double df);
double rg_stat_t_quantile(double p, double df);

/*
 * The A/A floor of n run-level values (n >= 2, else NAN): the bound two fresh
 * single runs of the same build on the same host exceed with probability
 * RG_AA_ALPHA when run values are normal, t(1 - RG_AA_ALPHA/2, n-1) * sqrt(2)
 * * stddev (the prediction bound for the difference of two new runs).
 */
#define RG_AA_ALPHA 0.05
double rg_stat_aa_floor(const double *v, size_t n);

/*
 * The paired difference of n samples taken in the same rounds (or windows):
 * d[i] = x[i] - base[i]. *median is the median of d; [*lo, *hi] its
 * order-statistic interval (rg_stat_median_ci_k()) and *level (may be NULL)
 * that interval's confidence. Fewer than RG_CI_MIN_SAMPLES differences give
 * the median and an n/a (NAN) interval and level; n == 0 all NAN. 0 or -ENOMEM.
 */
int rg_stat_paired_delta(const double *x, const double *base, size_t n,
			 double *median, double *lo, double *hi, double *level);

/*
 * What a table prints after an interval: "" when its level reached
 * RG_CI_NOMINAL (or is n/a: a file from before schema 4, whose intervals were
 * called 95%), else " 93.8%" (the level, leading space). Returns buf.
 */
const char *rg_ci_level_tag(double level, char *buf, size_t len);

#endif /* RG_STATS_H */
