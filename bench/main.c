// SPDX-License-Identifier: MIT
/* rgbench [options]: the userspace suite's command line, profiles, run and result files. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "counters.h"
#include "rg/bench.h"
#include "rg/env.h"
#include "rg/gbench.h"
#include "rg/registry.h"
#include "rg/results.h"
#include "plan.h"
#include "suite.h"
#include "rg/platform.h"

#ifndef RG_VERSION
#define RG_VERSION "unknown"
#endif

static volatile sig_atomic_t g_stop;

static void on_signal(int sig)
{
	g_stop = sig;
}

static void usage(FILE *f, const struct rg_bench_hooks *hooks)
{
	fprintf(f,
"usage: rgbench [options]          run the userspace suite (default profile)\n"
"       rgbench --list             guards, scenarios, CPUs, counters\n"
"       rgbench --plan [options]   what the options would run, where, how long\n"
"                                  (HWLOC_XMLFILE / HWLOC_SYNTHETIC: another machine)\n"
);
	if (hooks && hooks->subcommands)
		hooks->subcommands(f, true);
	fprintf(f, "\n"
"  --quick | --full          shorter / longer profile (default: between)\n"
"  --guards a,b,...          guards to run (noop is always added); default all\n"
"  --scenarios a,b,...       pair,duty,nested,threads,falseshare,latency,xpkg; default all\n"
"  --threads n,m,...         thread counts for the threads scenario\n"
"  --cpus list               CPUs to use, e.g. 0,2 or 0-3 (default: all allowed,\n"
"                            one per core package by package, then SMT siblings)\n"
"  --repetitions n           interleaved rounds (samples) per benchmark\n"
"  --min-time s              seconds per benchmark per round\n"
"  --batch n                 iterations per call of the measured loop (4096)\n"
"  --duty ns,ns,...          work between pairs for the duty scenario\n"
"  --out file.csv            CSV output (default results/<host>-<time>.csv)\n"
"  --json [file.json]        also JSON (default: beside the CSV; always written\n"
"                            for the default output)\n"
"  --no-bpf                  do not run the BPF suite in the default run\n"
"  --quiet                   no progress lines\n"
"  --benchmark_*=...         passed to Google Benchmark (filter, format, out...)\n");
}

static int die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int die_usage(const char *fmt, ...)
{
	va_list ap;

	fputs("rgbench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static long parse_long(const char *flag, const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < lo || v > hi)
		die_usage("%s %s: expected an integer in [%ld, %ld]", flag, s, lo, hi);
	return v;
}

static double parse_double(const char *flag, const char *s, double lo, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || *end || errno || !(v >= lo && v <= hi))
		die_usage("%s %s: expected a number in [%g, %g]", flag, s, lo, hi);
	return v;
}

/* Comma-separated integers, each in [lo, hi]; ranges a-b when allow_range. */
static int parse_int_list(const char *flag, const char *s, int *out, int max, long lo, long hi,
			  bool allow_range)
{
	char *dup = strdup(s), *save = NULL, *tok;
	int n = 0;

	if (!dup)
		die_usage("out of memory");
	if (!*s)
		die_usage("%s: empty list", flag);
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *dash = allow_range ? strchr(tok, '-') : NULL;
		long a, b;

		if (dash && dash != tok) {
			*dash = '\0';
			a = parse_long(flag, tok, lo, hi);
			b = parse_long(flag, dash + 1, lo, hi);
			if (b < a)
				die_usage("%s %s: range %ld-%ld is backwards", flag, s, a, b);
		} else {
			a = b = parse_long(flag, tok, lo, hi);
		}
		for (long v = a; v <= b; v++) {
			for (int i = 0; i < n; i++)
				if (out[i] == v)
					die_usage("%s %s: %ld is listed twice", flag, s, v);
			if (n >= max)
				die_usage("%s %s: more than %d entries", flag, s, max);
			out[n++] = (int)v;
		}
	}
	if (!n || s[strlen(s) - 1] == ',' || s[0] == ',' || strstr(s, ",,"))
		die_usage("%s %s: malformed list", flag, s);
	free(dup);
	return n;
}

