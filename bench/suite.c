// SPDX-License-Identifier: MIT
/* The userspace scenarios: cases built from the guard registry, run in interleaved rounds through the C binding, turned into result rows. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "counters.h"
#include "latency.h"
#include "xpkg.h"
#include "native_noop.h"
#include "rg/gbench.h"
#include "rg/loops.h"
#include "rg/percpu.h"
#include "suite.h"
#include "rg/platform.h"

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

/* What one thread measured around its part of one run (written by that thread only). */
struct tmeas {
	double cpu0, wall0, cpu1, wall1;	/* ns: CLOCK_THREAD_CPUTIME_ID, CLOCK_MONOTONIC */
	long iv0, iv1;				/* involuntary context switches, RUSAGE_THREAD */
	uint64_t done;				/* pairs between the two stamps */
	bool have0, have1;
};

/* One run (attempt) of a case, as on_run() computed it from the threads' stamps. */
struct attempt {
	bool ok;
	double cpu_ns, wall_ns, mops;	/* per pair per thread (CPU, wall); all threads */
	double ratio;			/* the lowest CPU/wall of its threads */
	long iv;			/* involuntary switches, all threads */
	uint64_t ops, refusals;
	double cycles, instructions, ev[RG_PMU_MAX_EVENTS];
	bool counted_all, ev_all;
};

/* One benchmark: a guard in a scenario with its parameters, and what it measured. */
struct bcase {
	char name[192];			/* Google Benchmark name */
	char scenario[32];		/* result row scenario */
	int group;			/* cases measured in the same rounds (same scenario, threads, duty) */
	const struct rg_guard_info *gi;
	enum loop_kind loop;
	int threads;
	const int *cpus;		/* cpus[t] for thread t */
	size_t stride;
	uint32_t work;
	long duty_ns;
	uint64_t batch;
	uint64_t chunk;			/* pairs per thread per round, fixed by the calibration run */
	bool skipped;
	char reason[256];
	struct rg_guard g;
	bool g_ready;
	volatile sig_atomic_t *stop;
	const char *ctr_why;		/* NULL when counters work */
	const char *ev_why;		/* NULL when the extra events work */
	/* Written by the threads of a run. */
	int seen_cpu[RG_MAX_CPUS];
	struct tmeas *tm;		/* [threads] */
	/* The last run, filled by on_run(). */
	struct attempt cur;
	bool reported;			/* the library ran it at least once (not filtered out) */
	bool active;			/* still measured in the rounds */
	/* Kept samples, one per round, in round order. */
	double *ns, *wall, *mops;
	size_t nrep;
	long discarded;			/* runs thrown away as disturbed and re-run */
	size_t nnoisy;			/* rounds kept disturbed after the last re-run */
	double worst_ratio;
	long worst_iv;
	double cycles, instructions;
	bool counted_all;
	double ev[RG_PMU_MAX_EVENTS];
	bool ev_all;
	uint64_t refusals, ops;
	bool error;
	char errmsg[256];
	volatile bool started;		/* a run began before any interrupt */
};

struct suite {
	const struct rg_suite_cfg *cfg;
	struct bcase *c;
	size_t n, cap;
	int ngroups;
	size_t nrun_total, ndone;
	uint64_t rng;
	int fake_disturb;		/* RG_TEST_DISTURB: 0 none, 1 first run of a round, 2 every run */
};

/* ---- in the benchmark threads ----------------------------------------- */

static __thread struct rg_counters tl_ctr;
static __thread struct rg_events tl_ev;
static __thread uint64_t tl_refused;

static double ts_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static long ivcsw(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_nivcsw;
}

/* Outermost first: the switch count, then CPU time, then wall time ... */
static void stamp_begin(struct tmeas *m)
{
	m->iv0 = ivcsw();
	m->cpu0 = ts_ns(CLOCK_THREAD_CPUTIME_ID);
	m->wall0 = ts_ns(CLOCK_MONOTONIC);
	m->have0 = true;
}

/* ... and in the reverse order at the end. */
static void stamp_end(struct tmeas *m)
{
	m->wall1 = ts_ns(CLOCK_MONOTONIC);
	m->cpu1 = ts_ns(CLOCK_THREAD_CPUTIME_ID);
	m->iv1 = ivcsw();
	m->have1 = m->have0;
}

