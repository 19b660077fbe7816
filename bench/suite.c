// SPDX-License-Identifier: MIT
/* The userspace scenarios: cases built from the guard registry, run through the C binding, turned into result rows. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "counters.h"
#include "latency.h"
#include "xpkg.h"
#include "native_noop.h"
#include "rg/gbench.h"
#include "rg/loops.h"
#include "rg/percpu.h"
#include "suite.h"
#include "topo.h"

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

enum loop_kind { LOOP_PAIR, LOOP_DUTY, LOOP_NESTED, LOOP_NATIVE };

/* One benchmark: a guard in a scenario with its parameters, and what it measured. */
struct bcase {
	char name[192];			/* Google Benchmark name */
	char scenario[32];		/* result row scenario */
	const struct rg_guard_info *gi;
	enum loop_kind loop;
	int threads;
	const int *cpus;		/* cpus[t] for thread t */
	size_t stride;
	uint32_t work;
	long duty_ns;
	uint64_t batch;
	bool skipped;
	char reason[256];
	struct rg_guard g;
	bool g_ready;
	volatile sig_atomic_t *stop;
	const char *ctr_why;		/* NULL when counters work */
	const char *ev_why;		/* NULL when the extra events work */
	/* Written by the threads of a run. */
	int seen_cpu[RG_MAX_CPUS];
	/* Accumulated over repetitions by the report callback. */
	double *ns, *mops;
	size_t nrep;
	double cycles, instructions;
	bool counted_all;
	double ev[RG_PMU_MAX_EVENTS];	/* extra events, summed like cycles */
	bool ev_all;
	uint64_t refusals, ops;
	bool error;
	char errmsg[256];
	bool reported;
	volatile bool started;		/* a repetition began before any interrupt */
};

struct suite {
	const struct rg_suite_cfg *cfg;
	struct bcase *c;
	size_t n, cap;
	size_t nrun_total, ndone;
};

/* ---- in the benchmark threads ----------------------------------------- */

static __thread struct rg_counters tl_ctr;
static __thread struct rg_events tl_ev;
static __thread uint64_t tl_refused;

static void case_prologue(struct rg_gb_state *st, void *arg)
{
	struct bcase *c = arg;
	int t = rg_gb_thread_index(st);
	char err[200];

	memset(&tl_ctr, 0, sizeof(tl_ctr));
	memset(&tl_ev, 0, sizeof(tl_ev));
	tl_refused = 0;
	if (*c->stop) {
		/*
		 * Interrupted. A benchmark that already ran a repetition runs
		 * the rest through empty: Google Benchmark aborts when one
		 * benchmark's repetitions report different iteration counts.
		 * One that never started fails at once (cheap, and its
		 * repetitions all report the same count), and so does the
		 * native loop, whose counts have no batch overshoot.
		 */
		if (!c->started || c->loop == LOOP_NATIVE)
			rg_gb_skip_with_error(st, "interrupted");
		return;
	}
	c->started = true;
	if (rg_topo_pin_self(c->cpus[t], err, sizeof(err))) {
		rg_gb_skip_with_error(st, err);
		return;
	}
	/* After pinning: per-CPU guards index their slot with rg_this_cpu(). */
	c->seen_cpu[t] = rg_percpu_thread_init();
	if (c->seen_cpu[t] != c->cpus[t]) {
		snprintf(err, sizeof(err), "rg_percpu_thread_init() says CPU %d, pinned to %d",
			 c->seen_cpu[t], c->cpus[t]);
		rg_gb_skip_with_error(st, err);
		return;
	}
	if (!c->ev_why && rg_events_open(&tl_ev) == 0)
		rg_events_start(&tl_ev);
	if (!c->ctr_why && rg_counters_open(&tl_ctr) == 0)
		rg_counters_start(&tl_ctr);
}

