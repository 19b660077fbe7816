/* SPDX-License-Identifier: MIT */
/* The versioned result schema shared by the user, bpf and kmod suites: its columns and the rows a run fills (the writer: rg/writer.h; statistics: rg/stats.h). */
#ifndef RG_SCHEMA_H
#define RG_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "rg/env.h"

/*
 * Bump RG_SCHEMA_VERSION whenever a column is added, removed, renamed or
 * changes meaning; tests/bench checks the column list against a copy.
 */
#define RG_SCHEMA_VERSION 6

/*
 * RG_RESULT_COLUMNS(X): X(name, kind, since, "meaning"), in CSV column order.
 * kind: S string, I integer, U unsigned 64-bit, D double (an empty field in
 * CSV and null in JSON when not measured; "n/a" in the CSV of versions 1-5,
 * which the reader still reads), B boolean written 0/1.
 * since: the schema version that added the column (1 .. RG_SCHEMA_VERSION):
 * the reader requires it from files of that version on and refuses it in
 * older ones; the README shows it as "(since version N)" after the meaning.
 * The README's schema section is checked against this list.
 */
#define RG_RESULT_COLUMNS(X) \
	X(schema_version, I, 1, "result schema version (this file: 6)") \
	X(rgbench_version, S, 1, "rgbench version that wrote the row") \
	X(run_id, S, 3, "one id per run, the same in a run's CSV and JSON (rgbench ab: one id for every suite of every boot of one ab command, given in RG_RUN_ID)") \
	X(ab_label, S, 6, "rgbench ab: the --kernel label of the boot the row was measured in (RG_AB_LABEL); empty outside ab") \
	X(ab_boot, I, 6, "rgbench ab: the boot's index within one ab command, 1..N (RG_AB_BOOT); missing outside ab") \
	X(timestamp, S, 1, "run start, UTC, ISO 8601") \
	X(host, S, 1, "host name") \
	X(arch, S, 1, "x86_64 or aarch64") \
	X(cpu_vendor, S, 1, "CPUID vendor or MIDR implementer") \
	X(cpu_model, S, 1, "brand string or decoded MIDR part") \
	X(cpu_part, S, 1, "family/model/stepping or raw MIDR") \
	X(kernel, S, 1, "kernel release (uname -r)") \
	X(virt, S, 3, "none, a hypervisor name (kvm, xen, ...), emulated (qemu-user/qemu-tcg) or unknown") \
	X(lse, B, 1, "aarch64 LSE atomics present") \
	X(rseq, B, 1, "rseq registered by glibc") \
	X(preempt, S, 1, "kernel preemption model") \
	X(pinning, S, 1, "how threads were placed: hwloc, kthread or none") \
	X(cpus, S, 1, "CPUs the threads ran on, e.g. 0,1") \
	X(cpus_why, S, 6, "why those CPUs: --cpus given, or how the suite chose them; empty when not said") \
	X(suite, S, 1, "user, bpf or kmod (kbench: the kernel's trigger bench in an rgbench ab boot)") \
	X(guard, S, 1, "guard name (bpf: attach type or baseline)") \
	X(role, S, 3, "what the guard stands for across architectures (guards.def), or n/a") \
	X(scenario, S, 1, "user: pair/duty/nested/threads/falseshare-*; bpf: trigger mode; kmod: loop-irqsoff, loop (irqs on), {irq,softirq,softirq-irq,nmi}-recursion or -deferred") \
	X(threads, I, 1, "threads, producers or kthreads") \
	X(batch, I, 1, "iterations per batch (bpf: driver batch)") \
	X(duty_ns, I, 1, "work per iteration, ns (0: back to back); from version 4 the trampoline shape: duty_in_ns of it inside the guarded region, the rest after exit") \
	X(duty_in_ns, D, 4, "duty: ns of work between enter and exit (the traced function); missing when not the trampoline shape") \
	X(repetitions, I, 1, "samples aggregated in this row") \
	X(runs, I, 5, "processes the row was measured in, each a fresh one with its own address layout (rgbench --runs; bpf rows: passes over all rows in one process, layout says so); repetitions counts the rounds of all of them; the JSON keeps each run's value (runs_ns, runs_delta_ns; bpf: producer CPU ns per event)") \
	X(unit, S, 6, "the unit of ns_median, ns_mean, ns_stddev, ns_min, ns_max, delta_ns and its interval, aa_floor_ns, cpu_ns_median, wall_ns_median and lat_*_ns: ns/pair (user, kmod) or ns/event (bpf)") \
	X(ns_median, D, 1, "ns per pair (bpf: ns per event per producer, 1e3 / mops_per_thread), median (with runs > 1: the median of the runs' medians)") \
	X(ns_mean, D, 1, "ns per pair, mean") \
	X(ns_stddev, D, 1, "ns per pair, sample standard deviation") \
	X(ns_min, D, 1, "ns per pair, minimum") \
	X(ns_max, D, 1, "ns per pair, maximum") \
	X(ns_cv, D, 1, "coefficient of variation of ns per pair (stddev/mean)") \
	X(baseline, S, 3, "the row delta_ns is measured against (user: noop), or n/a") \
	X(interleave, S, 3, "how samples were taken against the baseline: rounds, alternating or none") \
	X(delta_ns, D, 3, "ns per pair (bpf: per event, of producer CPU time when the JSON has samples_cpu_ns, as layout says) minus the baseline's, median of paired per-round differences (with runs > 1: the median of the runs' medians of them)") \
	X(delta_ci_lo, D, 3, "lower end of the interval of delta_ns (its confidence: delta_ci_level; 95% bootstrap before version 4)") \
	X(delta_ci_hi, D, 3, "upper end of the interval of delta_ns") \
	X(delta_ci_level, D, 4, "actual confidence of [delta_ci_lo, delta_ci_hi]: the distribution-free order-statistic interval of the median (e.g. 0.961); missing when too few samples. From version 5, with runs > 1, over the runs' values") \
	X(aa_floor_ns, D, 5, "the A/A floor measured here: two single runs of this row differ by more than this 5% of the time (t(0.975, runs - 1) * sqrt(2) * the standard deviation of the runs' delta_ns, else of their ns_median); missing with one run") \
	X(layout, S, 5, "what varied between the runs (address randomization, THP) and what the suite held fixed (slot and stack page offsets); bpf: its passes and the time base of delta_ns and runs_*; or n/a") \
	X(cpu_ns_median, D, 3, "ns per pair from thread CPU time, median (bpf: producers' CPU ns per event, the median of samples_cpu_ns)") \
	X(wall_ns_median, D, 3, "ns per pair from wall-clock time, median") \
	X(discarded, I, 3, "samples discarded as disturbed and re-run") \
	X(lat_p50_ns, D, 3, "latency scenario: ns per pair, 50th percentile of batches") \
	X(lat_p90_ns, D, 3, "latency scenario: 90th percentile") \
	X(lat_p99_ns, D, 3, "latency scenario: 99th percentile") \
	X(lat_p999_ns, D, 3, "latency scenario: 99.9th percentile") \
	X(lat_max_ns, D, 3, "latency scenario: largest batch") \
	X(mops_median, D, 1, "million pairs (bpf: events) per second, all threads, median") \
	X(mops_mean, D, 1, "million pairs per second, mean") \
	X(mops_stddev, D, 1, "million pairs per second, sample standard deviation") \
	X(mops_per_thread, D, 1, "mops_median divided by threads") \
	X(cycles_per_pair, D, 1, "CPU cycles per pair (libperf), missing when unavailable") \
	X(instructions_per_pair, D, 1, "instructions per pair (libperf), missing when unavailable") \
	X(ref_ns_per_cycle, D, 4, "cycle reference: ns per add of a dependent single-cycle add chain, median over the row's rounds") \
	X(ref_cv, D, 4, "cycle reference: coefficient of variation over the row's rounds (the core's speed moved)") \
	X(ref_cycles_per_pair, D, 4, "ns_median in reference cycles (ns_median / ref_ns_per_cycle); missing without the reference") \
	X(events, S, 2, "extra core-PMU events per pair, name=value;... (named as pmu_table names them: libpfm4 where its tables know the CPU, else sysfs), else n/a: why") \
	X(pmu_table, S, 5, "the PMU table that encoded the events: libpfm4 <table> or sysfs <pmu>; n/a: why when no event was counted") \
	X(counters, S, 1, "perf when counted, else why not") \
	X(refusals, U, 1, "refused enters (bpf: recursion_misses)") \
	X(ops, U, 1, "pairs or events measured in total") \
	X(prog_runs, U, 5, "kmod tramp rows: the BPF program's runs, counted by the program (equals ops - refusals); 0 where no program ran") \
	X(status, S, 1, "ok, skipped or error") \
	X(reason, S, 1, "why skipped or failed; empty when ok")

