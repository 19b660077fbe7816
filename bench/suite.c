// SPDX-License-Identifier: MIT
/* The userspace suite: the scenario table, the cases built from it and the guard registry, and the run from cases to result rows. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "latency.h"
#include "rg/compiler.h"
#include "rg/gbench.h"
#include "rg/platform.h"
#include "suite_int.h"
#include "xpkg.h"

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

/* ---- building the cases ------------------------------------------------ */

static struct bcase *new_case(struct suite *s, const struct rg_guard_info *gi,
			      const char *scenario, enum loop_kind loop, int threads)
{
	struct bcase *c;

	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct bcase *nc = realloc(s->c, cap * sizeof(*nc));

		if (!nc)
			return NULL;
		s->c = nc;
		s->cap = cap;
	}
	c = &s->c[s->n++];
	memset(c, 0, sizeof(*c));
	c->gi = gi;
	snprintf(c->scenario, sizeof(c->scenario), "%s", scenario);
	c->loop = loop;
	c->threads = threads;
	c->cpus = s->cfg->cpus;
	c->batch = s->cfg->batch;
	c->stop = s->cfg->stop;
	c->counted_all = true;
	c->ev_all = true;
	c->worst_ratio = INFINITY;
	snprintf(c->name, sizeof(c->name), "user/%s/%s/t%d", scenario, gi->name, threads);
	return c;
}

static void skip_case(struct bcase *c, const char *fmt, const char *arg)
{
	c->skipped = true;
	snprintf(c->reason, sizeof(c->reason), fmt, arg);
}

static bool per_cpu(const struct rg_guard_info *gi)
{
	return gi->needs & RG_NEEDS_PIN;
}

/*
 * Cases are built group by group: every guard of one scenario at one thread
 * count, duty level and slot layout forms a group, and a group's cases are
 * measured in the same rounds (pair-native-cxx is in the pair group).
 */
static int build(struct suite *s)
{
	const struct rg_suite_cfg *cfg = s->cfg;
	int maxt = cfg->ncpus;

	for (int sc = 0; sc < RG_SC__COUNT; sc++) {
		int nsub = sc == RG_SC_duty ? cfg->nduty : sc == RG_SC_threads ? cfg->nthread_counts
			   : sc == RG_SC_falseshare ? 2 : 1;

		if (!cfg->scenario[sc] || sc == RG_SC_latency || sc == RG_SC_xpkg)
			continue;	/* not library benchmarks: rg_latency_run(), rg_xpkg_run() */
		for (int k = 0; k < nsub; k++, s->ngroups++) {
			for (int id = 0; id < RG_GUARD__COUNT; id++) {
				const struct rg_guard_info *gi = &rg_guards[id];
				const char *why = NULL;
				bool avail;
				struct bcase *c = NULL;
				size_t first = s->n;

				if (!cfg->guard[id] && id != RG_GUARD_noop)
					continue;
				avail = rg_guard_available(gi, &why);
				switch (sc) {
				case RG_SC_pair:
					if (id == RG_GUARD_noop && cfg->native_noop) {
						c = new_case(s, gi, "pair-native-cxx", LOOP_NATIVE, 1);
						if (!c)
							return -1;
						c->batch = 1;	/* the library's loop checks every iteration */
					}
					c = new_case(s, gi, "pair", LOOP_PAIR, 1);
					break;
				case RG_SC_nested:
					c = new_case(s, gi, "nested", LOOP_NESTED, 1);
					break;
				case RG_SC_duty:
					c = new_case(s, gi, "duty", LOOP_DUTY, 1);
					if (!c)
						return -1;
					c->duty_ns = cfg->duty_ns[k];
					c->duty_in_ns = cfg->duty_in_ns[k];
					snprintf(c->name, sizeof(c->name), "user/duty/%s/t1/duty:%d",
						 gi->name, cfg->duty_ns[k]);
					break;
				case RG_SC_threads:
					c = new_case(s, gi, "threads", LOOP_PAIR, cfg->thread_counts[k]);
					break;
				case RG_SC_falseshare:
					c = new_case(s, gi, k == 0 ? "falseshare-packed" : "falseshare-padded",
						     LOOP_PAIR, maxt);
					if (!c)
						return -1;
					c->stride = k == 0 ? sizeof(uint32_t) : RG_CACHELINE;
					if (avail && maxt < 2)
						skip_case(c, "%s", "needs at least 2 CPUs");
					else if (avail && !per_cpu(gi) && id != RG_GUARD_noop)
						skip_case(c, "%s", "not a per-CPU guard: slot layout does not apply");
					break;
				default:	/* latency, xpkg: skipped above */
					break;
				}
				if (!c)
					return -1;
				if (!avail)
					skip_case(c, "%s", why);
				for (size_t i = first; i < s->n; i++) {
					s->c[i].group = s->ngroups;
					s->c[i].tm = calloc((size_t)s->c[i].threads, sizeof(*s->c[i].tm));
					if (!s->c[i].tm)
						return -1;
				}
			}
		}
	}
	return 0;
}

