// SPDX-License-Identifier: MIT
/* `rgbench kmod`'s command line: options, usage, the table it prints, and rg_kmod_main() tying load and convert together. */
#define _GNU_SOURCE
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "rg/cmdline.h"
#include "rg/env.h"
#include "rg/kmod.h"
#include "rg/paths.h"
#include "rg/schema.h"
#include "kmod_int.h"

struct opts {
	struct rg_kmod_run_opts run;	/* what the module is asked to do */
	const char *out, *json, *raw, *from_raw;
	int quiet;		/* -q: no table; -qq/--silent: no 'wrote' line either */
	bool force;
};

/* The module's sources: $RG_KMOD_SRC, else this rgbench's own (rg/paths.h), else "". */
static const char *module_src(void)
{
	static char dir[PATH_MAX];

	if (getenv("RG_KMOD_SRC"))
		return getenv("RG_KMOD_SRC");
	if (!dir[0] && rg_path("kmod", dir, sizeof(dir)))
		dir[0] = '\0';
	return dir;
}

static void usage(FILE *to)
{
	fprintf(to,
		"usage: rgbench kmod [--guards LIST] [--cpus LIST] [--threads N] [--siblings]\n"
		"                    [--repetitions N] [--batch N | --duration T]\n"
		"                    [--duty NS|IN+OUT] [--irqs-on] [--irq-iters N] [--no-nmi] [--ladder]\n"
		"                    [--kdir DIR | --module FILE.ko] [--out F.csv] [--json F.json]\n"
		"                    [--raw F.csv] [--from-raw F.csv] [--scenarios loop|tramp|loop,tramp]\n"
		"                    [--force] [-q|--quiet] [-qq|--silent]\n"
		"  Loads rgbench_kmod.ko (built from %s against --kdir,\n"
		"  default /lib/modules/$(uname -r)/build; an installed rgbench loads the one\n"
		"  DKMS built, /lib/modules/$(uname -r)/updates/dkms, when there is one), runs\n"
		"  every selected guard on\n"
		"  one bound kthread per physical core (interrupts off, guards in shuffled\n"
		"  rounds) plus the softirq/hardirq/NMI re-entry tests, unloads it and\n"
		"  writes rows (suite=kmod). Needs root and a kernel with module support;\n"
		"  otherwise it says why and exits %d (skipped).\n"
		"  --duration T: seconds (0.01) or with a unit (10ms, 500us), 1us..10s.\n"
		"  Exit: 0 ok, 1 failure, 2 usage, 77 skipped, 128+signal interrupted.\n"
		"  Old spellings: --runs (--repetitions), --loops (--batch), --duty-ns (--duty);\n"
		"  --irqs-off is the default now and accepted.\n"
		"  --scenarios tramp: the trigger bench's raw_tp BPF program run through the\n"
		"  trampoline's path (fentry and raw_tp shapes) under each trampoline design.\n"
		"  --ladder also times each part of rctx-kernel and the this_cpu forms, one\n"
		"  loop per step, in the same rounds (scenario ladder; not with --duty).\n"
		"  The rows' table goes to stdout, or to stderr when an output is - (stdout):\n"
		"  --out - writes the CSV there (--json -, --raw -: that one), nothing else.\n"
		"  -q, --quiet: no table (the line naming each file written stays on stderr);\n"
		"  -qq, --silent: not that line either.\n"
		"  --raw saves the module's own CSV; --from-raw converts such a file\n"
		"  without loading anything; it never replaces a file that holds measured\n"
		"  results (a run's CSV or JSON, a module file) unless --force is given.\n"
		"  -V, --version: the release and commit of this build; -h, --help: this text.\n"
		"  Examples:\n"
		"    rgbench kmod --guards rctx-kernel,this-cpu-inc,noop --out kmod.csv\n"
		"    rgbench kmod --module /lib/modules/$(uname -r)/updates/dkms/rgbench_kmod.ko\n",
		module_src(), RG_KMOD_SKIP);
}