#define RG_RUN_WHERE_LEN 96

struct rg_result {
	/* Row identity: what was measured. */
	char suite[16];
	char guard[48];
	char scenario[48];
	char pinning[16];
	char cpus[256];
	char cpus_why[128];	/* schema 6: why those CPUs ("" when not said) */
	long threads;
	long batch;
	long duty_ns;
	/* Aggregates; NAN means not measured. rg_result_fill() fills them and what follows. */
	long repetitions;
	double ns_median, ns_mean, ns_stddev, ns_min, ns_max, ns_cv;
	/* Schema 3: the paired difference against a baseline, and the time bases. */
	char role[32];
	char baseline[48];
	char interleave[16];
	double delta_ns, delta_ci_lo, delta_ci_hi;
	/* Schema 4: the interval's real confidence, the duty split, the cycle reference. */
	double delta_ci_level;
	double duty_in_ns;
	double ref_ns_per_cycle, ref_cv, ref_cycles_per_pair;
	double cpu_ns_median, wall_ns_median;
	long discarded;
	double lat_p50_ns, lat_p90_ns, lat_p99_ns, lat_p999_ns, lat_max_ns;
	double mops_median, mops_mean, mops_stddev, mops_per_thread;
	double cycles_per_pair, instructions_per_pair;
	char counters[96];
	char events[512];
	char pmu_table[512];		/* as large as events: an n/a reason is the same text */
	uint64_t refusals;
	uint64_t ops;
	uint64_t prog_runs;	/* schema 5: kmod tramp rows */
	char status[16];
	/*
	 * Up to three noisy reasons joined by "; " (the suite's disturbance, then fill.c's round
	 * work and cycle reference): about 400 bytes at most; 256 cut the last one short.
	 */
	char reason[512];
	/* Every repetition's value, kept in the JSON for significance tests. */
	double *samples_ns;
	double *samples_mops;
	size_t nsamples;
	/*
	 * JSON only, beside samples_ns (same length and order, NULL when not
	 * measured): wall-clock ns per pair, and the paired difference against
	 * the baseline of each round (may be negative).
	 */
	double *samples_wall_ns;
	double *samples_delta_ns;
	/*
	 * JSON only, bpf rows (rg_measured's cpu_ns): each sample's
	 * producer CPU ns per event, same length and order as samples_ns, and
	 * for a row paired with a baseline its difference against the
	 * baseline's window of the same sample (NULL when not measured).
	 */
	double *samples_cpu_ns;
	double *samples_cpu_delta_ns;
	long work_units;	/* JSON only: rg_work() units per pair (duty), else 0 */
	/*
	 * Schema 5, runs (rg_measured's runs): how many processes, the A/A
	 * floor, what varied; JSON only: each run's median ns and median paired
	 * delta (NULL when not measured) and where its slots, stack and loop
	 * were ("runs_where", one string per run).
	 */
	long runs;
	double aa_floor_ns;
	char layout[256];
	double *runs_ns, *runs_delta_ns;
	char (*runs_where)[RG_RUN_WHERE_LEN];
	size_t nruns;
	/*
	 * Latency scenario, JSON only ("lat_hist": [[lo_ns, hi_ns, count], ...]):
	 * the non-empty bins of the per-batch ns-per-pair histogram, hi_ns null
	 * for the open last bin. rg_result_fill() copies them.
	 */
	double *lat_hist_lo, *lat_hist_hi;
	uint64_t *lat_hist_count;
	size_t lat_hist_n;
};

