// SPDX-License-Identifier: MIT
/* rgbench's command line: usage, the options into struct rg_bench_opts, Google Benchmark's flags checked and passed on, --list. */
#define _GNU_SOURCE
#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "counters.h"
#include "rg/gbench.h"
#include "rg/platform.h"
#include "rg/registry.h"

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

void rg_bench_die_usage(const char *fmt, ...)
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
		rg_bench_die_usage("%s %s: expected an integer in [%ld, %ld]", flag, s, lo, hi);
	return v;
}

static double parse_double(const char *flag, const char *s, double lo, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || *end || errno || !(v >= lo && v <= hi))
		rg_bench_die_usage("%s %s: expected a number in [%g, %g]", flag, s, lo, hi);
	return v;
}

/* Comma-separated integers, each in [lo, hi]; ranges a-b when allow_range. */
static int parse_int_list(const char *flag, const char *s, int *out, int max, long lo, long hi,
			  bool allow_range)
{
	char *dup = strdup(s), *save = NULL, *tok;
	int n = 0;

	if (!dup)
		rg_bench_die_usage("out of memory");
	if (!*s)
		rg_bench_die_usage("%s: empty list", flag);
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *dash = allow_range ? strchr(tok, '-') : NULL;
		long a, b;

		if (dash && dash != tok) {
			*dash = '\0';
			a = parse_long(flag, tok, lo, hi);
			b = parse_long(flag, dash + 1, lo, hi);
			if (b < a)
				rg_bench_die_usage("%s %s: range %ld-%ld is backwards", flag, s, a, b);
		} else {
			a = b = parse_long(flag, tok, lo, hi);
		}
		for (long v = a; v <= b; v++) {
			for (int i = 0; i < n; i++)
				if (out[i] == v)
					rg_bench_die_usage("%s %s: %ld is listed twice", flag, s, v);
			if (n >= max)
				rg_bench_die_usage("%s %s: more than %d entries", flag, s, max);
			out[n++] = (int)v;
		}
	}
	if (!n || s[strlen(s) - 1] == ',' || s[0] == ',' || strstr(s, ",,"))
		rg_bench_die_usage("%s %s: malformed list", flag, s);
	free(dup);
	return n;
}

static void parse_names(const char *flag, const char *s, bool *sel, int count,
			int (*find)(const char *))
{
	char *dup = strdup(s), *save = NULL, *tok;

	if (!dup)
		rg_bench_die_usage("out of memory");
	if (!*s || s[0] == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,"))
		rg_bench_die_usage("%s %s: malformed list", flag, s);
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
			rg_bench_die_usage("%s: unknown name '%s' (see rgbench --list)", flag, tok);
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
			rg_bench_die_usage("bad value for Google Benchmark flag '%s': expected an integer in [1, 1000]", a);
	} else if (!strncmp(a, "--benchmark_min_time=", 21)) {
		double t;

		errno = 0;
		t = strtod(v, &end);
		if (end != v && *end == 's' && !end[1])
			end++;	/* 1.8 spells seconds "0.5s" */
		if (!*v || *end || errno || !(t >= 1e-6 && t <= 3600) || strpbrk(v, "xXnN"))
			rg_bench_die_usage("bad value for Google Benchmark flag '%s': expected seconds in [1e-06, 3600]", a);
	} else if (!strncmp(a, "--benchmark_filter=", 19)) {
		regex_t re;

		if (regcomp(&re, v[0] == '-' ? v + 1 : v, REG_EXTENDED | REG_NOSUB))
			rg_bench_die_usage("bad value for Google Benchmark flag '%s': not a regular expression", a);
		regfree(&re);
	}
}

static int guard_index(const char *name)
{
	const struct rg_guard_info *gi = rg_guard_find(name);

	return gi ? (int)gi->id : -1;
}

/*
 * --benchmark_*: a value the run cannot use is refused here; the ones that
 * also set rgbench's rounds, chunk time and filter are read into o; all are
 * kept in o->gb_argv for the library.
 */
static void gb_flag(struct rg_bench_opts *o, char *a)
{
	char *end;

	if (!strncmp(a, "--benchmark_format=", 19) && strcmp(a + 19, "console") &&
	    strcmp(a + 19, "json"))
		rg_bench_die_usage("%s: rgbench shows the library's report as console or json only", a);
	check_gb_flag(a);	/* a bad value: one line, exit 2 */
	/* Read here too: they set rgbench's rounds and chunk time. */
	if (!strncmp(a, "--benchmark_min_time=", 21) &&
	    (strtod(a + 21, &end), end != a + 21 && !*end))
		o->gb_min_time = parse_double("--benchmark_min_time", a + 21, 1e-6, 3600);
	if (!strncmp(a, "--benchmark_repetitions=", 24))
		o->gb_reps = parse_long("--benchmark_repetitions", a + 24, 1, 1000);
	if (!strncmp(a, "--benchmark_filter=", 19))
		o->gb_filter = a + 19;
	o->gb_argv[o->gb_argc++] = a;
}

