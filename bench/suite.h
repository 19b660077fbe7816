/* SPDX-License-Identifier: MIT */
/* The userspace scenarios and the plan of a run (struct rg_suite_cfg): everything the suite needs, decided before it measures. */
#ifndef RG_BENCH_SUITE_H
#define RG_BENCH_SUITE_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rg/registry.h"
#include "rg/schema.h"
#include "rg/platform.h"

/*
 * The scenarios, one entry each: X(name, doc). Each name has its operations
 * in bench/scenarios.c, sc_<name>_groups() and sc_<name>_cases() (the build
 * fails without them), which say how many groups it makes and which cases
 * (guard, loop kind, threads, CPUs, baseline) it builds in each.
 */
#define RG_SCENARIOS(X) \
	X(pair, "enter+exit pairs back to back, one pinned thread") \
	X(duty, "the same with calibrated dependent ALU work after each pair") \
	X(nested, "enter, a nested enter (refused by protecting guards), exit, exit") \
	X(threads, "pair loop on 1..N threads, each pinned to its own CPU") \
	X(falseshare, "per-CPU slots packed 4 bytes apart vs padded to 128, all CPUs") \
	X(latency, "pair loop timed per small batch with the cycle counter: p50..p99.9, max (bench/latency.c)") \
	X(xpkg, "more than one package only: slots in another package's memory; false sharing across packages") \
	X(ladder, "composite designs built up one part at a time (guards.def RG_PART), each step against the one before, beside the whole")

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
#define RG_MAX_RUNS 64

/*
 * The timing model. Every case of a group (one scenario at one thread count,
 * duty level and slot layout, noop included) is measured in `repetitions`
 * rounds; a round runs each case once for a chunk of about min_time, in a
 * fresh random order. Each thread stamps its own CPU time
 * (CLOCK_THREAD_CPUTIME_ID), wall time and involuntary context switches
 * (getrusage(RUSAGE_THREAD)) around its measured region. A run in which a
 * thread lost time that matters, CPU/wall below RG_SUITE_MIN_CPU_WALL (wall
 * minus CPU time: preempted, waiting on a run queue, stolen by the host
 * where the kernel accounts steal), is discarded and run again, at most
 * RG_SUITE_RETRIES times per case and round; the last run is then kept.
 * An involuntary switch that cost less is no disturbance (on a 2-vCPU VM a
 * kernel worker passes through most 10 ms rounds). The row is `noisy` when
 * its kept disturbed rounds are half of them or more, or one lies outside
 * the range of its undisturbed rounds (bench/rows.c). RG_TEST_DISTURB=
 * first|every (tests) adds one fake involuntary switch that cost half the
 * run (CPU/wall 0.50) to the first run of every case and round, or to every
 * run.
 *
 * Every group also runs the cycle reference (a dependent chain of
 * single-cycle adds, bench/refloop.c) in each round like a case. A row whose
 * rounds saw it move by more than RG_REF_MAX_MOVE ((max - min) / median of
 * the reference's per-round ns per add) is `noisy` and says so.
 * RG_TEST_DISTURB=ref (tests) makes the reference's last round (of 2 or more)
 * at least twice as slow as its slowest earlier one. A run whose reference ran
 * more than RG_REF_MAX_MOVE off the median of the group's runs is measured
 * again first (bench/runs.c, ref_rerun()); RG_TEST_DISTURB=refrun (tests)
 * makes run 1's reference a thousand times as slow in every round of its
 * first measurement of each group.
 */
#define RG_SUITE_RETRIES 3
/*
 * The least measured work per round a row is `ok` with: 10 us of the case's
 * own time per thread (a chunk of a few pairs is mostly the timer's reads
 * and the library's loop). A row under it (--duration 1us) is `noisy`, its
 * reason saying how little each round measured.
 */
#define RG_SUITE_MIN_ROUND_NS 10000.0
/* A run that lost more than 1 % of its wall time (100 us of a 10 ms round) is disturbed. */
#define RG_SUITE_MIN_CPU_WALL 0.99
/* RG_REF_MAX_MOVE: rg/schema.h (rg_result_fill()'s cycle reference rule, shared with the module's rows). */

/* RG_TEST_DISTURB (tests): fake disturbances, see rg_suite_cfg.test_disturb. */
enum rg_test_disturb { RG_DISTURB_NONE, RG_DISTURB_FIRST, RG_DISTURB_EVERY, RG_DISTURB_REF,
		       RG_DISTURB_REFRUN };

struct rg_bench_hooks;
struct rg_resultset;

/* The default run's BPF rows: rg_bench_hooks.bpf_default, planned. */
typedef int (*rg_bpf_run_fn)(struct rg_resultset *rs, int quick,
			     volatile sig_atomic_t *stop, FILE *progress);

/*
 * The plan: everything a run needs, decided by the options and plan step
 * (bench/profile.c) before anything is measured; --plan prints it and
 * nothing below it reads the options or the environment.
 */
