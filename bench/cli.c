// SPDX-License-Identifier: MIT
/* rgbench's command line: usage, the options into struct rg_bench_opts (with the kit, rg/cmdline.h), Google Benchmark's flags checked and passed on, --list. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "counters.h"
#include "rg/cmdline.h"
#include "rg/gbench.h"
#include "rg/platform.h"
#include "rg/registry.h"
#include "pmu_pfm.h"

static void usage(FILE *f, const struct rg_bench_hooks *hooks)
{
	fprintf(f,
"usage: rgbench [options]          run the userspace suite (default profile)\n"
"       rgbench --list             guards, scenarios, CPUs, counters\n"
"       rgbench --plan [options]   what the options would run, where, how long\n"
"                                  (HWLOC_XMLFILE / HWLOC_SYNTHETIC: another machine)\n"
"       rgbench --check-options [options]  the options' own check only, as a run\n"
"                                  makes it first (exit 0, or 2 with its line); reads\n"
"                                  nothing of the machine (rgbench fleet uses it)\n"
"       rgbench --safe-name NAME...  each NAME as one safe file name, a line each\n"
"                                  (results/<host>-..., the fleet's host folders)\n"
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
"  --repetitions n           interleaved rounds (samples) per benchmark and run\n"
"  --runs n                  measure in n fresh processes (runs), group by group;\n"
"                            rows and intervals are over runs (docs/bench.md);\n"
"                            --benchmark_out implies --runs 1\n"
"  --duration t              seconds per benchmark per round: 0.01, 10ms, 500us\n"
"                            (old spelling: --min-time)\n"
"  --batch n                 iterations per call of the measured loop (4096)\n"
"  --duty ns,in+out,...      work per traced call for the duty scenario: ns (half\n"
"                            inside the guarded region) or in+out ns\n"
"  --out file.csv            CSV output (default results/<host>-<time>.csv);\n"
"                            -: the CSV on stdout, alone (no JSON unless --json)\n"
"  --json file.json          also JSON (-: on stdout); --json alone (old form):\n"
"                            beside the CSV (the default output always has both)\n"
"  --events a,b,...          PMU events for the events column, libpfm4 names of\n"
"                            this CPU's table (default: its list, see --list)\n"
"  --no-bpf                  do not run the BPF suite in the default run\n"
"  -q, --quiet               no progress lines on stderr (the 'wrote' lines stay)\n"
"  -qq, --silent             not even the lines naming the files written\n"
"  --benchmark_*=...         passed to Google Benchmark (filter, format, out...)\n"
"  -V, --version             the release and commit of this build (-h, --help: this)\n"
"  --word value and --word=value are the same; exit 0 ok, 1 failure, 2 usage,\n"
"  128+signal interrupted (no file written)\n"
"Examples:\n"
"  rgbench --quick                         every guard, short: results/<host>-<time>.csv\n"
"  rgbench --guards tls,rseq --runs 3      two guards (and noop) in 3 fresh processes\n"
"  rgbench compare before.json after.json  what changed between two runs\n");
}

enum {
	O_LIST = RG_CL_O__FIRST_FREE, O_PLAN, O_QUICK, O_FULL, O_NO_BPF, O_GUARDS, O_SCENARIOS,
	O_DUTY, O_RUNS, O_RUN_CHILD, O_EVENTS, O_CHECK,
};

/*
 * rgbench's option words: the kit's common ones, the old spelling --min-time
 * of --duration, and the suite's own. Matched whole, never abbreviated.
 */
static const struct option words[] = {
	RG_CL_OPT_HELP(RG_CL_O_HELP),
	{ "list", no_argument, NULL, O_LIST },
	{ "plan", no_argument, NULL, O_PLAN },
	{ "check-options", no_argument, NULL, O_CHECK },
	{ "quick", no_argument, NULL, O_QUICK },
	{ "full", no_argument, NULL, O_FULL },
	{ "no-bpf", no_argument, NULL, O_NO_BPF },
	RG_CL_OPTS_MEASURE,	/* --json also alone: JSON beside the CSV */
	{ "guards", required_argument, NULL, O_GUARDS },
	{ "scenarios", required_argument, NULL, O_SCENARIOS },
	{ "min-time", required_argument, NULL, RG_CL_O_DURATION },
	{ "duty", required_argument, NULL, O_DUTY },
	{ "runs", required_argument, NULL, O_RUNS },
	{ "run-child", required_argument, NULL, O_RUN_CHILD },	/* internal: runs.c */
	{ "events", required_argument, NULL, O_EVENTS },
	{ NULL, 0, NULL, 0 },
};

