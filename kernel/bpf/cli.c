// SPDX-License-Identifier: MIT
/* rgbench bpf's command line: options, usage, --list, rg_bpf_main() and the default run's entry rg_bpf_run_default(). */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/bpf.h"
#include "rg/cmdline.h"
#include "rg/schema.h"
#include "bpf_internal.h"

#define DEFAULT_PASSES RG_BPF_DEFAULT_PASSES

/* Kernel-bench defaults: 1 s warm-up, 5 samples of 1 s, one producer. */
static void opts_default(struct opts *o)
{
	memset(o, 0, sizeof(*o));
	o->modes = M(MODE_SYSCALL) | M(MODE_DRIVER);
	for (int k = 0; k < NR_KINDS; k++)
		o->want[k] = true;
	o->threads[0] = 1;
	o->nthreads = 1;
	o->duration = 1;
	o->warmup = 1;
	o->reps = 5;
	o->passes = 0;		/* not given: DEFAULT_PASSES, at most reps */
	o->batch = 0;
	o->count = COUNT_PERCPU;
}

/* --passes, or DEFAULT_PASSES at most --repetitions; one with --triggers. */
static void opts_passes(struct opts *o)
{
	if (o->triggers)
		o->passes = 1;
	else if (!o->passes)
		o->passes = o->reps < DEFAULT_PASSES ? o->reps : DEFAULT_PASSES;
}

/* rgbench bpf's own stop flag; the default run points trig_stop at the rgbench command's. */
static volatile sig_atomic_t g_local_stop;
volatile sig_atomic_t *trig_stop = &g_local_stop;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rgbench bpf [--list] [--mode syscall,driver,recurse|all] [--recurse]\n"
		"                   [--attach fentry,raw_tp,...|all] [--threads N,...] [--cpus LIST]\n"
		"                   [--allow-shared-cpus] [--duration T] [--repetitions N] [--passes P]\n"
		"                   [--warmup T] [--batch N] [--count percpu|atomic|percpu-atomic]\n"
		"                   [--triggers N]\n"
		"                   [--all-tasks] [--out F.csv] [--json F.json] [-q|-qq] [-v]\n"
		"  --mode         trigger modes to run (default syscall,driver); recurse: the program\n"
		"                 re-triggers its own hook once per hit (driver-triggered)\n"
		"  --recurse      same as --mode recurse\n"
		"  --attach       attach types and baselines to run (default all; see --list)\n"
		"  --threads N,.. producers, one set of rows per count (default 1); each pinned to\n"
		"                 its own CPU in topology order (-p, --producers: the same)\n"
		"  --cpus LIST    CPUs for the producers, in this order, e.g. 0,2 or 0-3\n"
		"  --allow-shared-cpus  allow more producers than CPUs (they then share CPUs)\n"
		"  --duration T   time per sample: seconds, or with a unit (1.5s, 200ms; default 1)\n"
		"  --repetitions N  samples per row (default 5); a row and its baseline alternate\n"
		"                 windows A B, B A, ..., N of each\n"
		"  --passes P     measure every row in P passes over all rows, each row's samples\n"
		"                 split between them (1..%d; default %d, at most N): one value\n"
		"                 per pass, compared on producer CPU time\n"
		"  --warmup T     time before a row's first sample in each pass, like --duration\n"
		"                 (default 1)\n"
		"  --batch N      driver loop trips per bpf_prog_test_run (1..%d; default: the\n"
		"                 largest of 1000 and the batch where the syscall's share of an\n"
		"                 event falls under 5%%, measured at start)\n"
		"  --count        hit counters: percpu (a plain increment of a padded per-CPU slot,\n"
		"                 default), atomic (one shared atomic: the kernel's bench in 6.1)\n"
		"                 or percpu-atomic (an atomic add on the per-CPU slot: the kernel's\n"
		"                 bench today); rows of the last two say count=NAME in scenario\n"
		"  --triggers N   fixed-count mode: each producer triggers exactly N events (a multiple\n"
		"                 of --batch, default batch 1000, in driver modes); hits and misses\n"
		"  --all-tasks    syscall mode: count hooks fired by any process (like the kernel's\n"
		"                 bench; default: only this process's producers, one helper call more)\n"
		"  --out/--json   write the rows (suite=bpf) in the shared schema, atomically;\n"
		"                 - writes that one to stdout, nothing else there\n"
		"  -q, --quiet    no progress or row lines on stderr (errors still go there, and\n"
		"                 the line naming each file written)\n"
		"  -qq, --silent  not that line either\n"
		"  -v, --verbose  libbpf's messages too\n"
		"  -V, --version  the release and commit of this build (-h, --help: this text)\n"
		"Times the guard a BPF program pays on each call: the trigger bench's programs,\n"
		"attached to a hook the producers fire (syscall) or run by bpf_prog_test_run\n"
		"(driver), against the same program without the guard (baselines), as the\n"
		"kernel's selftests/bpf bench does. Needs root (CAP_BPF, CAP_PERFMON).\n"
		"Exit status: 0 done (refused types are 'skipped' rows), 1 I/O error, 2 bad option,\n"
		"77 not enough privilege, 128+signal interrupted (nothing written).\n"
		"Examples:\n"
		"  rgbench bpf --list\n"
		"  rgbench bpf --attach fentry,raw_tp --threads 1,2 --out bpf.csv\n",
		MAX_PASSES, DEFAULT_PASSES, RG_TRIG_MAX_BATCH);
}

