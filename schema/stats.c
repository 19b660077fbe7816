// SPDX-License-Identifier: MIT
/* Statistics of a row's samples: median, mean, spread and the paired delta's interval. */
#define _GNU_SOURCE	/* M_LN2 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema_int.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* A double's bits as a key whose unsigned order is the numbers' order (negatives flipped whole). */
static uint64_t sort_key(double x)
{
	uint64_t u;

	memcpy(&u, &x, sizeof(u));
	return u >> 63 ? ~u : u | (1ull << 63);
}

static double from_key(uint64_t k)
{
	double x;

	k = k >> 63 ? k & ~(1ull << 63) : ~k;
	memcpy(&x, &k, sizeof(x));
	return x;
}

/*
 * A latency row sorts the values of all its rounds at once (20000 a round: 100000 at --quick);
 * qsort's call per comparison took a fifth of a quick run's fixed work. Above RADIX_MIN values: an LSD radix sort, a byte at a time, on the
 * keys above (a byte every key shares is skipped). The order is qsort's with cmp_double for
 * every value but NaN (here: after +inf, or before -inf when its sign is set) and -0 (before
 * +0, which cmp_double calls equal).
 */
#define RADIX_MIN 256

void rg_stat_sort(double *v, size_t n)
{
	uint64_t *a, *b, *t;

	if (n < RADIX_MIN || !(a = malloc(2 * n * sizeof(*a)))) {
		qsort(v, n, sizeof(*v), cmp_double);
		return;
	}
	b = a + n;
	for (size_t i = 0; i < n; i++)
		a[i] = sort_key(v[i]);
	for (int shift = 0; shift < 64; shift += 8) {
		size_t count[256] = { 0 }, pos = 0;

		for (size_t i = 0; i < n; i++)
			count[(a[i] >> shift) & 0xff]++;
		if (count[(a[0] >> shift) & 0xff] == n)
			continue;	/* every key has this byte: the order stands */
		for (int d = 0; d < 256; d++) {
			size_t c = count[d];

			count[d] = pos;
			pos += c;
		}
		for (size_t i = 0; i < n; i++)
			b[count[(a[i] >> shift) & 0xff]++] = a[i];
		t = a, a = b, b = t;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = from_key(a[i]);
	free(a < b ? a : b);	/* the block's start (the two halves swap) */
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
	rg_stat_sort(tmp, n);
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

/*
 * The order-statistic interval of a median: for n samples of a continuous
 * distribution with median m, P(d(k) <= m <= d(n+1-k)) = 1 - 2 P(B <= k-1),
 * B ~ binomial(n, 1/2), whatever the distribution (with ties the closed
 * interval covers at least that). The binomial terms C(n, i) / 2^n come from
 * C(n, i) in a double (exact up to n = 53, so small n give exact dyadic levels)
 * up to n = 1000, and from logarithms beyond, where 2^-n underflows.
 */
static double binom_half_pmf(size_t n, size_t i, double *c)
{
	if (n <= 1000) {
		*c = i ? *c * (double)(n - i + 1) / (double)i : 1.0;
		return ldexp(*c, -(int)n);
	}
	return exp(lgamma((double)n + 1) - lgamma((double)i + 1) - lgamma((double)(n - i) + 1) -
		   (double)n * M_LN2);
}

size_t rg_stat_median_ci_k(size_t n, double *level)
{
	double c = 1.0, tail, next;	/* tail: P(B <= k - 1) */
	size_t k = 1;

	*level = NAN;
	if (n < RG_CI_MIN_SAMPLES)
		return 0;
	tail = binom_half_pmf(n, 0, &c);
	/* The largest k whose level reaches the nominal one; k = 1 ([min, max]) when none does. */
	while (2 * (k + 1) <= n + 1) {
		next = tail + binom_half_pmf(n, k, &c);
		if (1.0 - 2.0 * next < RG_CI_NOMINAL)
			break;
		tail = next;
		k++;
	}
	*level = 1.0 - 2.0 * tail;
	return k;
}

int rg_stat_paired_delta(const double *x, const double *base, size_t n,
			 double *median, double *lo, double *hi, double *level)
{
	double *d, lvl;
	size_t k;

	*median = *lo = *hi = NAN;
	if (level)
		*level = NAN;
	if (!n)
		return 0;
	d = malloc(n * sizeof(*d));
	if (!d)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		d[i] = x[i] - base[i];
	rg_stat_sort(d, n);
	*median = n % 2 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2.0;
	k = rg_stat_median_ci_k(n, &lvl);
	if (k) {
		*lo = d[k - 1];
		*hi = d[n - k];
		if (level)
			*level = lvl;
	}
	free(d);
	return 0;
}

double rg_stat_percentile(const double *sorted, size_t n, double p)
{
	double rank;
	size_t i;

	if (!n)
		return NAN;
	rank = ceil(p / 100.0 * (double)n);
	i = rank < 1 ? 0 : (size_t)rank - 1;
	return sorted[i < n ? i : n - 1];
}

const char *rg_ci_level_tag(double level, char *buf, size_t len)
{
	if (isnan(level) || level >= RG_CI_NOMINAL)
		snprintf(buf, len, "%s", "");
	else
		snprintf(buf, len, " %.1f%%", 100.0 * level);
	return buf;
}

/*
 * The regularized incomplete beta function I_x(a, b), from its continued
 * fraction (evaluated with the modified Lentz method), on the side where it
 * converges fast (x < (a + 1) / (a + b + 2)), else by symmetry.
 */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	d = 1 / (fabs(d) < tiny ? tiny : d);
	h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, num, del;

		num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + num * d;
		c = 1 + num / c;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + num * d;
		c = 1 + num / c;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = fabs(c) < tiny ? tiny : c;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-14)
			break;
	}
	return h;
}

static double inc_beta(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double rg_stat_t_sf(double t, double df)
{
	double tail;

	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return t > 0 ? 0 : 1;
	tail = 0.5 * inc_beta(df / 2, 0.5, df / (df + t * t));
	return t >= 0 ? tail : 1 - tail;
}

double rg_stat_t_quantile(double p, double df)
{
	double lo = -1e6, hi = 1e6;

	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	/*
	 * P(T <= q) = p by bisection: 1 - sf is increasing in q. It ends when no double lies
	 * between lo and hi (about 75 halvings of this bracket; more would not move either).
	 */
	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

		if (mid == lo || mid == hi)
			break;
		if (1 - rg_stat_t_sf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

double rg_stat_aa_floor(const double *v, size_t n)
{
	if (n < 2)
		return NAN;
	return rg_stat_t_quantile(1 - RG_AA_ALPHA / 2, (double)(n - 1)) * sqrt(2.0) *
	       rg_stat_stddev(v, n);
}