static void parse_names(const char *flag, const char *s, bool *sel, int count,
			int (*find)(const char *))
{
	char *dup = strdup(s), *save = NULL, *tok;

	if (!dup)
		die_usage("out of memory");
	if (!*s || s[0] == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,"))
		die_usage("%s %s: malformed list", flag, s);
	memset(sel, 0, (size_t)count * sizeof(*sel));
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int i;

		if (!strcmp(tok, "all")) {
			for (i = 0; i < count; i++)
				sel[i] = true;
			continue;
		}
		i = find(tok);
		if (i < 0)
			die_usage("%s: unknown name '%s' (see rgbench --list)", flag, tok);
		sel[i] = true;
	}
	free(dup);
}

/* The flags Google Benchmark (1.7 and 1.8) knows: a leftover one had a bad value. */
static bool gb_flag_known(const char *a, int n)
{
	static const char *const known[] = {
		"list_tests", "filter", "min_time", "min_warmup_time", "repetitions",
		"enable_random_interleaving", "report_aggregates_only",
		"display_aggregates_only", "format", "out_format", "out", "color",
		"counters_tabular", "perf_counters", "context", "time_unit", "dry_run",
	};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (n == 12 + (int)strlen(known[i]) && !strncmp(a + 12, known[i], (size_t)(n - 12)))
			return true;
	return false;
}

/*
 * Values rgbench passes on must be ones the run can use: the same rules as
 * --repetitions and --min-time (the library would abort on -1 repetitions and
 * run one iteration for a min time of 0), and a filter that compiles.
 */
static void check_gb_flag(const char *a)
{
	const char *v = strchr(a, '=');
	char *end;

	if (!v)
		return;
	v++;
	if (!strncmp(a, "--benchmark_repetitions=", 24)) {
		long n;

		errno = 0;
		n = strtol(v, &end, 10);
		if (!*v || *end || errno || n < 1 || n > 1000)
			die_usage("bad value for Google Benchmark flag '%s': expected an integer in [1, 1000]", a);
	} else if (!strncmp(a, "--benchmark_min_time=", 21)) {
		double t;

		errno = 0;
		t = strtod(v, &end);
		if (end != v && *end == 's' && !end[1])
			end++;	/* 1.8 spells seconds "0.5s" */
		if (!*v || *end || errno || !(t >= 1e-6 && t <= 3600) || strpbrk(v, "xXnN"))
			die_usage("bad value for Google Benchmark flag '%s': expected seconds in [1e-06, 3600]", a);
	} else if (!strncmp(a, "--benchmark_filter=", 19)) {
		regex_t re;

		if (regcomp(&re, v[0] == '-' ? v + 1 : v, REG_EXTENDED | REG_NOSUB))
			die_usage("bad value for Google Benchmark flag '%s': not a regular expression", a);
		regfree(&re);
	}
}

static int guard_index(const char *name)
{
	const struct rg_guard_info *gi = rg_guard_find(name);

	return gi ? (int)gi->id : -1;
}

static void list(const int *cpus, int ncpus, const struct rg_bench_hooks *hooks)
{
	char topo[256];
	const char *why = rg_counters_probe();

	printf("guards (guards/guards.def: name, availability, scope, role, what it is):\n");
	rg_guard_print_list(stdout);
	printf("scenarios:\n");
	for (int i = 0; i < RG_SC__COUNT; i++)
		printf("  %-16s %s\n", rg_scenario_names[i], rg_scenario_docs[i]);
	rg_topo_describe(topo, sizeof(topo));
	printf("topology: %s\ncpus (placement order):", topo);
	for (int i = 0; i < ncpus; i++)
		printf("%s%d", i ? "," : " ", cpus[i]);
	printf("\ncounters: %s\n", why ? why : "perf (cycles, instructions)");
	why = rg_events_probe();
	if (why) {
		printf("events: %s\n", why);
	} else {
		const struct rg_pmu_events *e = rg_events_list();

		printf("events: PMU %s:", e->pmu);
		for (size_t i = 0; i < e->n; i++)
			printf("%s%s", i ? "," : " ", e->ev[i].name);
		printf("%s%s\n", e->why[0] ? "; skipped " : "", e->why);
	}
	if (hooks && hooks->subcommands)
		hooks->subcommands(stdout, false);
}