/* The latency scenario's counter, written once per JSON file as "timer" when source[0]. */
struct rg_timer_info {
	char source[48];	/* e.g. "rdtsc (invariant TSC)", "cntvct_el0" */
	double hz;		/* ticks per second */
	double resolution_ns;	/* smallest measured step */
	double overhead_ns;	/* an empty timed region, subtracted from every batch */
};

struct rg_resultset {
	struct rg_env env;
	char timestamp[32];
	char run_id[40];	/* timestamp + random: ties a run's CSV to its JSON */
	char ab_label[40];	/* rgbench ab: the boot's --kernel label ($RG_AB_LABEL), "" outside ab */
	long ab_boot;		/* rgbench ab: the boot's index 1..N ($RG_AB_BOOT), -1 (missing) outside ab */
	struct rg_result *rows;
	size_t n, cap;
	struct rg_timer_info timer;
};

/*
 * Room for element n of an array v of *cap elements of size elem: v itself
 * when n < *cap, else v reallocated to twice *cap elements (first when *cap
 * is 0) and *cap updated. NULL when out of memory (v and *cap unchanged).
 */
void *rg_grow(void *v, size_t *cap, size_t n, size_t elem, size_t first);

/*
 * A fresh set: timestamp, run id and the ab columns. $RG_RUN_ID (the form
 * rgbench writes, YYYYMMDDTHHMMSSZ-16 hex digits), $RG_AB_LABEL (1 to 32 of
 * A-Z a-z 0-9 . _ -, a letter or digit first) and $RG_AB_BOOT (1 to 100000),
 * when set, are the run id, ab_label and ab_boot: rgbench ab sets them in its
 * guests. A bad value is one line on stderr and exit RG_EXIT_USAGE (2).
 */
