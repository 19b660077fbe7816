/* SPDX-License-Identifier: MIT */
/* The steps of `rgbench [options]` (cli.c, profile.c, run.c) and the options they hand on. */
#ifndef RG_BENCH_COMMAND_H
#define RG_BENCH_COMMAND_H

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>

#include "rg/bench.h"
#include "rg/cmdline.h"
#include "rg/env.h"
#include "suite.h"

/* The command line as given; 0 / -1 / "" where an option was not given. */
struct rg_bench_opts {
	int profile;			/* 0 --quick, 1 default, 2 --full */
	bool list, plan, no_bpf;
	int quiet;			/* --quiet/-q: 1, -qq/--silent: 2 (no file line either) */
	bool check;			/* --check-options: parse, then exit */
	bool sel_guards, sel_scen;	/* --guards / --scenarios given */
	bool guard[RG_GUARD__COUNT];	/* all unless --guards */
	bool scenario[RG_SC__COUNT];	/* all unless --scenarios */
	int threads[RG_MAX_THREAD_COUNTS], nthreads;
	int cpus[RG_MAX_CPUS], ncpus;
	int duty[RG_MAX_DUTY], duty_in[RG_MAX_DUTY], nduty;	/* total ns, ns inside */
	long reps;			/* --repetitions, -1 */
	long runs;			/* --runs, -1 */
	int child[3];			/* --run-child=K,IN,OUT (internal): run K of a parent; -1 */
	double min_time;		/* --duration (--min-time) in seconds, -1 */
	long batch;			/* --batch, 4096 */
	char events[512];		/* --events: libpfm4 names, "" for the CPU's list */
	char out_csv[PATH_MAX + 8];	/* --out */
	char out_json[PATH_MAX + 8];	/* --json FILE */
	bool want_json;			/* --json FILE, or --json alone (beside the CSV) */
	/* Google Benchmark's flags, passed on; those that also set rgbench's values. */
	int gb_argc;
	char **gb_argv;
	long gb_reps;			/* --benchmark_repetitions, 0 */
	double gb_min_time;		/* --benchmark_min_time in seconds, 0 */
	const char *gb_filter;		/* --benchmark_filter */
	const char *gb_out;		/* --benchmark_out: an output like --out */
};

/* The default run (no --guards, --scenarios or --no-bpf) also runs the BPF suite. */
static inline bool rg_bench_default_run(const struct rg_bench_opts *o)
{
	return !o->sel_guards && !o->sel_scen && !o->no_bpf;
}

/* A usage error found after the options were read: "rgbench: <message>", exit 2. */
#define rg_bench_die_usage(...) (rg_cl_error(__VA_ARGS__), exit(RG_EXIT_USAGE))

/*
 * cli.c: parse argv into o and hand the --benchmark_* flags to Google
 * Benchmark. -1 to go on, or the exit status (0 after --help). A bad option
 * or value exits 2 with the kit's one line.
 */
int rg_bench_parse(int argc, char **argv, const struct rg_bench_hooks *hooks,
		   struct rg_bench_opts *o);
/* rgbench --list: guards, scenarios, topology, the CPUs cfg would use, counters. */
void rg_bench_list(const struct rg_suite_cfg *cfg, const struct rg_bench_hooks *hooks);

/*
 * profile.c, the plan step (the only place that reads the environment): the
 * test switches and the topology source into cfg, then the machine's
 * topology and the CPUs to use (cfg->cpus). -1 to go on, or the exit status.
 */
int rg_bench_place(const struct rg_bench_opts *o, struct rg_suite_cfg *cfg);
/*
 * The rest of the plan: the profile's rounds, chunk time and duty levels
 * unless overridden, the BPF part, the outputs' names (locked when lock: a
 * run), and the usage errors only the whole plan can show (a
 * --benchmark_filter that matches nothing). -1 to go on, or the exit status.
 */
int rg_bench_profile(const struct rg_bench_opts *o, struct rg_suite_cfg *cfg,
		     const struct rg_bench_hooks *hooks, bool lock);
/* outputs.c: the outputs' names into cfg (checked and locked when lock). 0, or the exit status. */
int rg_bench_outputs(const struct rg_bench_opts *o, struct rg_suite_cfg *cfg, bool lock);

/*
 * run.c: run the plan: the suite (and the BPF rows of the default run),
 * then the CSV and JSON. The exit status.
 */
int rg_bench_run(const struct rg_suite_cfg *cfg);

#endif /* RG_BENCH_COMMAND_H */