/* Characters allowed in a guard list (it goes into the module's parameters). */
static bool list_ok(const char *s)
{
	return *s && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-,_") == strlen(s);
}

/* kmod's own option values, after the kit's common ones. */
enum {
	O_GUARDS = RG_CL_O__FIRST_FREE, O_SIBLINGS, O_DUTY, O_IRQS_ON, O_IRQS_OFF, O_IRQ_ITERS,
	O_NO_NMI, O_KDIR, O_MODULE, O_RAW, O_FROM_RAW, O_SCENARIOS, O_LADDER, O_FORCE,
};

static const struct option long_opts[] = {
	RG_CL_OPTS_MEASURE,
	RG_CL_OPT_HELP('h'),
	{ "loops", required_argument, NULL, RG_CL_O_BATCH },		/* old spelling */
	{ "runs", required_argument, NULL, RG_CL_O_REPETITIONS },	/* old spelling */
	{ "guards", required_argument, NULL, O_GUARDS },
	{ "siblings", no_argument, NULL, O_SIBLINGS },
	{ "duty", required_argument, NULL, O_DUTY },
	{ "duty-ns", required_argument, NULL, O_DUTY },			/* old spelling */
	{ "irqs-on", no_argument, NULL, O_IRQS_ON },
	{ "irqs-off", no_argument, NULL, O_IRQS_OFF },
	{ "irq-iters", required_argument, NULL, O_IRQ_ITERS },
	{ "no-nmi", no_argument, NULL, O_NO_NMI },
	{ "ladder", no_argument, NULL, O_LADDER },
	{ "kdir", required_argument, NULL, O_KDIR },
	{ "module", required_argument, NULL, O_MODULE },
	{ "raw", required_argument, NULL, O_RAW },
	{ "from-raw", required_argument, NULL, O_FROM_RAW },
	{ "force", no_argument, NULL, O_FORCE },
	{ "scenarios", required_argument, NULL, O_SCENARIOS },
	{ 0 },
};

/*
 * Options given, for the checks that involve two of them. run_only: the
 * first option given that only a run uses (--from-raw converts a file and
 * runs nothing, so it refuses them rather than ignore them).
 */
struct seen {
	bool batch, irqs_off;
	const char *run_only;
};

/* An unsigned long option in [lo, hi] (the kit's message on a bad value). 0 or -1. */
static int get_ulong(const char *flag, const char *arg, uint64_t lo, uint64_t hi,
		     unsigned long *out)
{
	uint64_t v;

	if (rg_cl_u64(flag, arg, lo, hi, &v))
		return -1;
	*out = (unsigned long)v;
	return 0;
}

/* --cpus: "all", or a CPU list (ranges, no repeats, each below RG_MAX_CPUS) passed on as given. */
static int get_cpus(const char *arg, const char **out)
{
	static int cpus[RG_MAX_CPUS];

	if (strcmp(arg, "all") && rg_cl_cpu_list("--cpus", arg, cpus, RG_MAX_CPUS) < 0)
		return -1;
	*out = arg;
	return 0;
}

/* --duration: seconds (or 200ms, 50us ...) in [1e-6, 10], to the module's run_ns. */
static int get_run_ns(const char *arg, unsigned long *run_ns)
{
	double s;

	if (rg_cl_duration("--duration", arg, 1e-6, 10, &s))
		return -1;
	*run_ns = (unsigned long)(s * 1e9);
	return 0;
}

/* --duty: NS (half inside the guarded region) or IN+OUT ns, as the user suite's --duty. */
static int get_duty(const char *arg, struct rg_kmod_run_opts *r)
{
	int total, in;

	if (rg_cl_duty_list("--duty", arg, &total, &in, 1, 1000000) < 0)
		return -1;
	r->duty_ns = (unsigned long)total;
	r->duty_in_ns = (unsigned long)in;
	return 0;
}

