// SPDX-License-Identifier: MIT
/* rgbench --plan: the plan printed, the benchmarks it selects (built by the scenarios' ops table, not run), their CPUs and an estimated wall time. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plan.h"
#include "rg/registry.h"
#include "cases.h"
#include "rounds.h"
#include "rg/place.h"
#include "rg/platform.h"

/*
 * The estimate. A Google Benchmark case costs its repetitions plus the
 * library's iteration search (about one more repetition) times min_time,
 * plus thread start-up per repetition; the other parts are fixed costs
 * measured on the development VM (docs/bench.md, "--plan"). When the timing
 * model of the suite changes, these constants change with it.
 */
#define EST_GB_FACTOR		1.15	/* real time over (rounds + 3) * min_time */
#define EST_GB_CASE_S		0.003	/* registration, counters, report per case */
#define EST_THREAD_START_S	100e-6	/* per thread and repetition */
#define EST_DUTY_CAL_S		0.3	/* per duty value: both parts */
#define EST_LAT_TIMER_S		0.12	/* measuring the counter (3 x 20 ms + reads) */
#define EST_LAT_GUARD_S		0.06	/* per guard per 20000 batches, typical */
#define EST_BPF_ROWS		27	/* modes x attach types of the default BPF run */
#define EST_BPF_PASSES		3	/* RG_BPF_DEFAULT_PASSES (rg/bpf.h: not built everywhere) */

/* "0-3,8,10-11" */
static void cpu_ranges(const int *cpus, int n, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && off < len; ) {
		int j = i;

		while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
			j++;
		if (j > i)
			off += (size_t)snprintf(buf + off, len - off, "%s%d-%d", i ? "," : "", cpus[i], cpus[j]);
		else
			off += (size_t)snprintf(buf + off, len - off, "%s%d", i ? "," : "", cpus[i]);
		i = j + 1;
	}
	if (off >= len && len > 4)
		snprintf(buf + len - 4, 4, "...");
}

/* "pkg0: 72 cores, pkg1: 8 cores + 2 SMT" for the first n CPUs of the order. */
static void cpu_where(const int *cpus, int n, char *buf, size_t len)
{
	int cores[64] = { 0 }, smt[64] = { 0 }, maxp = -1;
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		struct rg_topo_where w;

		if (rg_topo_where(cpus[i], &w) || w.package < 0 || w.package >= 64)
			continue;
		if (w.smt)
			smt[w.package]++;
		else
			cores[w.package]++;
		if (w.package > maxp)
			maxp = w.package;
	}
	for (int p = 0; p <= maxp && off < len; p++) {
		if (!cores[p] && !smt[p])
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%spkg%d: %d core%s", off ? ", " : "", p,
					cores[p], cores[p] == 1 ? "" : "s");
		if (smt[p] && off < len)
			off += (size_t)snprintf(buf + off, len - off, " + %d SMT", smt[p]);
	}
}

struct planner {
	FILE *f;
	const struct rg_suite_cfg *cfg;
	int n, nskip;
	double est;
};

static double gb_case_s(const struct rg_suite_cfg *cfg, int threads)
{
	double reps = cfg->repetitions > 0 ? cfg->repetitions : 1;
	double min_time = cfg->min_time > 0 ? cfg->min_time : 0.5;	/* the library's defaults */

	double runs = cfg->runs > 1 ? cfg->runs : 1;

	/*
	 * As the suite runs it: a calibration of about 3 chunks, then one chunk
	 * per round; each further run warms up for one chunk, then its rounds.
	 */
	return ((reps + 3) + (runs - 1) * (reps + 1)) *
	       (min_time * EST_GB_FACTOR + threads * EST_THREAD_START_S) + runs * EST_GB_CASE_S;
}

static void line(struct planner *p, const char *name, const char *skip, int threads, const int *cpus,
		 double est, const char *note)
{
	char cl[160], where[160];

	p->n++;
	if (skip) {
		p->nskip++;
		fprintf(p->f, "  %-44s skip: %s\n", name, skip);
		return;
	}
	p->est += est;
	cpu_ranges(cpus, threads, cl, sizeof(cl));
	cpu_where(cpus, threads, where, sizeof(where));
	fprintf(p->f, "  %-44s t=%-4d cpus %-22s %-28s %6.2f s%s%s\n", name, threads, cl, where, est,
		note ? "  " : "", note ? note : "");
}

/* What the plan holds beyond the benchmarks: outputs, the cycle reference, test switches. */
static void plan_run(FILE *f, const struct rg_suite_cfg *cfg)
{
	fprintf(f, "outputs: %s%s%s%s\n", cfg->out_csv, cfg->out_json[0] ? ", " : "", cfg->out_json,
		cfg->out_default ? " (-2, -3, ... when taken at the start)" : "");
	fprintf(f, "cycle reference: a chain of dependent adds, one more case in every group's rounds; rows noisy when it moves more than %.0f%%\n",
		RG_REF_MAX_MOVE * 100);
	if (cfg->test_disturb || cfg->test_xpkg || cfg->test_lat_unusable[0] ||
	    cfg->test_counters_software || cfg->test_sysfs_root[0] || cfg->test_stack_free)
		fprintf(f, "test switches:%s%s%s%s%s%s%s%s%s\n",
			cfg->test_disturb == RG_DISTURB_FIRST ? " RG_TEST_DISTURB=first" :
			cfg->test_disturb == RG_DISTURB_EVERY ? " RG_TEST_DISTURB=every" :
			cfg->test_disturb == RG_DISTURB_REF ? " RG_TEST_DISTURB=ref" :
			cfg->test_disturb == RG_DISTURB_REFRUN ? " RG_TEST_DISTURB=refrun" : "",
			cfg->test_xpkg ? " RG_TEST_XPKG=1" : "",
			cfg->test_lat_unusable[0] ? " RG_TEST_LATENCY_UNUSABLE=" : "",
			cfg->test_lat_unusable,
			cfg->test_counters_software ? " RG_TEST_COUNTERS_SOFTWARE=1" : "",
			cfg->test_sysfs_root[0] ? " RG_TEST_SYSFS_ROOT=" : "", cfg->test_sysfs_root,
			cfg->test_stack_free ? " RG_TEST_LAYOUT=kernel" : "", "");
}

