// SPDX-License-Identifier: MIT
/* The scenarios' ops table: for each RG_SCENARIOS entry, its groups and the cases it builds per guard. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/parts.h"
#include "rg/platform.h"
#include "cases.h"

struct bcase *suite_new_case(struct suite *s, const struct rg_guard_info *gi,
			     const char *scenario, enum loop_kind loop, int threads)
{
	struct bcase *c = rg_grow(s->c, &s->cap, s->n, sizeof(*c), 64);

	if (!c)
		return NULL;
	s->c = c;
	c = &s->c[s->n++];
	memset(c, 0, sizeof(*c));
	c->gi = gi;
	snprintf(c->scenario, sizeof(c->scenario), "%s", scenario);
	c->group = s->ngroups;
	c->base = -1;
	c->loop = loop;
	c->threads = threads;
	c->cpus = s->cfg->cpus;
	c->batch = s->cfg->batch;
	c->stop = s->cfg->stop;
	c->stack_free = s->cfg->test_stack_free;
	c->counted_all = true;
	c->ev_all = true;
	c->worst_ratio = INFINITY;
	snprintf(c->name, sizeof(c->name), "user/%s/%s/t%d", scenario, gi->name, threads);
	return c;
}

void suite_skip_case(struct bcase *c, const char *fmt, const char *arg)
{
	c->skipped = true;
	snprintf(c->reason, sizeof(c->reason), fmt, arg);
}

static bool per_cpu(const struct rg_guard_info *gi)
{
	return gi->needs & RG_NEEDS_PIN;
}

/* A case of gi that is skipped with the registry's reason when gi cannot run here. */
static struct bcase *guard_case(struct suite *s, const struct rg_guard_info *gi,
				const char *scenario, enum loop_kind loop, int threads)
{
	struct bcase *c = suite_new_case(s, gi, scenario, loop, threads);
	const char *why = NULL;

	if (c && !rg_guard_available(gi, &why))
		suite_skip_case(c, "%s", why);
	return c;
}

static int one_group(const struct rg_suite_cfg *cfg)
{
	(void)cfg;
	return 1;
}

/* pair: one group; the C++ native noop beside noop. */
static int sc_pair_groups(const struct rg_suite_cfg *cfg)
{
	return one_group(cfg);
}

static int sc_pair_cases(struct suite *s, int k, const struct rg_guard_info *gi)
{
	struct bcase *c;

	(void)k;
	if (gi->floor && s->cfg->native_noop) {
		c = guard_case(s, gi, "pair-native-cxx", LOOP_NATIVE, 1);
		if (!c)
			return -1;
		c->batch = 1;	/* the library's loop checks every iteration */
	}
	return guard_case(s, gi, "pair", LOOP_PAIR, 1) ? 0 : -1;
}

/* duty: one group per duty level. */
static int sc_duty_groups(const struct rg_suite_cfg *cfg)
{
	return cfg->nduty;
}

static int sc_duty_cases(struct suite *s, int k, const struct rg_guard_info *gi)
{
	struct bcase *c = guard_case(s, gi, "duty", LOOP_DUTY, 1);

	if (!c)
		return -1;
	c->duty_ns = s->cfg->duty_ns[k];
	c->duty_in_ns = s->cfg->duty_in_ns[k];
	snprintf(c->name, sizeof(c->name), "user/duty/%s/t1/duty:%d", gi->name, s->cfg->duty_ns[k]);
	return 0;
}

static int sc_nested_groups(const struct rg_suite_cfg *cfg)
{
	return one_group(cfg);
}

static int sc_nested_cases(struct suite *s, int k, const struct rg_guard_info *gi)
{
	(void)k;
	return guard_case(s, gi, "nested", LOOP_NESTED, 1) ? 0 : -1;
}

/* threads: one group per thread count. */
static int sc_threads_groups(const struct rg_suite_cfg *cfg)
{
	return cfg->nthread_counts;
}

static int sc_threads_cases(struct suite *s, int k, const struct rg_guard_info *gi)
{
	return guard_case(s, gi, "threads", LOOP_PAIR, s->cfg->thread_counts[k]) ? 0 : -1;
}

/* falseshare: packed (group 0) and padded (group 1) slots, all CPUs. */
static int sc_falseshare_groups(const struct rg_suite_cfg *cfg)
{
	(void)cfg;
	return 2;
}

static int sc_falseshare_cases(struct suite *s, int k, const struct rg_guard_info *gi)
{
	int maxt = s->cfg->ncpus;
	struct bcase *c = guard_case(s, gi, k == 0 ? "falseshare-packed" : "falseshare-padded",
				     LOOP_PAIR, maxt);

	if (!c)
		return -1;
	c->stride = k == 0 ? sizeof(uint32_t) : RG_CACHELINE;
	if (!c->skipped && maxt < 2)
		suite_skip_case(c, "%s", "needs at least 2 CPUs");
	else if (!c->skipped && !per_cpu(gi) && !gi->floor)
		suite_skip_case(c, "%s", "not a per-CPU guard: slot layout does not apply");
	return 0;
}

