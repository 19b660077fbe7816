// SPDX-License-Identifier: MIT
/* The one measuring path: the loop kinds' ops table, each group's cases (cycle reference included) calibrated, then measured in interleaved rounds in a fresh random order, disturbed runs re-run. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <string.h>
#include <sys/resource.h>

#include "rg/cmdline.h"
#include "rg/platform.h"
#include "cases.h"
#include "clock.h"
#include "counters.h"
#include "refloop.h"
#include "rounds.h"
#include "rows.h"

/* ---- the loop kinds ------------------------------------------------------ */

/* duty: the work units are calibrated right before the group's rounds, not once for the whole run. */
static int duty_prepare(struct suite *s, struct bcase **set, size_t n)
{
	/* A run given the first run's units (runs.c) starts from them: it still calibrates. */
	uint32_t in = s->preset ? set[0]->work_in : 0, out = s->preset ? set[0]->work - set[0]->work_in : 0;

	rg_suite_duty_units(s->cfg->cpus[0], set[0]->duty_in_ns, set[0]->duty_ns - set[0]->duty_in_ns,
			    &in, &out);
	rg_topo_unpin_self();
	for (size_t i = 0; i < n; i++) {
		set[i]->work = in + out;
		set[i]->work_in = in;
	}
	return 0;
}

static long ivcsw(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_nivcsw;
}

/*
 * The cycle reference: one thread pinned to its CPU runs the dependent add
 * chain, one call per chunk (no call inside the chain), stamped with CPU
 * time, wall time and involuntary switches like every case. cur.cpu_ns is ns
 * per add. The calibration run doubles the chunk until it lasts min_time.
 */
static int ref_run(struct suite *s, struct bcase **set, size_t n, bool calib)
{
	static volatile uint64_t sink;
	char err[200];

	for (size_t i = 0; i < n; i++) {
		struct bcase *c = set[i];
		struct attempt *a = &c->cur;
		uint64_t adds = calib ? c->batch : c->chunk;
		double cpu, wall;
		long iv0;

		memset(a, 0, sizeof(*a));
		if (rg_topo_pin_self(c->cpus[0], err, sizeof(err))) {
			suite_case_fail(c, err);
			continue;
		}
		for (;;) {
			iv0 = ivcsw();
			cpu = ts_ns(CLOCK_THREAD_CPUTIME_ID);
			wall = ts_ns(CLOCK_MONOTONIC);
			sink = rg_ref_chain(adds / RG_REF_ADDS_PER_ITER, sink);
			wall = ts_ns(CLOCK_MONOTONIC) - wall;
			cpu = ts_ns(CLOCK_THREAD_CPUTIME_ID) - cpu;
			a->iv = ivcsw() - iv0;
			if (!calib || cpu >= s->cfg->min_time * 1e9 || adds >= (1ull << 40))
				break;
			adds *= 2;
		}
		c->seen_cpu[0] = c->cpus[0];
		c->reported = true;
		a->cpu_ns = cpu / (double)adds;
		a->wall_ns = wall / (double)adds;
		a->mops = (double)adds / wall * 1e3;
		a->ratio = wall > 0 ? cpu / wall : 0;
		a->ops = adds;
		a->ok = cpu > 0 && wall > 0;
	}
	rg_topo_unpin_self();
	return 0;
}

const struct loop_kind_ops loop_kinds[LOOP__COUNT] = {
	[LOOP_PAIR] = { .name = "pair", .run = suite_run_set, .gbench = true, .guard_loop = GUARD_LOOP_PAIR },
	[LOOP_DUTY] = { .name = "duty", .prepare = duty_prepare, .run = suite_run_set, .gbench = true,
			.duty = true, .guard_loop = GUARD_LOOP_DUTY },
	[LOOP_NESTED] = { .name = "nested", .run = suite_run_set, .gbench = true,
			  .guard_loop = GUARD_LOOP_NESTED },
	[LOOP_NATIVE] = { .name = "native", .run = suite_run_set, .gbench = true, .native = true,
			  .progress = "pair" },
	[LOOP_LAT] = { .name = "latency", .prepare = lat_prepare, .run = lat_run,
		       .no_counters = "n/a: the latency scenario uses the timer only", .distribution = true },
	[LOOP_REF] = { .name = "ref", .run = ref_run, .reference = true },
};

/*
 * One run of each case of set[0..n) in that order: consecutive cases whose kinds
 * share a run go to it together (the library's kinds: one registration).
 */
static int run_mixed(struct suite *s, struct bcase **set, size_t n, bool calib)
{
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && kind_of(set[j])->run == kind_of(set[i])->run; j++)
			;
		if (kind_of(set[i])->run(s, set + i, j - i, calib))
			return -1;
	}
	return 0;
}

static uint64_t rng_next(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545f4914f6cdd1dull;
}

static void shuffle(struct suite *s, struct bcase **v, size_t n)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = rng_next(&s->rng) % i;
		struct bcase *t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