int rg_suite_run(const struct rg_suite_cfg *cfg, struct rg_resultset *rs)
{
	struct suite s = { .cfg = cfg };
	const char *ctr_why = rg_counters_probe();
	const char *ev_why = rg_events_probe();
	bool printed_skip[RG_GUARD__COUNT] = { false };
	struct bcase **set = NULL;
	const char *knob = getenv("RG_TEST_DISTURB");
	double est = 0;
	int rc = 0;

	if (cfg->repetitions < 1 || !(cfg->min_time > 0)) {
		fprintf(stderr, "rgbench: the suite needs rounds >= 1 and a chunk time > 0\n");
		return -1;
	}
	if (knob && *knob)
		s.fake_disturb = !strcmp(knob, "every") ? 2 : !strcmp(knob, "first") ? 1 : 0;
	if (getrandom(&s.rng, sizeof(s.rng), 0) != (ssize_t)sizeof(s.rng))
		s.rng = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	s.rng |= 1;
	if (build(&s)) {
		fprintf(stderr, "rgbench: out of memory\n");
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
		c->ctr_why = ctr_why;
		c->ev_why = ev_why;
		if (rg_guard_init(&c->g, c->stride)) {
			fprintf(stderr, "rgbench: cannot allocate guard slots\n");
			rc = -1;
			goto out;
		}
		c->g_ready = true;
		s.nrun_total++;
		/* The calibration run is about 2-3 chunks, then one chunk per round. */
		est += (cfg->repetitions + 3) * cfg->min_time;
	}
	if (cfg->progress) {
		fprintf(cfg->progress,
			"rgbench: %zu benchmarks in %d groups, %d interleaved rounds of ~%g ms each: about %.0f s\n",
			s.nrun_total, s.ngroups, cfg->repetitions, cfg->min_time * 1e3, est);
		fflush(cfg->progress);
	}
	set = calloc(s.n ? s.n : 1, sizeof(*set));
	if (!set) {
		fprintf(stderr, "rgbench: out of memory\n");
		rc = -1;
		goto out;
	}
	for (int g = 0; g < s.ngroups && !*cfg->stop; g++) {
		if (suite_run_group(&s, g, set)) {
			rc = -1;
			goto out;
		}
	}
	rg_gb_finish();
	rg_topo_unpin_self();
	for (size_t i = 0; i < s.n; i++) {
		/* Cases filtered out by --benchmark_filter leave no row. */
		if (!s.c[i].skipped && !s.c[i].reported)
			continue;
		if (suite_add_row(rs, &s.c[i], suite_group_noop(&s, s.c[i].group))) {
			fprintf(stderr, "rgbench: out of memory\n");
			rc = -1;
			goto out;
		}
	}
	rc = (int)s.ndone;
	if (cfg->scenario[RG_SC_latency] && !*cfg->stop) {
		int nlat = rg_latency_run(cfg, rs);

		rc = nlat < 0 ? -1 : rc + nlat;
	}
	if (cfg->scenario[RG_SC_xpkg] && !*cfg->stop && rc >= 0) {
		int nx = rg_xpkg_run(cfg, rs);

		rc = nx < 0 ? -1 : rc + nx;
	}
out:
	rg_gb_clear();
	free(set);
	for (size_t i = 0; i < s.n; i++) {
		if (s.c[i].g_ready)
			rg_guard_fini(&s.c[i].g);
		free(s.c[i].ns);
		free(s.c[i].wall);
		free(s.c[i].mops);
		free(s.c[i].tm);
	}
	free(s.c);
	return rc;
}