/* An option with a value to check. 0, or -1 after the kit's message. */
static int set_value(int c, struct opts *o, const char *arg)
{
	struct rg_kmod_run_opts *r = &o->run;

	switch (c) {
	case RG_CL_O_CPUS:
		return get_cpus(arg, &r->cpus);
	case RG_CL_O_THREADS:
		return get_ulong("--threads", arg, 1, 4096, &r->threads);
	case RG_CL_O_BATCH:
		return get_ulong("--batch", arg, 1, 1ULL << 40, &r->loops);
	case RG_CL_O_DURATION:
		return get_run_ns(arg, &r->run_ns);
	case RG_CL_O_REPETITIONS:
		return get_ulong("--repetitions", arg, 1, 100000, &r->runs);
	case O_DUTY:
		return get_duty(arg, r);
	case O_IRQ_ITERS:
		return get_ulong("--irq-iters", arg, 0, 10000000, &r->irq_iters);
	}
	return -1;
}

/* One option. 0; 1 after --help; 2 (RG_EXIT_USAGE) after its message. */
static int set_option(int c, struct opts *o, struct seen *seen, char **argv)
{
	switch (c) {
	case O_GUARDS: o->run.guards = optarg; return 0;
	case O_SCENARIOS:
		if (strcmp(optarg, "loop") && strcmp(optarg, "tramp") && strcmp(optarg, "loop,tramp") &&
		    strcmp(optarg, "tramp,loop"))
			return rg_cl_usage_error("--scenarios takes loop, tramp or loop,tramp (got '%s')",
						 optarg);
		o->run.scenarios = optarg;
		return 0;
	case O_SIBLINGS: o->run.siblings = true; return 0;
	case O_IRQS_ON: o->run.irqs_on = true; return 0;
	case O_IRQS_OFF: seen->irqs_off = true; return 0;
	case O_NO_NMI: o->run.no_nmi = true; return 0;
	case O_LADDER: o->run.ladder = true; return 0;
	case O_KDIR: o->run.kdir = optarg; return 0;
	case O_MODULE: o->run.module = optarg; return 0;
	case RG_CL_O_OUT: return rg_cl_file("--out", optarg, &o->out) ? RG_EXIT_USAGE : 0;
	case RG_CL_O_JSON: return rg_cl_file("--json", optarg, &o->json) ? RG_EXIT_USAGE : 0;
	case O_RAW: return rg_cl_file("--raw", optarg, &o->raw) ? RG_EXIT_USAGE : 0;
	case O_FROM_RAW: return rg_cl_file("--from-raw", optarg, &o->from_raw) ? RG_EXIT_USAGE : 0;
	case O_FORCE: o->force = true; return 0;
	case RG_CL_O_QUIET: case 'q': o->quiet++; return 0;
	case RG_CL_O_SILENT: o->quiet = 2; return 0;
	case 'h': usage(stdout); return 1;
	case RG_CL_O_CPUS: case RG_CL_O_THREADS: case RG_CL_O_BATCH: case RG_CL_O_DURATION:
	case RG_CL_O_REPETITIONS: case O_DUTY: case O_IRQ_ITERS:
		seen->batch |= c == RG_CL_O_BATCH;
		return set_value(c, o, optarg) ? RG_EXIT_USAGE : 0;
	}
	return rg_cl_option_error(c, argv);
}

/*
 * The names the module accepts, from its generated guard list (rg_kguards.h,
 * found as load.c finds the module's files): every X(id, "name", ...) entry
 * of every build's RG_KGUARDS and every Y("name") of the other architecture's.
 * Appended to names[] as quoted strings ("\"noop\"", ...) for strstr(); NULL
 * when the list cannot be read (the build then says why).
 */