static int push(double **v, size_t n, double x)
{
	double *nv = realloc(*v, (n + 1) * sizeof(**v));

	if (!nv)
		return -1;
	nv[n] = x;
	*v = nv;
	return 0;
}

/* Keep the case's last run as this round's sample. */
static int commit(struct suite *s, struct bcase *c, bool disturbed)
{
	struct attempt *a = &c->cur;

	/*
	 * RG_TEST_DISTURB=refrun (tests): run 1's reference, its first time, a
	 * thousand times as slow (far beyond what a loaded machine moves it: 4.5x
	 * seen here at load 9, so that a test can tell the fake from the load).
	 */
	if (kind_of(c)->reference && s->cfg->test_disturb == RG_DISTURB_REFRUN &&
	    s->cfg->run_child == 1 && !s->again)
		a->cpu_ns *= 1000;
	/* RG_TEST_DISTURB=ref (tests): the reference's last round twice as slow as its slowest before. */
	if (kind_of(c)->reference && s->cfg->test_disturb == RG_DISTURB_REF && c->nrep &&
	    c->nrep + 1 == (size_t)s->rounds) {
		for (size_t i = 0; i < c->nrep; i++)
			a->cpu_ns = fmax(a->cpu_ns, 2 * c->ns[i]);
	}

	if (push(&c->ns, c->nrep, a->cpu_ns) || push(&c->wall, c->nrep, a->wall_ns) ||
	    push(&c->mops, c->nrep, a->mops) || push(&c->ratio, c->nrep, a->ratio)) {
		suite_case_fail(c, "out of memory");
		return -1;
	}
	c->nrep++;
	if (disturbed) {
		c->nnoisy++;
		c->worst_ratio = fmin(c->worst_ratio, a->ratio);
		c->worst_iv = a->iv > c->worst_iv ? a->iv : c->worst_iv;
	}
	c->ops += a->ops;
	c->refusals += a->refusals;
	c->counted_all &= a->counted_all;
	c->cycles += a->cycles;
	c->instructions += a->instructions;
	c->ev_all &= a->ev_all;
	for (size_t i = 0; i < rg_events_list()->n; i++)
		c->ev[i] += a->ev[i];
	return 0;
}

/*
 * One round of a group: every active case once, in a fresh random order.
 * A run in which a thread lost time (CPU/wall below RG_SUITE_MIN_CPU_WALL:
 * preempted, stolen by the host, waiting on a run queue) is discarded
 * (counted) and run again right after the others, up to RG_SUITE_RETRIES
 * times; the last run is kept either way, with its CPU/wall, and the row
 * (rows.c) judges what the kept disturbed rounds did to its figure. An
 * involuntary switch that cost no measurable time is no disturbance.
 */
static int run_round(struct suite *s, struct bcase **set, size_t n)
{
	shuffle(s, set, n);
	for (int attempt = 0; n && !*s->cfg->stop; attempt++) {
		size_t again = 0;

		if (run_mixed(s, set, n, false))
			return -1;
		for (size_t i = 0; i < n; i++) {
			struct bcase *c = set[i];
			bool disturbed;

			if (!c->cur.ok) {
				suite_case_fail(c, "not run (filtered out of a round?)");
				continue;
			}
			/*
			 * RG_TEST_DISTURB: one fake involuntary switch that cost
			 * half the run (CPU/wall 0.50), for the tests.
			 */
			if (s->cfg->test_disturb == RG_DISTURB_EVERY ||
			    (s->cfg->test_disturb == RG_DISTURB_FIRST && attempt == 0)) {
				c->cur.iv++;
				c->cur.ratio = fmin(c->cur.ratio, 0.5);
			}
			disturbed = c->cur.ratio < RG_SUITE_MIN_CPU_WALL;
			if (disturbed && attempt < RG_SUITE_RETRIES) {
				c->discarded++;
				set[again++] = c;
				continue;
			}
			if (commit(s, c, disturbed))
				return -1;
		}
		n = again;
	}
	return 0;
}

int suite_group_rounds(const struct rg_suite_cfg *cfg, const struct bcase *c)
{
	/* Latency rows stay in one process: they get the rounds all runs would have had. */
	return kind_of(c)->distribution && cfg->runs > 1 ? cfg->repetitions * cfg->runs : cfg->repetitions;
}

/* The group's C-binding noop: its rows' default baseline. */
struct bcase *suite_group_noop(struct suite *s, int group)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->c[i].group == group && s->c[i].gi->floor &&
		    !kind_of(&s->c[i])->native && !kind_of(&s->c[i])->reference && !s->c[i].skipped)
			return &s->c[i];
	return NULL;
}

struct bcase *suite_group_ref(struct suite *s, int group)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->c[i].group == group && kind_of(&s->c[i])->reference)
			return &s->c[i];
	return NULL;
}

