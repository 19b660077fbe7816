// SPDX-License-Identifier: MIT
/* Statistics of a row's samples: median, mean, spread and the paired delta's interval. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "schema_int.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
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
	qsort(tmp, n, sizeof(*tmp), cmp_double);
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

/* xorshift64*: a small fixed-seed generator for the bootstrap (reproducible intervals). */
static uint64_t boot_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

int rg_stat_paired_delta(const double *x, const double *base, size_t n,
			 double *median, double *lo, double *hi)
{
	double *d, *res, *meds;
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	*median = *lo = *hi = NAN;
	if (!n)
		return 0;
	d = malloc(n * sizeof(*d));
	res = malloc(n * sizeof(*res));
	meds = malloc(RG_BOOT_RESAMPLES * sizeof(*meds));
	if (!d || !res || !meds) {
		free(d);
		free(res);
		free(meds);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		d[i] = x[i] - base[i];
	*median = rg_stat_median(d, n);
	if (n >= 2) {
		for (size_t b = 0; b < RG_BOOT_RESAMPLES; b++) {
			for (size_t i = 0; i < n; i++)
				res[i] = d[boot_next(&seed) % n];
			qsort(res, n, sizeof(*res), cmp_double);
			meds[b] = n % 2 ? res[n / 2] : (res[n / 2 - 1] + res[n / 2]) / 2.0;
		}
		qsort(meds, RG_BOOT_RESAMPLES, sizeof(*meds), cmp_double);
		*lo = meds[(size_t)(0.025 * RG_BOOT_RESAMPLES)];
		*hi = meds[(size_t)(0.975 * RG_BOOT_RESAMPLES) - 1];
	}
	free(d);
	free(res);
	free(meds);
	return 0;
}

int rg_result_set_delta(struct rg_result *r, const char *baseline,
			const double *x, const double *base, size_t n)
{
	copy_str(r->baseline, sizeof(r->baseline), baseline);
	return rg_stat_paired_delta(x, base, n, &r->delta_ns, &r->delta_ci_lo, &r->delta_ci_hi);
}

static double *dup_samples(const double *v, size_t n)
{
	double *d;

	if (!v || !n)
		return NULL;
	d = malloc(n * sizeof(*d));
	if (d)
		memcpy(d, v, n * sizeof(*d));
	return d;
}

int rg_result_set_round_samples(struct rg_result *r, const double *wall_ns,
				const double *x, const double *base, size_t n)
{
	double *w = dup_samples(wall_ns, n), *d = NULL;

	if (wall_ns && n && !w)
		return -ENOMEM;
	if (x && base && n) {
		d = malloc(n * sizeof(*d));
		if (!d) {
			free(w);
			return -ENOMEM;
		}
		for (size_t i = 0; i < n; i++)
			d[i] = x[i] - base[i];
	}
	free(r->samples_wall_ns);
	free(r->samples_delta_ns);
	r->samples_wall_ns = w;
	r->samples_delta_ns = d;
	if (w)
		r->wall_ns_median = rg_stat_median(w, n);
	return 0;
}

int rg_result_set_samples(struct rg_result *r, const double *ns,
			  const double *mops, size_t n)
{
	double *sns = dup_samples(ns, n), *smops = dup_samples(mops, n);

	if ((ns && n && !sns) || (mops && n && !smops)) {
		free(sns);
		free(smops);
		return -ENOMEM;
	}
	free(r->samples_ns);
	free(r->samples_mops);
	r->samples_ns = sns;
	r->samples_mops = smops;
	r->nsamples = n;
	r->repetitions = (long)n;
	if (sns) {
		r->ns_median = rg_stat_median(sns, n);
		r->ns_mean = rg_stat_mean(sns, n);
		r->ns_stddev = rg_stat_stddev(sns, n);
		r->ns_min = r->ns_max = sns[0];
		for (size_t i = 1; i < n; i++) {
			r->ns_min = fmin(r->ns_min, sns[i]);
			r->ns_max = fmax(r->ns_max, sns[i]);
		}
		r->ns_cv = r->ns_mean > 0 ? r->ns_stddev / r->ns_mean : NAN;
	}
	if (smops) {
		r->mops_median = rg_stat_median(smops, n);
		r->mops_mean = rg_stat_mean(smops, n);
		r->mops_stddev = rg_stat_stddev(smops, n);
		r->mops_per_thread = r->threads > 0 ? r->mops_median / (double)r->threads : NAN;
	}
	return 0;
}
