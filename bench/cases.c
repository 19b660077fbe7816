// SPDX-License-Identifier: MIT
/* The suite's cases: built from the scenarios' ops table and the plan's guard selection, their slots set up and freed; the parent (suite.c) and a --runs process (runs.c) both start here. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/platform.h"
#include "cases.h"
#include "counters.h"
#include "refloop.h"

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
				if (cfg->guard[id] && ops->cases(s, k, &rg_guards[id]))
					return -1;
			if (s->n == first)
				continue;	/* no case here (xpkg without a per-CPU guard) */
			ref = suite_new_case(s, rg_guard_floor(), "ref", LOOP_REF, 1);
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
	free(c->ratio);
	free(c->dist);
	free(c->tm);
	for (size_t k = 0; c->run && k < c->nruns; k++) {
		free(c->run[k].ns);
		free(c->run[k].wall);
		free(c->run[k].mops);
		free(c->run[k].ratio);
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
		if (!kind_of(c)->reference && setup_case(s, c)) {
			fprintf(stderr, "rgbench: cannot allocate guard slots\n");
			return -1;
		}
	}
	return 0;
}