static void case_prologue(struct rg_gb_state *st, void *arg)
{
	struct bcase *c = arg;
	int t = rg_gb_thread_index(st);
	char err[200];

	memset(&tl_ctr, 0, sizeof(tl_ctr));
	memset(&tl_ev, 0, sizeof(tl_ev));
	tl_refused = 0;
	memset(&c->tm[t], 0, sizeof(c->tm[t]));
	if (*c->stop) {
		/* Interrupted: every run is a single repetition, so fail it at once. */
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
	/* The native loop has no hook inside: its region starts here (one thread only). */
	if (c->loop == LOOP_NATIVE)
		stamp_begin(&c->tm[t]);
}

static void case_epilogue(struct rg_gb_state *st, void *arg)
{
	struct bcase *c = arg;
	int t = rg_gb_thread_index(st);
	double cycles, instructions, ev[RG_PMU_MAX_EVENTS];
	bool counted = tl_ctr.open, ev_counted = tl_ev.open;

	if (c->loop == LOOP_NATIVE && c->tm[t].have0) {
		stamp_end(&c->tm[t]);
		c->tm[t].done = rg_gb_iterations(st);
	}
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
 * The measured region of one thread: from the first batch the library grants
 * (after its start barrier) to the end of the batch that completes the run's
 * iterations (before its stop barrier), so neither barrier wait is in the
 * thread's wall time. One call of the guard's loop per batch (the only
 * indirect call, outside the loop); the stop flag is checked between batches.
 */
#define MEASURED_LOOP(call)						\
	do {								\
		if (!rg_gb_keep_running_batch(st, n))			\
			break;						\
		stamp_begin(m);						\
		do {							\
			if (rg_likely(!*stop))				\
				refused += (call);			\
			done += n;					\
			if (done >= max && !m->have1)			\
				stamp_end(m);				\
		} while (rg_gb_keep_running_batch(st, n));		\
	} while (0)

/*
 * The measured function. After an error the while() still runs once: it
 * passes the library's start/stop barriers that the other threads wait on.
 */
static void case_run(struct rg_gb_state *st, void *arg)
{
	struct bcase *c = arg;
	const struct rg_loops *L = &rg_loops[c->gi->id];
	struct rg_guard *g = &c->g;
	const uint64_t n = c->batch;
	const uint32_t work = c->work;
	volatile sig_atomic_t *stop = c->stop;
	uint64_t refused = 0, done = 0, max;
	struct tmeas *m;

	case_prologue(st, arg);
	m = &c->tm[rg_gb_thread_index(st)];
	max = rg_gb_max_iterations(st);
	switch (c->loop) {
	case LOOP_PAIR:
		MEASURED_LOOP(L->pair(g, n));
		break;
	case LOOP_DUTY:
		MEASURED_LOOP(L->duty(g, n, work));
		break;
	case LOOP_NESTED:
		MEASURED_LOOP(L->nested(g, n));
		break;
	case LOOP_NATIVE:
		break;
	}
	m->done = done;
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

/* ---- one run of a set of cases through the library -------------------- */

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

static void case_fail(struct bcase *c, const char *msg)
{
	if (!c->error) {
		c->error = true;
		snprintf(c->errmsg, sizeof(c->errmsg), "%s", msg);
	}
	c->active = false;
}

/*
 * A run as the library reports it: ns per pair from each thread's own CPU
 * time (averaged over threads), wall time beside it, and whether any thread
 * was descheduled (CPU/wall below RG_SUITE_MIN_CPU_WALL or an involuntary
 * context switch).
 */
static void on_run(const struct rg_gb_run *run, bool last, void *ctx)
{
	struct suite *s = ctx;
	struct bcase *c = find_case(s, run->name);
	struct attempt *a;
	double cpu = 0, wall = 0, wall_max = 0;
	uint64_t total = 0;

	(void)last;
	if (!c)
		return;
	c->reported = true;
	a = &c->cur;
	memset(a, 0, sizeof(*a));
	if (run->error || run->iterations <= 0) {
		case_fail(c, run->error ? run->error_message : "no iterations measured");
		return;
	}
	a->ratio = INFINITY;
	for (int t = 0; t < c->threads; t++) {
		const struct tmeas *m = &c->tm[t];
		double tc = m->cpu1 - m->cpu0, tw = m->wall1 - m->wall0;

		if (!m->have1 || !m->done || tw <= 0 || m->iv0 < 0 || m->iv1 < 0) {
			case_fail(c, "a thread measured nothing (no CPU/wall time or getrusage failed)");
			return;
		}
		cpu += tc / (double)m->done;
		wall += tw / (double)m->done;
		wall_max = fmax(wall_max, tw);
		a->ratio = fmin(a->ratio, tc / tw);
		a->iv += m->iv1 - m->iv0;
		total += m->done;
	}
	a->cpu_ns = cpu / c->threads;
	a->wall_ns = wall / c->threads;
	a->mops = (double)total / wall_max * 1e3;
	a->ops = total;
	a->refusals = (uint64_t)llround(rg_gb_run_counter(run, "refusals", 0));
	a->counted_all = rg_gb_run_counter(run, "counted_threads", 0) >= (double)run->threads;
	a->cycles = rg_gb_run_counter(run, "cycles", 0);
	a->instructions = rg_gb_run_counter(run, "instructions", 0);
	a->ev_all = rg_gb_run_counter(run, "events_threads", 0) >= (double)run->threads;
	for (size_t i = 0; i < rg_events_list()->n; i++) {
		char name[8];

		snprintf(name, sizeof(name), "ev%zu", i);
		a->ev[i] = rg_gb_run_counter(run, name, 0);
	}
	a->ok = true;
}

/*
 * Register set[0..n) in that order, one repetition each, and run them: with
 * calib, for at least min_time (the library picks the iterations); else for
 * each case's fixed chunk of pairs per thread. 0, or -1 (message printed).
 */
static int run_set(struct suite *s, struct bcase **set, size_t n, bool calib)
{
	rg_gb_clear();
	for (size_t i = 0; i < n; i++) {
		struct bcase *c = set[i];
		struct rg_gb_options o = {
			.threads = c->threads,
			.repetitions = 1,
			.min_time = calib ? s->cfg->min_time : 0,
			.iterations = calib ? 0 : (int64_t)c->chunk,
		};
		int err;

		c->cur.ok = false;
		if (c->loop == LOOP_NATIVE)
			err = rg_native_noop_register(c->name, &o, case_prologue, case_epilogue, c);
		else
			err = rg_gb_register(c->name, case_run, c, &o);
		if (err) {
			fprintf(stderr, "rgbench: cannot register %s: %s\n", c->name, strerror(-err));
			return -1;
		}
	}
	rg_gb_run_all(on_run, s);
	rg_gb_clear();
	return 0;
}

/* ---- rounds ------------------------------------------------------------ */

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
		case_fail(c, "out of memory");
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

		if (run_set(s, set, n, false))
			return -1;
		for (size_t i = 0; i < n; i++) {
			struct bcase *c = set[i];
			bool disturbed;

			if (!c->cur.ok) {
				case_fail(c, "not run (filtered out of a round?)");
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

/* ---- results ------------------------------------------------------------ */

static void progress_line(struct suite *s, const struct bcase *c, const struct bcase *base)
{
	FILE *f = s->cfg->progress;
	char cpus[64], cvb[16] = "  n/a ", dl[64] = "";

	s->ndone++;
	if (!f)
		return;
	if (c->error || !c->nrep) {
		fprintf(f, "[%3zu/%zu] %-44s error: %s\n", s->ndone, s->nrun_total, c->name,
			c->error ? c->errmsg : "not run");
		return;
	}
	cpu_list(c, cpus, sizeof(cpus));
	double cv = 100.0 * rg_stat_stddev(c->ns, c->nrep) / rg_stat_mean(c->ns, c->nrep);

	if (!isnan(cv))
		snprintf(cvb, sizeof(cvb), "%5.2f%%", cv);
	if (base && base != c && base->nrep == c->nrep && !base->error) {
		double d, lo, hi;

		if (!rg_stat_paired_delta(c->ns, base->ns, c->nrep, &d, &lo, &hi))
			snprintf(dl, sizeof(dl), "  delta %+.3f [%+.3f, %+.3f]", d, lo, hi);
	}
	fprintf(f, "[%3zu/%zu] %-44s %8.3f ns/pair%s  cv %s  wall %.3f  %zu rounds, %ld discarded%s  cpus %s\n",
		s->ndone, s->nrun_total, c->name, rg_stat_median(c->ns, c->nrep), dl, cvb,
		rg_stat_median(c->wall, c->nrep), c->nrep, c->discarded,
		c->nnoisy ? "  NOISY" : "", cpus);
}

static int add_row(struct rg_resultset *rs, struct bcase *c, const struct bcase *base)
{
	const char *gname = c->gi->name;
	struct rg_result *r;

	if (c->skipped)
		r = rg_results_skip(rs, "user", gname, c->scenario, "%s", c->reason);
	else
		r = rg_results_add(rs, "user", gname, c->scenario);
	if (!r)
		return -ENOMEM;
	snprintf(r->role, sizeof(r->role), "%s", rg_guard_role(c->gi));	/* guards.def */
	r->threads = c->threads;
	r->batch = (long)c->batch;
	r->duty_ns = c->duty_ns;
	r->work_units = c->work;
	if (c->skipped) {
		snprintf(r->counters, sizeof(r->counters), "n/a: not run");
		snprintf(r->events, sizeof(r->events), "n/a: not run");
		return 0;
	}
	snprintf(r->pinning, sizeof(r->pinning), "hwloc");
	cpu_list(c, r->cpus, sizeof(r->cpus));
	r->discarded = c->discarded;
	if (c->error || !c->nrep) {
		snprintf(r->status, sizeof(r->status), "error");
		snprintf(r->reason, sizeof(r->reason), "%s", c->error ? c->errmsg : "not run");
		snprintf(r->counters, sizeof(r->counters), "n/a: not run");
		snprintf(r->events, sizeof(r->events), "n/a: not run");
		return 0;
	}
	if (rg_result_set_samples(r, c->ns, c->mops, c->nrep))
		return -ENOMEM;
	snprintf(r->interleave, sizeof(r->interleave), "rounds");
	r->cpu_ns_median = r->ns_median;
	if (base && !base->error && base->nrep == c->nrep) {
		if (rg_result_set_delta(r, "noop", c->ns, base->ns, c->nrep) ||
		    rg_result_set_round_samples(r, c->wall, c->ns, base->ns, c->nrep))
			return -ENOMEM;
	} else if (rg_result_set_round_samples(r, c->wall, NULL, NULL, c->nrep)) {
		return -ENOMEM;
	}
	if (c->nnoisy) {
		snprintf(r->status, sizeof(r->status), "noisy");
		snprintf(r->reason, sizeof(r->reason),
			 "%zu of %zu rounds still disturbed after %d re-runs (lowest thread CPU/wall %.2f, up to %ld involuntary switches)",
			 c->nnoisy, c->nrep, RG_SUITE_RETRIES, c->worst_ratio, c->worst_iv);
	}
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

/* The calibration runs on CPU time too: a preempted step does not shrink the work. */
static double now_s(void)
{
	return ts_ns(CLOCK_THREAD_CPUTIME_ID) * 1e-9;
}

/* CPU ns per iteration that `units` of work add to the noop pair loop (best of 3, >= 2 ms each). */
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
	if (cpu >= 0 && !rg_topo_pin_self(cpu, err, sizeof(err)))
		rg_percpu_thread_init();	/* the loops may take the per-CPU base */
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

/* The group's C-binding noop: every row's baseline. */
static struct bcase *group_noop(struct suite *s, int group)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->c[i].group == group && s->c[i].gi->id == RG_GUARD_noop &&
		    s->c[i].loop != LOOP_NATIVE && !s->c[i].skipped)
			return &s->c[i];
	return NULL;
}

static int run_group(struct suite *s, int group, struct bcase **set)
{
	const struct rg_suite_cfg *cfg = s->cfg;
	size_t n = 0, first = SIZE_MAX;
	struct bcase *base = group_noop(s, group);
	uint32_t units = 0;
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
		units = rg_suite_duty_units(cfg->cpus[0], set[0]->duty_ns);
		rg_topo_unpin_self();
		for (size_t i = 0; i < n; i++)
			set[i]->work = units;
	}
	if (cfg->progress) {
		fprintf(cfg->progress, "rgbench: %s: %zu benchmarks in %d interleaved rounds",
			set[0]->loop == LOOP_NATIVE ? "pair" : set[0]->scenario, n, cfg->repetitions);
		if (set[0]->loop == LOOP_DUTY)
			fprintf(cfg->progress, " (duty %ld ns target: %u work units)", set[0]->duty_ns,
				units);
		if (set[0]->threads > 1)
			fprintf(cfg->progress, " (%d threads)", set[0]->threads);
		fputc('\n', cfg->progress);
		fflush(cfg->progress);
	}
	/* Calibration and warm-up: the library finds a run of at least min_time. */
	if (run_set(s, set, n, true))
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct bcase *c = set[i];
		double want;

		if (!c->reported)
			continue;	/* --benchmark_filter left it out: no row */
		if (c->error)
			continue;
		if (!c->cur.ok) {
			case_fail(c, "calibration run measured nothing");
			continue;
		}
		want = cfg->min_time * 1e9 / fmax(c->cur.cpu_ns, 1e-3);
		c->chunk = (uint64_t)ceil(fmin(want, 1e12) / (double)c->batch) * c->batch;
		if (c->chunk < c->batch)
			c->chunk = c->batch;
		c->active = true;
	}
	long_group = (double)n * cfg->repetitions * cfg->min_time > 5;
	last_tick = ts_ns(CLOCK_MONOTONIC);
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
			double now = ts_ns(CLOCK_MONOTONIC);

			if (now - last_tick > 5e9) {
				fprintf(cfg->progress, "rgbench: ... round %d of %d\n", r + 1,
					cfg->repetitions);
				fflush(cfg->progress);
				last_tick = now;
			}
		}
	}
	for (size_t i = first; i < s->n && !*cfg->stop; i++)
		if (s->c[i].group == group && !s->c[i].skipped && s->c[i].reported)
			progress_line(s, &s->c[i], base);
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
		if (run_group(&s, g, set)) {
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
		if (add_row(rs, &s.c[i], group_noop(&s, s.c[i].group))) {
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