struct rg_suite_cfg {
	bool guard[RG_GUARD__COUNT];	/* noop is always added */
	bool ladder[RG_GUARD__COUNT];	/* designs whose ladder runs (RG_LADDER lines of the profile) */
	bool scenario[RG_SC__COUNT];
	char events[512];		/* --events: libpfm4 names, "" for the CPU table's list */
	int cpus[RG_MAX_CPUS];		/* placement order; cpus[0] runs single-thread cases */
	int ncpus;
	char cpus_why[128];		/* why these CPUs in this order (rg_place_quiet(), --cpus) */
	bool cpus_quiet;		/* chosen by rg_place_quiet(): the runs get them as --cpus */
	int thread_counts[RG_MAX_THREAD_COUNTS];	/* threads scenario */
	int nthread_counts;
	int duty_ns[RG_MAX_DUTY];	/* work per traced call, ns ... */
	int duty_in_ns[RG_MAX_DUTY];	/* ... of which inside the guarded region */
	int nduty;
	int repetitions;		/* interleaved rounds (>= 1) per run */
	/*
	 * Runs (bench/runs.c): with runs > 1 every group but the latency ones is
	 * measured in runs fresh processes, each this binary re-executed with
	 * argv and --run-child, in turn; a run process has run_child >= 0 and
	 * reads its groups from run_fd[0], writes its rounds to run_fd[1].
	 */
	int runs;
	char **argv;
	int argc;
	int run_child, run_fd[2];
	bool run_forked;		/* a run that could not re-execute: forked, the parent's layout */
	/*
	 * The CPUs this process was allowed when the plan was made: every run
	 * starts on them, so a later outside change of the parent's affinity
	 * (taskset -a -p) is seen by the pinning checks as a move, never by a
	 * run's option check as a refused --cpus.
	 */
	unsigned char allowed[128];	/* a cpu_set_t's bytes (1024 CPUs) */
	bool have_allowed;
	char aslr[64];			/* address randomization as the plan found it */
	char thp[32];			/* transparent huge pages: the sysfs mode */
	double min_time;		/* seconds per case per round (> 0) */
	uint64_t batch;			/* iterations per call of the measured loop */
	bool native_noop;		/* also the C++ `for (auto _ : state)` noop */
	FILE *progress;			/* a line per group and per benchmark; NULL: silent */
	FILE *wrote;			/* the line naming each file written; NULL: -qq */
	volatile sig_atomic_t *stop;	/* set asynchronously: stop at the next batch */
	const char *filter;		/* --benchmark_filter, or NULL */
	/* The outputs, named (and, for a run, locked) by the plan step. */
	char out_csv[PATH_MAX + 8];
	char out_json[PATH_MAX + 8];	/* "" when no JSON */
	bool out_default;		/* results/<host>-<time>: -2, -3, ... if taken at the start */
	/* The default run's BPF part: run when bpf_run, else bpf_why says why not. */
	rg_bpf_run_fn bpf_run;
	bool bpf_quick;			/* short BPF windows (all profiles but --full) */
	const char *bpf_why;		/* NULL when the default run does not measure BPF */
	/* Where the topology comes from: this machine, or another one's (--plan, --list). */
	char topo_xml[PATH_MAX];	/* HWLOC_XMLFILE */
	char topo_synthetic[1024];	/* HWLOC_SYNTHETIC */
	/* Test switches (docs/bench.md, "Test switches"), from RG_TEST_* in the plan step only. */
	enum rg_test_disturb test_disturb;	/* RG_TEST_DISTURB=first|every|ref|refrun */
	bool test_xpkg;				/* RG_TEST_XPKG=1: cross-package rows on one package */
	char test_lat_unusable[96];		/* RG_TEST_LATENCY_UNUSABLE=why */
	bool test_counters_software;		/* RG_TEST_COUNTERS_SOFTWARE=1 */
	char test_sysfs_root[PATH_MAX];		/* RG_TEST_SYSFS_ROOT=dir */
	bool test_stack_free;			/* RG_TEST_LAYOUT=kernel: no fixed frame offset */
};

/*
 * Build every case, run them group by group in interleaved rounds through
 * Google Benchmark and append one row per case (ok, noisy, error or skipped)
 * to rs, each with its paired difference against the group's noop. Returns
 * the number of benchmarks run, or -1 when setup failed (message printed).
 */
int rg_suite_run(const struct rg_suite_cfg *cfg, struct rg_resultset *rs);

/*
 * A run of a --runs parent (cfg->run_child >= 0, bench/runs.c): measure the
 * groups the parent names on cfg->run_fd[0], in this process's own address
 * layout, and send their rounds back on cfg->run_fd[1] until the parent
 * closes the pipe. The exit status.
 */
int rg_suite_run_child(const struct rg_suite_cfg *cfg);

/* The cases the plan selects that would run here (--benchmark_filter applied, nothing run), or -1. */
int rg_suite_count(const struct rg_suite_cfg *cfg);

/*
 * The duty calibration (leaves the caller pinned to cpu): rg_work() units
 * that add in_ns inside the guarded region into *in and out_ns after it into
 * *out, each calibrated on its own on noop's duty loop. Nonzero *in / *out on
 * entry are a starting point (another run's figures): two steps instead of five.
 */
void rg_suite_duty_units(int cpu, long in_ns, long out_ns, uint32_t *in, uint32_t *out);

#endif /* RG_BENCH_SUITE_H */
