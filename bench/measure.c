// SPDX-License-Identifier: MIT
/* The measured function of every case, the threads' stamps and counters around it, and its registration with and report from Google Benchmark. */
#define _GNU_SOURCE
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "native_noop.h"
#include "rg/gbench.h"
#include "rg/loops.h"
#include "rg/parts.h"
#include "rg/percpu.h"
#include "rg/platform.h"
#include "cases.h"
#include "clock.h"
#include "counters.h"
#include "rounds.h"

static __thread struct rg_counters tl_ctr;
static __thread struct rg_events tl_ev;
static __thread uint64_t tl_refused;

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
	if (kind_of(c)->native)
		stamp_begin(&c->tm[t]);
}

static void case_epilogue(struct rg_gb_state *st, void *arg)
{
	struct bcase *c = arg;
	int t = rg_gb_thread_index(st);
	double cycles, instructions, ev[RG_PMU_MAX_EVENTS];
	bool counted = tl_ctr.open, ev_counted = tl_ev.open;

	if (kind_of(c)->native && c->tm[t].have0) {
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
static __attribute__((noinline)) void case_run(struct rg_gb_state *st, void *arg)
{
	struct bcase *c = arg;
	const struct rg_loops *L = &rg_loops[c->gi->id];
	/* a ladder step's own loop, else the guard's (chosen once, never inside a batch) */
	uint64_t (*const pair)(struct rg_guard *, uint64_t) = c->part ? rg_step_loops[c->part - 1] : L->pair;
	struct rg_guard *g = &c->g;
	const uint64_t n = c->batch;
	const uint32_t work = c->work, work_in = c->work_in;
	volatile sig_atomic_t *stop = c->stop;
	uint64_t refused = 0, done = 0, max;
	struct tmeas *m;

	case_prologue(st, arg);
	if (rg_gb_thread_index(st) == 0)
		c->stack_at = (uintptr_t)__builtin_frame_address(0);
	m = &c->tm[rg_gb_thread_index(st)];
	max = rg_gb_max_iterations(st);
	switch (kind_of(c)->guard_loop) {
	case GUARD_LOOP_PAIR:
		MEASURED_LOOP(pair(g, n));
		break;
	case GUARD_LOOP_DUTY:
		MEASURED_LOOP(L->duty(g, n, work_in, work - work_in));
		break;
	case GUARD_LOOP_NESTED:
		MEASURED_LOOP(L->nested(g, n));
		break;
	case GUARD_LOOP_NONE:	/* the native kind has its own function; the others are not the library's */
		break;
	}
	m->done = done;
	tl_refused = refused;
	case_epilogue(st, arg);
}

/*
 * The measured function's frame at a fixed offset in its page, whatever
 * offset the kernel gave the thread's stack (docs/bench.md, "Runs"): the
 * kernel starts a process's stack at a random place within a page, which
 * moved the loop's stack slots against the guard's page-aligned slots by a
 * different multiple of 4 KiB in every process. A pad below this frame puts
 * case_run()'s frame RG_STACK_PAGE_OFF bytes, give or take this build's fixed
 * frame sizes, into a page: half a page from the slots.
 */
#define RG_STACK_PAGE_OFF 2048

static void case_run_placed(struct rg_gb_state *st, void *arg)
{
	const struct bcase *c = arg;
	char here;
	/* RG_TEST_LAYOUT=kernel (docs/bench.md, "Runs"): where the kernel put the stack. */
	size_t pad = c->stack_free ? 0 : ((uintptr_t)&here - RG_STACK_PAGE_OFF) & 4095;
	volatile char *p = __builtin_alloca(pad + 1);

	p[0] = 0;
	case_run(st, arg);
	p[0] = 1;	/* the pad lives until the call returns */
}

static struct bcase *find_case(struct suite *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!s->c[i].skipped && !strcmp(s->c[i].name, name))
			return &s->c[i];
	return NULL;
}

void suite_case_fail(struct bcase *c, const char *msg)
{
	if (!c->error) {
		c->error = true;
		snprintf(c->errmsg, sizeof(c->errmsg), "%s", msg);
	}
	c->active = false;
}

/*
 * A run as the library reports it: ns per pair from each thread's own CPU
 * time (averaged over threads), wall time beside it, the lowest thread
 * CPU/wall (rounds.c: below RG_SUITE_MIN_CPU_WALL the run is disturbed) and
 * the involuntary switches (evidence only).
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
		suite_case_fail(c, run->error ? run->error_message : "no iterations measured");
		return;
	}
	a->ratio = INFINITY;
	for (int t = 0; t < c->threads; t++) {
		const struct tmeas *m = &c->tm[t];
		double tc = m->cpu1 - m->cpu0, tw = m->wall1 - m->wall0;

		if (!m->have1 || !m->done || tw <= 0 || m->iv0 < 0 || m->iv1 < 0) {
			suite_case_fail(c, "a thread measured nothing (no CPU/wall time or getrusage failed)");
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
		char name[24];	/* "ev" and any size_t */

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
int suite_run_set(struct suite *s, struct bcase **set, size_t n, bool calib)
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
		if (kind_of(c)->native)
			err = rg_native_noop_register(c->name, &o, case_prologue, case_epilogue, c);
		else
			err = rg_gb_register(c->name, case_run_placed, c, &o);
		if (err) {
			fprintf(stderr, "rgbench: cannot register %s: %s\n", c->name,
				rg_gb_failure() ? rg_gb_failure() : strerror(-err));
			return -1;
		}
	}
	rg_gb_run_all(on_run, s);
	rg_gb_clear();
	if (rg_gb_failure()) {	/* the library stopped (bench/include/rg/gbench.h): one line, exit 1 */
		fprintf(stderr, "rgbench: Google Benchmark stopped: %s; nothing written\n",
			rg_gb_failure());
		return -1;
	}
	return 0;
}