static void case_epilogue(struct rg_gb_state *st, void *arg)
{
	struct bcase *c = arg;
	int t = rg_gb_thread_index(st);
	double cycles, instructions, ev[RG_PMU_MAX_EVENTS];
	bool counted = tl_ctr.open, ev_counted = tl_ev.open;

	rg_counters_stop(&tl_ctr, &cycles, &instructions);
	rg_counters_close(&tl_ctr);
	rg_events_stop(&tl_ev, ev);
	rg_events_close(&tl_ev);
	if (rg_gb_error_occurred(st) || *c->stop)
		return;
	if (sched_getcpu() != c->cpus[t]) {
		char err[96];

		snprintf(err, sizeof(err), "thread %d left CPU %d", t, c->cpus[t]);
		rg_gb_skip_with_error(st, err);
		return;
	}
	rg_gb_set_counter(st, "refusals", (double)tl_refused);
	if (counted) {
		rg_gb_set_counter(st, "cycles", cycles);
		rg_gb_set_counter(st, "instructions", instructions);
		rg_gb_set_counter(st, "counted_threads", 1);
	}
	if (ev_counted) {
		static const char *const names[RG_PMU_MAX_EVENTS] = {
			"ev0", "ev1", "ev2", "ev3", "ev4", "ev5", "ev6", "ev7" };

		for (size_t i = 0; i < rg_events_list()->n; i++)
			rg_gb_set_counter(st, names[i], ev[i]);
		rg_gb_set_counter(st, "events_threads", 1);
	}
}

/*
 * The measured function: one call of the guard's loop per batch (the only
 * indirect call, outside the loop), the stop flag checked between batches.
 * After an error the while() still runs once: it passes the library's
 * start/stop barriers that the other threads wait on. Once interrupted, the
 * remaining batches are run through empty (see case_prologue); the results
 * are thrown away anyway.
 */
static void case_run(struct rg_gb_state *st, void *arg)
{
	struct bcase *c = arg;
	const struct rg_loops *L = &rg_loops[c->gi->id];
	struct rg_guard *g = &c->g;
	const uint64_t n = c->batch;
	const uint32_t work = c->work;
	volatile sig_atomic_t *stop = c->stop;
	uint64_t refused = 0;

	case_prologue(st, arg);
	switch (c->loop) {
	case LOOP_PAIR:
		while (rg_gb_keep_running_batch(st, n)) {
			if (rg_likely(!*stop))
				refused += L->pair(g, n);
		}
		break;
	case LOOP_DUTY:
		while (rg_gb_keep_running_batch(st, n)) {
			if (rg_likely(!*stop))
				refused += L->duty(g, n, work);
		}
		break;
	case LOOP_NESTED:
		while (rg_gb_keep_running_batch(st, n)) {
			if (rg_likely(!*stop))
				refused += L->nested(g, n);
		}
		break;
	case LOOP_NATIVE:
		break;
	}
	tl_refused = refused;
	case_epilogue(st, arg);
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

static int build(struct suite *s, const uint32_t *duty_units)
{
	const struct rg_suite_cfg *cfg = s->cfg;
	int maxt = cfg->ncpus;

	for (int sc = 0; sc < RG_SC__COUNT; sc++) {
		if (!cfg->scenario[sc])
			continue;
		for (int id = 0; id < RG_GUARD__COUNT; id++) {
			const struct rg_guard_info *gi = &rg_guards[id];
			const char *why = NULL;
			bool avail;
			struct bcase *c;

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
				if (!c)
					return -1;
				if (!avail)
					skip_case(c, "%s", why);
				break;
			case RG_SC_nested:
				c = new_case(s, gi, "nested", LOOP_NESTED, 1);
				if (!c)
					return -1;
				if (!avail)
					skip_case(c, "%s", why);
				break;
			case RG_SC_duty:
				for (int d = 0; d < cfg->nduty; d++) {
					c = new_case(s, gi, "duty", LOOP_DUTY, 1);
					if (!c)
						return -1;
					c->duty_ns = cfg->duty_ns[d];
					c->work = duty_units[d];
					snprintf(c->name, sizeof(c->name), "user/duty/%s/t1/duty:%d",
						 gi->name, cfg->duty_ns[d]);
					if (!avail)
						skip_case(c, "%s", why);
				}
				break;
			case RG_SC_threads:
				for (int k = 0; k < cfg->nthread_counts; k++) {
					c = new_case(s, gi, "threads", LOOP_PAIR, cfg->thread_counts[k]);
					if (!c)
						return -1;
					if (!avail)
						skip_case(c, "%s", why);
				}
				break;
			case RG_SC_falseshare:
				for (int packed = 1; packed >= 0; packed--) {
					c = new_case(s, gi, packed ? "falseshare-packed" : "falseshare-padded",
						     LOOP_PAIR, maxt);
					if (!c)
						return -1;
					c->stride = packed ? sizeof(uint32_t) : RG_CACHELINE;
					if (!avail)
						skip_case(c, "%s", why);
					else if (maxt < 2)
						skip_case(c, "%s", "needs at least 2 CPUs");
					else if (!per_cpu(gi) && id != RG_GUARD_noop)
						skip_case(c, "%s", "not a per-CPU guard: slot layout does not apply");
				}
				break;
			case RG_SC_latency:	/* not library benchmarks: rg_latency_run(), */
			case RG_SC_xpkg:	/* rg_xpkg_run() */
				break;
			}
		}
	}
	return 0;
}

