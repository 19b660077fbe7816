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
	qsort(d, n, sizeof(*d), cmp_double);
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

const char *rg_ci_level_tag(double level, char *buf, size_t len)
{
	if (isnan(level) || level >= RG_CI_NOMINAL)
		snprintf(buf, len, "%s", "");
	else
		snprintf(buf, len, " %.1f%%", 100.0 * level);
	return buf;
}

int rg_result_set_delta(struct rg_result *r, const char *baseline,
			const double *x, const double *base, size_t n)
{
	copy_str(r->baseline, sizeof(r->baseline), baseline);
	return rg_stat_paired_delta(x, base, n, &r->delta_ns, &r->delta_ci_lo, &r->delta_ci_hi,
				    &r->delta_ci_level);
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

/* x[i] - base[i] for n samples into a new array (*d NULL when x or base is); 0 or -ENOMEM. */
static int diff_samples(const double *x, const double *base, size_t n, double **d)
{
	*d = NULL;
	if (!x || !base || !n)
		return 0;
	*d = malloc(n * sizeof(**d));
	if (!*d)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		(*d)[i] = x[i] - base[i];
	return 0;
}

int rg_result_set_round_samples(struct rg_result *r, const double *wall_ns,
				const double *x, const double *base, size_t n)
{
	double *w = dup_samples(wall_ns, n), *d;

	if ((wall_ns && n && !w) || diff_samples(x, base, n, &d)) {
		free(w);
		return -ENOMEM;
	}
	free(r->samples_wall_ns);
	free(r->samples_delta_ns);
	r->samples_wall_ns = w;
	r->samples_delta_ns = d;
	if (w)
		r->wall_ns_median = rg_stat_median(w, n);
	return 0;
}

int rg_result_set_cpu_samples(struct rg_result *r, const double *cpu, const double *base,
			      size_t n)
{
	double *c = dup_samples(cpu, n), *d;

	if ((cpu && n && !c) || diff_samples(c, base, n, &d)) {
		free(c);
		return -ENOMEM;
	}
	free(r->samples_cpu_ns);
	free(r->samples_cpu_delta_ns);
	r->samples_cpu_ns = c;
	r->samples_cpu_delta_ns = d;
	if (c)
		r->cpu_ns_median = rg_stat_median(c, n);
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

void rg_result_set_ref(struct rg_result *r, const double *ns, size_t n)
{
	double lo, hi, move;
	size_t off;

	if (!n)
		return;
	r->ref_ns_per_cycle = rg_stat_median(ns, n);
	r->ref_cv = rg_stat_stddev(ns, n) / rg_stat_mean(ns, n);
	r->ref_cycles_per_pair = r->ns_median / r->ref_ns_per_cycle;
	lo = hi = ns[0];
	for (size_t i = 1; i < n; i++) {
		lo = fmin(lo, ns[i]);
		hi = fmax(hi, ns[i]);
	}
	move = (hi - lo) / r->ref_ns_per_cycle;
	if (!(move > RG_REF_MAX_MOVE))
		return;
	off = strlen(r->reason);
	snprintf(r->status, sizeof(r->status), "noisy");
	snprintf(r->reason + off, sizeof(r->reason) - off,
		 "%sthe cycle reference moved %.0f%% across the rounds (more than %.0f%%)",
		 off ? "; " : "", move * 100, RG_REF_MAX_MOVE * 100);
}

int rg_result_set_runs(struct rg_result *r, const double *run_ns, const double *run_delta,
		       const char (*where)[RG_RUN_WHERE_LEN], size_t nruns)
{
	double *ns = dup_samples(run_ns, nruns), *d = dup_samples(run_delta, nruns);
	char (*w)[RG_RUN_WHERE_LEN] = where && nruns ? malloc(nruns * sizeof(*w)) : NULL;
	const double *spread;

	if ((run_ns && nruns && !ns) || (run_delta && nruns && !d) || (where && nruns && !w)) {
		free(ns);
		free(d);
		free(w);
		return -ENOMEM;
	}
	if (w)
		memcpy(w, where, nruns * sizeof(*w));
	free(r->runs_ns);
	free(r->runs_delta_ns);
	free(r->runs_where);
	r->runs_ns = ns;
	r->runs_delta_ns = d;
	r->runs_where = w;
	r->nruns = nruns;
	r->runs = (long)nruns;
	if (nruns < 2)
		return 0;
	/* The runs are the unit: each run's median counts once, whatever its rounds. */
	if (ns)
		r->ns_median = rg_stat_median(ns, nruns);
	if (d) {
		double *zero = calloc(nruns, sizeof(*zero));
		int rc;

		if (!zero)
			return -ENOMEM;
		rc = rg_stat_paired_delta(d, zero, nruns, &r->delta_ns, &r->delta_ci_lo,
					  &r->delta_ci_hi, &r->delta_ci_level);
		free(zero);
		if (rc)
			return rc;
	}
	spread = d ? d : ns;
	if (spread)
		r->aa_floor_ns = rg_stat_aa_floor(spread, nruns);
	return 0;
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
	/* P(T <= q) = p by bisection: 1 - sf is increasing in q. */
	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

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