static void list(void)
{
	printf("%-13s %-22s %s\n", "name", "modes", "what");
	for (int k = 0; k < NR_KINDS; k++) {
		char ms[32] = "";

		for (int m = 0; m < NR_MODES; m++)
			if (trig_kinds[k].modes & M(m))
				snprintf(ms + strlen(ms), sizeof(ms) - strlen(ms), "%s%s",
					 ms[0] ? "," : "", trig_mode_names[m]);
		printf("%-13s %-22s %s%s\n", trig_kinds[k].name, ms, is_baseline((enum rg_kind)k) ?
		       "baseline: " : "", trig_kinds[k].help);
	}
}

/* --mode or --attach: names from the table, "all", comma separated. 0 or -1 (message printed). */
static int parse_names(const char *flag, const char *arg, struct opts *o, bool modes)
{
	const char *names[NR_KINDS];
	bool sel[NR_KINDS];

	if (modes) {
		if (rg_cl_names(flag, arg, trig_mode_names, NR_MODES, sel) < 0)
			return -1;
		o->modes = 0;
		for (int m = 0; m < NR_MODES; m++)
			o->modes |= sel[m] ? M(m) : 0;
		return 0;
	}
	for (int k = 0; k < NR_KINDS; k++)
		names[k] = trig_kinds[k].name;
	if (rg_cl_names(flag, arg, names, NR_KINDS, sel) < 0)
		return -1;
	memcpy(o->want, sel, sizeof(o->want));
	o->explicit_kinds = true;
	return 0;
}

enum { O_LIST = RG_CL_O__FIRST_FREE, O_MODE, O_RECURSE, O_ATTACH, O_SHARED, O_COUNT, O_TRIGGERS,
       O_ALL_TASKS, O_VERBOSE, O_PASSES };

/* The common words (rg/cmdline.h), the bench's own, and the old spellings as aliases. */
static const struct option long_opts[] = {
	RG_CL_OPTS_MEASURE,
	RG_CL_OPT_WARMUP(RG_CL_O_WARMUP),
	RG_CL_OPT_HELP(RG_CL_O_HELP),
	{ "producers", required_argument, NULL, RG_CL_O_THREADS },
	{ "list", no_argument, NULL, O_LIST },
	{ "mode", required_argument, NULL, O_MODE },
	{ "recurse", no_argument, NULL, O_RECURSE },
	{ "attach", required_argument, NULL, O_ATTACH },
	{ "allow-shared-cpus", no_argument, NULL, O_SHARED },
	{ "count", required_argument, NULL, O_COUNT },
	{ "triggers", required_argument, NULL, O_TRIGGERS },
	{ "passes", required_argument, NULL, O_PASSES },
	{ "all-tasks", no_argument, NULL, O_ALL_TASKS },
	{ "verbose", no_argument, NULL, O_VERBOSE },
	{ 0 }
};

/* The short spellings kept from before: -p N (--threads), -d S, -w S, -v, -h; and -q (-qq). */
static int short_to_long(int c)
{
	switch (c) {
	case 'p': return RG_CL_O_THREADS;
	case 'd': return RG_CL_O_DURATION;
	case 'w': return RG_CL_O_WARMUP;
	case 'v': return O_VERBOSE;
	case 'q': return RG_CL_O_QUIET;
	case 'h': return RG_CL_O_HELP;
	default: return c;
	}
}