/* The entry of flag ("--word", or -h for --help), or NULL. */
static const struct option *find_word(const char *flag)
{
	static const struct option q = RG_CL_OPT_QUIET(RG_CL_O_QUIET),
				   qq = RG_CL_OPT_SILENT(RG_CL_O_SILENT);

	if (!strcmp(flag, "-h"))
		return &words[0];
	if (!strcmp(flag, "-q"))
		return &q;
	if (!strcmp(flag, "-qq"))
		return &qq;
	if (strncmp(flag, "--", 2))
		return NULL;
	for (const struct option *w = words; w->name; w++)
		if (!strcmp(flag + 2, w->name))
			return w;
	return NULL;
}

/*
 * Every flag Google Benchmark (1.7 and 1.8) knows, with the rule rgbench
 * checks its value by before anything runs: passed on only when valid,
 * or refused with the reason when rgbench cannot honour it.
 */
enum gb_rule { GB_BOOL, GB_REGEX, GB_SECONDS, GB_REPS, GB_WORD, GB_PATH, GB_CONTEXT, GB_REFUSE };

struct gb_flag_rule {
	const char *name;
	enum gb_rule rule;
	const char *arg;	/* GB_WORD: the values, "|"-separated; GB_REFUSE: why */
};

static const struct gb_flag_rule gb_rules[] = {
	{ "filter", GB_REGEX, NULL },
	{ "min_time", GB_SECONDS, NULL },
	{ "repetitions", GB_REPS, NULL },
	{ "enable_random_interleaving", GB_BOOL, NULL },
	{ "report_aggregates_only", GB_BOOL, NULL },
	{ "display_aggregates_only", GB_BOOL, NULL },
	{ "counters_tabular", GB_BOOL, NULL },
	{ "format", GB_WORD, "console|json" },
	{ "out_format", GB_WORD, "json|console" },
	{ "time_unit", GB_WORD, "ns|us|ms|s" },
	{ "color", GB_WORD, "auto|true|false|yes|no|1|0" },
	{ "out", GB_PATH, NULL },
	{ "context", GB_CONTEXT, NULL },
	{ "list_tests", GB_REFUSE, "listing writes no results: use rgbench --list" },
	{ "dry_run", GB_REFUSE, "a dry run writes no results: use rgbench --plan" },
	{ "min_warmup_time", GB_REFUSE,
	  "not passed on: rgbench's rounds and time estimate do not account for a warm-up "
	  "(use --duration)" },
	{ "perf_counters", GB_REFUSE,
	  "not passed on: rgbench reads its own counters (see rgbench --list, 'counters:')" },
};

/* The rule of "--benchmark_<name>" (n: length of the flag before '='), or NULL. */
static const struct gb_flag_rule *gb_rule_of(const char *a, size_t n)
{
	for (size_t i = 0; i < sizeof(gb_rules) / sizeof(gb_rules[0]); i++)
		if (n == 12 + strlen(gb_rules[i].name) && !strncmp(a + 12, gb_rules[i].name, n - 12))
			return &gb_rules[i];
	return NULL;
}

/* v is one of the "|"-separated words. */
static bool one_of(const char *v, const char *list)
{
	size_t n = strlen(v);

	for (const char *w = list; *w; w += strcspn(w, "|"), w += *w == '|')
		if (n && strcspn(w, "|") == n && !strncmp(w, v, n))
			return true;
	return false;
}