double rg_plan_print(FILE *f, const struct rg_suite_cfg *cfg)
{
	struct planner p = { .f = f, .cfg = cfg };
	char topo[256], cl[4096], source[1100];
	struct suite s = { .cfg = cfg };

	snprintf(source, sizeof(source), "%s%.1000s", cfg->topo_xml[0] ? "HWLOC_XMLFILE=" :
		 cfg->topo_synthetic[0] ? "HWLOC_SYNTHETIC=" : "this machine",
		 cfg->topo_xml[0] ? cfg->topo_xml : cfg->topo_synthetic);
	rg_topo_describe(topo, sizeof(topo));
	if (strlen(source) > 90)
		fprintf(f, "rgbench --plan: topology %.80s...: %s\n", source, topo);
	else
		fprintf(f, "rgbench --plan: topology %s: %s\n", source, topo);
	cpu_ranges(cfg->cpus, cfg->ncpus, cl, sizeof(cl));
	fprintf(f, "placement order (%d CPUs): %s\n",
		cfg->ncpus, cl);
	fprintf(f, "cpu choice: %s\n", cfg->cpus_why);
	fprintf(f, "per benchmark: %d run(s) (fresh processes, address randomization %s) x %d round(s) x %g s; guards as this %s build runs them\n",
		cfg->runs > 1 ? cfg->runs : 1, cfg->aslr, cfg->repetitions > 0 ? cfg->repetitions : 1,
		cfg->min_time > 0 ? cfg->min_time : 0.5, RG_ARCH_X86_64 ? "x86-64" : "arm64");
	if (cfg->scenario[RG_SC_duty] && cfg->nduty)
		p.est += EST_DUTY_CAL_S * cfg->nduty;
	if (suite_build(&s, cfg)) {
		fprintf(f, "rgbench --plan: out of memory\n");
		return NAN;
	}
	p.est += s.ngroups * gb_case_s(cfg, 1);	/* the cycle reference: a case per group */
	for (int sc = 0; sc < RG_SC__COUNT; sc++) {
		char note[96];
		int n = 0;

		if (!cfg->scenario[sc])
			continue;
		fprintf(f, "%s:\n", rg_scenario_names[sc]);
		for (size_t i = 0; i < s.n; i++) {
			const struct bcase *c = &s.c[i];

			if (c->sc != sc || kind_of(c)->reference)
				continue;
			if (kind_of(c)->distribution && !n)
				p.est += EST_LAT_TIMER_S;
			n++;
			snprintf(note, sizeof(note), "%d run%s%s", cfg->runs > 1 ? cfg->runs : 1,
				 cfg->runs > 1 ? "s" : "",
				 c->remote ? "; slots on another package's NUMA node" : "");
			if (kind_of(c)->distribution)
				line(&p, c->name, c->skipped ? c->reason : NULL, 1, c->cpus,
				     EST_LAT_GUARD_S * suite_group_rounds(cfg, c) / 5.0,
				     "1 run (a distribution, in this process); 20000 x runs x repetitions batches");
			else
				line(&p, c->name, c->skipped ? c->reason : NULL, c->threads, c->cpus,
				     gb_case_s(cfg, c->threads), note);
		}
		if (!n && sc == RG_SC_xpkg)
			fprintf(f, "  (none: one package)\n");
	}
	suite_free(&s);
	if (cfg->bpf_why && !strcmp(cfg->bpf_why, "needs root")) {
		fprintf(f, "bpf: not run (the default run measures BPF as root only)\n");
	} else if (cfg->bpf_run) {
		/*
		 * --full: 5 s + 1 s warm-up; else 1 + 0.2; each + 2 warm-ups more for
		 * 3 passes (measured: +0.4 s a row in the default run's bpf part).
		 */
		double per = cfg->min_time >= 0.2 ? 8.0 : 1.6;
		struct rg_place pl;
		char err[256];

		/* The BPF suite places its producers itself (rg_place_init(): the topology's order). */
		if (rg_place_init(&pl, NULL, 0, err, sizeof(err)) || !pl.ncpus)
			pl.cpu[0] = cfg->cpus[0];
		fprintf(f, "bpf (root only; rgbench bpf for details):\n  about %d rows of %.1f s on CPU %d, "
			"in %d passes over all rows (one process)\n", EST_BPF_ROWS, per, pl.cpu[0],
			EST_BPF_PASSES);
		p.est += EST_BPF_ROWS * per;
	}
	{
		int big = cfg->nthread_counts ? cfg->thread_counts[cfg->nthread_counts - 1] : 1;
		char where[160];

		for (int k = 0; k < cfg->nthread_counts; k++)
			big = cfg->thread_counts[k] > big ? cfg->thread_counts[k] : big;
		cpu_ranges(cfg->cpus, big, cl, sizeof(cl));
		cpu_where(cfg->cpus, big, where, sizeof(where));
		fprintf(f, "largest thread count %d: cpus %s (%s)\n", big, cl, where);
	}
	plan_run(f, cfg);
	fprintf(f, "rgbench: plan: %d benchmarks (%d skipped), estimated %.0f s (%.1f min)\n", p.n,
		p.nskip, p.est, p.est / 60);
	return p.est;
}