/* One option with its value (arg). 0, or -1 after the one-line message. */
static int parse_one(int c, const char *arg, struct opts *o, bool *do_list, bool *do_help)
{
	int n;

	switch (c) {
	case O_LIST: *do_list = true; return 0;
	case RG_CL_O_HELP: *do_help = true; return 0;
	case O_MODE: return parse_names("--mode", arg, o, true);
	case O_RECURSE: o->modes = M(MODE_RECURSE); return 0;
	case O_ATTACH: return parse_names("--attach", arg, o, false);
	case RG_CL_O_THREADS:
		n = rg_cl_int_list("--threads", arg, o->threads, MAX_TCOUNTS, 1, RG_MAX_CPUS, 0);
		if (n < 0)
			return -1;
		o->nthreads = n;
		return 0;
	case RG_CL_O_CPUS:
		n = rg_cl_cpu_list("--cpus", arg, o->cpus, RG_MAX_CPUS);
		if (n < 0)
			return -1;
		o->ncpus = n;
		return 0;
	case O_SHARED: o->allow_shared = true; return 0;
	case RG_CL_O_DURATION: return rg_cl_duration("--duration", arg, 0.01, 3600, &o->duration);
	case RG_CL_O_REPETITIONS: return rg_cl_int("--repetitions", arg, 1, 1000, &o->reps);
	case RG_CL_O_WARMUP: return rg_cl_duration("--warmup", arg, 0, 3600, &o->warmup);
	case RG_CL_O_BATCH: return rg_cl_int("--batch", arg, 1, RG_TRIG_MAX_BATCH, &o->batch);
	case O_COUNT:
		for (int i = 0; i < NR_COUNTS; i++)
			if (!strcmp(arg, trig_count_names[i])) {
				o->count = (enum count_method)i;
				return 0;
			}
		rg_cl_error("--count: expected percpu, atomic or percpu-atomic (got '%s')", arg);
		return -1;
	case O_PASSES: return rg_cl_int("--passes", arg, 1, MAX_PASSES, &o->passes);
	case O_TRIGGERS: return rg_cl_u64("--triggers", arg, 1, 1000000000000ull, &o->triggers);
	case RG_CL_O_OUT: return rg_cl_file("--out", arg, &o->csv);
	case RG_CL_O_JSON: return rg_cl_file("--json", arg, &o->json);
	case O_ALL_TASKS: o->all_tasks = true; return 0;
	case O_VERBOSE: o->verbose = true; return 0;
	case RG_CL_O_QUIET: o->quiet++; return 0;
	case RG_CL_O_SILENT: o->quiet = 2; return 0;
	default: return -1;
	}
}

/* Every option: 0, or RG_EXIT_USAGE after one line on stderr. */
static int parse_args(int argc, char **argv, struct opts *o, bool *do_list, bool *do_help)
{
	char not_for_list[64] = "";	/* the first option --list does not use */
	int c, li = -1;

	rg_cl_getopt_reset();
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:d:w:vqh", long_opts, &li)) != -1) {
		if (c == '?' || c == ':')
			return rg_cl_option_error(c, argv);
		if (parse_one(short_to_long(c), optarg, o, do_list, do_help))
			return RG_EXIT_USAGE;
		if (*do_help)
			return 0;	/* as before: --help answers at once, whatever follows */
		if (!*not_for_list && short_to_long(c) != O_LIST) {
			if (li >= 0)
				snprintf(not_for_list, sizeof(not_for_list), "--%s", long_opts[li].name);
			else
				snprintf(not_for_list, sizeof(not_for_list), "-%c", c);
		}
		li = -1;
	}
	if (optind < argc)
		return rg_cl_usage_error("unexpected argument '%s'", argv[optind]);
	if (*do_list && *not_for_list)
		return rg_cl_usage_error("%s: --list prints the modes and attach types and runs nothing",
					 not_for_list);
	if (o->triggers && o->passes > 1)
		return rg_cl_usage_error("--passes: --triggers counts once per row, in one pass");
	if (o->passes > o->reps)
		return rg_cl_usage_error("--passes %d: more than --repetitions %d (a pass takes at least "
					 "one sample of each row)", o->passes, o->reps);
	opts_passes(o);
	if (o->triggers && !o->batch)
		o->batch = CAL_BATCH;	/* nothing is timed: no measurement to size it by */
	if (o->triggers && (o->modes & (M(MODE_DRIVER) | M(MODE_RECURSE))) &&
	    o->triggers % (uint64_t)o->batch)
		return rg_cl_usage_error("--triggers must be a multiple of --batch (%d) in driver modes",
					 o->batch);
	return 0;	/* the output paths: rg_output_check() in rg_bpf_main() */
}

/* Producers vs CPUs: one per CPU unless --allow-shared-cpus. 0 or RG_EXIT_USAGE. */
static int check_threads(const struct opts *o, const struct rg_place *pin)
{
	for (int i = 0; i < o->nthreads; i++)
		if (o->threads[i] > pin->ncpus && !o->allow_shared)
			return rg_cl_error("--threads %d: only %d CPU(s) to pin producers to, one each "
					   "(--allow-shared-cpus to share them)", o->threads[i],
					   pin->ncpus), RG_EXIT_USAGE;
	return 0;
}

/*
 * Everything checked before a program is loaded: options, output paths,
 * placement, producers per CPU, privilege. RG_EXIT_OK to run; -1 when done
 * (--help, --list); else the exit status after one line on stderr.
 */