/* --benchmark_context=key=value[,key=value...]: keys and values printable, no empty key. */
static bool context_ok(const char *v)
{
	if (!*v)
		return false;
	for (const char *p = v; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return false;
	for (const char *kv = v; *kv; kv += strcspn(kv, ","), kv += *kv == ',') {
		size_t len = strcspn(kv, ","), key = strcspn(kv, "=");

		if (!key || key >= len)
			return false;
	}
	return true;
}

/*
 * Values rgbench passes on must be ones the run can use: the same rules as
 * --repetitions and --duration (the library would abort on -1 repetitions and
 * run one iteration for a min time of 0), a filter that compiles, known
 * words; the rest is refused with the reason. One line, exit 2.
 */
static void check_gb_flag(const char *a)
{
	const char *eq = strchr(a, '='), *v = eq ? eq + 1 : NULL;
	const struct gb_flag_rule *r = gb_rule_of(a, eq ? (size_t)(eq - a) : strlen(a));
	char *end;

	if (!r)
		exit(rg_cl_usage_error("unknown Google Benchmark flag '%s'", a));
	if (r->rule == GB_REFUSE)
		exit(rg_cl_usage_error("%.*s: %s", eq ? (int)(eq - a) : (int)strlen(a), a, r->arg));
	if (!v && r->rule == GB_BOOL)
		return;	/* a bare boolean flag is true */
	if (!v)
		exit(rg_cl_usage_error("bad value for Google Benchmark flag '%s': none "
				       "(give it as --benchmark_x=value)", a));
	switch (r->rule) {
	case GB_REPS: {
		long n;

		errno = 0;
		n = strtol(v, &end, 10);
		if (!*v || *end || errno || n < 1 || n > 1000)
			exit(rg_cl_usage_error("bad value for Google Benchmark flag '%s': expected an integer in [1, 1000]", a));
		break;
	}
	case GB_SECONDS: {
		double t;

		errno = 0;
		t = strtod(v, &end);
		if (end != v && *end == 's' && !end[1])
			end++;	/* 1.8 spells seconds "0.5s" */
		if (!*v || *end || errno || !(t >= 1e-6 && t <= 3600) || strpbrk(v, "xXnN"))
			exit(rg_cl_usage_error("bad value for Google Benchmark flag '%s': expected seconds in [1e-06, 3600]", a));
		break;
	}
	case GB_REGEX: {
		regex_t re;

		if (regcomp(&re, v[0] == '-' ? v + 1 : v, REG_EXTENDED | REG_NOSUB))
			exit(rg_cl_usage_error("bad value for Google Benchmark flag '%s': not a regular expression", a));
		regfree(&re);
		break;
	}
	case GB_BOOL:
		if (!one_of(v, "true|false|yes|no|1|0"))
			exit(rg_cl_usage_error("bad value for Google Benchmark flag '%s': expected true or false", a));
		break;
	case GB_WORD:
		if (!one_of(v, r->arg))
			exit(rg_cl_usage_error("bad value for Google Benchmark flag '%s': expected one of %s", a,
					       r->arg));
		break;
	case GB_PATH:
		if (!*v)
			exit(rg_cl_usage_error("bad value for Google Benchmark flag '%s': an empty file name", a));
		break;
	case GB_CONTEXT:
		if (!context_ok(v))
			exit(rg_cl_usage_error("bad value for Google Benchmark flag '%s': expected key=value[,key=value]", a));
		break;
	case GB_REFUSE:
		break;
	}
}

/* The guards' names in id order, for rg_cl_names(). */
static const char *const *guard_names(void)
{
	static const char *names[RG_GUARD__COUNT];

	for (int i = 0; i < RG_GUARD__COUNT; i++)
		names[i] = rg_guards[i].name;
	return names;
}

/* One option's value into o (v is NULL for a word without one). 0, or -1 after the kit's message. */
static int set_option(struct rg_bench_opts *o, int val, const char *flag, const char *v)
{
	int rc = 0;

	switch (val) {
	case O_LIST: o->list = true; break;
	case O_PLAN: o->plan = true; break;
	case O_CHECK: o->check = true; break;
	case O_QUICK: o->profile = 0; break;
	case O_FULL: o->profile = 2; break;
	case O_NO_BPF: o->no_bpf = true; break;
	case RG_CL_O_QUIET: o->quiet++; break;
	case RG_CL_O_SILENT: o->quiet = 2; break;
	case O_GUARDS:
		o->sel_guards = true;
		rc = rg_cl_names(flag, v, guard_names(), RG_GUARD__COUNT, o->guard);
		break;
	case O_SCENARIOS:
		o->sel_scen = true;
		rc = rg_cl_names(flag, v, rg_scenario_names, RG_SC__COUNT, o->scenario);
		break;
	case RG_CL_O_THREADS:
		rc = o->nthreads = rg_cl_int_list(flag, v, o->threads, RG_MAX_THREAD_COUNTS, 1,
						  RG_MAX_CPUS, 0);
		break;
	case RG_CL_O_CPUS:
		rc = o->ncpus = rg_cl_cpu_list(flag, v, o->cpus, RG_MAX_CPUS);
		break;
	case RG_CL_O_REPETITIONS:
		rc = rg_cl_long(flag, v, 1, 1000, &o->reps);
		break;
	case O_RUNS:
		rc = rg_cl_long(flag, v, 1, RG_MAX_RUNS, &o->runs);
		break;
	case O_RUN_CHILD:
		if (sscanf(v, "%d,%d,%d", &o->child[0], &o->child[1], &o->child[2]) != 3 ||
		    o->child[0] < 0 || o->child[1] < 0 || o->child[2] < 0)
			return rg_cl_usage_error("--run-child is internal (K,IN,OUT from a --runs parent)"), -1;
		break;
	case RG_CL_O_DURATION:
		rc = rg_cl_duration(flag, v, 1e-6, 3600, &o->min_time);
		break;
	case RG_CL_O_BATCH:
		rc = rg_cl_long(flag, v, 1, 1L << 30, &o->batch);
		break;
	case O_DUTY:
		rc = o->nduty = rg_cl_duty_list(flag, v, o->duty, o->duty_in, RG_MAX_DUTY, 100000);
		break;
	case O_EVENTS:
		if (!*v || strlen(v) >= sizeof(o->events))
			return rg_cl_usage_error("--events: a comma-separated list of libpfm4 event names"), -1;
		snprintf(o->events, sizeof(o->events), "%s", v);
		break;
	case RG_CL_O_OUT:
		if (!*v)	/* not the default name: the user gave one, and it is empty */
			return rg_cl_usage_error("--out: an empty file name"), -1;
		snprintf(o->out_csv, sizeof(o->out_csv), "%s", v);
		break;
	case RG_CL_O_JSON:
		o->want_json = true;
		if (v && !*v)
			return rg_cl_usage_error("--json: an empty file name"), -1;
		if (v)
			snprintf(o->out_json, sizeof(o->out_json), "%s", v);
		break;
	}
	return rc < 0 ? -1 : 0;
}

/*
 * --benchmark_*: a value the run cannot use is refused here; the ones that
 * also set rgbench's rounds, chunk time and filter are read into o; all are
 * kept in o->gb_argv for the library.
 */
static void gb_flag(struct rg_bench_opts *o, char *a)
{
	char *end;

	check_gb_flag(a);	/* a bad value: one line, exit 2 */
	/* Read here too: they set rgbench's rounds and chunk time. */
	if (!strncmp(a, "--benchmark_min_time=", 21) &&
	    (strtod(a + 21, &end), end != a + 21 && !*end) &&
	    rg_cl_double("--benchmark_min_time", a + 21, 1e-6, 3600, &o->gb_min_time))
		exit(RG_EXIT_USAGE);
	if (!strncmp(a, "--benchmark_repetitions=", 24) &&
	    rg_cl_long("--benchmark_repetitions", a + 24, 1, 1000, &o->gb_reps))
		exit(RG_EXIT_USAGE);
	if (!strncmp(a, "--benchmark_filter=", 19))
		o->gb_filter = a + 19;
	if (!strncmp(a, "--benchmark_out=", 16))
		o->gb_out = a + 16;
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
	if (gb_rule_of(o->gb_argv[1], (size_t)n))
		exit(rg_cl_usage_error("bad value for Google Benchmark flag '%s'%s", o->gb_argv[1],
				       eq ? "" : " (give it as --benchmark_x=value)"));
	exit(rg_cl_usage_error("unknown Google Benchmark flag '%s'", o->gb_argv[1]));
}

int rg_bench_parse(int argc, char **argv, const struct rg_bench_hooks *hooks,
		   struct rg_bench_opts *o)
{
	/* The first option given that --list does not use: refused with it, never ignored. */
	static char not_for_list_buf[64];
	char *not_for_list = NULL;

	rg_cl_set_prog("rgbench");
	o->profile = 1;
	o->reps = -1;
	o->runs = -1;
	o->child[0] = o->child[1] = o->child[2] = -1;
	o->min_time = -1;
	o->batch = 4096;
	for (int i = 0; i < RG_GUARD__COUNT; i++)
		o->guard[i] = true;
	for (int i = 0; i < RG_SC__COUNT; i++)
		o->scenario[i] = true;
	o->gb_argv = calloc((size_t)argc + 1, sizeof(*o->gb_argv));
	if (!o->gb_argv)
		exit(rg_cl_error("out of memory"));
	o->gb_argv[0] = argv[0];
	o->gb_argc = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '='), *v = NULL;
		const struct option *w;
		char flag[64];

		if (!strncmp(a, "--benchmark_", 12)) {
			if (!not_for_list)
				snprintf(not_for_list = not_for_list_buf, sizeof(not_for_list_buf), "%.*s",
					 eq ? (int)(eq - a) : (int)strlen(a), a);
			gb_flag(o, argv[i]);
			continue;
		}
		/* --word=value or --word value (a value never starts with "--") */
		snprintf(flag, sizeof(flag), "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
		w = find_word(flag);
		if (w && w->val == RG_CL_O_HELP && o->check)	/* checked as a run's: it is none */
			exit(rg_cl_usage_error("'%s' makes no run", a));
		if (w && w->val == RG_CL_O_HELP) {
			/* Written in one call: a failing stdout (>/dev/full) is named with its errno. */
			char *text = NULL;
			size_t len = 0;
			FILE *m = open_memstream(&text, &len);
			int rc;

			if (!m) {
				usage(stdout, hooks);
				return RG_EXIT_OK;
			}
			usage(m, hooks);
			rc = fclose(m) ? rg_cl_error("out of memory") : rg_cl_stdout_write(text, len);
			free(text);
			return rc;
		}
		if (!w || (eq && w->has_arg == no_argument))
			exit(rg_cl_usage_error("unknown option '%s'", a));
		if (w->has_arg == no_argument)
			v = NULL;
		else if (eq)
			v = eq + 1;
		else if (i + 1 < argc && strncmp(argv[i + 1], "--", 2) &&
			 (w->val != RG_CL_O_JSON || argv[i + 1][0] != '-' || !strcmp(argv[i + 1], "-")))
			v = argv[++i];
		else if (w->val != RG_CL_O_JSON)	/* --json alone: beside the CSV */
			exit(rg_cl_usage_error("%s needs a value", flag));
		if (set_option(o, w->val, flag, v))
			exit(RG_EXIT_USAGE);
		/* --list prints this machine's guards, CPUs (of --cpus) and counters (of --events) */
		if (!not_for_list && w->val != O_LIST && w->val != RG_CL_O_CPUS && w->val != O_EVENTS)
			snprintf(not_for_list = not_for_list_buf, sizeof(not_for_list_buf), "%s", flag);
	}
	if (o->list && not_for_list)
		exit(rg_cl_usage_error("%s: --list prints what this machine offers and runs nothing "
				       "(it takes --cpus and --events only)", not_for_list));
	gb_initialize(o);
	return -1;
}

