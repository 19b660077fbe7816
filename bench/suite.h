/* SPDX-License-Identifier: MIT */
/* The userspace scenarios (pair, duty, nested, threads, falseshare) over every guard. */
#ifndef RG_BENCH_SUITE_H
#define RG_BENCH_SUITE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rg/registry.h"
#include "rg/schema.h"
#include "rg/platform.h"

#define RG_SCENARIOS(X) \
	X(pair, "enter+exit pairs back to back, one pinned thread") \
	X(duty, "the same with calibrated dependent ALU work after each pair") \
	X(nested, "enter, a nested enter (refused by protecting guards), exit, exit") \
	X(threads, "pair loop on 1..N threads, each pinned to its own CPU") \
	X(falseshare, "per-CPU slots packed 4 bytes apart vs padded to 128, all CPUs") \
	X(latency, "pair loop timed per small batch with the cycle counter: p50..p99.9, max (bench/latency.c)") \
	X(xpkg, "more than one package only: slots in another package's memory; false sharing across packages")

enum rg_scenario {
#define X(name, doc) RG_SC_##name,
	RG_SCENARIOS(X)
#undef X
	RG_SC__COUNT
};

extern const char *const rg_scenario_names[RG_SC__COUNT];
extern const char *const rg_scenario_docs[RG_SC__COUNT];
int rg_scenario_find(const char *name);	/* -1 when unknown */

#define RG_MAX_THREAD_COUNTS 64
#define RG_MAX_DUTY 16

/*
 * The timing model. Every case of a group (one scenario at one thread count,
 * duty level and slot layout, noop included) is measured in `repetitions`
 * rounds; a round runs each case once for a chunk of about min_time, in a
 * fresh random order. Each thread stamps its own CPU time
 * (CLOCK_THREAD_CPUTIME_ID), wall time and involuntary context switches
 * (getrusage(RUSAGE_THREAD)) around its measured region. A run in which a
 * thread's CPU/wall is below RG_SUITE_MIN_CPU_WALL or that saw an
 * involuntary switch is discarded and run again, at most RG_SUITE_RETRIES
 * times per case and round; the last run is then kept and the row is
 * `noisy`. RG_TEST_DISTURB=first|every (tests) adds one fake involuntary
 * switch to the first run of every case and round, or to every run.
 */
#define RG_SUITE_RETRIES 3
#define RG_SUITE_MIN_CPU_WALL 0.95

struct rg_suite_cfg {
	bool guard[RG_GUARD__COUNT];	/* noop is always added */
	bool scenario[RG_SC__COUNT];
	int cpus[RG_MAX_CPUS];		/* placement order; cpus[0] runs single-thread cases */
	int ncpus;
	int thread_counts[RG_MAX_THREAD_COUNTS];	/* threads scenario */
	int nthread_counts;
	int duty_ns[RG_MAX_DUTY];	/* work per traced call, ns ... */
	int duty_in_ns[RG_MAX_DUTY];	/* ... of which inside the guarded region */
	int nduty;
	int repetitions;		/* interleaved rounds (>= 1) */
	double min_time;		/* seconds per case per round (> 0) */
	uint64_t batch;			/* iterations per call of the measured loop */
	bool native_noop;		/* also the C++ `for (auto _ : state)` noop */
	FILE *progress;			/* a line per group and per benchmark; NULL: silent */
	volatile sig_atomic_t *stop;	/* set asynchronously: stop at the next batch */
};

/*
 * Build every case, run them group by group in interleaved rounds through
 * Google Benchmark and append one row per case (ok, noisy, error or skipped)
 * to rs, each with its paired difference against the group's noop. Returns
 * the number of benchmarks run, or -1 when setup failed (message printed).
 */
int rg_suite_run(const struct rg_suite_cfg *cfg, struct rg_resultset *rs);

/*
 * The duty calibration (leaves the caller pinned to cpu): rg_work() units
 * that add in_ns inside the guarded region into *in and out_ns after it into
 * *out, each calibrated on its own on noop's duty loop.
 */
void rg_suite_duty_units(int cpu, long in_ns, long out_ns, uint32_t *in, uint32_t *out);

#endif /* RG_BENCH_SUITE_H */
