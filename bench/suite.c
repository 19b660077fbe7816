// SPDX-License-Identifier: MIT
/* The userspace suite: the cases built from the scenarios' ops table and the guard registry, and the run from cases to result rows, group by group. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "rg/compiler.h"
#include "rg/gbench.h"
#include "rg/platform.h"
#include "suite_int.h"

const char *const rg_scenario_names[RG_SC__COUNT] = {
#define X(name, doc) #name,
	RG_SCENARIOS(X)
#undef X
};

const char *const rg_scenario_docs[RG_SC__COUNT] = {
#define X(name, doc) doc,
	RG_SCENARIOS(X)
#undef X
};

int rg_scenario_find(const char *name)
{
	for (int i = 0; i < RG_SC__COUNT; i++)
		if (!strcmp(rg_scenario_names[i], name))
			return i;
	return -1;
}

/*
 * Cases are built group by group from the scenarios' ops table: every guard
 * of one scenario at one thread count, duty level and slot layout forms a
 * group (pair-native-cxx is in the pair group), and a group's cases are
 * measured in the same rounds, with the cycle reference as one more case.
 */
int suite_build(struct suite *s, const struct rg_suite_cfg *cfg)
{
	s->cfg = cfg;
	for (int sc = 0; sc < RG_SC__COUNT; sc++) {
		const struct scenario_ops *ops = &rg_scenario_ops[sc];
		int nsub = cfg->scenario[sc] ? ops->groups(cfg) : 0;

		for (int k = 0; k < nsub; k++) {
			size_t first = s->n;
			struct bcase *ref;

			for (int id = 0; id < RG_GUARD__COUNT; id++)
				if ((cfg->guard[id] || id == RG_GUARD_noop) &&
				    ops->cases(s, k, &rg_guards[id]))
					return -1;
			if (s->n == first)
				continue;	/* no case here (xpkg without a per-CPU guard) */
			ref = suite_new_case(s, &rg_guards[RG_GUARD_noop], "ref", LOOP_REF, 1);
			if (!ref)
				return -1;
			snprintf(ref->name, sizeof(ref->name), "user/ref/add-chain/t1");
			ref->batch = 64 * RG_REF_ADDS_PER_ITER;
			for (size_t i = first; i < s->n; i++) {
				s->c[i].sc = sc;
				s->c[i].tm = calloc((size_t)s->c[i].threads, sizeof(*s->c[i].tm));
				if (!s->c[i].tm)
					return -1;
			}
			s->ngroups++;
		}
	}
	return 0;
}

/* The guard's slots, and remote-slots' memory on another package (both its rows skipped without). */
static int setup_case(struct suite *s, struct bcase *c)
{
	int node = -1;

	if (rg_guard_init(&c->g, c->stride))
		return -1;
	c->g_ready = true;
	if (!c->remote)
		return 0;
	c->remote_bytes = (size_t)c->g.ncpus * c->g.stride;
	c->remote_mem = rg_topo_alloc_other_package(c->cpus[0], c->remote_bytes, &node,
						    s->cfg->test_xpkg);
	if (!c->remote_mem) {
		suite_skip_case(c, "%s", "cannot bind memory to another package's NUMA node");
		suite_skip_case(&s->c[c->base], "%s", c->reason);
		return 0;
	}
	memset(c->remote_mem, 0, c->remote_bytes);
	/* The loops address slots through off (prog->active's analogue) and pcpu. */
	c->own_pcpu = c->g.pcpu;
	c->g.pcpu = c->remote_mem;
	c->g.off = (uintptr_t)c->remote_mem;
	return 0;
}

static void free_case(struct bcase *c)
{
	if (c->own_pcpu) {
		c->g.pcpu = c->own_pcpu;
		c->g.off = (uintptr_t)c->own_pcpu;
	}
	rg_topo_free_mem(c->remote_mem, c->remote_bytes);
	if (c->g_ready)
		rg_guard_fini(&c->g);
	free(c->ns);
	free(c->wall);
	free(c->mops);
	free(c->dist);
	free(c->tm);
	for (size_t k = 0; c->run && k < c->nruns; k++) {
		free(c->run[k].ns);
		free(c->run[k].wall);
		free(c->run[k].mops);
	}
	free(c->run);
}

void suite_free(struct suite *s)
{
	for (size_t i = 0; i < s->n; i++)
		free_case(&s->c[i]);
	free(s->c);
	free(s->lat);
	s->c = NULL;
	s->n = s->cap = 0;
}

static void count_only(struct rg_gb_state *st, void *arg)
{
	(void)st;
	(void)arg;
}

int rg_suite_count(const struct rg_suite_cfg *cfg)
{
	struct suite s = { .cfg = cfg };
	size_t n = 0;
	int rc = 0;

	if (suite_build(&s, cfg))
		rc = -1;
	rg_gb_clear();
	for (size_t i = 0; i < s.n && !rc; i++) {
		struct bcase *c = &s.c[i];
		struct rg_gb_options o = { .threads = c->threads, .repetitions = 1,
					   .min_time = cfg->min_time };

		if (c->skipped || c->loop == LOOP_REF)
			continue;
		if (loop_kinds[c->loop].run != suite_run_set)
			n++;	/* not the library's: never filtered */
		else if (rg_gb_register(c->name, count_only, NULL, &o))
			rc = -1;
	}
	if (!rc)
		n += rg_gb_count_selected();
	rg_gb_clear();
	suite_free(&s);
	return rc ? -1 : (int)n;
}

