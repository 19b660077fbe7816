/* SPDX-License-Identifier: MIT */
/* C binding to Google Benchmark: register benchmarks from C, run batches, get every run back. */
#ifndef RG_GBENCH_H
#define RG_GBENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The binding is crossed once per batch, never per iteration:
 *
 *	static void bm(struct rg_gb_state *st, void *arg)
 *	{
 *		while (rg_gb_keep_running_batch(st, 4096))
 *			work_loop(arg, 4096);		// the measured loop, in C
 *	}
 *	rg_gb_register("my/bench", bm, arg, NULL);
 *	rg_gb_run_all(on_run, ctx);
 *
 * Everything else (iteration count, repetitions, threads started together,
 * timing, --benchmark_* flags) is Google Benchmark's own.
 */
struct rg_gb_state;		/* a benchmark::State */
typedef void (*rg_gb_fn)(struct rg_gb_state *st, void *arg);

struct rg_gb_options {
	int threads;		/* threads started together (Threads(n)); 0 = 1 */
	int repetitions;	/* Repetitions(n); 0 = --benchmark_repetitions */
	double min_time;	/* MinTime(s); 0 = --benchmark_min_time */
	int64_t iterations;	/* Iterations(n); 0 = let the library decide */
	const int64_t *args;	/* Args({...}) read back with rg_gb_range() */
	size_t nargs;
};

/*
 * Hand the --benchmark_* flags to the library. Recognised flags are removed
 * from argv (*argc shrinks); returns the number of unrecognised arguments
 * left (argv[1..]). Call once, before rg_gb_run_all().
 */
int rg_gb_initialize(int *argc, char **argv);

/* Register fn(st, arg) under name. 0, or -EINVAL on bad options. */
int rg_gb_register(const char *name, rg_gb_fn fn, void *arg, const struct rg_gb_options *o);

/* Registered benchmarks, for tests. */
size_t rg_gb_registered(void);

/* Forget every registered benchmark. */
void rg_gb_clear(void);

/* --- inside a benchmark function -------------------------------------- */
bool rg_gb_keep_running_batch(struct rg_gb_state *st, uint64_t n);
int64_t rg_gb_range(const struct rg_gb_state *st, size_t i);
int rg_gb_thread_index(const struct rg_gb_state *st);
int rg_gb_threads(const struct rg_gb_state *st);
uint64_t rg_gb_iterations(const struct rg_gb_state *st);
/* Iterations each thread runs in this run (the library's max_iterations). */
uint64_t rg_gb_max_iterations(const struct rg_gb_state *st);
/* A user counter: values of all threads are summed; reported per run. */
void rg_gb_set_counter(struct rg_gb_state *st, const char *name, double v);
/* Mark the run failed; the function must return without more batches. */
void rg_gb_skip_with_error(struct rg_gb_state *st, const char *msg);
bool rg_gb_error_occurred(const struct rg_gb_state *st);
void rg_gb_pause_timing(struct rg_gb_state *st);
void rg_gb_resume_timing(struct rg_gb_state *st);

/* --- results ------------------------------------------------------------ */
struct rg_gb_counter {
	const char *name;
	double value;
};

/* One measured run (one repetition) as the library reports it. */
struct rg_gb_run {
	const char *name;		/* the name given to rg_gb_register() */
	const char *full_name;		/* with the library's suffixes (threads:N ...) */
	int64_t repetition_index;	/* 0.. */
	int64_t repetitions;
	int64_t threads;
	int64_t iterations;		/* all threads together */
	double real_time_s;		/* wall time (the threads' average) */
	double cpu_time_s;
	bool error;
	const char *error_message;
	const struct rg_gb_counter *counters;	/* summed over threads */
	size_t ncounters;
};

/*
 * Called for every repetition of every benchmark (aggregate rows are not
 * passed: compute statistics from the repetitions), in run order.
 * last_of_benchmark is true for the final repetition of a benchmark.
 */
typedef void (*rg_gb_report_fn)(const struct rg_gb_run *run, bool last_of_benchmark, void *ctx);

/*
 * Run every registered benchmark (honouring --benchmark_filter). The
 * library's own display (console/json/csv) is printed only when
 * --benchmark_format was given; --benchmark_out's report is kept for
 * rg_gb_out_report().
 * Returns the number of benchmarks run.
 */
size_t rg_gb_run_all(rg_gb_report_fn on_run, void *ctx);

/*
 * How many registered benchmarks --benchmark_filter selects, running none
 * (with --benchmark_list_tests, how many are registered: the filter is the
 * listing's business).
 */
size_t rg_gb_count_selected(void);

/*
 * What stopped the library, or NULL: an exception that rg_gb_run_all(),
 * rg_gb_count_selected() or rg_gb_register() caught (a benchmark thread
 * the system refused to create: std::system_error under ulimit -u or -v;
 * out of memory), as one line without the program name. The call then
 * returned 0 (-ENOMEM for rg_gb_register()); the caller reports it and
 * stops. An exception where the library cannot unwind (a thread created
 * before another was refused: its std::thread ends the process) prints
 * "rgbench: Google Benchmark stopped: <what>; nothing written" and exits 1
 * (atexit handlers run: the output locks go).
 */
const char *rg_gb_failure(void);

/*
 * rg_gb_run_all() may be called many times (e.g. one round of registrations
 * at a time): the library's display and the --benchmark_out file get the
 * context once and every run of every call; rg_gb_finish() ends them (the
 * closing of the JSON file). Call it once after the last rg_gb_run_all().
 */
void rg_gb_finish(void);

/*
 * --benchmark_out's report after rg_gb_finish(): the text (*len bytes) and
 * the path it is for (*path), or NULL when the flag was not given. The
 * binding writes no file itself: the caller publishes the text with its
 * results through the output policy, or not at all.
 */
const char *rg_gb_out_report(const char **path, size_t *len);

/* True when --benchmark_format made the library print its own report to stdout. */
bool rg_gb_library_display(void);

/* Look up a counter of a run by name; NAN-free: returns def when absent. */
double rg_gb_run_counter(const struct rg_gb_run *run, const char *name, double def);

#ifdef __cplusplus
}
#endif
#endif /* RG_GBENCH_H */
