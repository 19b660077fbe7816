// SPDX-License-Identifier: MIT
/* Two-sided Mann-Whitney U test: exact distribution for small tie-free samples, else normal. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rg/compare.h"

struct obs {
	double v;
	int side;	/* 0: x, 1: y */
};

static int cmp_obs(const void *a, const void *b)
{
	double x = ((const struct obs *)a)->v, y = ((const struct obs *)b)->v;

	return (x > y) - (x < y);
}

/*
 * P(U >= k) under H0 for sample sizes m, n without ties: count, for every
 * (i, j), how many orderings of i x's and j y's give each U, with
 * f(i, j, u) = f(i - 1, j, u - j) + f(i, j - 1, u)
 * (the largest value is either an x, beating all j y's, or a y).
 */
static double exact_sf(size_t m, size_t n, size_t k)
{
	size_t umax = m * n, w = umax + 1;
	double *f = calloc((m + 1) * (n + 1) * w, sizeof(*f)), total = 0, tail = 0;

	if (!f)
		return NAN;
#define F(i, j, u) f[((i) * (n + 1) + (j)) * w + (u)]
	for (size_t i = 0; i <= m; i++) {
		for (size_t j = 0; j <= n; j++) {
			if (!i || !j) {
				F(i, j, 0) = 1;
				continue;
			}
			for (size_t u = 0; u <= i * j; u++)
				F(i, j, u) = (u >= j ? F(i - 1, j, u - j) : 0) + F(i, j - 1, u);
		}
	}
	for (size_t u = 0; u <= umax; u++) {
		total += F(m, n, u);
		if (u >= k)
			tail += F(m, n, u);
	}
#undef F
	free(f);
	return tail / total;
}

int rg_mwu_test(const double *x, size_t n1, const double *y, size_t n2, struct rg_mwu *out)
{
	size_t n = n1 + n2;
	struct obs *o;
	double r1 = 0, tie = 0, umax;

	memset(out, 0, sizeof(*out));
	if (!n1 || !n2)
		return -1;
	o = malloc(n * sizeof(*o));
	if (!o)
		return -1;
	for (size_t i = 0; i < n1; i++)
		o[i] = (struct obs){ x[i], 0 };
	for (size_t i = 0; i < n2; i++)
		o[n1 + i] = (struct obs){ y[i], 1 };
	qsort(o, n, sizeof(*o), cmp_obs);
	/* Average ranks over each run of equal values. */
	for (size_t i = 0; i < n;) {
		size_t j = i;
		double rank, t;

		while (j + 1 < n && o[j + 1].v == o[i].v)
			j++;
		rank = (double)(i + j + 2) / 2.0;	/* ranks are 1-based */
		t = (double)(j - i + 1);
		if (t > 1) {
			out->ties = true;
			tie += t * t * t - t;
		}
		for (size_t k = i; k <= j; k++)
			if (o[k].side == 0)
				r1 += rank;
		i = j + 1;
	}
	free(o);
	out->u1 = r1 - (double)n1 * (double)(n1 + 1) / 2.0;
	out->u2 = (double)n1 * (double)n2 - out->u1;
	umax = fmax(out->u1, out->u2);
	if (!out->ties && n1 <= RG_MWU_EXACT_MAX && n2 <= RG_MWU_EXACT_MAX) {
		out->exact = true;
		out->p = 2.0 * exact_sf(n1, n2, (size_t)llround(umax));
		if (isnan(out->p))
			return -1;
	} else {
		double mu = (double)n1 * (double)n2 / 2.0;
		double var = (double)n1 * (double)n2 / 12.0 *
			     ((double)(n + 1) - tie / ((double)n * (double)(n - 1)));

		if (var <= 0) {
			out->p = 1.0;	/* every value equal */
		} else {
			out->z = (umax - mu - 0.5) / sqrt(var);
			out->p = erfc(out->z / sqrt(2.0));
		}
	}
	if (out->p > 1.0)
		out->p = 1.0;
	return 0;
}
