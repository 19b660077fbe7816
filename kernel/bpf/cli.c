// SPDX-License-Identifier: MIT
/* rgbench bpf's command line: options, usage, --list, rg_bpf_main() and the default run's entry rg_bpf_run_default(). */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/bpf.h"
#include "rg/results.h"
#include "bpf_internal.h"

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
	o->batch = 0;
	o->count = COUNT_PERCPU;
}

/* rgbench bpf's own stop flag; the default run points trig_stop at the rgbench command's. */
static volatile sig_atomic_t g_local_stop;
volatile sig_atomic_t *trig_stop = &g_local_stop;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rgbench bpf [--list] [--mode syscall,driver,recurse|all] [--recurse]\n"
		"                   [--attach fentry,raw_tp,...|all] [--threads N,...] [--cpus LIST]\n"
		"                   [--allow-shared-cpus] [--duration S] [--repetitions N] [--warmup S]\n"
		"                   [--batch N] [--count percpu|atomic] [--triggers N]\n"
		"                   [--all-tasks] [--out F.csv] [--json F.json] [-v]\n"
		"  --mode         trigger modes to run (default syscall,driver); recurse: the program\n"
		"                 re-triggers its own hook once per hit (driver-triggered)\n"
		"  --recurse      same as --mode recurse\n"
		"  --attach       attach types and baselines to run (default all; see --list)\n"
		"  --threads N,.. producers, one set of rows per count (default 1); each pinned to\n"
		"                 its own CPU in topology order (-p, --producers: the same)\n"
		"  --cpus LIST    CPUs for the producers, in this order, e.g. 0,2 or 0-3\n"
		"  --allow-shared-cpus  allow more producers than CPUs (they then share CPUs)\n"
		"  --duration S   seconds per sample (default 1)\n"
		"  --repetitions N  samples per row (default 5); a row and its baseline alternate\n"
		"                 windows A B A B ..., N of each\n"
		"  --warmup S     seconds before the first sample (default 1)\n"
		"  --batch N      driver loop trips per bpf_prog_test_run (1..%d; default: the\n"
		"                 largest of 1000 and the batch where the syscall's share of an\n"
		"                 event falls under 5%%, measured at start)\n"
		"  --count        hit counters: percpu (padded per-CPU slots, default) or atomic\n"
		"                 (one shared atomic, like the kernel's bench)\n"
		"  --triggers N   fixed-count mode: each producer triggers exactly N events (a multiple\n"
		"                 of --batch, default batch 1000, in driver modes); hits and misses\n"
		"  --all-tasks    syscall mode: count hooks fired by any process (like the kernel's\n"
		"                 bench; default: only this process's producers, one helper call more)\n"
		"  --out/--json   write the rows (suite=bpf) in the shared schema, atomically\n"
		"Exit status: 0 done (refused types are 'skipped' rows), 1 I/O error, 2 bad option,\n"
		"77 not enough privilege, 128+signal interrupted (nothing written).\n",
		RG_TRIG_MAX_BATCH);
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

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
	va_list ap;

	fputs("rgbench bpf: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

static int parse_num(const char *s, double lo, double hi, double *out, const char *what)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v <= hi))
		return bad("%s must be a number in [%g, %g], not '%s'", what, lo, hi, s);
	*out = v;
	return 0;
}

