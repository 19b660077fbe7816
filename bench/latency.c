// SPDX-License-Identifier: MIT
/* The latency scenario: the cheap counter measured, each guard's pair loop timed per batch, percentiles and a histogram. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "lat_counter.h"
#include "latency.h"
#include "rg/percpu.h"
#include "rg/schema.h"
#include "cases.h"
#include "rounds.h"
#include "rows.h"
#include "rg/platform.h"

uint64_t (*const rg_lat_loops[RG_GUARD__COUNT])(struct rg_guard *, uint64_t, uint64_t, uint64_t *) = {
#define RG_GUARD(id, ...) [RG_GUARD_##id] = rg_loop_lat_##id,
#include "rg/guards.def"
#undef RG_GUARD
};

/* ---- the counter -------------------------------------------------------- */


static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

#if defined(__x86_64__)
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Ticks per second: the counter against CLOCK_MONOTONIC_RAW over 3 x 20 ms, median. */
static double measure_hz(void)
{
	double r[3];

	for (int k = 0; k < 3; k++) {
		double t0 = raw_ns(), t1;
		uint64_t c0 = rg_lat_read_begin(), c1;

		do {
			t1 = raw_ns();
		} while (t1 - t0 < 20e6);
		c1 = rg_lat_read_end();
		r[k] = (double)(c1 - c0) * 1e9 / (t1 - t0);
	}
	qsort(r, 3, sizeof(r[0]), cmp_double);
	return r[1];
}
#endif

/* Smallest non-zero step between two reads, and the median empty timed region, in ticks. */
static void measure_steps(double *step_ticks, double *overhead_ticks)
{
	enum { N = 20001 };
	static uint64_t d[N];
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < N; i++) {
		uint64_t a = rg_lat_read_begin(), b = rg_lat_read_begin();

		if (b > a && b - a < best)
			best = b - a;
	}
	for (int i = 0; i < N; i++) {
		uint64_t t0 = rg_lat_read_begin();

		d[i] = rg_lat_read_end() - t0;
	}
	qsort(d, N, sizeof(d[0]), cmp_u64);
	*step_ticks = best == UINT64_MAX ? NAN : (double)best;
	*overhead_ticks = (double)d[N / 2];
}

bool rg_lat_timer_probe(struct rg_lat_timer *t, const char *force)
{
	double step;

	memset(t, 0, sizeof(*t));
	t->hz = t->tick_ns = t->resolution_ns = t->overhead_ticks = t->overhead_ns = NAN;
	if (force && *force) {
		snprintf(t->why, sizeof(t->why), "timer unusable: %s (RG_TEST_LATENCY_UNUSABLE)", force);
		return false;
	}
#if defined(__x86_64__)
	{
		unsigned int a, b, c, d, max_ext;

		max_ext = __get_cpuid_max(0x80000000u, NULL);
		if (max_ext < 0x80000007u) {
			snprintf(t->why, sizeof(t->why),
				 "timer unusable: CPUID has no leaf 0x80000007, cannot tell whether the TSC is invariant");
			return false;
		}
		__cpuid(0x80000007u, a, b, c, d);
		(void)a; (void)b; (void)c;
		if (!(d & (1u << 8))) {
			snprintf(t->why, sizeof(t->why),
				 "timer unusable: TSC not invariant (CPUID 0x80000007 EDX[8] clear): its rate may change with frequency or sleep states");
			return false;
		}
		snprintf(t->source, sizeof(t->source), "rdtsc (invariant TSC)");
		t->hz = measure_hz();
	}
#else
	t->hz = (double)rg_lat_cntfrq();
	snprintf(t->source, sizeof(t->source), "cntvct_el0");
	if (!(t->hz > 0)) {
		snprintf(t->why, sizeof(t->why), "timer unusable: CNTFRQ_EL0 reads 0");
		return false;
	}
#endif
	if (!(t->hz > 1e6)) {
		snprintf(t->why, sizeof(t->why), "timer unusable: counter runs at %.0f Hz", t->hz);
		return false;
	}
	t->tick_ns = 1e9 / t->hz;
	measure_steps(&step, &t->overhead_ticks);
	if (isnan(step)) {
		snprintf(t->why, sizeof(t->why), "timer unusable: the counter did not advance between reads");
		return false;
	}
	t->resolution_ns = step * t->tick_ns;
	t->overhead_ns = t->overhead_ticks * t->tick_ns;
	t->usable = true;
	return true;
}

