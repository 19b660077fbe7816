// SPDX-License-Identifier: MIT
/* The rounds: each group's cases calibrated, then measured in interleaved rounds in a fresh random order, disturbed runs re-run. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "rg/cmdline.h"
#include "rg/platform.h"
#include "suite_int.h"

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
static int commit(struct bcase *c, bool disturbed)
{
	const struct attempt *a = &c->cur;

	if (push(&c->ns, c->nrep, a->cpu_ns) || push(&c->wall, c->nrep, a->wall_ns) ||
	    push(&c->mops, c->nrep, a->mops)) {
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
 * A run whose threads were descheduled is discarded (counted) and run again
 * right after the others, up to RG_SUITE_RETRIES times; the last run is kept
 * either way, and a kept disturbed run makes the row `noisy`.
 */
static int run_round(struct suite *s, struct bcase **set, size_t n)
{
	shuffle(s, set, n);
	for (int attempt = 0; n && !*s->cfg->stop; attempt++) {
		size_t again = 0;

		if (suite_run_set(s, set, n, false))
			return -1;
		for (size_t i = 0; i < n; i++) {
			struct bcase *c = set[i];
			bool disturbed;

			if (!c->cur.ok) {
				suite_case_fail(c, "not run (filtered out of a round?)");
				continue;
			}
			/* RG_TEST_DISTURB: one fake involuntary switch, for the tests. */
			if (s->fake_disturb == 2 || (s->fake_disturb == 1 && attempt == 0))
				c->cur.iv++;
			disturbed = c->cur.ratio < RG_SUITE_MIN_CPU_WALL || c->cur.iv > 0;
			if (disturbed && attempt < RG_SUITE_RETRIES) {
				c->discarded++;
				set[again++] = c;
				continue;
			}
			if (commit(c, disturbed))
				return -1;
		}
		n = again;
	}
	return 0;
}

/* The group's C-binding noop: every row's baseline. */
struct bcase *suite_group_noop(struct suite *s, int group)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->c[i].group == group && s->c[i].gi->id == RG_GUARD_noop &&
		    s->c[i].loop != LOOP_NATIVE && !s->c[i].skipped)
			return &s->c[i];
	return NULL;
}

int suite_run_group(struct suite *s, int group, struct bcase **set)
{
	const struct rg_suite_cfg *cfg = s->cfg;
	size_t n = 0, first = SIZE_MAX;
	struct bcase *base = suite_group_noop(s, group);
	uint32_t in = 0, out = 0;
	double last_tick;
	bool long_group;

	for (size_t i = 0; i < s->n; i++) {
		if (s->c[i].group != group)
			continue;
		first = first == SIZE_MAX ? i : first;
		if (!s->c[i].skipped)
			set[n++] = &s->c[i];
	}
	if (!n || *cfg->stop)
		return 0;
	if (set[0]->loop == LOOP_DUTY) {
		/* Calibrated right before the group's rounds, not once for the whole run. */
		rg_suite_duty_units(cfg->cpus[0], set[0]->duty_in_ns,
				    set[0]->duty_ns - set[0]->duty_in_ns, &in, &out);
		rg_topo_unpin_self();
		for (size_t i = 0; i < n; i++) {
			set[i]->work = in + out;
			set[i]->work_in = in;
		}
	}
	if (cfg->progress) {
		fprintf(cfg->progress, "rgbench: %s: %zu benchmarks in %d interleaved rounds",
			set[0]->loop == LOOP_NATIVE ? "pair" : set[0]->scenario, n, cfg->repetitions);
		if (set[0]->loop == LOOP_DUTY)
			fprintf(cfg->progress, " (duty %ld ns target, %ld+%ld in+out: %u+%u work units)",
				set[0]->duty_ns, set[0]->duty_in_ns, set[0]->duty_ns - set[0]->duty_in_ns,
				in, out);
		if (set[0]->threads > 1)
			fprintf(cfg->progress, " (%d threads)", set[0]->threads);
		fputc('\n', cfg->progress);
		fflush(cfg->progress);
	}
	/* Calibration and warm-up: the library finds a run of at least min_time. */
	if (suite_run_set(s, set, n, true))
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
		want = cfg->min_time * 1e9 / fmax(c->cur.cpu_ns, 1e-3);
		c->chunk = (uint64_t)ceil(fmin(want, 1e12) / (double)c->batch) * c->batch;
		if (c->chunk < c->batch)
			c->chunk = c->batch;
		c->active = true;
	}
	long_group = (double)n * cfg->repetitions * cfg->min_time > 5;
	last_tick = rg_now_s();
	for (int r = 0; r < cfg->repetitions && !*cfg->stop; r++) {
		size_t m = 0;

		/* run_round() reorders and reuses set[]: take the group afresh. */
		for (size_t i = first; i < s->n; i++)
			if (s->c[i].group == group && s->c[i].active)
				set[m++] = &s->c[i];
		if (run_round(s, set, m))
			return -1;
		/* Long groups (--full, slow guards) say where they are every few seconds. */
		if (cfg->progress && long_group && r + 1 < cfg->repetitions) {
			double now = rg_now_s();

			if (now - last_tick > 5) {
				fprintf(cfg->progress, "rgbench: ... round %d of %d\n", r + 1,
					cfg->repetitions);
				fflush(cfg->progress);
				last_tick = now;
			}
		}
	}
	for (size_t i = first; i < s->n && !*cfg->stop; i++)
		if (s->c[i].group == group && !s->c[i].skipped && s->c[i].reported)
			suite_progress_line(s, &s->c[i], base);
	return 0;
}