/* latency: one group, timed with the cycle counter (latency.c). */
static int sc_latency_groups(const struct rg_suite_cfg *cfg)
{
	return one_group(cfg);
}

static int sc_latency_cases(struct suite *s, int k, const struct rg_guard_info *gi)
{
	(void)k;
	return guard_case(s, gi, "latency", LOOP_LAT, 1) ? 0 : -1;
}

/*
 * xpkg, on more than one package (or with the test switch test_xpkg, on one:
 * another core, any node): group 0 runs local-slots and remote-slots (the
 * guard's slots bound to another package's node; its baseline is
 * local-slots), groups 1 and 2 false sharing between cpus[0] and the first
 * core of another package, packed and padded. Per-CPU guards that can run
 * here only; no noop.
 */
static int sc_xpkg_groups(const struct rg_suite_cfg *cfg)
{
	return rg_topo_count(0) < 2 && !cfg->test_xpkg ? 0 : 3;
}

/* cpus[0] and the first core (not an SMT sibling) of another package (any, under test_xpkg). */
static int xpkg_other_cpu(const struct rg_suite_cfg *cfg)
{
	struct rg_topo_where w0, w;

	if (rg_topo_where(cfg->cpus[0], &w0))
		return -1;
	for (int i = 1; i < cfg->ncpus; i++)
		if (!rg_topo_where(cfg->cpus[i], &w) && !w.smt &&
		    (w.package != w0.package || cfg->test_xpkg))
			return cfg->cpus[i];
	return -1;
}

static int sc_xpkg_cases(struct suite *s, int k, const struct rg_guard_info *gi)
{
	const char *why = NULL;
	struct bcase *c;

	if (!per_cpu(gi) || !rg_guard_available(gi, &why))
		return 0;
	if (k == 0) {
		long local = (long)s->n;

		if (!suite_new_case(s, gi, "local-slots", LOOP_PAIR, 1))
			return -1;
		c = suite_new_case(s, gi, "remote-slots", LOOP_PAIR, 1);
		if (!c)
			return -1;
		c->remote = true;	/* slots bound in suite.c's setup, with the guard */
		c->base = local;
		c->base_name = "local-slots";
		return 0;
	}
	c = suite_new_case(s, gi, k == 1 ? "falseshare-xpkg-packed" : "falseshare-xpkg-padded",
			   LOOP_PAIR, 2);
	if (!c)
		return -1;
	s->xpkg_cpus[0] = s->cfg->cpus[0];
	s->xpkg_cpus[1] = xpkg_other_cpu(s->cfg);
	c->cpus = s->xpkg_cpus;
	c->stride = k == 1 ? sizeof(uint32_t) : RG_CACHELINE;
	if (s->xpkg_cpus[1] < 0)
		suite_skip_case(c, "%s", "no core on another package");
	return 0;
}

/* ladder: one group, when a selected design has a ladder in this profile (cfg->ladder). */
static int sc_ladder_groups(const struct rg_suite_cfg *cfg)
{
	for (int id = 0; id < RG_GUARD__COUNT; id++)
		if (cfg->ladder[id])
			return 1;
	return 0;
}

/*
 * noop; then for each design of cfg->ladder, the whole (its own loop, against
 * noop) and one case per part in the ladder's order, each step's loop
 * (rg_step_loops) against the step before (the first: against noop), so a
 * row's delta is what its part adds, paired round by round.
 */
static int sc_ladder_cases(struct suite *s, int k, const struct rg_guard_info *gi)
{
	int first = rg_ladder_first(gi->id), n = rg_ladder_len(gi->id);
	long prev = -1;

	(void)k;
	if (gi->floor)
		return guard_case(s, gi, "ladder", LOOP_PAIR, 1) ? 0 : -1;
	if (!s->cfg->ladder[gi->id] || first < 0)
		return 0;
	if (!guard_case(s, gi, "ladder", LOOP_PAIR, 1))
		return -1;
	for (int i = first; i < first + n; i++) {
		struct bcase *c = guard_case(s, gi, "ladder", LOOP_PAIR, 1);

		if (!c)
			return -1;
		c->part = i + 1;
		snprintf(c->name, sizeof(c->name), "user/ladder/%s/t1", rg_parts[i].name);
		if (prev >= 0) {
			c->base = prev;
			c->base_name = rg_parts[i - 1].name;
		}
		prev = (long)(c - s->c);
	}
	return 0;
}

const struct scenario_ops rg_scenario_ops[RG_SC__COUNT] = {
#define X(name, doc) [RG_SC_##name] = { .groups = sc_##name##_groups, .cases = sc_##name##_cases },
	RG_SCENARIOS(X)
#undef X
};