/* ---- histogram and percentiles ----------------------------------------- */

int rg_lat_hist_bin(double ns)
{
	double k;

	if (!(ns >= RG_LAT_HIST_MIN_NS))
		return 0;		/* also NAN and negative values */
	k = floor(log2(ns / RG_LAT_HIST_MIN_NS) * RG_LAT_HIST_PER_OCTAVE) + 1;
	return k >= RG_LAT_HIST_BINS - 1 ? RG_LAT_HIST_BINS - 1 : (int)k;
}

double rg_lat_hist_lo(int bin)
{
	return bin <= 0 ? 0 : RG_LAT_HIST_MIN_NS * exp2((double)(bin - 1) / RG_LAT_HIST_PER_OCTAVE);
}

double rg_lat_hist_hi(int bin)
{
	return bin >= RG_LAT_HIST_BINS - 1 ? INFINITY
					   : RG_LAT_HIST_MIN_NS * exp2((double)bin / RG_LAT_HIST_PER_OCTAVE);
}

/* ---- the scenario -------------------------------------------------------- */

/* ns per pair of batch b: (ticks - overhead) / batch, never below 0. */
static double batch_ns(const struct rg_lat_timer *t, uint64_t ticks, uint64_t batch)
{
	double v = ((double)ticks - t->overhead_ticks) * t->tick_ns / (double)batch;

	return v > 0 ? v : 0;
}

/*
 * The counter's step: one tick, unless reads show it moving in coarser steps
 * (the smallest change seen is well above what a read costs: an emulator, or
 * a virtual counter updated in bursts); then that step.
 */
static double counter_step_ns(const struct rg_lat_timer *t)
{
	return t->resolution_ns > 2 * t->overhead_ns + t->tick_ns ? t->resolution_ns : t->tick_ns;
}

/*
 * The smallest power of two from 16 pairs up whose batch lasts at least 100
 * counter steps (one step < 1% of a batch) and 4 counter overheads (the
 * overhead is subtracted, its jitter is not). The pair cost is the mean over
 * 2000 probe batches of 16 pairs (a mean, so that a coarse counter still
 * averages out). Cheap guards get longer batches: 16-64 pairs only for
 * guards of a few ns and more.
 */
static uint64_t choose_batch(const struct rg_lat_timer *t, uint64_t (*loop)(struct rg_guard *, uint64_t, uint64_t, uint64_t *),
			     struct rg_guard *g, uint64_t *ticks, uint64_t *refused)
{
	const uint64_t probe = 2000;
	double need, pair, sum = 0;
	uint64_t b = 16;

	*refused += loop(g, 16, probe, ticks);
	for (uint64_t i = 0; i < probe; i++)
		sum += (double)ticks[i] - t->overhead_ticks;
	pair = fmax(sum * t->tick_ns / (16.0 * (double)probe), 0.01);
	need = fmax(100 * counter_step_ns(t), 4 * t->overhead_ns);
	while (b < 65536 && (double)b * pair < need)
		b *= 2;
	return b;
}

/* The case's per-batch values of every round binned: the non-empty bins, in order. Returns their number. */
size_t lat_hist_bins(const struct bcase *c, double *lo, double *hi, uint64_t *count)
{
	uint64_t cnt[RG_LAT_HIST_BINS] = { 0 };
	size_t nb = 0;

	for (size_t i = 0; i < c->ndist; i++)
		cnt[rg_lat_hist_bin(c->dist[i])]++;
	for (int k = 0; k < RG_LAT_HIST_BINS; k++) {
		if (!cnt[k])
			continue;
		lo[nb] = rg_lat_hist_lo(k);
		hi[nb] = rg_lat_hist_hi(k);
		count[nb++] = cnt[k];
	}
	return nb;
}

/* Batches per round and in the warm-up. */
#define LAT_BATCHES_PER_ROUND	20000
#define LAT_WARM_BATCHES	1000

/*
 * The LOOP_LAT kind, once per group: the counter probed and measured on the
 * group's CPU (once per run), or every case skipped saying why.
 */