/* ---- results ------------------------------------------------------------ */

static struct bcase *find_case(struct suite *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!s->c[i].skipped && !strcmp(s->c[i].name, name))
			return &s->c[i];
	return NULL;
}

static void cpu_list(const struct bcase *c, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int t = 0; t < c->threads && off < len; t++)
		off += (size_t)snprintf(buf + off, len - off, t ? ",%d" : "%d", c->seen_cpu[t]);
}

static void on_run(const struct rg_gb_run *run, bool last, void *ctx)
{
	struct suite *s = ctx;
	struct bcase *c = find_case(s, run->name);
	double ns, mops, counted;

	if (!c)
		return;
	if (run->error || run->iterations <= 0 || run->real_time_s <= 0) {
		if (!c->error) {
			c->error = true;
			snprintf(c->errmsg, sizeof(c->errmsg), "%s",
				 run->error ? run->error_message : "no iterations measured");
		}
	} else {
		double *nns = realloc(c->ns, (c->nrep + 1) * sizeof(double));
		double *nmops = nns ? realloc(c->mops, (c->nrep + 1) * sizeof(double)) : NULL;

		if (nns)
			c->ns = nns;
		if (nmops)
			c->mops = nmops;
		if (!nns || !nmops) {
			c->error = true;
			snprintf(c->errmsg, sizeof(c->errmsg), "out of memory");
			return;
		}
		/* iterations are all threads' together; real time is per thread. */
		ns = run->real_time_s * 1e9 * (double)run->threads / (double)run->iterations;
		mops = (double)run->iterations / run->real_time_s / 1e6;
		c->ns[c->nrep] = ns;
		c->mops[c->nrep] = mops;
		c->nrep++;
		c->ops += (uint64_t)run->iterations;
		c->refusals += (uint64_t)llround(rg_gb_run_counter(run, "refusals", 0));
		counted = rg_gb_run_counter(run, "counted_threads", 0);
		if (counted < (double)run->threads)
			c->counted_all = false;
		c->cycles += rg_gb_run_counter(run, "cycles", 0);
		c->instructions += rg_gb_run_counter(run, "instructions", 0);
		if (rg_gb_run_counter(run, "events_threads", 0) < (double)run->threads)
			c->ev_all = false;
		for (size_t i = 0; i < rg_events_list()->n; i++) {
			char name[8];

			snprintf(name, sizeof(name), "ev%zu", i);
			c->ev[i] += rg_gb_run_counter(run, name, 0);
		}
	}
	if (!last)
		return;
	c->reported = true;
	s->ndone++;
	if (s->cfg->progress) {
		char cpus[64];

		cpu_list(c, cpus, sizeof(cpus));
		if (c->error)
			fprintf(s->cfg->progress, "[%3zu/%zu] %-44s error: %s\n", s->ndone,
				s->nrun_total, run->name, c->errmsg);
		else {
			double cv = 100.0 * rg_stat_stddev(c->ns, c->nrep) / rg_stat_mean(c->ns, c->nrep);
			char cvb[16] = "  n/a ";

			if (!isnan(cv))
				snprintf(cvb, sizeof(cvb), "%5.2f%%", cv);
			fprintf(s->cfg->progress,
				"[%3zu/%zu] %-44s %8.3f ns/pair  cv %s  %9.2f Mops/s  cpus %s\n",
				s->ndone, s->nrun_total, run->name, rg_stat_median(c->ns, c->nrep),
				cvb, rg_stat_median(c->mops, c->nrep), cpus);
		}
		fflush(s->cfg->progress);
	}
}

