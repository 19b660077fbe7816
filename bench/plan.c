// SPDX-License-Identifier: MIT
/* rgbench --plan: the benchmarks the options select, their CPUs and an estimated wall time, without running anything. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "plan.h"
#include "rg/registry.h"
#include "suite.h"
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

	/* As the suite runs it: a calibration of about 3 chunks, then one chunk per round. */
	return (reps + 3) * (min_time * EST_GB_FACTOR + threads * EST_THREAD_START_S) + EST_GB_CASE_S;
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

/* The rows only a machine with more than one package can show (bench/xpkg.c). */
static void cross_package(struct planner *p)
{
	const struct rg_suite_cfg *cfg = p->cfg;
	int a = cfg->cpus[0], b = -1;
	struct rg_topo_where w0, w = { 0 };
	double reps = cfg->repetitions > 0 ? cfg->repetitions : 5;
	double min_time = cfg->min_time > 0 ? cfg->min_time : 0.02;

	if (rg_topo_count(0) < 2 || rg_topo_where(a, &w0)) {
		fprintf(p->f, "  (none: one package)\n");
		return;
	}
	for (int i = 1; i < cfg->ncpus && b < 0; i++)
		if (!rg_topo_where(cfg->cpus[i], &w) && w.package != w0.package && !w.smt)
			b = cfg->cpus[i];
	for (int id = 0; id < RG_GUARD__COUNT; id++) {
		const struct rg_guard_info *gi = &rg_guards[id];
		const char *why = NULL;
		int pair[2] = { a, b };
		char name[96];

		if (!cfg->guard[id] || !(gi->needs & RG_NEEDS_PIN))
			continue;
		if (rg_guard_available(gi, &why))
			why = NULL;
		snprintf(name, sizeof(name), "user/local-slots/%s/t1", gi->name);
		line(p, name, why, 1, pair, reps * min_time * 1.05, NULL);
		snprintf(name, sizeof(name), "user/remote-slots/%s/t1", gi->name);
		line(p, name, why, 1, pair, reps * min_time * 1.05, "slots on another package's NUMA node");
		for (int packed = 1; packed >= 0; packed--) {
			snprintf(name, sizeof(name), "user/falseshare-xpkg-%s/%s/t2", packed ? "packed" : "padded",
				 gi->name);
			line(p, name, why ? why : b < 0 ? "no core on another package" : NULL, 2, pair,
			     reps * (min_time * 1.05 + 2e-4), NULL);
		}
	}
}

double rg_plan_print(FILE *f, const struct rg_suite_cfg *cfg, bool with_bpf, const char *source)
{
	struct planner p = { .f = f, .cfg = cfg };
	char topo[256], cl[4096];
	int maxt = cfg->ncpus;

	rg_topo_describe(topo, sizeof(topo));
	if (strlen(source) > 90)
		fprintf(f, "rgbench --plan: topology %.80s...: %s\n", source, topo);
	else
		fprintf(f, "rgbench --plan: topology %s: %s\n", source, topo);
	cpu_ranges(cfg->cpus, cfg->ncpus, cl, sizeof(cl));
	fprintf(f, "placement order (%d CPUs; cores first, package by package and node by node, then SMT siblings): %s\n",
		cfg->ncpus, cl);
	fprintf(f, "per benchmark: %d repetition(s) x %g s; guards as this %s build runs them\n",
		cfg->repetitions > 0 ? cfg->repetitions : 1, cfg->min_time > 0 ? cfg->min_time : 0.5,
		RG_ARCH_X86_64 ? "x86-64" : "arm64");
	if (cfg->scenario[RG_SC_duty] && cfg->nduty)
		p.est += EST_DUTY_CAL_S * cfg->nduty;
	for (int sc = 0; sc < RG_SC__COUNT; sc++) {
		if (!cfg->scenario[sc])
			continue;
		fprintf(f, "%s:\n", rg_scenario_names[sc]);
		if (sc == RG_SC_xpkg) {
			cross_package(&p);
			continue;
		}
		if (sc == RG_SC_latency)
			p.est += EST_LAT_TIMER_S;
		for (int id = 0; id < RG_GUARD__COUNT; id++) {
			const struct rg_guard_info *gi = &rg_guards[id];
			const char *why = NULL;
			char name[192];

			if (!cfg->guard[id] && id != RG_GUARD_noop)
				continue;
			if (rg_guard_available(gi, &why))
				why = NULL;
			switch (sc) {
			case RG_SC_pair:
			case RG_SC_nested:
				if (sc == RG_SC_pair && id == RG_GUARD_noop && cfg->native_noop)
					line(&p, "user/pair-native-cxx/noop/t1", NULL, 1, cfg->cpus,
					     gb_case_s(cfg, 1), NULL);
				snprintf(name, sizeof(name), "user/%s/%s/t1", rg_scenario_names[sc], gi->name);
				line(&p, name, why, 1, cfg->cpus, gb_case_s(cfg, 1), NULL);
				break;
			case RG_SC_duty:
				for (int d = 0; d < cfg->nduty; d++) {
					snprintf(name, sizeof(name), "user/duty/%s/t1/duty:%d", gi->name,
						 cfg->duty_ns[d]);
					line(&p, name, why, 1, cfg->cpus, gb_case_s(cfg, 1), NULL);
				}
				break;
			case RG_SC_threads:
				for (int k = 0; k < cfg->nthread_counts; k++) {
					int t = cfg->thread_counts[k];

					snprintf(name, sizeof(name), "user/threads/%s/t%d", gi->name, t);
					line(&p, name, why, t, cfg->cpus, gb_case_s(cfg, t), NULL);
				}
				break;
			case RG_SC_falseshare:
				for (int packed = 1; packed >= 0; packed--) {
					const char *w = why;

					if (!w && maxt < 2)
						w = "needs at least 2 CPUs";
					else if (!w && !(gi->needs & RG_NEEDS_PIN) && id != RG_GUARD_noop)
						w = "not a per-CPU guard: slot layout does not apply";
					snprintf(name, sizeof(name), "user/%s/%s/t%d",
						 packed ? "falseshare-packed" : "falseshare-padded", gi->name, maxt);
					line(&p, name, w, maxt, cfg->cpus, gb_case_s(cfg, maxt), NULL);
				}
				break;
			case RG_SC_xpkg:
				break;
			case RG_SC_latency:
				snprintf(name, sizeof(name), "user/latency/%s/t1", gi->name);
				line(&p, name, why, 1, cfg->cpus,
				     EST_LAT_GUARD_S * (cfg->repetitions > 0 ? cfg->repetitions : 5) / 5.0,
				     "20000 x repetitions batches");
				break;
			}
		}
	}
	if (with_bpf && geteuid() != 0) {
		fprintf(f, "bpf: not run (the default run measures BPF as root only)\n");
	} else if (with_bpf) {
		double per = cfg->min_time >= 0.2 ? 6.0 : 1.2;	/* --full: 5 s + 1 s warm-up; else 1 + 0.2 */

		fprintf(f, "bpf (root only; rgbench bpf for details):\n  about %d rows of %.1f s on CPU %d\n",
			EST_BPF_ROWS, per, cfg->cpus[0]);
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
	fprintf(f, "rgbench: plan: %d benchmarks (%d skipped), estimated %.0f s (%.1f min)\n", p.n,
		p.nskip, p.est, p.est / 60);
	return p.est;
}
