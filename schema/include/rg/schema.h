/* SPDX-License-Identifier: MIT */
/* The versioned result schema shared by the user, bpf and kmod suites, and its writers. */
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
#define RG_SCHEMA_VERSION 4

/*
 * RG_RESULT_COLUMNS(X): X(name, kind, since, "meaning"), in CSV column order.
 * kind: S string, I integer, U unsigned 64-bit, D double ("n/a" in CSV and
 * null in JSON when not measured), B boolean written 0/1.
 * since: the schema version that added the column (1 .. RG_SCHEMA_VERSION):
 * the reader requires it from files of that version on and refuses it in
 * older ones; the README shows it as "(since version N)" after the meaning.
 * The README's schema section is checked against this list.
 */
#define RG_RESULT_COLUMNS(X) \
	X(schema_version, I, 1, "result schema version (this file: 4)") \
	X(rgbench_version, S, 1, "rgbench version that wrote the row") \
	X(run_id, S, 3, "one id per run, the same in a run's CSV and JSON") \
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
	X(suite, S, 1, "user, bpf or kmod") \
	X(guard, S, 1, "guard name (bpf: attach type or baseline)") \
	X(role, S, 3, "what the guard stands for across architectures (guards.def), or n/a") \
	X(scenario, S, 1, "user: pair/duty/nested/threads/falseshare-*; bpf: trigger mode; kmod: loop-irqsoff, loop (irqs on), {irq,softirq,softirq-irq,nmi}-recursion or -deferred") \
	X(threads, I, 1, "threads, producers or kthreads") \
	X(batch, I, 1, "iterations per batch (bpf: driver batch)") \
	X(duty_ns, I, 1, "work per iteration, ns (0: back to back); from version 4 the trampoline shape: duty_in_ns of it inside the guarded region, the rest after exit") \
	X(duty_in_ns, D, 4, "duty: ns of work between enter and exit (the traced function); n/a when not the trampoline shape") \
	X(repetitions, I, 1, "samples aggregated in this row") \
	X(ns_median, D, 1, "ns per pair (bpf: ns per event per producer, 1e3 / mops_per_thread), median") \
	X(ns_mean, D, 1, "ns per pair, mean") \
	X(ns_stddev, D, 1, "ns per pair, sample standard deviation") \
	X(ns_min, D, 1, "ns per pair, minimum") \
	X(ns_max, D, 1, "ns per pair, maximum") \
	X(ns_cv, D, 1, "coefficient of variation of ns per pair (stddev/mean)") \
	X(baseline, S, 3, "the row delta_ns is measured against (user: noop), or n/a") \
	X(interleave, S, 3, "how samples were taken against the baseline: rounds, alternating or none") \
	X(delta_ns, D, 3, "ns per pair (bpf: per event) minus the baseline's, median of paired per-round differences") \
	X(delta_ci_lo, D, 3, "lower end of the interval of delta_ns (its confidence: delta_ci_level; 95% bootstrap before version 4)") \
	X(delta_ci_hi, D, 3, "upper end of the interval of delta_ns") \
	X(delta_ci_level, D, 4, "actual confidence of [delta_ci_lo, delta_ci_hi]: the distribution-free order-statistic interval of the median (e.g. 0.961); n/a when too few samples") \
	X(cpu_ns_median, D, 3, "ns per pair from thread CPU time, median") \
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
	X(cycles_per_pair, D, 1, "CPU cycles per pair (libperf), n/a when unavailable") \
	X(instructions_per_pair, D, 1, "instructions per pair (libperf), n/a when unavailable") \
	X(ref_ns_per_cycle, D, 4, "cycle reference: ns per add of a dependent single-cycle add chain, median over the row's rounds") \
	X(ref_cv, D, 4, "cycle reference: coefficient of variation over the row's rounds (the core's speed moved)") \
	X(ref_cycles_per_pair, D, 4, "ns_median in reference cycles (ns_median / ref_ns_per_cycle); n/a without the reference") \
	X(events, S, 2, "extra core-PMU events per pair from sysfs, name=value;..., else n/a: why") \
	X(counters, S, 1, "perf when counted, else why not") \
	X(refusals, U, 1, "refused enters (bpf: recursion_misses)") \
	X(ops, U, 1, "pairs or events measured in total") \
	X(status, S, 1, "ok, skipped or error") \
	X(reason, S, 1, "why skipped or failed; empty when ok")