static int add_row(struct rg_resultset *rs, struct bcase *c)
{
	const char *gname = c->gi->name;
	struct rg_result *r;

	if (c->skipped)
		r = rg_results_skip(rs, "user", gname, c->scenario, "%s", c->reason);
	else
		r = rg_results_add(rs, "user", gname, c->scenario);
	if (!r)
		return -ENOMEM;
	r->threads = c->threads;
	r->batch = (long)c->batch;
	r->duty_ns = c->duty_ns;
	if (c->skipped) {
		snprintf(r->counters, sizeof(r->counters), "n/a: not run");
		snprintf(r->events, sizeof(r->events), "n/a: not run");
		return 0;
	}
	snprintf(r->pinning, sizeof(r->pinning), "hwloc");
	cpu_list(c, r->cpus, sizeof(r->cpus));
	if (c->error || !c->nrep) {
		snprintf(r->status, sizeof(r->status), "error");
		snprintf(r->reason, sizeof(r->reason), "%s", c->error ? c->errmsg : "not run");
		snprintf(r->counters, sizeof(r->counters), "n/a: not run");
		snprintf(r->events, sizeof(r->events), "n/a: not run");
		return 0;
	}
	if (rg_result_set_samples(r, c->ns, c->mops, c->nrep))
		return -ENOMEM;
	r->refusals = c->refusals;
	r->ops = c->ops;
	if (c->ctr_why) {
		snprintf(r->counters, sizeof(r->counters), "%s", c->ctr_why);
	} else if (!c->counted_all) {
		snprintf(r->counters, sizeof(r->counters), "n/a: a thread could not open counters");
	} else {
		snprintf(r->counters, sizeof(r->counters), "%s", rg_counters_kind());
		r->cycles_per_pair = c->cycles / (double)c->ops;
		r->instructions_per_pair = c->instructions / (double)c->ops;
	}
	if (c->ev_why) {
		snprintf(r->events, sizeof(r->events), "%s", c->ev_why);
	} else if (!c->ev_all) {
		snprintf(r->events, sizeof(r->events), "n/a: a thread could not open the events");
	} else {
		double per_pair[RG_PMU_MAX_EVENTS];

		for (size_t i = 0; i < rg_events_list()->n; i++)
			per_pair[i] = c->ev[i] / (double)c->ops;
		rg_pmu_format_values(rg_events_list(), per_pair, r->events, sizeof(r->events));
	}
	return 0;
}

/* ---- duty calibration ------------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ns per iteration that `units` of work add to the noop pair loop (best of 3, >= 2 ms each). */
static double duty_cost_ns(struct rg_guard *g, uint32_t units)
{
	const struct rg_loops *L = &rg_loops[RG_GUARD_noop];
	uint64_t n = 1;
	double best = INFINITY;

	for (int tries = 0, good = 0; tries < 48 && good < 3; tries++) {
		double t0 = now_s(), t1, t2;

		L->duty(g, n, units);
		t1 = now_s();
		L->pair(g, n);
		t2 = now_s();
		if (t1 - t0 < 2e-3 && n < (1ull << 32)) {
			n *= 4;
			continue;
		}
		best = fmin(best, ((t1 - t0) - (t2 - t1)) * 1e9 / (double)n);
		good++;
	}
	return best;
}