static char *module_guard_names(const char *src)
{
	char path[4200], err[256], *text, *names, *o;
	const char *p, *end;

	if (rg_kmod_source(src, "rg_kguards.h", path, sizeof(path)) ||
	    rg_kmod_read_file(path, 0, &text, err, sizeof(err)))
		return NULL;
	names = o = calloc(1, strlen(text) + 1);
	for (p = text; names && (p = strpbrk(p, "XY")); p++) {
		const char *q = p + 1;

		if (q[0] != '(' || (p > text && p[-1] != '\t'))
			continue;
		q++;
		if (*p == 'X') {	/* X(id, "name" */
			q += strspn(q, "abcdefghijklmnopqrstuvwxyz0123456789_");
			if (strncmp(q, ", ", 2))
				continue;
			q += 2;
		}
		if (*q != '"' || !(end = strchr(q + 1, '"')))
			continue;
		memcpy(o, q, (size_t)(end - q + 1));	/* "name" with its quotes */
		o += end - q + 1;
	}
	free(text);
	return names;
}

/* Each --guards name is one the module knows, before anything is built. 0 or RG_EXIT_USAGE. */
static int check_guard_names(const char *list, const char *src)
{
	char *names, *copy, *save = NULL, *tok, q[80];
	int ret = 0;

	if (!strcmp(list, "all") || !(names = module_guard_names(src)))
		return 0;
	copy = strdup(list);
	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		snprintf(q, sizeof(q), "\"%.64s\"", tok);
		if (strcmp(tok, "all") && !strstr(names, q))
			ret = rg_cl_usage_error("--guards: the module has no guard '%s' "
						"(its guards: docs/kmod.md)", tok);
	}
	free(copy);
	free(names);
	return ret;
}

/* What no single option can check. 0 or RG_EXIT_USAGE (message printed). */
static int check_opts(const struct opts *o, const struct seen *seen)
{
	if (!list_ok(o->run.guards))
		return rg_cl_usage_error("--guards takes comma-separated guard names, "
					 "e.g. --guards rctx,noop (got '%s')", o->run.guards);
	/* --from-raw: --guards, --out, --json, --quiet and --silent apply; the rest only to a run. */
	if (o->from_raw && seen->run_only)
		return rg_cl_usage_error("--%s is for a run: not with --from-raw, which converts a "
					 "file and runs nothing", seen->run_only);
	if (!o->from_raw && !o->run.module && check_guard_names(o->run.guards, o->run.src))
		return RG_EXIT_USAGE;
	if (o->run.kdir && o->run.module)
		return rg_cl_usage_error("give --kdir or --module, not both");
	if (seen->batch && o->run.run_ns)
		return rg_cl_usage_error("give --batch or --duration, not both");
	if (seen->irqs_off && o->run.irqs_on)
		return rg_cl_usage_error("give --irqs-on or --irqs-off, not both");
	if (o->run.ladder && o->run.duty_ns)
		return rg_cl_usage_error("--ladder times the steps back to back: not with --duty");
	if (o->run.ladder && !strcmp(o->run.scenarios, "tramp"))
		return rg_cl_usage_error("--ladder runs beside the loop scenario: not with --scenarios tramp");
	return 0;
}

/*
 * An installed rgbench with neither --module nor --kdir (nor $RG_KMOD_SRC) loads the module DKMS
 * built for the running kernel (package rgbench-dkms, the same version) when there is one,
 * instead of building its own; a build tree's rgbench always builds from its tree.
 */
static void dkms_module(struct opts *o)
{
	static char ko[600];
	struct utsname u;
	struct stat st;

	if (o->run.module || o->run.kdir || o->from_raw || getenv("RG_KMOD_SRC") || !rg_installed() ||
	    uname(&u))
		return;
	snprintf(ko, sizeof(ko), "/lib/modules/%s/updates/dkms/" RG_KMOD_NAME ".ko", u.release);
	if (stat(ko, &st) || !S_ISREG(st.st_mode))
		return;
	o->run.module = ko;
	if (!o->quiet)
		fprintf(stderr, "rgbench kmod: the module DKMS built for %s: %s\n", u.release, ko);
}