int suite_setup(struct suite *s)
{
	const char *ctr_why = rg_counters_probe();
	const char *ev_why = rg_events_probe();

	for (size_t i = 0; i < s->n; i++) {
		struct bcase *c = &s->c[i];

		if (c->skipped)
			continue;
		c->ctr_why = ctr_why;
		c->ev_why = ev_why;
		if (c->loop != LOOP_REF && setup_case(s, c)) {
			fprintf(stderr, "rgbench: cannot allocate guard slots\n");
			return -1;
		}
	}
	return 0;
}

int rg_suite_run(const struct rg_suite_cfg *cfg, struct rg_resultset *rs)
{
	struct suite s = { .cfg = cfg, .rs = rs };
	const char *ctr_why = rg_counters_probe();
	const char *ev_why = rg_events_probe();
	bool printed_skip[RG_GUARD__COUNT] = { false };
	struct bcase **set = NULL;
	double est = 0;
	int rc = 0;

	if (cfg->repetitions < 1 || !(cfg->min_time > 0)) {
		fprintf(stderr, "rgbench: the suite needs rounds >= 1 and a chunk time > 0\n");
		return -1;
	}
	if (getrandom(&s.rng, sizeof(s.rng), 0) != (ssize_t)sizeof(s.rng))
		s.rng = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	s.rng |= 1;
	if (suite_build(&s, cfg)) {
		fprintf(stderr, "rgbench: out of memory\n");
		rc = -1;
		goto out;
	}
	if (suite_setup(&s)) {
		rc = -1;
		goto out;
	}
	if (cfg->progress && ctr_why)
		fprintf(cfg->progress, "rgbench: counters %s\n", ctr_why);
	if (cfg->progress && ev_why)
		fprintf(cfg->progress, "rgbench: events %s\n", ev_why);
	for (size_t i = 0; i < s.n; i++) {
		struct bcase *c = &s.c[i];

		if (c->skipped) {
			/* Once per guard; every skipped case is still a row. */
			if (!printed_skip[c->gi->id] && cfg->progress)
				fprintf(cfg->progress, "rgbench: skipping %s %s: %s\n",
					c->gi->name, c->scenario, c->reason);
			printed_skip[c->gi->id] = true;
			continue;
		}
		if (c->loop == LOOP_REF)
			continue;	/* not a benchmark of its own: its figures are in every row */
		s.nrun_total++;
		/*
		 * The calibration run is about 2-3 chunks, then one chunk per round;
		 * with runs, the other runs warm up for one chunk instead.
		 */
		if (cfg->runs > 1 && suite_group_in_runs(&s, c->group))
			est += (cfg->repetitions + 3 + (cfg->runs - 1) * (cfg->repetitions + 1)) * cfg->min_time;
		else
			est += (cfg->repetitions + 3) * cfg->min_time;
	}
	if (cfg->progress) {
		fprintf(cfg->progress,
			"rgbench: %zu benchmarks in %d groups, %d run(s) of %d interleaved rounds of ~%g ms each: about %.0f s\n",
			s.nrun_total, s.ngroups, cfg->runs, cfg->repetitions, cfg->min_time * 1e3, est);
		if (cfg->runs > 1)
			fprintf(cfg->progress, "rgbench: runs: %d fresh processes, address randomization %s, THP %s\n",
				cfg->runs, cfg->aslr, cfg->thp);
		fflush(cfg->progress);
	}
	if (cfg->runs > 1 && suite_runs_start(&s)) {
		rc = -1;
		goto out;
	}
	set = calloc(s.n ? s.n : 1, sizeof(*set));
	if (!set) {
		fprintf(stderr, "rgbench: out of memory\n");
		rc = -1;
		goto out;
	}
	if (cfg->runs > 1 && suite_runs_all(&s, set)) {
		rc = -1;
		goto out;
	}
	for (int g = 0; g < s.ngroups && !*cfg->stop; g++) {
		if (cfg->runs <= 1 && suite_run_group(&s, g, set)) {
			rc = -1;
			goto out;
		}
		/* The group's rows, in case order; cases filtered out by --benchmark_filter leave none. */
		for (size_t i = 0; i < s.n; i++) {
			struct bcase *c = &s.c[i];

			if (c->group != g || c->loop == LOOP_REF || (!c->skipped && !c->reported))
				continue;
			if (suite_add_row(&s, c)) {
				fprintf(stderr, "rgbench: out of memory\n");
				rc = -1;
				goto out;
			}
		}
	}
	rg_gb_finish();
	rg_topo_unpin_self();
	rc = (int)s.ndone;
out:
	suite_runs_stop(&s);
	rg_gb_clear();
	free(set);
	suite_free(&s);
	return rc;
}