struct rg_result {
	/* Row identity: what was measured. */
	char suite[16];
	char guard[48];
	char scenario[48];
	char pinning[16];
	char cpus[256];
	long threads;
	long batch;
	long duty_ns;
	/* Aggregates; NAN means not measured. rg_result_set_samples() fills them. */
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
	uint64_t refusals;
	uint64_t ops;
	char status[16];
	char reason[256];
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
	long work_units;	/* JSON only: rg_work() units per pair (duty), else 0 */
	/*
	 * Latency scenario, JSON only ("lat_hist": [[lo_ns, hi_ns, count], ...]):
	 * the non-empty bins of the per-batch ns-per-pair histogram, hi_ns null
	 * for the open last bin. rg_result_set_lat_hist() copies them.
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

void rg_results_init(struct rg_resultset *rs, const struct rg_env *env);
void rg_results_free(struct rg_resultset *rs);
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
 * Copy n per-repetition samples (ns per pair; Mops/s, either may be NULL) and
 * compute median/mean/stddev/min/max/cv and mops_per_thread. 0 or -ENOMEM.
 */
int rg_result_set_samples(struct rg_result *r, const double *ns,
			  const double *mops, size_t n);

/*
 * Write the set to path, atomically: the data goes to a temporary file beside
 * it (".NAME.XXXXXX.tmp", random and created exclusively, or ".rgbench-HASH.XXXXXX.tmp" when that would exceed
 * NAME_MAX), is fsync'ed, then renamed over path. An interrupted run leaves
 * either the old file or the complete new one. A path that exists and is not a
 * regular file is never replaced (-EEXIST; -EISDIR for a directory).
 * 0 or -errno (nothing left behind on error).
 */
int rg_results_write_csv(const struct rg_resultset *rs, const char *path);
int rg_results_write_json(const struct rg_resultset *rs, const char *path);

/* Copy n histogram bins (hi may hold INFINITY for the open last bin). 0 or -ENOMEM. */
int rg_result_set_lat_hist(struct rg_result *r, const double *lo, const double *hi,
			   const uint64_t *count, size_t n);

/*
 * Both files of one run (either path may be NULL): both temporary files are
 * written and fsync'ed first, then renamed one right after the other, so a
 * full disk or a write error changes neither. Both carry rs->run_id, so a kill
 * between the two renames leaves a pair the reader refuses as mismatched.
 * 0, or -errno with "cannot write PATH: why" in err.
 */
int rg_results_write(const struct rg_resultset *rs, const char *csv, const char *json,
		     char *err, size_t errlen);

/*
 * Any other output file (e.g. kmod's --raw, the module's own CSV): len bytes
 * of data written to path the same way, atomically (a temporary file beside
 * it, fsync'ed, renamed over path; a path that is not a regular file is never
 * replaced). 0, or -errno with "cannot write PATH: why" in err.
 */
int rg_output_write(const char *path, const char *data, size_t len, char *err, size_t errlen);

/*
 * Check the output paths of a run before measuring, and reserve them:
 *  - each path names a file in an existing, writable directory, with a name
 *    within NAME_MAX and PATH_MAX (its temporary and lock names always fit);
 *  - an existing path must be a regular file: a directory, device, FIFO or
 *    socket is refused, and so is a symbolic link (rgbench never writes
 *    through a link nor replaces one: give the target's path);
 *  - no two paths name the same file (e.g. --out x.csv --json ./x.csv);
 *  - each path is locked against other runs writing it: a lock file beside it
 *    (".NAME.lock", flock()ed, holding the pid), so a second run on the same
 *    output fails here instead of interleaving its files with the first. A
 *    lock left by a process that died is free again (flock dies with it).
 * Locks are held until rg_output_release() or process exit.
 * Returns 0; 2 when a path is unusable (a usage error: "PATH: why" in err);
 * 1 when a lock cannot be taken (errno EBUSY: another run holds it).
 */
int rg_output_check(const char *csv, const char *json, char *err, size_t errlen);
/* The same for n paths (NULL entries are skipped), e.g. kmod's --out, --json and --raw. */
int rg_output_checkv(const char *const *paths, size_t n, char *err, size_t errlen);
/*
 * The same, and no output may name one of the command's nin input files
 * (NULL entries and directories skipped), by any spelling or hard link, nor
 * that input's CSV/JSON twin (x.csv <-> x.json): "OUT: is an input of this
 * command (IN)", 2. E.g. report's --out, kmod's outputs against --from-raw.
 */
int rg_output_checkv_in(const char *const *paths, size_t n, const char *const *in, size_t nin,
			char *err, size_t errlen);
/*
 * A name the reader takes from a directory operand (plots/read_dir.c): ends in
 * .csv or .json, does not start with '.', holds no ".tmp.". The output check
 * refuses such a name in a directory the command reads.
 */
bool rg_dir_result_name(const char *name);
/*
 * The same policy for an output that is a folder (plot --out DIR): its
 * parent exists and is writable, DIR is no symbolic link (a dangling one
 * included) and, when it exists, a writable directory; then DIR is locked
 * (".DIR.lock" beside it) so that a second command on the same DIR fails
 * here, before any work. 0; 2 unusable ("DIR: why" in err); 1 locked.
 */
int rg_output_check_dir(const char *dir, char *err, size_t errlen);
/* Drop every output lock this process holds (also done at exit). */
void rg_output_release(void);
/* The temporary name template the writers use for path (".NAME.XXXXXX.tmp", fits NAME_MAX). 0 or -ENAMETOOLONG. */
int rg_output_tmp_name(char *buf, size_t len, const char *path);

/*
 * src as one printable line of valid UTF-8 in dst (size > 0; cut on a
 * character boundary): tab, CR and LF become ' '; other C0 controls, DEL, the
 * C1 controls (U+0080-U+009F), the bidi and line format characters
 * (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C, U+2028, U+2029) and
 * each byte that is not part of a valid UTF-8 sequence (stray, truncated,
 * overlong, surrogate, beyond U+10FFFF) become '?'. What every string in a
 * row or a JSON file goes through, and what the reader accepts. Returns the
 * length written.
 */
size_t rg_str_printable(char *dst, size_t size, const char *src);
/* True when rg_str_printable() would leave s as it is (what the reader accepts in a string value). */
bool rg_str_is_printable(const char *s);
/*
 * Repair s in place, a whole page (line ends and other controls kept): each
 * byte that is not part of a valid UTF-8 sequence becomes '?'. For text
 * built from names cut to fixed buffers. Returns the number replaced.
 */
size_t rg_utf8_repair(char *s);

/* Write one CSV field, quoted (RFC 4180) when it holds , " CR or LF. */
void rg_csv_put_field(FILE *f, const char *s);

/* The CSV header line (no newline), for tests and docs. */
const char *rg_results_csv_header(void);

/* Small statistics helpers (also used by the suites). */
double rg_stat_median(const double *v, size_t n);
double rg_stat_mean(const double *v, size_t n);
double rg_stat_stddev(const double *v, size_t n);	/* sample (n-1); NAN when n < 2 */

/*
 * The interval of a median of n samples: the exact distribution-free
 * order-statistic interval [d(k), d(n+1-k)] of the sorted samples, whose
 * confidence is 1 - 2 P(B <= k-1) for B ~ binomial(n, 1/2) (at least that with
 * ties). k is the largest one whose level reaches RG_CI_NOMINAL: n = 6 .. 8
 * give k = 1, 11 gives k = 2 (98.8%), 20 gives k = 6 (95.9%). Below 6 samples
 * no k reaches 95%: n = 3 .. 5 give [min, max] with its real level (75%,
 * 87.5%, 93.75%); below RG_CI_MIN_SAMPLES (1 or 2 samples: 50% at best) there
 * is no interval. Returns k, or 0 with *level NAN when n < RG_CI_MIN_SAMPLES.
 */
#define RG_CI_NOMINAL 0.95
#define RG_CI_MIN_SAMPLES 3
size_t rg_stat_median_ci_k(size_t n, double *level);

/*
 * The paired difference of n samples taken in the same rounds (or windows):
 * d[i] = x[i] - base[i]. *median is the median of d; [*lo, *hi] its
 * order-statistic interval (rg_stat_median_ci_k()) and *level (may be NULL)
 * that interval's confidence. Fewer than RG_CI_MIN_SAMPLES differences give
 * the median and an n/a (NAN) interval and level; n == 0 all NAN. 0 or -ENOMEM.
 */
int rg_stat_paired_delta(const double *x, const double *base, size_t n,
			 double *median, double *lo, double *hi, double *level);

/*
 * What a table prints after an interval: "" when its level reached
 * RG_CI_NOMINAL (or is n/a: a file from before schema 4, whose intervals were
 * called 95%), else " 93.8%" (the level, leading space). Returns buf.
 */
const char *rg_ci_level_tag(double level, char *buf, size_t len);

/*
 * Fill r's baseline, delta_ns, delta_ci_lo, delta_ci_hi and delta_ci_level from per-round
 * values of the row (x) and of its baseline (base), round i against round i.
 * 0 or -ENOMEM.
 */
int rg_result_set_delta(struct rg_result *r, const char *baseline,
			const double *x, const double *base, size_t n);

/*
 * The cycle reference that ran beside the row in each of its rounds (a
 * dependent chain of single-cycle adds; ns holds its n per-round ns per add):
 * fill ref_ns_per_cycle (their median), ref_cv and ref_cycles_per_pair
 * (ns_median / ref_ns_per_cycle), and make r `noisy`, reason appended, when
 * they moved by more than RG_REF_MAX_MOVE ((max - min) / median). Used by the
 * user suite and the module's converter alike; nothing when n is 0.
 */
#define RG_REF_MAX_MOVE 0.10
void rg_result_set_ref(struct rg_result *r, const double *ns, size_t n);

/*
 * Keep n per-round wall-clock samples (fills wall_ns_median) and the per-round
 * differences x[i] - base[i] against the baseline (either may be NULL) for
 * the JSON keys samples_wall_ns and samples_delta_ns. n must be the row's
 * nsamples. 0 or -ENOMEM.
 */
int rg_result_set_round_samples(struct rg_result *r, const double *wall_ns,
				const double *x, const double *base, size_t n);

#endif /* RG_SCHEMA_H */