/*
 * Work units that make the duty loop take target_ns more per pair than the
 * pair loop. Calibrated at the target itself (a few fixed-point steps):
 * short chains overlap across iterations, so ns per unit depends on length.
 */
uint32_t rg_suite_duty_units(int cpu, long target_ns)
{
	struct rg_guard g;
	double units = 16, cost;
	char err[200];

	if (target_ns <= 0 || rg_guard_init(&g, 0))
		return 0;
	if (cpu >= 0)
		rg_topo_pin_self(cpu, err, sizeof(err));
	for (int step = 0; step < 5; step++) {
		cost = duty_cost_ns(&g, (uint32_t)lround(units));
		/* Damped: noise (or an emulator) cannot send the estimate far off. */
		double f = cost > 0 ? (double)target_ns / cost : 4;

		units = fmax(1, fmin(1e6, units * fmax(0.25, fmin(4, f))));
	}
	rg_guard_fini(&g);
	return (uint32_t)lround(units);
}

/* ---- the run ------------------------------------------------------------ */

int rg_suite_run(const struct rg_suite_cfg *cfg, struct rg_resultset *rs)
{
	struct suite s = { .cfg = cfg };
	const char *ctr_why = rg_counters_probe();
	const char *ev_why = rg_events_probe();
	uint32_t duty_units[RG_MAX_DUTY] = { 0 };
	bool printed_skip[RG_GUARD__COUNT] = { false };
	int rc = 0;

	if (cfg->scenario[RG_SC_duty]) {
		for (int d = 0; d < cfg->nduty && !*cfg->stop; d++)
			duty_units[d] = rg_suite_duty_units(cfg->cpus[0], cfg->duty_ns[d]);
		rg_topo_unpin_self();
		if (cfg->progress) {
			fprintf(cfg->progress, "rgbench: duty calibration on CPU %d:", cfg->cpus[0]);
			for (int d = 0; d < cfg->nduty; d++)
				fprintf(cfg->progress, " %d ns = %u units;", cfg->duty_ns[d], duty_units[d]);
			fputc('\n', cfg->progress);
		}
	}
	if (build(&s, duty_units)) {
		fprintf(stderr, "rgbench: out of memory\n");
		rc = -1;
		goto out;
	}
	if (cfg->progress && ctr_why)
		fprintf(cfg->progress, "rgbench: counters %s\n", ctr_why);
	if (cfg->progress && ev_why)
		fprintf(cfg->progress, "rgbench: events %s\n", ev_why);
	rg_gb_clear();
	for (size_t i = 0; i < s.n; i++) {
		struct bcase *c = &s.c[i];
		struct rg_gb_options o = {
			.threads = c->threads,
			.repetitions = cfg->repetitions,
			.min_time = cfg->min_time,
		};
		int err;

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
		if (c->loop == LOOP_NATIVE)
			err = rg_native_noop_register(c->name, &o, case_prologue, case_epilogue, c);
		else
			err = rg_gb_register(c->name, case_run, c, &o);
		if (err) {
			fprintf(stderr, "rgbench: cannot register %s: %s\n", c->name, strerror(-err));
			rc = -1;
			goto out;
		}
		s.nrun_total++;
	}
	if (s.nrun_total)	/* e.g. --scenarios latency: nothing for the library */
		rg_gb_run_all(on_run, &s);
	rg_topo_unpin_self();
	for (size_t i = 0; i < s.n; i++) {
		/* Cases filtered out by --benchmark_filter leave no row. */
		if (!s.c[i].skipped && !s.c[i].reported)
			continue;
		if (add_row(rs, &s.c[i])) {
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
	for (size_t i = 0; i < s.n; i++) {
		if (s.c[i].g_ready)
			rg_guard_fini(&s.c[i].g);
		free(s.c[i].ns);
		free(s.c[i].mops);
	}
	free(s.c);
	return rc;
}