static void default_base(char *buf, size_t len, const struct rg_env *env)
{
	char host[RG_ENV_STR], ts[32];
	time_t now = time(NULL);
	struct tm tm;
	size_t i;

	snprintf(host, sizeof(host), "%s", env->host[0] ? env->host : "host");
	for (i = 0; host[i]; i++)
		if (!((host[i] >= 'a' && host[i] <= 'z') || (host[i] >= 'A' && host[i] <= 'Z') ||
		      (host[i] >= '0' && host[i] <= '9') || host[i] == '-' || host[i] == '.' ||
		      host[i] == '_'))
			host[i] = '_';
	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y%m%dT%H%M%SZ", &tm);
	snprintf(buf, len, "results/%s-%s", host, ts);
}

static void json_beside(char *buf, size_t len, const char *csv)
{
	size_t n = strnlen(csv, len - 8);

	if (n > 4 && !strcmp(csv + n - 4, ".csv"))
		snprintf(buf, len, "%.*s.json", (int)(n - 4), csv);
	else
		snprintf(buf, len, "%s.json", csv);
}

/*
 * The default output: BASE.csv/.json, or BASE-2, BASE-3, ... when a result of
 * that name exists or another run is writing it (its lock is held), so that
 * runs started in the same second never overwrite each other (a --json path
 * given with no --out is kept as given). The names are locked on return.
 * 0, or the exit code (2 usage, 1 failure) after printing why.
 */
static int default_output(const char *base, char *csv, char *json, size_t len, bool json_given)
{
	char err[PATH_MAX + 256];
	struct stat st;

	for (int k = 1; k <= 1000; k++) {
		char sfx[16] = "";
		int rc;

		if (k > 1)
			snprintf(sfx, sizeof(sfx), "-%d", k);
		snprintf(csv, len, "%s%s.csv", base, sfx);
		if (!json_given)
			snprintf(json, len, "%s%s.json", base, sfx);
		rc = rg_output_check(csv, json, err, sizeof(err));
		/* Busy: another run has this name; a busy --json of the user's is an error. */
		if (rc == 1 && errno == EBUSY &&
		    !(json_given && !strncmp(err, json, strlen(json)) && err[strlen(json)] == ' '))
			continue;
		if (rc) {
			fprintf(stderr, "rgbench: %s\n", err);
			return rc;
		}
		/* Locked: now a finished run of this name cannot appear behind our back. */
		if (lstat(csv, &st) && (json_given || lstat(json, &st)))
			return 0;
		rg_output_release();
	}
	fprintf(stderr, "rgbench: %s: a thousand results of this name already exist\n", base);
	return 1;
}