void rg_results_init(struct rg_resultset *rs, const struct rg_env *env);
void rg_results_free(struct rg_resultset *rs);
/* Keep the rows keep(row, arg) is true for, in their order; free the others. Returns the rows left. */
size_t rg_results_keep(struct rg_resultset *rs, bool (*keep)(const struct rg_result *, void *),
		       void *arg);
/*
 * The rows whose status is `error` (a benchmark that failed: a thread moved
 * off its CPU, a check that did not hold). Every measuring command exits
 * RG_EXIT_FAIL when there is one, after writing the rows.
 */
size_t rg_results_nerror(const struct rg_resultset *rs);

/* A fresh run id (UTC time + 64 random bits); rg_results_init() sets one. */
void rg_results_new_run_id(struct rg_resultset *rs);

/* Append a row: status "ok", all doubles NAN, counters and events "n/a". NULL on ENOMEM. */
struct rg_result *rg_results_add(struct rg_resultset *rs, const char *suite,
				 const char *guard, const char *scenario);

/* Append a "skipped" row saying why (printf-style reason). */
struct rg_result *rg_results_skip(struct rg_resultset *rs, const char *suite,
				  const char *guard, const char *scenario,
				  const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/*
 * What one row measured, described by the suite from its own data, for
 * rg_result_fill(). A field left 0, NULL or false was not measured: its
 * columns keep what rg_results_add() gave them. Arrays are copied.
 */
struct rg_measured {
	/* The rounds (bpf: samples), n values of each array, in round order. */
	size_t n;
	const double *ns;	/* ns per pair (bpf: per event per producer): ns_*, samples_ns */
	const double *mops;	/* Mpairs/s, all threads: mops_*, mops_per_thread, samples_mops */
	const double *wall_ns;	/* wall-clock ns per pair: wall_ns_median, samples_wall_ns */
	const double *cpu_ns;	/* bpf: producer CPU ns per event: cpu_ns_median, samples_cpu_ns */
	bool ns_is_cpu;		/* ns is thread CPU time (user): cpu_ns_median is ns_median of the rounds */
	bool ns_from_rate;	/* bpf: ns_median = wall_ns_median = 1e3 / mops_per_thread, whatever the runs */
	bool on_cpu;		/* the delta and the runs are of cpu_ns (bpf: producer CPU time), else of ns */
	/*
	 * The paired baseline (none when baseline is NULL): its name (the baseline
	 * column) and its nbase values of what the delta is of, round i against
	 * round i over the first min(n, nbase). keep_diffs: the JSON keeps each
	 * round's difference too (nbase must then be n), as samples_cpu_delta_ns
	 * (on_cpu) or beside wall_ns as samples_delta_ns.
	 */
	const char *baseline;
	const double *base;
	size_t nbase;
	bool keep_diffs;
	/*
	 * Runs (processes; bpf: passes), used when nruns >= 2: run k holds the
	 * rounds [run_end[k - 1], run_end[k]) (run 0 from 0); run_where[k] (may be
	 * NULL) is what its addresses were. runs_paired: the baseline's rounds fall
	 * into the same runs, so each run has its own paired delta.
	 */
	size_t nruns;
	const size_t *run_end;
	const char (*run_where)[RG_RUN_WHERE_LEN];
	bool runs_paired;
	/*
	 * A distribution (the latency scenario): ndist values, ns per pair of each
	 * batch. When dist is not NULL the row's ns_*, mops_*, lat_* and
	 * repetitions are its (no per-round samples are kept; ns then feeds only
	 * the runs). The histogram's nhist bins are copied when hist_count is not
	 * NULL (hi may hold INFINITY for the open last bin).
	 */
	const double *dist;
	size_t ndist;
	const double *hist_lo, *hist_hi;
	const uint64_t *hist_count;
	size_t nhist;
	/* round_pairs pairs per thread per round (0: no rule): under min_round_ns of measured work the row is noisy. */
	uint64_t round_pairs;
	double min_round_ns;
	/* The cycle reference that ran beside the row in each of its rounds: nref ns per add. */
	const double *ref_ns;
	size_t nref;
};

/*
 * Fill every numeric and statistical column of r from m, in one pass and in
 * this order (a later step may use what an earlier one set):
 * 1. the samples: median/mean/stddev/min/max/cv of ns, median/mean/stddev of
 *    mops and mops_per_thread; for a distribution its figures and
 *    percentiles; the histogram; ns_from_rate, ns_is_cpu; the CPU samples;
 * 2. the baseline's paired delta: median of the per-round differences with
 *    its order-statistic interval and level (rg_stat_paired_delta());
 * 3. the wall-clock samples (and the kept differences);
 * 4. the runs: runs, each run's median and paired delta (runs_ns,
 *    runs_delta_ns, runs_where), ns_median the median of the runs' medians
 *    (not with ns_from_rate), delta_ns with its interval over the runs'
 *    deltas (each run counts once, whatever its rounds) and aa_floor_ns
 *    (rg_stat_aa_floor()) of the runs' deltas, of their values when unpaired;
 * 5. the round-work rule: ns_median * round_pairs under min_round_ns makes r
 *    `noisy`, its reason appended to a noisy row's;
 * 6. the cycle reference: ref_ns_per_cycle (the median), ref_cv and
 *    ref_cycles_per_pair (ns_median / ref_ns_per_cycle); r becomes `noisy`,
 *    reason appended, when it moved by more than RG_REF_MAX_MOVE
 *    ((max - min) / median) across the rounds.
 * The text columns a suite alone knows (interleave, layout, counters, a
 * disturbance's status and reason) stay the suite's: a reason set before
 * the call comes first. 0 or -ENOMEM.
 */
#define RG_REF_MAX_MOVE 0.10
int rg_result_fill(struct rg_result *r, const struct rg_measured *m);

/* The unit of r's ns_* figures (the unit column): "ns/event" for bpf rows, else "ns/pair". */
const char *rg_result_unit(const struct rg_result *r);

/* The CSV header line (no newline), for tests and docs. */
const char *rg_results_csv_header(void);

/*
 * The writer and its output policy (rg/writer.h) and the statistics (rg/stats.h)
 * have headers of their own; included here for the files that include only this one.
 */
#include "rg/stats.h"
#include "rg/writer.h"

#endif /* RG_SCHEMA_H */