void rg_bench_list(const struct rg_suite_cfg *cfg, const struct rg_bench_hooks *hooks)
{
	char topo[256];
	const char *why = rg_counters_probe();

	printf("guards (guards/include/rg/guards.def: name, availability, scope, role, what it is):\n");
	rg_guard_print_list(stdout);
	printf("scenarios:\n");
	for (int i = 0; i < RG_SC__COUNT; i++)
		printf("  %-16s %s\n", rg_scenario_names[i], rg_scenario_docs[i]);
	rg_topo_describe(topo, sizeof(topo));
	printf("topology: %s\ncpus (placement order):", topo);
	for (int i = 0; i < cfg->ncpus; i++)
		printf("%s%d", i ? "," : " ", cfg->cpus[i]);
	printf("\ncpu choice: %s", cfg->cpus_why);
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
	/* named events: libpfm4's table for this CPU and its list (the names --events takes), or why none */
	{
		struct rg_pmu_events named;
		char nwhy[480];

		if (rg_pfm_resolve(cfg->events[0] ? cfg->events : NULL, &named, nwhy, sizeof(nwhy)) == 0) {
			printf("named events: %s:", named.pmu);
			for (size_t i = 0; i < named.n; i++)
				printf("%s%s", i ? "," : " ", named.ev[i].name);
			printf(" (--events takes this table's names)\n");
		} else {
			printf("named events: off: %s\n", nwhy);
		}
	}
	if (hooks && hooks->subcommands)
		hooks->subcommands(stdout, false);
}