static int prepare(int argc, char **argv, struct opts *o, struct ctx *c)
{
	bool do_list = false, do_help = false;
	char msg[4352];
	int rc;

	opts_default(o);
	rc = parse_args(argc, argv, o, &do_list, &do_help);
	if (rc)
		return rc;
	if (do_help || do_list) {
		if (do_help)
			usage(stdout);
		else
			list();
		return -1;
	}
	rc = rg_output_check(o->csv, o->json, msg, sizeof(msg));
	if (!rc)	/* a CSV named .json or a JSON named .csv, after the path's own refusals */
		rc = rg_output_check_formats(o->csv, o->json, msg, sizeof(msg));
	if (rc) {
		rg_cl_error("%s", msg);
		return rc;	/* 2: unusable path; 1: another run is writing it */
	}
	memset(c, 0, sizeof(*c));
	if (rg_place_init(&c->pin, o->cpus, o->ncpus, msg, sizeof(msg))) {
		rg_cl_error("--cpus: %s", msg);	/* the message already says where to look */
		return RG_EXIT_USAGE;
	}
	rc = check_threads(o, &c->pin);
	if (rc)
		return rc;
	if (!trig_has_caps()) {
		fprintf(stderr, "%s\n", trig_priv_msg);
		return RG_EXIT_SKIP;
	}
	return RG_EXIT_OK;
}

int rg_bpf_main(int argc, char **argv)
{
	struct rg_resultset rs;
	struct rg_env env;
	struct ctx c;
	struct opts o;
	char msg[4352];
	int err, rc;

	/*
	 * The user suite's discipline, from the start: a signal stops the run
	 * between samples, nothing is written then, and writes are never cut.
	 */
	rg_cl_set_prog("rgbench bpf");
	trig_stop = &g_local_stop;
	rg_cl_catch_stop_signals(&g_local_stop);

	rc = prepare(argc, argv, &o, &c);
	if (rc)
		return rc < 0 ? RG_EXIT_OK : rc;
	rg_env_collect(&env);
	rg_results_init(&rs, &env);
	c.o = &o;
	c.rs = &rs;
	c.out = o.quiet ? NULL : stderr;	/* stdout is the data's (--out -) */
	err = trig_run_all(&c);
	if (trig_stopped()) {
		rg_cl_error("interrupted by %s; programs detached, no results written",
			    rg_cl_signal_name(*trig_stop));
		rg_results_free(&rs);
		return rg_cl_signal_status();
	}
	rc = err ? rg_cl_error("%s", strerror(-err)) : RG_EXIT_OK;
	/* Both files are complete and fsync'ed before either is renamed into place. */
	if (!rc && (o.csv || o.json) && rg_results_write(&rs, o.csv, o.json, msg, sizeof(msg)))
		rc = rg_cl_error("%s", msg);
	else if (!rc && o.quiet < 2)
		rg_output_say_wrote(stderr, "rgbench bpf", rs.n, o.csv, o.json);
	if (!rc && rg_results_nerror(&rs))
		rc = rg_cl_error("%zu benchmark(s) failed (status=error in the output)",
				 rg_results_nerror(&rs));
	rg_results_free(&rs);
	return rc;
}

int rg_bpf_run_default(struct rg_resultset *rs, int quick, volatile sig_atomic_t *stop,
		       FILE *progress)
{
	struct ctx c;
	struct opts o;
	char err_s[256];
	int err;

	if (!trig_has_caps()) {
		rg_results_skip(rs, SUITE, "all", "all", "%s", trig_priv_msg + strlen("rgbench bpf: "));
		fprintf(stderr, "%s: skipped the bpf rows\n", trig_priv_msg);
		return 2;
	}
	opts_default(&o);
	o.modes = M(MODE_SYSCALL) | M(MODE_DRIVER) | M(MODE_RECURSE);
	if (quick) {
		/*
		 * Within the default run's minute: 5 samples of 0.1 s in 3
		 * passes (DEFAULT_PASSES: 2, 2 and 1 samples); the row's
		 * interval is over the 3 passes' values (75%).
		 */
		o.duration = 0.1;
		o.warmup = 0.1;
		o.reps = 5;
	}
	opts_passes(&o);
	memset(&c, 0, sizeof(c));
	if (rg_place_init(&c.pin, NULL, 0, err_s, sizeof(err_s)))
		return 1;
	c.o = &o;
	c.rs = rs;
	c.out = progress;
	trig_stop = stop ? stop : &g_local_stop;
	err = trig_run_all(&c);
	trig_stop = &g_local_stop;
	/* Interrupted: the caller sees its stop flag and writes nothing. */
	return err && err != -EINTR ? 1 : 0;
}
