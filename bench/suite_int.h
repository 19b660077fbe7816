/* SPDX-License-Identifier: MIT */
/* The suite's cases and what they measured, shared by suite.c (cases), measure.c (threads, library), rounds.c, rows.c, duty.c. */
#ifndef RG_BENCH_SUITE_INT_H
#define RG_BENCH_SUITE_INT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "counters.h"
#include "rg/guard.h"
#include "suite.h"

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
	uint32_t work, work_in;		/* duty: rg_work() units per call, all and inside */
	long duty_ns, duty_in_ns;
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

static inline double ts_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* measure.c: register set[0..n) with the library and run them once (calib: for min_time, else each case's chunk). */
int suite_run_set(struct suite *s, struct bcase **set, size_t n, bool calib);
/* The case failed (the first message is kept) and leaves the rounds. */
void suite_case_fail(struct bcase *c, const char *msg);
/* rounds.c: the group's C-binding noop (every row's baseline), or NULL. */
struct bcase *suite_group_noop(struct suite *s, int group);
/* Calibrate, then measure one group in cfg->repetitions interleaved rounds. 0, or -1. */
int suite_run_group(struct suite *s, int group, struct bcase **set);
/* rows.c: the progress line of a measured case, and its result row. */
void suite_progress_line(struct suite *s, const struct bcase *c, const struct bcase *base);
int suite_add_row(struct rg_resultset *rs, struct bcase *c, const struct bcase *base);

#endif /* RG_BENCH_SUITE_INT_H */
