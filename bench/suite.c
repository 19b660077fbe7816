// SPDX-License-Identifier: MIT
/* The userspace suite's command side: the scenario names, the count of benchmarks, and the run from cases (cases.c) to result rows, group by group, in this process or in --runs processes (runs.c). */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "rg/cmdline.h"
#include "rg/compiler.h"
#include "rg/gbench.h"
#include "rg/platform.h"
#include "cases.h"
#include "counters.h"
#include "rounds.h"
#include "rows.h"
#include "runs.h"

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

		if (c->skipped || kind_of(c)->reference)
			continue;
		if (!kind_of(c)->gbench)
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
		if (kind_of(c)->reference)
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
	s.est_total = est;
	s.t0 = rg_now_s();
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
	/* Each group's rows as soon as it is measured (with --runs: in its last pass, runs.c). */
	for (int g = 0; g < s.ngroups && !*cfg->stop; g++) {
		if (cfg->runs <= 1 && suite_run_group(&s, g, set)) {
			rc = -1;
			goto out;
		}
		if (cfg->runs <= 1)
			suite_progress_done(&s, g, 0);
		if (suite_rows_upto(&s, g)) {
			rc = -1;
			goto out;
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
