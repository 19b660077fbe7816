// SPDX-License-Identifier: MIT
/* Two-sided Mann-Whitney U test: exact distribution for small tie-free samples, else normal. */
#include <math.h>
#include <stdbool.h>
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
 * The null distribution of U for sample sizes m, n without ties: pmf[u] for
 * u = 0 .. m*n (malloc'ed, NULL when out of memory). Counts, for every
 * (i, j), how many orderings of i x's and j y's give each U, with
 * f(i, j, u) = f(i - 1, j, u - j) + f(i, j - 1, u)
 * (the largest value is either an x, beating all j y's, or a y).
 */
static double *exact_pmf(size_t m, size_t n)
{
	size_t umax = m * n, w = umax + 1;
	double *f = calloc((m + 1) * (n + 1) * w, sizeof(*f)), *pmf = malloc(w * sizeof(*pmf));
	double total = 0;

	if (!f || !pmf) {
		free(f);
		free(pmf);
		return NULL;
	}
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
	for (size_t u = 0; u <= umax; u++)
		total += F(m, n, u);
	for (size_t u = 0; u <= umax; u++)
		pmf[u] = F(m, n, u) / total;
#undef F
	free(f);
	return pmf;
}

/* P(U >= k) under H0 for sample sizes m, n without ties. */
static double exact_sf(size_t m, size_t n, size_t k)
{
	double *pmf = exact_pmf(m, n), tail = 0;

	if (!pmf)
		return NAN;
	for (size_t u = k; u <= m * n; u++)
		tail += pmf[u];
	free(pmf);
	return tail;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* P(U <= j): from the exact pmf when there is one, else the normal approximation with continuity correction. */
static double cdf_u(const double *pmf, size_t n1, size_t n2, size_t j)
{
	double mu = (double)n1 * (double)n2 / 2.0;
	double sd = sqrt((double)n1 * (double)n2 * (double)(n1 + n2 + 1) / 12.0), s = 0;

	if (pmf) {
		for (size_t u = 0; u <= j; u++)
			s += pmf[u];
		return fmin(1, s);
	}
	return 0.5 * erfc(-(((double)j + 0.5 - mu) / sd) / sqrt(2.0));
}

int rg_mwu_shift_ci(const double *x, size_t n1, const double *y, size_t n2, struct rg_mwu_ci *out)
{
	size_t nn = n1 * n2, k = 1;
	double *d, *pmf = NULL, lower = 0;	/* lower: P(U <= k - 1) */
	bool ties = false;

	out->lo = out->hi = out->level = NAN;
	out->exact = false;
	if (!n1 || !n2 || nn > ((size_t)1 << 24))	/* 16M differences: no row has that many samples */
		return -1;
	d = malloc(nn * sizeof(*d));
	if (!d)
		return -1;
	for (size_t i = 0; i < n1; i++)
		for (size_t j = 0; j < n2; j++)
			d[i * n2 + j] = y[j] - x[i];
	qsort(d, nn, sizeof(*d), cmp_dbl);
	/* ties among the values themselves: the exact distribution no longer holds */
	{
		double *v = malloc((n1 + n2) * sizeof(*v));

		if (!v) {
			free(d);
			return -1;
		}
		memcpy(v, x, n1 * sizeof(*v));
		memcpy(v + n1, y, n2 * sizeof(*v));
		qsort(v, n1 + n2, sizeof(*v), cmp_dbl);
		for (size_t i = 1; i < n1 + n2; i++)
			ties |= v[i] == v[i - 1];
		free(v);
	}
	if (!ties && n1 <= RG_MWU_EXACT_MAX && n2 <= RG_MWU_EXACT_MAX) {
		pmf = exact_pmf(n1, n2);
		if (!pmf) {
			free(d);
			return -1;
		}
		out->exact = true;
	}
	/* The largest k whose level 1 - 2 P(U <= k - 1) reaches RG_MWU_CI_NOMINAL; k = 1 when none does. */
	lower = cdf_u(pmf, n1, n2, 0);
	while (2 * (k + 1) <= nn + 1) {
		double next = cdf_u(pmf, n1, n2, k);	/* P(U <= k): the tail of k + 1 */

		if (1.0 - 2.0 * next < RG_MWU_CI_NOMINAL)
			break;
		lower = next;
		k++;
	}
	/* lower is P(U <= k - 1) for the k kept (k = 1: P(U = 0)) */
	out->lo = d[k - 1];
	out->hi = d[nn - k];
	out->level = fmax(0, 1.0 - 2.0 * lower);
	free(pmf);
	free(d);
	return 0;
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