/* 0: run; 1: --help was printed; RG_EXIT_USAGE: bad usage (message printed). */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	struct seen seen = { 0 };
	int c, r, li = 0;

	memset(o, 0, sizeof(*o));
	o->run.guards = "all";
	o->run.scenarios = "loop";
	o->run.cpus = "all";
	o->run.loops = 100000;
	o->run.runs = 5;
	o->run.irq_iters = 1000;
	/* The one environment variable of the command, read here and passed down. */
	o->run.src = module_src();
	rg_cl_getopt_reset();
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:qh", long_opts, &li)) != -1) {
		r = set_option(c, o, &seen, argv);
		if (r)
			return r;
		if (!seen.run_only && c != O_GUARDS && c != O_FROM_RAW && c != RG_CL_O_OUT &&
		    c != RG_CL_O_JSON && c != RG_CL_O_QUIET && c != 'q' && c != RG_CL_O_SILENT &&
		    c != O_FORCE)
			seen.run_only = long_opts[li].name;
		li = 0;
	}
	if (optind < argc)
		return rg_cl_usage_error("unexpected argument '%s'", argv[optind]);
	dkms_module(o);
	return check_opts(o, &seen);
}

/* The rows' table: the command's result, on f (stdout, or stderr when an output is "-"). */
static void print_table(FILE *f, const struct rg_resultset *rs, size_t from)
{
	fprintf(f, "%-22s %-24s %12s %24s %12s %10s %8s  %s\n", "guard", "scenario", "ns/pair(med)",
	       "-noop [95% interval]", "ops", "refusals", "status", "reason");
	for (size_t i = from; i < rs->n; i++) {
		const struct rg_result *r = &rs->rows[i];
		char ns[32], d[80], tag[16];

		if (isnan(r->ns_median))
			snprintf(ns, sizeof(ns), "-");
		else
			snprintf(ns, sizeof(ns), "%.3f", r->ns_median);
		if (isnan(r->delta_ns))
			snprintf(d, sizeof(d), "-");
		else if (isnan(r->delta_ci_lo))
			snprintf(d, sizeof(d), "%.3f", r->delta_ns);
		else
			snprintf(d, sizeof(d), "%.3f [%.3f, %.3f]%s", r->delta_ns, r->delta_ci_lo,
				 r->delta_ci_hi, rg_ci_level_tag(r->delta_ci_level, tag, sizeof(tag)));
		fprintf(f, "%-22s %-24s %12s %24s %12llu %10llu %8s  %s\n", r->guard, r->scenario, ns, d,
		       (unsigned long long)r->ops, (unsigned long long)r->refusals,
		       r->status, r->reason);
	}
}

static int write_outputs(const struct opts *o, struct rg_resultset *rs, size_t from)
{
	char err[4352];

	bool data_out = rg_output_is_stdout(o->out) || rg_output_is_stdout(o->json) ||
			rg_output_is_stdout(o->raw);

	if (!o->quiet) {
		print_table(data_out ? stderr : stdout, rs, from);
		fflush(data_out ? stderr : stdout);
	}
	/* Both files are complete and fsync'ed before either is renamed into place. */
	if ((o->out || o->json) && rg_results_write(rs, o->out, o->json, err, sizeof(err))) {
		rg_cl_error("%s", err);
		return -1;
	}
	if (o->quiet < 2)
		rg_output_say_wrote(stderr, "rgbench kmod", rs->n, o->out, o->json);
	return 0;
}

/* A converted row whose guard --guards lists ("all": every row). */
static bool guard_listed(const struct rg_result *r, void *arg)
{
	const char *list = arg;
	size_t len = strlen(r->guard);

	if (!strcmp(list, "all"))
		return true;
	for (const char *p = list; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		size_t n = strcspn(p, ",");

		if ((n == 3 && !strncmp(p, "all", 3)) || (n == len && !strncmp(p, r->guard, n)))
			return true;
	}
	return false;
}

