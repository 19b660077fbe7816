// SPDX-License-Identifier: MIT
/* `rgbench kmod`'s command line: options, usage, the table it prints, and rg_kmod_main() tying load and convert together. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/env.h"
#include "rg/kmod.h"
#include "rg/results.h"
#include "kmod_int.h"

struct opts {
	struct rg_kmod_run_opts run;	/* what the module is asked to do */
	const char *out, *json, *raw, *from_raw;
	bool quiet;
};

static void usage(FILE *to)
{
	fprintf(to,
		"usage: rgbench kmod [--guards LIST] [--cpus LIST] [--threads N] [--siblings]\n"
		"                    [--repetitions N] [--batch N | --duration SECONDS]\n"
		"                    [--duty NS] [--irqs-on] [--irq-iters N] [--no-nmi]\n"
		"                    [--kdir DIR | --module FILE.ko] [--out F.csv] [--json F.json]\n"
		"                    [--raw F.csv] [--from-raw F.csv] [--quiet]\n"
		"  Loads rgbench_kmod.ko (built from %s against --kdir,\n"
		"  default /lib/modules/$(uname -r)/build), runs every selected guard on\n"
		"  one bound kthread per physical core (interrupts off, guards in shuffled\n"
		"  rounds) plus the softirq/hardirq/NMI re-entry tests, unloads it and\n"
		"  writes rows (suite=kmod). Needs root and a kernel with module support;\n"
		"  otherwise it says why and exits %d (skipped).\n"
		"  Old spellings: --runs (--repetitions), --loops (--batch), --duty-ns (--duty);\n"
		"  --irqs-off is the default now and accepted.\n"
		"  --raw saves the module's own CSV; --from-raw converts such a file\n"
		"  without loading anything.\n", RG_KMOD_SRC_DIR, RG_KMOD_SKIP);
}

static bool parse_ulong(const char *s, unsigned long *v, unsigned long max)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	return *s && *s != '-' && !errno && *end == '\0' && *v <= max;
}

static bool parse_seconds(const char *s, unsigned long *ns)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || errno || *end || !(v >= 1e-6 && v <= 10))
		return false;
	*ns = (unsigned long)(v * 1e9);
	return true;
}

/* Characters allowed in guard and CPU lists (they go into module params). */
static bool list_ok(const char *s)
{
	return *s && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-,_") == strlen(s);
}