/* A comma list must have no empty element ("", "a,", ",a", "a,,b"). */
static int check_list(const char *flag, const char *s)
{
	if (!*s || s[0] == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,"))
		return bad("%s '%s': empty list or list element", flag, s);
	return 0;
}

/* Integers in [lo, hi], comma separated; a-b ranges when ranges. */
static int parse_ints(const char *flag, const char *s, int *out, int max, long lo, long hi,
		      bool ranges)
{
	char *dup, *save = NULL, *tok;
	int n = 0, rc = 0;

	if (check_list(flag, s))
		return -1;
	dup = strdup(s);
	if (!dup)
		return bad("out of memory");
	for (tok = strtok_r(dup, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		char *dash = ranges ? strchr(tok + 1, '-') : NULL, *end;
		long a, b;

		if (dash)
			*dash = '\0';
		errno = 0;
		a = strtol(tok, &end, 10);
		if (errno || end == tok || *end || a < lo || a > hi) {
			rc = bad("%s '%s': '%s' is not an integer in [%ld, %ld]", flag, s, tok, lo, hi);
			break;
		}
		b = a;
		if (dash) {
			b = strtol(dash + 1, &end, 10);
			if (errno || end == dash + 1 || *end || b < a || b > hi) {
				rc = bad("%s '%s': bad range", flag, s);
				break;
			}
		}
		for (long v = a; v <= b && !rc; v++) {
			for (int i = 0; i < n; i++)
				if (out[i] == v)
					rc = bad("%s '%s': %ld is listed twice", flag, s, v);
			if (!rc && n >= max)
				rc = bad("%s '%s': more than %d entries", flag, s, max);
			if (!rc)
				out[n++] = (int)v;
		}
	}
	free(dup);
	return rc ? -1 : n;
}

static int parse_list(const char *flag, const char *arg, struct opts *o, bool modes)
{
	char *dup, *save = NULL, *tok;
	int rc = 0;

	if (check_list(flag, arg))
		return -1;
	dup = strdup(arg);
	if (!dup)
		return bad("out of memory");
	if (modes)
		o->modes = 0;
	else
		memset(o->want, 0, sizeof(o->want));
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		bool found = false;

		if (!strcmp(tok, "all")) {
			if (modes)
				o->modes = M(MODE_SYSCALL) | M(MODE_DRIVER) | M(MODE_RECURSE);
			else
				for (int k = 0; k < NR_KINDS; k++)
					o->want[k] = true;
			continue;
		}
		if (modes) {
			for (int m = 0; m < NR_MODES; m++)
				if (!strcmp(tok, trig_mode_names[m])) {
					o->modes |= M(m);
					found = true;
				}
		} else {
			for (int k = 0; k < NR_KINDS; k++)
				if (!strcmp(tok, trig_kinds[k].name)) {
					o->want[k] = true;
					found = true;
				}
		}
		if (!found) {
			rc = bad("unknown %s '%s' (see rgbench bpf --list)",
				 modes ? "mode" : "attach type", tok);
			break;
		}
	}
	free(dup);
	return rc;
}

static int parse_args(int argc, char **argv, struct opts *o, bool *do_list)
{
	enum { O_CPUS = 256, O_SHARED, O_REPS };
	static const struct option lo[] = {
		{ "list", no_argument, NULL, 'l' },
		{ "mode", required_argument, NULL, 'm' },
		{ "recurse", no_argument, NULL, 'r' },
		{ "attach", required_argument, NULL, 'a' },
		{ "threads", required_argument, NULL, 'p' },
		{ "producers", required_argument, NULL, 'p' },
		{ "cpus", required_argument, NULL, O_CPUS },
		{ "allow-shared-cpus", no_argument, NULL, O_SHARED },
		{ "duration", required_argument, NULL, 'd' },
		{ "repetitions", required_argument, NULL, O_REPS },
		{ "warmup", required_argument, NULL, 'w' },
		{ "batch", required_argument, NULL, 'b' },
		{ "count", required_argument, NULL, 'c' },
		{ "triggers", required_argument, NULL, 't' },
		{ "out", required_argument, NULL, 'o' },
		{ "json", required_argument, NULL, 'j' },
		{ "all-tasks", no_argument, NULL, 'A' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	double v = 0;
	int c, n;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:d:w:vh", lo, NULL)) != -1) {
		switch (c) {
		case 'l': *do_list = true; break;
		case 'm': if (parse_list("--mode", optarg, o, true)) return -1; break;
		case 'r': o->modes = M(MODE_RECURSE); break;
		case 'a':
			if (parse_list("--attach", optarg, o, false))
				return -1;
			o->explicit_kinds = true;
			break;
		case 'p':
			n = parse_ints("--threads", optarg, o->threads, MAX_TCOUNTS, 1,
				       RG_MAX_CPUS, false);
			if (n < 0)
				return -1;
			o->nthreads = n;
			break;
		case O_CPUS:
			n = parse_ints("--cpus", optarg, o->cpus, RG_MAX_CPUS, 0,
				       RG_MAX_CPUS - 1, true);
			if (n < 0)
				return -1;
			o->ncpus = n;
			break;
		case O_SHARED: o->allow_shared = true; break;
		case 'd': if (parse_num(optarg, 0.01, 3600, &o->duration, "--duration")) return -1; break;
		case O_REPS:
			if (parse_num(optarg, 1, 1000, &v, "--repetitions"))
				return -1;
			if (v != (int)v)
				return bad("--repetitions must be an integer, not '%s'", optarg);
			o->reps = (int)v;
			break;
		case 'w': if (parse_num(optarg, 0, 3600, &o->warmup, "--warmup")) return -1; break;
		case 'b':
			if (parse_num(optarg, 1, RG_TRIG_MAX_BATCH, &v, "--batch"))
				return -1;
			if (v != (int)v)
				return bad("--batch must be an integer, not '%s'", optarg);
			o->batch = (int)v;
			break;
		case 'c':
			if (!strcmp(optarg, "percpu"))
				o->count = COUNT_PERCPU;
			else if (!strcmp(optarg, "atomic"))
				o->count = COUNT_ATOMIC;
			else
				return bad("--count must be percpu or atomic, not '%s'", optarg);
			break;
		case 't':
			if (parse_num(optarg, 1, 1e12, &v, "--triggers"))
				return -1;
			if (v != (double)(uint64_t)v)
				return bad("--triggers must be an integer, not '%s'", optarg);
			o->triggers = (uint64_t)v;
			break;
		case 'o': o->csv = optarg; break;
		case 'j': o->json = optarg; break;
		case 'A': o->all_tasks = true; break;
		case 'v': o->verbose = true; break;
		case 'h': usage(stdout); exit(0);
		case ':':
			return bad("option '%s' needs a value", argv[optind - 1]);
		default:
			return bad("unknown option '%s' (see rgbench bpf --help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return bad("unexpected argument '%s'", argv[optind]);
	if (o->triggers && !o->batch)
		o->batch = CAL_BATCH;	/* nothing is timed: no measurement to size it by */
	if (o->triggers && (o->modes & (M(MODE_DRIVER) | M(MODE_RECURSE))) &&
	    o->triggers % (uint64_t)o->batch)
		return bad("--triggers must be a multiple of --batch (%d) in driver modes", o->batch);
	return 0;	/* the output paths: rg_output_check() in rg_bpf_main() */
}

/* Producers vs CPUs: one per CPU unless --allow-shared-cpus. */
static int check_threads(const struct opts *o, const struct rg_place *pin)
{
	for (int i = 0; i < o->nthreads; i++)
		if (o->threads[i] > pin->ncpus && !o->allow_shared)
			return bad("--threads %d: only %d CPU(s) to pin producers to, one each "
				   "(--allow-shared-cpus to share them)", o->threads[i], pin->ncpus);
	return 0;
}

static void on_signal(int sig)
{
	g_local_stop = sig;
}

int rg_bpf_main(int argc, char **argv)
{
	struct rg_resultset rs;
	struct rg_env env;
	struct sigaction sa;
	struct ctx c;
	struct opts o;
	char err_s[256];
	bool do_list = false;
	int err, rc = 0;
	char msg[4352];

	/*
	 * The user suite's discipline, from the start: a signal stops the run
	 * between samples, nothing is written then, and writes are never cut.
	 */
	g_local_stop = 0;
	trig_stop = &g_local_stop;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	opts_default(&o);
	if (parse_args(argc, argv, &o, &do_list))
		return 2;
	if (do_list) {
		list();
		return 0;
	}
	if ((rc = rg_output_check(o.csv, o.json, msg, sizeof(msg)))) {
		fprintf(stderr, "rgbench bpf: %s\n", msg);
		return rc;	/* 2: unusable path; 1: another run is writing it */
	}
	memset(&c, 0, sizeof(c));
	if (rg_place_init(&c.pin, o.cpus, o.ncpus, err_s, sizeof(err_s))) {
		bad("--cpus: %s", err_s);
		return 2;
	}
	if (check_threads(&o, &c.pin))
		return 2;
	if (!trig_has_caps()) {
		fprintf(stderr, "%s\n", trig_priv_msg);
		return 77;
	}
	rg_env_collect(&env);
	rg_results_init(&rs, &env);
	c.o = &o;
	c.rs = &rs;
	c.out = stdout;
	err = trig_run_all(&c);
	if (trig_stopped()) {
		fprintf(stderr, "rgbench bpf: interrupted by %s; programs detached, no results written\n",
			*trig_stop == SIGINT ? "SIGINT" : "SIGTERM");
		rg_results_free(&rs);
		return 128 + *trig_stop;
	}
	if (err) {
		fprintf(stderr, "rgbench bpf: %s\n", strerror(-err));
		rc = 1;
	}
	/* Both files are complete and fsync'ed before either is renamed into place. */
	if (!rc && (o.csv || o.json) && rg_results_write(&rs, o.csv, o.json, msg, sizeof(msg))) {
		fprintf(stderr, "rgbench bpf: %s\n", msg);
		rc = 1;
	}
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
		/* Within the default run's minute: 3 samples (a spread) of 0.15 s. */
		o.duration = 0.15;
		o.warmup = 0.1;
		o.reps = 3;
	}
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