/* The module's CSV to rows, printed and written. 0, or 1 (bad CSV, a write failed, a re-entry check failed). */
static int convert_and_write(const struct opts *o, const char *csv)
{
	struct rg_resultset rs;
	struct rg_env env;
	char err[256];
	int n, nerr = 0, ret = RG_EXIT_OK;

	rg_env_collect(&env);
	rg_results_init(&rs, &env);
	n = rg_kmod_convert(&rs, csv, &nerr, err, sizeof(err));
	if (n >= 0 && o->from_raw && rs.n && !rg_results_keep(&rs, guard_listed, (void *)o->run.guards)) {
		/* a filter that matches nothing: refused, nothing written */
		ret = rg_cl_usage_error("--guards %s: no row of %s has one of these guards",
					o->run.guards, o->from_raw);
	} else if (n < 0) {
		rg_cl_error("%s", err);
		ret = RG_EXIT_FAIL;
	} else {
		if (o->from_raw)
			nerr = (int)rg_results_nerror(&rs);
		if (write_outputs(o, &rs, 0))
			ret = RG_EXIT_FAIL;
		else if (nerr) {
			rg_cl_error("%d re-entry check(s) failed (status=error rows)", nerr);
			ret = RG_EXIT_FAIL;
		}
	}
	rg_results_free(&rs);
	return ret;
}

/* The module's CSV: read from --from-raw, or from a run (then saved to --raw). 0 or an exit status. */
static int get_csv(const struct opts *o, char **csv)
{
	char err[4352];
	int ret;

	if (o->from_raw) {
		if (rg_kmod_read_file(o->from_raw, 0, csv, err, sizeof(err))) {
			rg_cl_error("%s", err);
			return RG_EXIT_FAIL;
		}
		return 0;
	}
	ret = rg_kmod_run(&o->run, csv);
	if (ret)
		return ret;
	if (o->raw && rg_output_write(o->raw, *csv, strlen(*csv), err, sizeof(err))) {
		rg_cl_error("%s", err);
		free(*csv);
		*csv = NULL;
		return RG_EXIT_FAIL;
	}
	return 0;
}

_Static_assert(RG_KMOD_SKIP == RG_EXIT_SKIP, "rgbench kmod skips with the kit's exit code");

int rg_kmod_main(int argc, char **argv)
{
	const char *outs[3];
	char *csv = NULL, why[4352];
	struct opts o;
	int ret;

	rg_cl_set_prog("rgbench kmod");
	ret = parse_opts(argc, argv, &o);
	if (ret)
		return ret == 1 ? RG_EXIT_OK : RG_EXIT_USAGE;
	outs[0] = o.out;
	outs[1] = o.json;
	outs[2] = o.raw;
	/*
	 * Also never over --from-raw's file (or its twin): rgbench does not replace
	 * its input. A conversion costs milliseconds: it replaces no file that
	 * holds measurements unless --force.
	 */
	ret = rg_output_checkv_flags(outs, 3, &o.from_raw, 1,
				     o.from_raw ? RG_OUT_DERIVED | (o.force ? RG_OUT_FORCE : 0) : 0,
				     why, sizeof(why));
	if (!ret)	/* a CSV named .json or a JSON named .csv, after the path's own refusals */
		ret = rg_output_check_formats(o.out, o.json, why, sizeof(why));
	if (ret) {	/* RG_EXIT_USAGE: unusable path; RG_EXIT_FAIL: another run is writing it */
		rg_cl_error("%s", why);
		return ret;
	}
	ret = get_csv(&o, &csv);
	if (ret)
		return ret;
	ret = convert_and_write(&o, csv);
	free(csv);
	return ret;
}