/* Google Benchmark's own parse of the flags passed on: what it leaves over is refused. */
static void gb_initialize(struct rg_bench_opts *o)
{
	const char *eq;
	int n;

	if (rg_gb_initialize(&o->gb_argc, o->gb_argv) <= 0)
		return;
	eq = strchr(o->gb_argv[1], '=');
	n = eq ? (int)(eq - o->gb_argv[1]) : (int)strlen(o->gb_argv[1]);
	if (gb_flag_known(o->gb_argv[1], n))
		rg_bench_die_usage("bad value for Google Benchmark flag '%s'%s", o->gb_argv[1],
				   eq ? "" : " (give it as --benchmark_x=value)");
	rg_bench_die_usage("unknown Google Benchmark flag '%s'", o->gb_argv[1]);
}

int rg_bench_parse(int argc, char **argv, const struct rg_bench_hooks *hooks,
		   struct rg_bench_opts *o)
{
	o->profile = 1;
	o->reps = -1;
	o->min_time = -1;
	o->batch = 4096;
	for (int i = 0; i < RG_GUARD__COUNT; i++)
		o->guard[i] = true;
	for (int i = 0; i < RG_SC__COUNT; i++)
		o->scenario[i] = true;
	o->gb_argv = calloc((size_t)argc + 1, sizeof(*o->gb_argv));
	if (!o->gb_argv)
		rg_bench_die_usage("out of memory");
	o->gb_argv[0] = argv[0];
	o->gb_argc = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = NULL;
		const char *eq = strchr(a, '=');
		char flag[64];

		if (!strncmp(a, "--benchmark_", 12)) {
			gb_flag(o, argv[i]);
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
				rg_bench_die_usage("%s needs a value", flag);	\
		} while (0)
		if (!strcmp(flag, "-h") || !strcmp(flag, "--help")) {
			usage(stdout, hooks);
			return 0;
		} else if (!strcmp(flag, "--list") && !eq) {
			o->list = true;
		} else if (!strcmp(flag, "--plan") && !eq) {
			o->plan = true;
		} else if (!strcmp(flag, "--quick") && !eq) {
			o->profile = 0;
		} else if (!strcmp(flag, "--full") && !eq) {
			o->profile = 2;
		} else if (!strcmp(flag, "--no-bpf") && !eq) {
			o->no_bpf = true;
		} else if (!strcmp(flag, "--quiet") && !eq) {
			o->quiet = true;
		} else if (!strcmp(flag, "--guards")) {
			NEEDS_VALUE();
			parse_names(flag, v, o->guard, RG_GUARD__COUNT, guard_index);
			o->sel_guards = true;
		} else if (!strcmp(flag, "--scenarios")) {
			NEEDS_VALUE();
			parse_names(flag, v, o->scenario, RG_SC__COUNT, rg_scenario_find);
			o->sel_scen = true;
		} else if (!strcmp(flag, "--threads")) {
			NEEDS_VALUE();
			o->nthreads = parse_int_list(flag, v, o->threads, RG_MAX_THREAD_COUNTS, 1,
						     RG_MAX_CPUS, false);
		} else if (!strcmp(flag, "--cpus")) {
			NEEDS_VALUE();
			o->ncpus = parse_int_list(flag, v, o->cpus, RG_MAX_CPUS, 0, RG_MAX_CPUS - 1,
						  true);
		} else if (!strcmp(flag, "--repetitions")) {
			NEEDS_VALUE();
			o->reps = parse_long(flag, v, 1, 1000);
		} else if (!strcmp(flag, "--min-time")) {
			NEEDS_VALUE();
			o->min_time = parse_double(flag, v, 1e-6, 3600);
		} else if (!strcmp(flag, "--batch")) {
			NEEDS_VALUE();
			o->batch = parse_long(flag, v, 1, 1L << 30);
		} else if (!strcmp(flag, "--duty")) {
			NEEDS_VALUE();
			o->nduty = parse_int_list(flag, v, o->duty, RG_MAX_DUTY, 0, 100000, false);
		} else if (!strcmp(flag, "--out")) {
			NEEDS_VALUE();
			snprintf(o->out_csv, sizeof(o->out_csv), "%s", v);
		} else if (!strcmp(flag, "--json")) {
			o->want_json = true;
			if (eq)
				v = eq + 1;
			else if (i + 1 < argc && argv[i + 1][0] != '-')
				v = argv[++i];
			if (v)
				snprintf(o->out_json, sizeof(o->out_json), "%s", v);
		} else {
			rg_bench_die_usage("unknown option '%s' (see --help)", a);
		}
#undef NEEDS_VALUE
	}
	gb_initialize(o);
	return -1;
}

void rg_bench_list(const struct rg_suite_cfg *cfg, const struct rg_bench_hooks *hooks)
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
	for (int i = 0; i < cfg->ncpus; i++)
		printf("%s%d", i ? "," : " ", cfg->cpus[i]);
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