/* Each loop kind of the group prepares once (duty calibration, the latency counter). */
static int prepare_kinds(struct suite *s, struct bcase **set, size_t n)
{
	bool done[LOOP__COUNT] = { false };

	for (size_t i = 0; i < n; i++) {
		enum loop_kind k = set[i]->loop;
		size_t m = 0;

		if (done[k] || !loop_kinds[k].prepare)
			continue;
		done[k] = true;
		/* the kind's cases first, in order (set[] is rebuilt below) */
		for (size_t j = i; j < n; j++)
			if (set[j]->loop == k) {
				struct bcase *t = set[i + m];

				set[i + m] = set[j];
				set[j] = t;
				m++;
			}
		if (loop_kinds[k].prepare(s, set + i, m))
			return -1;
	}
	return 0;
}

/* The group's cases that can run, cycle reference last; how many are benchmarks (not the reference). */
static size_t group_set(struct suite *s, int group, struct bcase **set, size_t *n, bool active)
{
	size_t nb = 0;

	*n = 0;
	for (size_t i = 0; i < s->n; i++) {
		struct bcase *c = &s->c[i];

		if (c->group != group || (active ? !c->active : c->skipped))
			continue;
		set[(*n)++] = c;
		nb += !kind_of(c)->reference;
	}
	return nb;
}

int suite_run_group(struct suite *s, int group, struct bcase **set)
{
	const struct rg_suite_cfg *cfg = s->cfg;
	size_t n, nb = group_set(s, group, set, &n, false), nactive = 0;
	double last_tick;
	bool long_group;

	if (!nb || *cfg->stop)
		return 0;
	s->rounds = suite_group_rounds(cfg, set[0]);
	/*
	 * Every run calibrates its own duty work units, also one given the first
	 * run's chunks (runs.c): the calibration moves by several % from one
	 * command to the next on a shared host (the duty noop by 7.9 % in one A/A
	 * pair), and a figure shared by all runs of a command would move all of
	 * them together, out of sight of the run-level statistics.
	 */
	if (prepare_kinds(s, set, n))
		return -1;
	nb = group_set(s, group, set, &n, false);	/* a kind's prepare may skip cases */
	if (!nb)
		return 0;
	if (cfg->progress) {
		fprintf(cfg->progress, "rgbench: %s: %zu benchmarks in %d interleaved rounds",
			case_progress_name(set[0]), nb, s->rounds);
		if (kind_of(set[0])->duty)
			fprintf(cfg->progress, " (duty %ld ns target, %ld+%ld in+out: %u+%u work units)",
				set[0]->duty_ns, set[0]->duty_in_ns, set[0]->duty_ns - set[0]->duty_in_ns,
				set[0]->work_in, set[0]->work - set[0]->work_in);
		if (set[0]->threads > 1)
			fprintf(cfg->progress, " (%d threads)", set[0]->threads);
		fputc('\n', cfg->progress);
		fflush(cfg->progress);
	}
	/*
	 * Calibration and warm-up: each kind finds a run of at least min_time.
	 * A run given the first run's chunks only warms up, one chunk each.
	 */
	if (s->preset) {
		size_t m = 0;

		for (size_t i = 0; i < n; i++)
			if (set[i]->chunk)
				set[m++] = set[i];
		n = m;
	}
	if (run_mixed(s, set, n, !s->preset))
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct bcase *c = set[i];
		double want;

		if (!c->reported)
			continue;	/* --benchmark_filter left it out: no row */
		if (c->error)
			continue;
		if (!c->cur.ok) {
			suite_case_fail(c, "calibration run measured nothing");
			continue;
		}
		if (!s->preset) {
			want = cfg->min_time * 1e9 / fmax(c->cur.cpu_ns, 1e-3);
			c->chunk = (uint64_t)ceil(fmin(want, 1e12) / (double)c->batch) * c->batch;
			if (c->chunk < c->batch)
				c->chunk = c->batch;
		}
		c->active = true;
		nactive += !kind_of(c)->reference;
	}
	if (!nactive)
		return 0;	/* all filtered out: not even the reference runs */
	long_group = (double)nb * s->rounds * cfg->min_time > 5;
	last_tick = rg_now_s();
	for (int r = 0; r < s->rounds && !*cfg->stop; r++) {
		size_t m;

		/* run_round() reorders and reuses set[]: take the group afresh. */
		group_set(s, group, set, &m, true);
		if (run_round(s, set, m))
			return -1;
		/* Long groups (--full, slow guards) say where they are every few seconds. */
		if (cfg->progress && long_group && r + 1 < s->rounds) {
			double now = rg_now_s();

			if (now - last_tick > 5) {
				char clock[64];

				suite_progress_clock(s, clock, sizeof(clock));
				fprintf(cfg->progress, "rgbench: ... round %d of %d%s\n", r + 1,
					s->rounds, clock);
				fflush(cfg->progress);
				last_tick = now;
			}
		}
	}
	return 0;
}
