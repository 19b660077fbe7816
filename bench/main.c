// SPDX-License-Identifier: MIT
/* The rgbench command: options, the userspace suite, subcommands and the result files. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "counters.h"
#include "rg/env.h"
#include "rg/gbench.h"
#include "rg/registry.h"
#include "rg/result.h"
#include "rg/subcmd.h"
#include "suite.h"
#include "topo.h"

#ifndef RG_VERSION
#define RG_VERSION "unknown"
#endif

/* Always 0 or 1 (CMake), so -Wundef catches a typo. */
#if !defined(RG_WITH_BPF) || !defined(RG_WITH_KMOD) || !defined(RG_WITH_REPORT)
#error "RG_WITH_BPF, RG_WITH_KMOD and RG_WITH_REPORT must be defined to 0 or 1"
#endif

static volatile sig_atomic_t g_stop;

static void on_signal(int sig)
{
	g_stop = sig;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: rgbench [options]          run the userspace suite (default profile)\n"
"       rgbench --list             guards, scenarios, CPUs, counters\n"
"       rgbench bpf|kmod|compare|plot [args]   the other components\n"
"\n"
"  --quick | --full          shorter / longer profile (default: between)\n"
"  --guards a,b,...          guards to run (noop is always added); default all\n"
"  --scenarios a,b,...       pair,duty,nested,threads,falseshare; default all\n"
"  --threads n,m,...         thread counts for the threads scenario\n"
"  --cpus list               CPUs to use, e.g. 0,2 or 0-3 (default: all allowed,\n"
"                            cores first, then SMT siblings, then packages)\n"
"  --repetitions n           repetitions per benchmark\n"
"  --min-time s              minimum seconds per repetition\n"
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

static int guard_index(const char *name)
{
	const struct rg_guard_info *gi = rg_guard_find(name);

	return gi ? (int)gi->id : -1;
}

static void list(const int *cpus, int ncpus)
{
	char topo[256];
	const char *why = rg_counters_probe();

	printf("guards (guards/guards.def):\n");
	for (int i = 0; i < RG_GUARD__COUNT; i++) {
		const char *reason = NULL;
		bool ok = rg_guard_available(&rg_guards[i], &reason);
		char avail[160];

		snprintf(avail, sizeof(avail), ok ? "available" : "skipped (%s)", reason);
		printf("  %-16s %-24s %s\n", rg_guards[i].name, avail, rg_guards[i].summary);
	}
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
	printf("subcommands: bpf%s kmod%s compare%s plot%s\n",
	       RG_WITH_BPF ? "" : " (not built)", RG_WITH_KMOD ? "" : " (not built)",
	       RG_WITH_REPORT ? "" : " (not built)", RG_WITH_REPORT ? "" : " (not built)");
}

static __attribute__((unused)) int not_built(const char *sub, const char *why)
{
	fprintf(stderr, "rgbench: %s not built: %s\n", sub, why);
	return 1;
}

static int subcommand(int argc, char **argv)
{
	(void)argc;
	const char *sub = argv[0];

	if (!strcmp(sub, "bpf")) {
#if RG_WITH_BPF
		return rg_bpf_main(argc, argv);
#else
		return not_built(sub, "the rg_bpf target is not part of this build (kernel/bpf)");
#endif
	}
	if (!strcmp(sub, "kmod")) {
#if RG_WITH_KMOD
		return rg_kmod_main(argc, argv);
#else
		return not_built(sub, "the rg_kmod target is not part of this build (kernel/kmod)");
#endif
	}
	if (!strcmp(sub, "compare") || !strcmp(sub, "plot")) {
#if RG_WITH_REPORT
		return !strcmp(sub, "compare") ? rg_compare_main(argc, argv) : rg_plot_main(argc, argv);
#else
		return not_built(sub, "the rg_report target is not part of this build (plots/)");
#endif
	}
	return -1;
}

static void check_out_dir(const char *flag, const char *path)
{
	char *dup = strdup(path), *slash;
	struct stat st;

	if (!dup)
		die_usage("out of memory");
	if (!*path || path[strlen(path) - 1] == '/')
		die_usage("%s %s: not a file name", flag, path);
	slash = strrchr(dup, '/');
	if (slash) {
		*slash = '\0';
		if (*dup && (stat(dup, &st) || !S_ISDIR(st.st_mode)))
			die_usage("%s %s: directory %s does not exist", flag, path, dup);
		if (*dup && access(dup, W_OK))
			die_usage("%s %s: directory %s is not writable", flag, path, dup);
	} else if (access(".", W_OK)) {
		die_usage("%s %s: the current directory is not writable", flag, path);
	}
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		die_usage("%s %s: is a directory", flag, path);
	free(dup);
}

/* "results/<host>-<UTC time>" with the host name made file-name safe. */
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

int main(int argc, char **argv)
{
	static struct rg_suite_cfg cfg;
	static int order[RG_MAX_CPUS], user_cpus[RG_MAX_CPUS];
	char err[256], out_csv[PATH_MAX + 8] = "", out_json[PATH_MAX + 8] = "", base[PATH_MAX];
	int norder, nuser_cpus = 0, profile = 1, nthreads_opt = 0, ndone;
	int thread_opt[RG_MAX_THREAD_COUNTS], duty_opt[RG_MAX_DUTY], nduty_opt = 0;
	long reps = -1, batch = 4096;
	double min_time = -1;
	bool do_list = false, want_json = false, no_bpf = false, quiet = false;
	bool sel_guards = false, sel_scen = false, gb_min_time = false, gb_reps = false;
	char **gb_argv;
	int gb_argc = 1;
	struct rg_env env;
	struct rg_resultset rs;
	struct sigaction sa;

	if (argc > 1 && argv[1][0] != '-') {
		int rc = subcommand(argc - 1, argv + 1);

		if (rc >= 0)
			return rc;
		die_usage("unknown subcommand '%s' (bpf, kmod, compare, plot; or see --help)", argv[1]);
	}

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
		char flag[64];

		if (!strncmp(a, "--benchmark_", 12)) {
			if (!strncmp(a, "--benchmark_format=", 19) && strcmp(a + 19, "console") &&
			    strcmp(a + 19, "json"))
				die_usage("%s: rgbench shows the library's report as console or json only", a);
			gb_min_time |= !strncmp(a, "--benchmark_min_time", 20);
			gb_reps |= !strncmp(a, "--benchmark_repetitions", 23);
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
			usage(stdout);
			return 0;
		} else if (!strcmp(flag, "--list") && !eq) {
			do_list = true;
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
			check_out_dir(flag, v);
			snprintf(out_csv, sizeof(out_csv), "%s", v);
		} else if (!strcmp(flag, "--json")) {
			want_json = true;
			if (eq)
				v = eq + 1;
			else if (i + 1 < argc && argv[i + 1][0] != '-')
				v = argv[++i];
			if (v) {
				check_out_dir(flag, v);
				snprintf(out_json, sizeof(out_json), "%s", v);
			}
		} else {
			die_usage("unknown option '%s' (see --help)", a);
		}
#undef NEEDS_VALUE
	}
	if (rg_gb_initialize(&gb_argc, gb_argv) > 0)
		die_usage("unknown Google Benchmark flag '%s'", gb_argv[1]);

	if (rg_topo_init(err, sizeof(err))) {
		fprintf(stderr, "rgbench: %s\n", err);
		return 1;
	}
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
		list(cfg.cpus, cfg.ncpus);
		return 0;
	}

	/* Profiles: quick / default / full. */
	static const double prof_min_time[3] = { 0.005, 0.02, 0.2 };
	static const int prof_reps[3] = { 3, 5, 10 };
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
	cfg.repetitions = reps > 0 ? (int)reps : gb_reps ? 0 : prof_reps[profile];
	cfg.min_time = min_time > 0 ? min_time : gb_min_time ? 0 : prof_min_time[profile];
	cfg.batch = (uint64_t)batch;
	cfg.native_noop = true;
	cfg.stop = &g_stop;
	cfg.progress = quiet ? NULL : rg_gb_library_display() ? stderr : stdout;

	rg_env_collect(&env);
	rg_results_init(&rs, &env);
	if (!out_csv[0]) {
		default_base(base, sizeof(base), &env);
		if (mkdir("results", 0755) && errno != EEXIST) {
			fprintf(stderr, "rgbench: cannot create results/: %s\n", strerror(errno));
			return 1;
		}
		snprintf(out_csv, sizeof(out_csv), "%s.csv", base);
		want_json = true;
	}
	if (want_json && !out_json[0])
		json_beside(out_json, sizeof(out_json), out_csv);

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

	/* The default run also measures the kernel side when it can. */
	if (!sel_guards && !sel_scen && !no_bpf && !g_stop) {
#if RG_WITH_BPF
		if (geteuid() == 0) {
			/*
			 * Short BPF durations except in --full: the default suite
			 * has to finish within a minute on a 2-core machine.
			 */
			if (rg_bpf_run_default(&rs, profile != 2))
				fprintf(stderr, "rgbench: the BPF suite reported an error (see above)\n");
		} else if (cfg.progress) {
			fprintf(cfg.progress, "rgbench: BPF suite skipped: needs root\n");
		}
#else
		if (cfg.progress)
			fprintf(cfg.progress, "rgbench: BPF suite skipped: rg_bpf not built\n");
#endif
	}

	if (g_stop) {
		fprintf(stderr, "rgbench: interrupted by %s; no results written\n",
			g_stop == SIGINT ? "SIGINT" : "SIGTERM");
		rg_results_free(&rs);
		return 128 + g_stop;
	}
	{
		int rc = rg_results_write_csv(&rs, out_csv);

		if (rc) {
			fprintf(stderr, "rgbench: cannot write %s: %s\n", out_csv, strerror(-rc));
			rg_results_free(&rs);
			return 1;
		}
		if (cfg.progress)
			fprintf(cfg.progress, "rgbench: wrote %zu rows to %s\n", rs.n, out_csv);
		if (want_json) {
			rc = rg_results_write_json(&rs, out_json);
			if (rc) {
				fprintf(stderr, "rgbench: cannot write %s: %s\n", out_json, strerror(-rc));
				rg_results_free(&rs);
				return 1;
			}
			if (cfg.progress)
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