int rg_bench_main(int argc, char **argv, const struct rg_bench_hooks *hooks)
{
	static struct rg_suite_cfg cfg;
	static int order[RG_MAX_CPUS], user_cpus[RG_MAX_CPUS];
	char err[PATH_MAX + 256], out_csv[PATH_MAX + 8] = "", out_json[PATH_MAX + 8] = "", base[PATH_MAX];
	int norder, nuser_cpus = 0, profile = 1, nthreads_opt = 0, ndone;
	int thread_opt[RG_MAX_THREAD_COUNTS], duty_opt[RG_MAX_DUTY], nduty_opt = 0;
	long reps = -1, batch = 4096;
	double min_time = -1;
	bool do_list = false, do_plan = false, want_json = false, no_bpf = false, quiet = false;
	bool sel_guards = false, sel_scen = false;
	double gb_min_time = 0;
	long gb_reps = 0;
	const char *gb_filter = NULL;
	static char **gb_argv;	/* for the whole run: reachable, not leaked, on every exit */
	int gb_argc = 1;
	struct rg_env env;
	struct rg_resultset rs;
	struct sigaction sa;

	for (int i = 0; i < RG_GUARD__COUNT; i++)
		cfg.guard[i] = true;
	for (int i = 0; i < RG_SC__COUNT; i++)
		cfg.scenario[i] = true;

	gb_argv = calloc((size_t)argc + 1, sizeof(*gb_argv));
	if (!gb_argv)
		die_usage("out of memory");
	gb_argv[0] = argv[0];
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = NULL;
		const char *eq = strchr(a, '=');
		char flag[64], *end;

		if (!strncmp(a, "--benchmark_", 12)) {
			if (!strncmp(a, "--benchmark_format=", 19) && strcmp(a + 19, "console") &&
			    strcmp(a + 19, "json"))
				die_usage("%s: rgbench shows the library's report as console or json only", a);
			check_gb_flag(a);	/* a bad value: one line, exit 2 */
			/* Read here too: they set rgbench's rounds and chunk time. */
			if (!strncmp(a, "--benchmark_min_time=", 21) &&
			    (strtod(a + 21, &end), end != a + 21 && !*end))
				gb_min_time = parse_double("--benchmark_min_time", a + 21, 1e-6, 3600);
			if (!strncmp(a, "--benchmark_repetitions=", 24))
				gb_reps = parse_long("--benchmark_repetitions", a + 24, 1, 1000);
			if (!strncmp(a, "--benchmark_filter=", 19))
				gb_filter = a + 19;
			gb_argv[gb_argc++] = argv[i];
			continue;
		}
		/* --flag=value or --flag value */
		snprintf(flag, sizeof(flag), "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
#define NEEDS_VALUE()								\
		do {								\
			if (eq)							\
				v = eq + 1;					\
			else if (i + 1 < argc && strncmp(argv[i + 1], "--", 2)) \
				v = argv[++i];					\
			else							\
				die_usage("%s needs a value", flag);		\
		} while (0)
		if (!strcmp(flag, "-h") || !strcmp(flag, "--help")) {
			usage(stdout, hooks);
			return 0;
		} else if (!strcmp(flag, "--list") && !eq) {
			do_list = true;
		} else if (!strcmp(flag, "--plan") && !eq) {
			do_plan = true;
		} else if (!strcmp(flag, "--quick") && !eq) {
			profile = 0;
		} else if (!strcmp(flag, "--full") && !eq) {
			profile = 2;
		} else if (!strcmp(flag, "--no-bpf") && !eq) {
			no_bpf = true;
		} else if (!strcmp(flag, "--quiet") && !eq) {
			quiet = true;
		} else if (!strcmp(flag, "--guards")) {
			NEEDS_VALUE();
			parse_names(flag, v, cfg.guard, RG_GUARD__COUNT, guard_index);
			sel_guards = true;
		} else if (!strcmp(flag, "--scenarios")) {
			NEEDS_VALUE();
			parse_names(flag, v, cfg.scenario, RG_SC__COUNT, rg_scenario_find);
			sel_scen = true;
		} else if (!strcmp(flag, "--threads")) {
			NEEDS_VALUE();
			nthreads_opt = parse_int_list(flag, v, thread_opt, RG_MAX_THREAD_COUNTS, 1,
						      RG_MAX_CPUS, false);
		} else if (!strcmp(flag, "--cpus")) {
			NEEDS_VALUE();
			nuser_cpus = parse_int_list(flag, v, user_cpus, RG_MAX_CPUS, 0,
						    RG_MAX_CPUS - 1, true);
		} else if (!strcmp(flag, "--repetitions")) {
			NEEDS_VALUE();
			reps = parse_long(flag, v, 1, 1000);
		} else if (!strcmp(flag, "--min-time")) {
			NEEDS_VALUE();
			min_time = parse_double(flag, v, 1e-6, 3600);
		} else if (!strcmp(flag, "--batch")) {
			NEEDS_VALUE();
			batch = parse_long(flag, v, 1, 1L << 30);
		} else if (!strcmp(flag, "--duty")) {
			NEEDS_VALUE();
			nduty_opt = parse_int_list(flag, v, duty_opt, RG_MAX_DUTY, 0, 100000, false);
		} else if (!strcmp(flag, "--out")) {
			NEEDS_VALUE();
			snprintf(out_csv, sizeof(out_csv), "%s", v);
		} else if (!strcmp(flag, "--json")) {
			want_json = true;
			if (eq)
				v = eq + 1;
			else if (i + 1 < argc && argv[i + 1][0] != '-')
				v = argv[++i];
			if (v) {
				snprintf(out_json, sizeof(out_json), "%s", v);
			}
		} else {
			die_usage("unknown option '%s' (see --help)", a);
		}
#undef NEEDS_VALUE
	}
	if (rg_gb_initialize(&gb_argc, gb_argv) > 0) {
		const char *eq = strchr(gb_argv[1], '=');
		int n = eq ? (int)(eq - gb_argv[1]) : (int)strlen(gb_argv[1]);

		if (gb_flag_known(gb_argv[1], n))
			die_usage("bad value for Google Benchmark flag '%s'%s", gb_argv[1],
				  eq ? "" : " (give it as --benchmark_x=value)");
		die_usage("unknown Google Benchmark flag '%s'", gb_argv[1]);
	}

	if (rg_topo_init(err, sizeof(err))) {
		fprintf(stderr, "rgbench: %s\n", err);
		return do_plan ? 2 : 1;
	}
	if (rg_topo_foreign() && !do_plan && !do_list)
		die_usage("the topology comes from HWLOC_XMLFILE/HWLOC_SYNTHETIC (another machine): only --plan and --list use it");
	norder = rg_topo_order(order, RG_MAX_CPUS);
	if (nuser_cpus) {
		for (int i = 0; i < nuser_cpus; i++)
			if (!rg_topo_allowed(user_cpus[i])) {
				char s[32];

				snprintf(s, sizeof(s), "%d", user_cpus[i]);
				die_usage("--cpus: CPU %s is not available (allowed: %d CPUs, see --list)",
					  s, norder);
			}
		memcpy(cfg.cpus, user_cpus, (size_t)nuser_cpus * sizeof(int));
		cfg.ncpus = nuser_cpus;
	} else {
		memcpy(cfg.cpus, order, (size_t)norder * sizeof(int));
		cfg.ncpus = norder;
	}
	if (do_list) {
		list(cfg.cpus, cfg.ncpus, hooks);
		return 0;
	}

	/* Profiles: quick / default / full. */
	/* Rounds of every benchmark and the chunk time per round (docs/bench.md). */
	static const double prof_min_time[3] = { 0.005, 0.01, 0.05 };
	static const int prof_reps[3] = { 5, 11, 21 };
	static const int prof_duty[3][5] = { { 0, 50 }, { 0, 10, 50, 200 }, { 0, 10, 50, 200, 1000 } };
	static const int prof_nduty[3] = { 2, 4, 5 };

	if (nthreads_opt) {
		for (int i = 0; i < nthreads_opt; i++)
			if (thread_opt[i] > cfg.ncpus)
				die_usage("--threads %d: only %d CPU(s) selected (one thread per CPU)",
					  thread_opt[i], cfg.ncpus);
		memcpy(cfg.thread_counts, thread_opt, (size_t)nthreads_opt * sizeof(int));
		cfg.nthread_counts = nthreads_opt;
	} else {
		/* 1, 2, 4, ... and N (full: every count). */
		for (int t = 1; t <= cfg.ncpus && cfg.nthread_counts < RG_MAX_THREAD_COUNTS;
		     t = profile == 2 ? t + 1 : t * 2)
			cfg.thread_counts[cfg.nthread_counts++] = t;
		if (cfg.thread_counts[cfg.nthread_counts - 1] != cfg.ncpus &&
		    cfg.nthread_counts < RG_MAX_THREAD_COUNTS)
			cfg.thread_counts[cfg.nthread_counts++] = cfg.ncpus;
	}
	if (nduty_opt) {
		memcpy(cfg.duty_ns, duty_opt, (size_t)nduty_opt * sizeof(int));
		cfg.nduty = nduty_opt;
	} else {
		memcpy(cfg.duty_ns, prof_duty[profile], sizeof(prof_duty[profile]));
		cfg.nduty = prof_nduty[profile];
	}
	cfg.repetitions = reps > 0 ? (int)reps : gb_reps ? (int)gb_reps : prof_reps[profile];
	cfg.min_time = min_time > 0 ? min_time : gb_min_time > 0 ? gb_min_time : prof_min_time[profile];
	cfg.batch = (uint64_t)batch;
	cfg.native_noop = true;
	cfg.stop = &g_stop;
	cfg.progress = quiet ? NULL : rg_gb_library_display() ? stderr : stdout;
	if (do_plan) {
		const char *xml = getenv("HWLOC_XMLFILE"), *syn = getenv("HWLOC_SYNTHETIC");
		char src[300];

		snprintf(src, sizeof(src), "%s%.250s", rg_topo_foreign() ? (xml && *xml ? "HWLOC_XMLFILE=" :
			 "HWLOC_SYNTHETIC=") : "this machine", rg_topo_foreign() ? (xml && *xml ? xml : syn) : "");
		rg_plan_print(stdout, &cfg, !sel_guards && !sel_scen && !no_bpf && hooks && hooks->bpf_default, src);
		return 0;
	}

	rg_env_collect(&env);
	/* Everything about the output is settled, and the names locked, before measuring. */
	if (!out_csv[0]) {
		bool made = !mkdir("results", 0755);
		int rc;

		if (!made && errno != EEXIST) {
			fprintf(stderr, "rgbench: cannot create results/: %s\n", strerror(errno));
			return 1;
		}
		default_base(base, sizeof(base), &env);
		rc = default_output(base, out_csv, out_json, sizeof(out_csv), out_json[0] != 0);
		if (rc) {
			if (made)
				rmdir("results");
			return rc;
		}
		want_json = true;
	} else {
		int rc;

		if (want_json && !out_json[0])
			json_beside(out_json, sizeof(out_json), out_csv);
		rc = rg_output_check(out_csv, want_json ? out_json : NULL, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "rgbench: %s\n", err);
			return rc;
		}
	}
	rg_results_init(&rs, &env);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (cfg.progress) {
		char topo[256];

		rg_topo_describe(topo, sizeof(topo));
		fprintf(cfg.progress, "rgbench %s: %s %s, kernel %s; %s\n", RG_VERSION, env.arch,
			env.cpu_model, env.kernel, topo);
	}
	if (rg_env_virt_emulated(env.virt))
		fprintf(stderr, "rgbench: WARNING: %s CPU: these timings are the emulator's, not a "
			"machine's (rows say virt=%s; compare refuses them without --allow-emulated)\n",
			env.virt, env.virt);
	ndone = rg_suite_run(&cfg, &rs);
	if (ndone < 0) {
		rg_results_free(&rs);
		return 1;
	}
	if (ndone == 0 && gb_filter && !g_stop) {
		rg_results_free(&rs);
		die_usage("--benchmark_filter=%s matches no benchmark that runs here "
			  "(names: user/<guard>/<scenario>..., see --benchmark_list_tests=true)", gb_filter);
	}

	/* The default run also measures the kernel side when it can. */
	if (!sel_guards && !sel_scen && !no_bpf && !g_stop) {
		if (!hooks || !hooks->bpf_default) {
			if (cfg.progress)
				fprintf(cfg.progress, "rgbench: BPF suite skipped: rg_bpf not built\n");
		} else if (geteuid() == 0) {
			/*
			 * Short BPF durations except in --full: the default suite
			 * has to finish within a minute on a 2-core machine.
			 * Ctrl-C is honoured between its samples.
			 */
			if (hooks->bpf_default(&rs, profile != 2, &g_stop, cfg.progress))
				fprintf(stderr, "rgbench: the BPF suite reported an error (see above)\n");
		} else if (cfg.progress) {
			fprintf(cfg.progress, "rgbench: BPF suite skipped: needs root\n");
		}
	}

	if (g_stop) {
		fprintf(stderr, "rgbench: interrupted by %s; no results written\n",
			g_stop == SIGINT ? "SIGINT" : "SIGTERM");
		rg_results_free(&rs);
		return 128 + g_stop;
	}
	{
		int rc = rg_results_write(&rs, out_csv, want_json ? out_json : NULL, err, sizeof(err));

		if (rc) {
			fprintf(stderr, "rgbench: %s\n", err);
			rg_results_free(&rs);
			return 1;
		}
		rg_output_release();
		if (cfg.progress) {
			fprintf(cfg.progress, "rgbench: wrote %zu rows to %s\n", rs.n, out_csv);
			if (want_json)
				fprintf(cfg.progress, "rgbench: wrote %s\n", out_json);
		}
	}
	{
		size_t nerr = 0;

		for (size_t i = 0; i < rs.n; i++)
			nerr += !strcmp(rs.rows[i].status, "error");
		if (nerr)
			fprintf(stderr, "rgbench: %zu benchmark(s) failed (status=error in the output)\n",
				nerr);
	}
	rg_results_free(&rs);
	rg_topo_fini();
	free(gb_argv);
	return 0;
}