int lat_prepare(struct suite *s, struct bcase **set, size_t n)
{
	const struct rg_suite_cfg *cfg = s->cfg;
	int cpu = set[0]->cpus[0];
	char err[200], why[240];
	struct rg_lat_timer *t;

	if (cfg->progress)
		fprintf(cfg->progress, "rgbench: latency: measuring the counter on CPU %d\n", cpu);
	if (rg_topo_pin_self(cpu, err, sizeof(err))) {
		snprintf(why, sizeof(why), "cannot pin: %s", err);
		for (size_t i = 0; i < n; i++)
			suite_skip_case(set[i], "%s", why);
		return 0;
	}
	if (!s->lat) {
		s->lat = malloc(sizeof(*s->lat));
		if (!s->lat)
			return -1;
		rg_lat_timer_probe(s->lat, cfg->test_lat_unusable);
	}
	rg_topo_unpin_self();
	t = s->lat;
	if (!t->usable) {
		if (cfg->progress)
			fprintf(cfg->progress, "rgbench: skipping latency: %s\n", t->why);
		for (size_t i = 0; i < n; i++)
			suite_skip_case(set[i], "%s", t->why);
		return 0;
	}
	snprintf(s->rs->timer.source, sizeof(s->rs->timer.source), "%s", t->source);
	s->rs->timer.hz = t->hz;
	s->rs->timer.resolution_ns = t->resolution_ns;
	s->rs->timer.overhead_ns = t->overhead_ns;
	if (cfg->progress)
		fprintf(cfg->progress,
			"rgbench: latency timer: %s, %.3f MHz%s: tick %.3g ns, resolution (smallest step seen between two reads) %.3g ns, overhead %.3g ns per timed region (subtracted); interrupted batches stay in the tail\n",
			t->source, t->hz / 1e6, RG_ARCH_X86_64 ? " (measured against CLOCK_MONOTONIC_RAW)" :
			" (CNTFRQ_EL0: a fixed-frequency timer, not core cycles)",
			t->tick_ns, t->resolution_ns, t->overhead_ns);
	return 0;
}

/*
 * One run of each case, pinned to its CPU: the calibration run sizes the
 * batch and warms up; a round times LAT_BATCHES_PER_ROUND batches, keeps
 * their ns per pair (c->dist) and their mean as the round's sample.
 */
int lat_run(struct suite *s, struct bcase **set, size_t n, bool calib)
{
	const struct rg_lat_timer *t = s->lat;
	const uint64_t nb = LAT_BATCHES_PER_ROUND;
	uint64_t *ticks = malloc(nb * sizeof(*ticks));
	char err[200];
	int rc = 0;

	if (!ticks)
		return -1;
	for (size_t i = 0; i < n && !*s->cfg->stop; i++) {
		struct bcase *c = set[i];
		uint64_t (*loop)(struct rg_guard *, uint64_t, uint64_t, uint64_t *) = rg_lat_loops[c->gi->id];
		struct attempt *a = &c->cur;
		double *nd, sum = 0;

		memset(a, 0, sizeof(*a));
		if (rg_topo_pin_self(c->cpus[0], err, sizeof(err))) {
			suite_case_fail(c, err);
			continue;
		}
		c->seen_cpu[0] = rg_percpu_thread_init();
		c->reported = true;
		if (calib) {
			/* sizing and warm-up are not part of the row */
			c->batch = choose_batch(t, loop, &c->g, ticks, &a->refusals);
			(void)loop(&c->g, c->batch, LAT_WARM_BATCHES, ticks);
			a->cpu_ns = a->wall_ns = 1;
			a->ok = true;
			continue;
		}
		a->refusals = loop(&c->g, c->batch, nb, ticks);
		nd = realloc(c->dist, (c->ndist + nb) * sizeof(*nd));
		if (!nd) {
			rc = -1;
			break;
		}
		c->dist = nd;
		for (uint64_t b = 0; b < nb; b++) {
			nd[c->ndist + b] = batch_ns(t, ticks[b], c->batch);
			sum += nd[c->ndist + b];
		}
		c->ndist += nb;
		a->cpu_ns = a->wall_ns = sum / (double)nb;
		a->mops = a->cpu_ns > 0 ? 1e3 / a->cpu_ns : NAN;
		a->ratio = 1;	/* interrupted batches stay in the tail: never re-run */
		a->ops = nb * c->batch;
		a->ok = true;
	}
	rg_topo_unpin_self();
	free(ticks);
	return rc;
}