static const struct option long_opts[] = {
	{ "guards", required_argument, NULL, 'g' },
	{ "cpus", required_argument, NULL, 'c' },
	{ "threads", required_argument, NULL, 't' },
	{ "siblings", no_argument, NULL, 's' },
	{ "batch", required_argument, NULL, 'l' },
	{ "loops", required_argument, NULL, 'l' },
	{ "duration", required_argument, NULL, 'D' },
	{ "repetitions", required_argument, NULL, 'r' },
	{ "runs", required_argument, NULL, 'r' },
	{ "duty", required_argument, NULL, 'd' },
	{ "duty-ns", required_argument, NULL, 'd' },
	{ "irqs-on", no_argument, NULL, 'O' },
	{ "irqs-off", no_argument, NULL, 'I' },
	{ "irq-iters", required_argument, NULL, 'i' },
	{ "no-nmi", no_argument, NULL, 'N' },
	{ "kdir", required_argument, NULL, 'k' },
	{ "module", required_argument, NULL, 'm' },
	{ "out", required_argument, NULL, 'o' },
	{ "json", required_argument, NULL, 'j' },
	{ "raw", required_argument, NULL, 'R' },
	{ "from-raw", required_argument, NULL, 'F' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

/* Options given, for the checks that involve two of them. */
struct seen {
	bool batch, irqs_off;
};

/* One option's value into o. 0, or -1 for a bad value. */
static int set_numeric(int c, struct opts *o, const char *arg)
{
	struct rg_kmod_run_opts *r = &o->run;

	switch (c) {
	case 't':
		return parse_ulong(arg, &r->threads, 4096) && r->threads ? 0 : -1;
	case 'l':
		return parse_ulong(arg, &r->loops, 1UL << 40) && r->loops ? 0 : -1;
	case 'D':
		return parse_seconds(arg, &r->run_ns) ? 0 : -1;
	case 'r':
		return parse_ulong(arg, &r->runs, 100000) && r->runs ? 0 : -1;
	case 'd':
		return parse_ulong(arg, &r->duty_ns, 1000000) ? 0 : -1;
	case 'i':
		return parse_ulong(arg, &r->irq_iters, 10000000) ? 0 : -1;
	}
	return -1;
}

/* One option. 0; 1 after --help; -1 unknown option; -2 bad value. */
static int set_option(int c, struct opts *o, struct seen *seen)
{
	switch (c) {
	case 'g': o->run.guards = optarg; return 0;
	case 'c': o->run.cpus = optarg; return 0;
	case 's': o->run.siblings = true; return 0;
	case 'O': o->run.irqs_on = true; return 0;
	case 'I': seen->irqs_off = true; return 0;
	case 'N': o->run.no_nmi = true; return 0;
	case 'k': o->run.kdir = optarg; return 0;
	case 'm': o->run.module = optarg; return 0;
	case 'o': o->out = optarg; return 0;
	case 'j': o->json = optarg; return 0;
	case 'R': o->raw = optarg; return 0;
	case 'F': o->from_raw = optarg; return 0;
	case 'q': o->quiet = true; return 0;
	case 'h': usage(stdout); return 1;
	case 't': case 'l': case 'D': case 'r': case 'd': case 'i':
		seen->batch |= c == 'l';
		return set_numeric(c, o, optarg) ? -2 : 0;
	}
	return -1;
}

/* What no single option can check. 0 or -1 (message printed). */
static int check_opts(const struct opts *o, const struct seen *seen)
{
	if (!list_ok(o->run.guards) || !list_ok(o->run.cpus)) {
		fprintf(stderr, "rgbench kmod: --guards and --cpus take comma-separated names "
			"or ranges, e.g. --guards rctx,noop --cpus 0-3\n");
		return -1;
	}
	if (o->run.kdir && o->run.module) {
		fprintf(stderr, "rgbench kmod: give --kdir or --module, not both\n");
		return -1;
	}
	if (seen->batch && o->run.run_ns) {
		fprintf(stderr, "rgbench kmod: give --batch or --duration, not both\n");
		return -1;
	}
	if (seen->irqs_off && o->run.irqs_on) {
		fprintf(stderr, "rgbench kmod: give --irqs-on or --irqs-off, not both\n");
		return -1;
	}
	return 0;
}

/* 0: run; 1: --help was printed; -1: bad usage (message printed). */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	struct seen seen = { 0 };
	int c, li = 0, r;

	memset(o, 0, sizeof(*o));
	o->run.guards = "all";
	o->run.cpus = "all";
	o->run.loops = 100000;
	o->run.runs = 5;
	o->run.irq_iters = 1000;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", long_opts, &li)) != -1) {
		r = set_option(c, o, &seen);
		if (r == 1)
			return 1;
		if (r == -2) {
			fprintf(stderr, "rgbench kmod: bad value '%s' for --%s\n", optarg,
				long_opts[li].name);
			return -1;
		}
		if (r) {
			fprintf(stderr, "rgbench kmod: unknown or incomplete option '%s' "
				"(see rgbench kmod --help)\n", argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rgbench kmod: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	return check_opts(o, &seen);
}

static void print_table(const struct rg_resultset *rs, size_t from)
{
	printf("%-22s %-24s %12s %24s %12s %10s %8s  %s\n", "guard", "scenario", "ns/pair(med)",
	       "-noop [95% interval]", "ops", "refusals", "status", "reason");
	for (size_t i = from; i < rs->n; i++) {
		const struct rg_result *r = &rs->rows[i];
		char ns[32], d[64];

		if (isnan(r->ns_median))
			snprintf(ns, sizeof(ns), "-");
		else
			snprintf(ns, sizeof(ns), "%.3f", r->ns_median);
		if (isnan(r->delta_ns))
			snprintf(d, sizeof(d), "-");
		else if (isnan(r->delta_ci_lo))
			snprintf(d, sizeof(d), "%.3f", r->delta_ns);
		else
			snprintf(d, sizeof(d), "%.3f [%.3f, %.3f]", r->delta_ns, r->delta_ci_lo,
				 r->delta_ci_hi);
		printf("%-22s %-24s %12s %24s %12llu %10llu %8s  %s\n", r->guard, r->scenario, ns, d,
		       (unsigned long long)r->ops, (unsigned long long)r->refusals,
		       r->status, r->reason);
	}
}

static int write_outputs(const struct opts *o, struct rg_resultset *rs, size_t from)
{
	char err[4352];

	if (!o->quiet)
		print_table(rs, from);
	/* Both files are complete and fsync'ed before either is renamed into place. */
	if ((o->out || o->json) && rg_results_write(rs, o->out, o->json, err, sizeof(err))) {
		fprintf(stderr, "rgbench kmod: %s\n", err);
		return -1;
	}
	return 0;
}

/* The module's CSV to rows, printed and written. 0, or 1 (bad CSV, a write failed, a re-entry check failed). */
static int convert_and_write(const struct opts *o, const char *csv)
{
	struct rg_resultset rs;
	struct rg_env env;
	char err[256];
	int n, nerr = 0, ret = 0;

	rg_env_collect(&env);
	rg_results_init(&rs, &env);
	n = rg_kmod_convert(&rs, csv, &nerr, err, sizeof(err));
	if (n < 0) {
		fprintf(stderr, "rgbench kmod: %s\n", err);
		ret = 1;
	} else {
		if (write_outputs(o, &rs, 0))
			ret = 1;
		else if (nerr) {
			fprintf(stderr, "rgbench kmod: %d re-entry check(s) failed "
				"(status=error rows)\n", nerr);
			ret = 1;
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
		if (rg_kmod_read_file(o->from_raw, csv, err, sizeof(err))) {
			fprintf(stderr, "rgbench kmod: %s\n", err);
			return 1;
		}
		return 0;
	}
	ret = rg_kmod_run(&o->run, csv);
	if (ret)
		return ret;
	if (o->raw && rg_output_write(o->raw, *csv, strlen(*csv), err, sizeof(err))) {
		fprintf(stderr, "rgbench kmod: %s\n", err);
		free(*csv);
		*csv = NULL;
		return 1;
	}
	return 0;
}

int rg_kmod_main(int argc, char **argv)
{
	const char *outs[3];
	char *csv = NULL, why[4352];
	struct opts o;
	int ret;

	ret = parse_opts(argc, argv, &o);
	if (ret)
		return ret > 0 ? 0 : 2;
	outs[0] = o.out;
	outs[1] = o.json;
	outs[2] = o.raw;
	ret = rg_output_checkv(outs, 3, why, sizeof(why));
	if (ret) {	/* 2: unusable path; 1: another run is writing it */
		fprintf(stderr, "rgbench kmod: %s\n", why);
		return ret;
	}
	ret = get_csv(&o, &csv);
	if (ret)
		return ret;
	ret = convert_and_write(&o, csv);
	free(csv);
	return ret;
}
