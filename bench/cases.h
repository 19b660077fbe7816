/* SPDX-License-Identifier: MIT */
/* The suite's cases: the loop kinds' and scenarios' ops tables, a case and what it measured, the suite; and building them (cases.c, scenarios.c). */
#ifndef RG_BENCH_CASES_H
#define RG_BENCH_CASES_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmu_events.h"
#include "rg/guard.h"
#include "suite.h"

struct rg_lat_timer;

/*
 * How a case is timed. LOOP_PAIR..LOOP_NATIVE are timed through Google
 * Benchmark on each thread's CPU time (measure.c), LOOP_LAT with the cycle
 * counter per small batch (latency.c), LOOP_REF is the cycle reference
 * (rounds.c). A new kind is one enumerator and one loop_kinds[] entry.
 */
enum loop_kind { LOOP_PAIR, LOOP_DUTY, LOOP_NESTED, LOOP_NATIVE, LOOP_LAT, LOOP_REF, LOOP__COUNT };

struct suite;
struct bcase;

/* Which of the guard's measured loops (rg/loops.h) a kind runs, once per batch. */
enum guard_loop { GUARD_LOOP_NONE, GUARD_LOOP_PAIR, GUARD_LOOP_DUTY, GUARD_LOOP_NESTED };

/*
 * A loop kind's operations, called once per group or once per run of a set
 * of cases, never inside a measured loop (each kind's run calls the guard's
 * loop once per batch).
 */
struct loop_kind_ops {
	const char *name;
	/* Once per group, before the calibration run (may be NULL). 0, or -1. */
	int (*prepare)(struct suite *s, struct bcase **set, size_t n);
	/* One run of each case of set[0..n) (calib: the first, sizing run), filling c->cur. 0, or -1. */
	int (*run)(struct suite *s, struct bcase **set, size_t n, bool calib);
	/* The row's counters/events text when this kind never counts (NULL: it does). */
	const char *no_counters;
	/* What a case of this kind is: its properties (nothing outside the table tests a kind). */
	bool gbench;		/* timed through Google Benchmark (measure.c), in one registration with its neighbours */
	bool native;		/* the C++ loop: no C-binding hook inside, stamped around; never a group's baseline */
	bool reference;		/* the cycle reference: measured in the rounds, never a row or a benchmark */
	bool distribution;	/* a distribution of batches in this process, not paired rounds (no baseline) */
	bool duty;		/* carries duty work between pairs */
	enum guard_loop guard_loop;	/* the guard's loop it runs (NONE: its own, not rg_loops) */
	const char *progress;	/* the scenario its group's progress line names (NULL: the case's) */
};

extern const struct loop_kind_ops loop_kinds[LOOP__COUNT];

/*
 * A scenario's operations (bench/scenarios.c, one entry per RG_SCENARIOS
 * line): how many groups it makes (0: none on this machine), and the cases of
 * one guard in group k (appended with suite_new_case(); none is fine).
 */
struct scenario_ops {
	int (*groups)(const struct rg_suite_cfg *cfg);
	int (*cases)(struct suite *s, int k, const struct rg_guard_info *gi);
};

extern const struct scenario_ops rg_scenario_ops[RG_SC__COUNT];

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

/* What one run (process) of a --runs parent measured of a case: its rounds and where it was. */
struct case_run {
	double *ns, *wall, *mops, *ratio;
	size_t nrep;
	char where[RG_RUN_WHERE_LEN];	/* page offsets of slots, stack and loop, CPU */
	/* What it added to the case's totals (taken back when the run is measured again). */
	size_t nnoisy;
	uint64_t refusals, ops;
	double cycles, instructions, ev[RG_PMU_MAX_EVENTS];
};

/* One benchmark: a guard in a scenario with its parameters, and what it measured. */
struct bcase {
	char name[192];			/* Google Benchmark name */
	char scenario[32];		/* result row scenario */
	int sc;				/* its scenario (enum rg_scenario) */
	int group;			/* cases measured in the same rounds (same scenario, threads, duty) */
	long base;			/* index of the baseline case (-1: the group's noop) */
	const char *base_name;		/* the row's `baseline` (with base >= 0) */
	const struct rg_guard_info *gi;	/* the cycle reference: noop's, never a row */
	int part;			/* ladder step: 1 + its rg_parts index (0: the guard's own loop) */
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
	/* xpkg's remote-slots: the guard's slots swapped for memory on another package. */
	bool remote;
	char *remote_mem, *own_pcpu;
	size_t remote_bytes;
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
	/* Kept samples, one per round, in round order (ratio: the kept run's lowest thread CPU/wall). */
	double *ns, *wall, *mops, *ratio;
	size_t nrep;
	/* LOOP_LAT: ns per pair of every timed batch of every round. */
	double *dist;
	size_t ndist;
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
	uintptr_t stack_at;		/* thread 0's frame in the measured function */
	bool stack_free;		/* RG_TEST_LAYOUT=kernel: its frame not moved to a fixed page offset */
	/* --runs, the parent's copy: each run's rounds, in run order (rounds.c, runs.c). */
	struct case_run *run;
	size_t nruns;
};

struct suite {
	const struct rg_suite_cfg *cfg;
	struct rg_resultset *rs;
	struct bcase *c;
	size_t n, cap;
	int ngroups;
	size_t nrun_total, ndone;
	uint64_t rng;
	int xpkg_cpus[2];		/* falseshare-xpkg: cpus[0] and a core of another package */
	struct rg_lat_timer *lat;	/* probed by the first latency group */
	int rounds;			/* of the group being measured (suite_group_rounds()) */
	/* A run process: the parent gave the group's chunks and work units (a warm-up run, no calibration). */
	bool preset;
	/* A run process: it measured the group before (the parent asked again, runs.c's ref_rerun()). */
	bool again;
	/* The parent: its run processes (runs.c), [cfg->runs]. */
	struct run_proc *proc;
	/* Progress (rows.c): the clock, the work planned and done (in chunk-times), rows added up to. */
	double t0, est_total, est_done;
	int rows_next;			/* the first group whose rows are not added yet */
};

/* The case's loop kind: its operations and properties. */
static inline const struct loop_kind_ops *kind_of(const struct bcase *c)
{
	return &loop_kinds[c->loop];
}

/* The scenario a progress line names for the case's group. */
static inline const char *case_progress_name(const struct bcase *c)
{
	return kind_of(c)->progress ? kind_of(c)->progress : c->scenario;
}

/* cases.c: every case cfg selects, group by group (nothing set up or run); 0, or -1. */
int suite_build(struct suite *s, const struct rg_suite_cfg *cfg);
void suite_free(struct suite *s);
/* The slots of every case that runs, and the counters' availability. 0, or -1 (message printed). */
int suite_setup(struct suite *s);
/* scenarios.c: a new case of guard gi in the group being built (its name user/<scenario>/<guard>/t<threads>). */
struct bcase *suite_new_case(struct suite *s, const struct rg_guard_info *gi,
			     const char *scenario, enum loop_kind loop, int threads);
void suite_skip_case(struct bcase *c, const char *fmt, const char *arg);
/* measure.c: the case failed (the first message is kept) and leaves the rounds. */
void suite_case_fail(struct bcase *c, const char *msg);

#endif /* RG_BENCH_CASES_H */
