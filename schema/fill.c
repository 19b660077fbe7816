// SPDX-License-Identifier: MIT
/* The one setter of a row's numbers: rg_result_fill() fills every numeric and statistical column from one description of what was measured. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema_int.h"

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

/* The rounds' samples (either may be NULL): ns_* and mops_* with their copies for the JSON. */
static int set_samples(struct rg_result *r, const double *ns, const double *mops, size_t n)
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

/* A distribution's figures (one value per batch): the shared statistics and its percentiles. */
static int set_distribution(struct rg_result *r, const double *dist, size_t n)
{
	double *v = malloc((n ? n : 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	memcpy(v, dist, n * sizeof(*v));
	rg_stat_sort(v, n);
	r->repetitions = (long)n;
	r->ns_mean = rg_stat_mean(v, n);
	r->ns_stddev = rg_stat_stddev(v, n);
	r->ns_min = n ? v[0] : NAN;
	r->ns_max = n ? v[n - 1] : NAN;
	r->ns_cv = r->ns_mean > 0 ? r->ns_stddev / r->ns_mean : NAN;
	r->lat_p50_ns = r->ns_median = rg_stat_percentile(v, n, 50);
	r->lat_p90_ns = rg_stat_percentile(v, n, 90);
	r->lat_p99_ns = rg_stat_percentile(v, n, 99);
	r->lat_p999_ns = rg_stat_percentile(v, n, 99.9);
	r->lat_max_ns = r->ns_max;
	r->mops_median = r->ns_median > 0 ? 1e3 / r->ns_median : NAN;
	r->mops_mean = r->ns_mean > 0 ? 1e3 / r->ns_mean : NAN;
	r->mops_per_thread = r->mops_median;
	free(v);
	return 0;
}

/* Copy n histogram bins (hi may hold INFINITY for the open last bin). 0 or -ENOMEM. */
static int set_lat_hist(struct rg_result *r, const double *lo, const double *hi,
			const uint64_t *count, size_t n)
{
	free(r->lat_hist_lo);
	free(r->lat_hist_hi);
	free(r->lat_hist_count);
	r->lat_hist_n = 0;
	r->lat_hist_lo = malloc((n ? n : 1) * sizeof(double));
	r->lat_hist_hi = malloc((n ? n : 1) * sizeof(double));
	r->lat_hist_count = malloc((n ? n : 1) * sizeof(uint64_t));
	if (!r->lat_hist_lo || !r->lat_hist_hi || !r->lat_hist_count)
		return -ENOMEM;
	if (n) {
		memcpy(r->lat_hist_lo, lo, n * sizeof(double));
		memcpy(r->lat_hist_hi, hi, n * sizeof(double));
		memcpy(r->lat_hist_count, count, n * sizeof(uint64_t));
	}
	r->lat_hist_n = n;
	return 0;
}

/* Producer CPU ns per event (bpf) and, when base is not NULL, each sample's difference against it. */
static int set_cpu_samples(struct rg_result *r, const double *cpu, const double *base, size_t n)
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

/* Wall-clock ns per pair of each round and, when base is not NULL, x[i] - base[i] of each. */
static int set_round_samples(struct rg_result *r, const double *wall_ns, const double *x,
			     const double *base, size_t n)
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

/*
 * The runs: each run's median of x over its rounds and (paired) its median
 * difference against the baseline's same rounds; then ns_median the median of
 * the runs' medians, delta_ns with its interval over the runs' deltas (each
 * run counts once, whatever its rounds), and the A/A floor.
 */
static int set_runs(struct rg_result *r, const struct rg_measured *m, const double *x)
{
	size_t nruns = m->nruns, lo = 0;
	double *ns = malloc(nruns * sizeof(*ns)), *d = NULL;
	char (*w)[RG_RUN_WHERE_LEN] = m->run_where ? malloc(nruns * sizeof(*w)) : NULL;
	bool paired = m->runs_paired && m->baseline && m->base;
	const double *spread;

	if (paired)
		d = malloc(nruns * sizeof(*d));
	if (!ns || (paired && !d) || (m->run_where && !w))
		goto nomem;
	for (size_t k = 0; k < nruns; k++) {
		size_t nk = m->run_end[k] - lo;
		double l, h;

		ns[k] = rg_stat_median(x + lo, nk);
		if (paired && rg_stat_paired_delta(x + lo, m->base + lo, nk, &d[k], &l, &h, NULL))
			goto nomem;
		lo = m->run_end[k];
	}
	if (w)
		memcpy(w, m->run_where, nruns * sizeof(*w));
	free(r->runs_ns);
	free(r->runs_delta_ns);
	free(r->runs_where);
	r->runs_ns = ns;
	r->runs_delta_ns = d;
	r->runs_where = w;
	r->nruns = nruns;
	r->runs = (long)nruns;
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
	r->aa_floor_ns = rg_stat_aa_floor(spread, nruns);
	return 0;
nomem:
	free(ns);
	free(d);
	free(w);
	return -ENOMEM;
}

/* Too little measured work per round (ns_median * round_pairs under min_round_ns): noisy. */
static void check_round_work(struct rg_result *r, const struct rg_measured *m)
{
	double round_ns = r->ns_median * (double)m->round_pairs;
	size_t l;

	if (!m->round_pairs || !(round_ns < m->min_round_ns))
		return;
	l = strcmp(r->status, "noisy") ? 0 : strlen(r->reason);
	snprintf(r->status, sizeof(r->status), "noisy");
	snprintf(r->reason + l, sizeof(r->reason) - l,
		 "%seach round measured only %llu pairs (%.0f ns), under the %.0f us minimum: raise --duration",
		 l ? "; " : "", (unsigned long long)m->round_pairs, round_ns, m->min_round_ns / 1e3);
}

/* The cycle reference's columns and its noisy rule (RG_REF_MAX_MOVE). */
static void set_ref(struct rg_result *r, const double *ns, size_t n)
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

int rg_result_fill(struct rg_result *r, const struct rg_measured *m)
{
	/* What the delta and the runs are of: producer CPU time (bpf, on_cpu) or ns. */
	const double *x = m->on_cpu ? m->cpu_ns : m->ns;
	bool paired = m->baseline && m->base;
	size_t npair = m->nbase < m->n ? m->nbase : m->n;
	double rate_ns;

	if (m->dist ? set_distribution(r, m->dist, m->ndist) :
	    m->n ? set_samples(r, m->ns, m->mops, m->n) : 0)
		return -ENOMEM;
	if (m->hist_count && set_lat_hist(r, m->hist_lo, m->hist_hi, m->hist_count, m->nhist))
		return -ENOMEM;
	/* Exactly 1e3 / (M/s per thread), also for an even number of samples. */
	if (m->ns_from_rate)
		r->ns_median = r->wall_ns_median = 1e3 / r->mops_per_thread;
	if (m->ns_is_cpu)
		r->cpu_ns_median = r->ns_median;
	if (m->cpu_ns && set_cpu_samples(r, m->cpu_ns, paired && m->keep_diffs && m->on_cpu ?
					 m->base : NULL, m->n))
		return -ENOMEM;
	if (m->baseline) {
		copy_str(r->baseline, sizeof(r->baseline), m->baseline);
		if (rg_stat_paired_delta(x, m->base, npair, &r->delta_ns, &r->delta_ci_lo,
					 &r->delta_ci_hi, &r->delta_ci_level))
			return -ENOMEM;
	}
	if (m->wall_ns && set_round_samples(r, m->wall_ns, m->ns, paired && m->keep_diffs &&
					    !m->on_cpu ? m->base : NULL, m->n))
		return -ENOMEM;
	if (m->nruns > 1) {
		rate_ns = r->ns_median;
		if (set_runs(r, m, x))
			return -ENOMEM;
		/* bpf: ns_median stays the rate's; runs_ns holds the values the runs are of. */
		if (m->ns_from_rate)
			r->ns_median = rate_ns;
	}
	check_round_work(r, m);
	set_ref(r, m->ref_ns, m->nref);
	return 0;
}
