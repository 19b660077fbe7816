// SPDX-License-Identifier: MIT
/* `rgbench compare`: A/B tables (text, Markdown, commit log, CSV) with a Mann-Whitney U verdict; the command line. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/cmdline.h"
#include "rg/env.h"
#include "compare.h"

static void usage(FILE *f)
{
	fputs("usage: rgbench compare [--markdown|--commit-log|--csv] [--all] [--width N] [--across-hosts] BASE NEW\n"
	      "       rgbench compare [--markdown|--commit-log|--csv] [--width N] --across-hosts FILE...\n"
	      "       rgbench compare [--markdown|--csv] [--width N] --across-suites USER KMOD\n"
	      "       rgbench compare [--markdown|--commit-log|--csv] [--all] [--width N] --baseline GUARD FILE\n"
	      "BASE, NEW, FILE: result files (.csv/.json) or directories of them.\n"
	      "By default the table holds the lines that decide: the kernel designs (roles.def's\n"
	      "kernel roles) on one-thread pair rows and module loop rows, and every change\n"
	      "called; one line says how many were left out. --all: every line (CSV always has\n"
	      "every line; a row selection below shows every row it keeps). Lines with nothing\n"
	      "measured (e.g. arm64-only guards in an x86-64 run) are folded into one line per\n"
	      "status and reason, naming their guards. --commit-log without --all: the decision\n"
	      "rows alone when there are any, the lines with nothing measured counted in one.\n"
	      "change: new against base with the interval of the difference [lo, hi] in %, 95%\n"
	      "or more unless its level follows it; the verdict (text, Markdown) or p column\n"
	      "(--commit-log) gives the test's p.\n"
	      "--width N: the lines above and under the table wrap at N columns (default 72,\n"
	      "never cut); the text table is one line a row when it fits N, else one record a\n"
	      "row (name and batch, figures, verdict) within N (--across-suites: one record a\n"
	      "guard); --commit-log fits its table in 72 (or N, when less), a name too long for\n"
	      "its column on a line of its own (never cut); with --across-hosts over several\n"
	      "hosts, the width of the page.\n"
	      "--across-hosts with other than two files, or files of more than two machines: the\n"
	      "role matrix, decision table and prediction of rgbench report, fitted to --width\n"
	      "(default 72); --csv: the matrix, one line per role and host.\n"
	      "--allow-emulated: compare rows measured on an emulated CPU (virt emulated (...)),\n"
	      "                  refused otherwise (exit 2).\n"
	      "--unit ns|cycles: ns figures as measured (default) or in reference cycles\n"
	      "                  (each row's ns / its ref_ns_per_cycle).\n"
	      "Rows (every form): --guards G,G... --scenarios S,S... --roles R,R... keep the rows\n"
	      "whose guard, scenario or role is listed; --rows PATTERN those whose name\n"
	      "suite/guard/scenario/tTHREADS/dDUTY matches the shell pattern (e.g. 'user/*/pair/t1/*').\n"
	      "A selection that keeps no row of any file is refused (exit 2).\n"
	      "-V, --version: the release and commit of this build; -h, --help: this text.\n"
	      "Pairs the rows of BASE and NEW by guard, scenario and parameters and says for\n"
	      "each whether it changed beyond run-to-run noise (Mann-Whitney U over runs or\n"
	      "samples, against the A/A floor the files measured); two files of one host and\n"
	      "build are checked as an A/A pair first.\n"
	      "Examples:\n"
	      "  rgbench compare results/before.json results/after.json\n"
	      "  rgbench compare --commit-log --baseline tls results/run.json\n"
	      "  rgbench compare --commit-log --scenarios pair --roles merged-rctx,this-cpu-6.18 base.json new.json\n", f);
}

/* The first "emulated (...)" virt value among a side's rows, NULL when there is none. */
static const char *emulated_virt(const struct side *s)
{
	for (size_t i = 0; i < s->rows.n; i++) {
		const char *virt = rg_row_s(&s->rows.v[i], RG_COL_virt);

		if (rg_env_virt_emulated(virt))
			return virt;
	}
	return NULL;
}

/* What the command line asked for. */
struct opts {
	enum out_fmt fmt;
	const char *baseline;	/* --baseline GUARD, else NULL */
	bool across, suites, allow_emulated;
	const char *unit;	/* --unit ns|cycles, else NULL (ns) */
	bool cycles;		/* --unit cycles: the rows' ns figures turned into reference cycles */
	size_t nocycle;		/* --unit cycles: measured rows without the reference */
	const char *path[2];	/* BASE and NEW (or FILE, then path[1] is NULL) */
	long width;		/* --width, for --across-hosts over several hosts */
	struct rg_select sel;	/* --guards, --scenarios, --roles, --rows */
	bool any_sel;
	bool all;		/* --all: every line, not only those that decide */
	bool width_given;
	int first, nfiles;	/* operands argv[first .. first+nfiles) */
};

/* The options and operands into o: -1 to go on, else the exit status (help, usage). */
static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option opts[] = {
		{ "markdown", no_argument, NULL, 'm' },
		{ "commit-log", no_argument, NULL, 'c' },
		{ "csv", no_argument, NULL, 'v' },
		RP_OPTS_PAGE,
		{ "across-suites", no_argument, NULL, 's' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "guards", required_argument, NULL, 'G' },
		{ "scenarios", required_argument, NULL, 'S' },
		{ "roles", required_argument, NULL, 'R' },
		{ "rows", required_argument, NULL, 'P' },
		{ "all", no_argument, NULL, 'A' },
		RG_CL_OPT_HELP('h'),
		{ 0 },
	};
	int opt, nfmt = 0;

	rg_cl_getopt_reset();
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (opt) {
		case 'm': o->fmt = OUT_MARKDOWN; nfmt++; break;
		case 'c': o->fmt = OUT_COMMIT; nfmt++; break;
		case 'v': o->fmt = OUT_CSV; nfmt++; break;
		case 'a': o->across = true; break;
		case 's': o->suites = true; break;
		case 'A': o->all = true; break;
		case 'b': o->baseline = optarg; break;
		case 'e': o->allow_emulated = true; break;
		case 'G': case 'S': case 'R': case 'P':
			if (!*optarg)
				return rg_cl_usage_error("--%s: an empty list", opt == 'G' ? "guards" :
							 opt == 'S' ? "scenarios" : opt == 'R' ? "roles" : "rows");
			*(opt == 'G' ? &o->sel.guards : opt == 'S' ? &o->sel.scenarios :
			  opt == 'R' ? &o->sel.roles : &o->sel.rows) = optarg;
			o->any_sel = true;
			break;
		case 'u':
			if (rp_opt_unit(optarg, &o->unit))
				return RG_EXIT_USAGE;
			break;
		case 'w':
			if (rp_opt_width(optarg, &o->width))
				return RG_EXIT_USAGE;
			o->width_given = true;
			break;
		case 'h': usage(stdout); return RG_EXIT_OK;
		default: return rg_cl_option_error(opt, argv);
		}
	}
	if (nfmt > 1)
		return rg_cl_usage_error("choose one of --markdown, --commit-log, --csv");
	if (o->all && o->suites)
		return rg_cl_usage_error("--all chooses among the lines of BASE NEW or --baseline: not with --across-suites");
	if (o->suites && (o->baseline || o->across || argc - optind != 2))
		return rg_cl_usage_error("--across-suites takes a user-suite file and a kmod file, alone");
	if (o->suites && o->fmt == OUT_COMMIT)
		return rg_cl_usage_error("--across-suites prints text, --markdown or --csv");
	if (o->baseline && o->across)
		return rg_cl_usage_error("--baseline compares guards within one file; drop --across-hosts");
	/* --width: the page over several hosts, the lines around a table elsewhere; CSV has none */
	if (o->width_given && o->fmt == OUT_CSV)
		return rg_cl_usage_error("--width fits text, --markdown and --commit-log: not with --csv");
	if (o->width_given && o->fmt == OUT_COMMIT && o->width > COMMIT_LOG_WIDTH)
		return rg_cl_usage_error("--commit-log fits %d columns: --width %ld is wider",
					 COMMIT_LOG_WIDTH, o->width);
	if (o->baseline && !*o->baseline)
		return rg_cl_usage_error("--baseline: an empty guard name");
	if (o->baseline && argc - optind != 1)
		return rg_cl_usage_error("--baseline GUARD takes exactly one FILE (got %d)", argc - optind);
	o->first = optind;
	o->nfiles = argc - optind;
	if (o->across && o->nfiles >= 1)
		return -1;
	if (!o->baseline && argc - optind != 2)
		return rg_cl_usage_error("needs BASE and NEW");
	o->path[0] = argv[optind];
	o->path[1] = o->baseline ? NULL : argv[optind + 1];
	return -1;
}

/* --unit given: the header says which unit, and once how many rows had no cycle reference. */
static void unit_lines(const struct opts *o, struct lines *hl)
{
	if (!o->unit)
		return;
	if (!strcmp(o->unit, "ns")) {
		cmp_addl(hl, "unit: ns");
		return;
	}
	cmp_addl(hl, "unit: reference cycles (cyc): each row's ns / its ref_ns_per_cycle");
	if (o->nocycle)
		cmp_addl(hl, "note: %zu row%s n/a in cycles: no cycle reference (ref_ns_per_cycle n/a)",
			 o->nocycle, o->nocycle == 1 ? " shows" : "s show");
}

/*
 * Print buf to stdout: 0, or 1 when stdout fails; nothing after a stop signal
 * (128+signal). A name cut to a header's buffer never leaves half a character.
 */
static int put_stdout(char *buf, size_t len)
{
	if (rg_cl_signal_status())
		return rg_cl_interrupted();
	rg_utf8_repair(buf);
	fwrite(buf, 1, len, stdout);
	return rg_cl_stdout_status(RG_EXIT_OK);	/* one line when stdout fails */
}

/* --across-suites: the files' timed user and kmod rows side by side. 0, or 1 with err set. */
static int run_across_suites(const struct opts *o, const struct side *A, const struct side *B,
			     char *err, size_t errlen)
{
	const struct side *S[2] = { A, B };
	struct lines hl = { 0 };
	char *buf = NULL;
	size_t blen = 0;
	int ret = 1;
	FILE *mem;

	for (int k = 0; k < 2; k++) {
		const char *want = k ? "kmod" : "user";

		if (!cmp_has_timed(S[0], want) && !cmp_has_timed(S[1], want)) {
			snprintf(err, errlen, "--across-suites: neither %s nor %s "
				 "has timed rows of suite %s (%s)", A->path, B->path, want,
				 k ? "rgbench kmod" : "rgbench: pair or duty");
			goto out;
		}
	}
	cmp_header_lines(&hl, A, B, false, true);
	unit_lines(o, &hl);
	/* Name each file by the suite it brings rather than base/new. */
	for (int k = 0; k < 2 && k < (int)hl.n; k++) {
		const char *what = cmp_has_timed(S[k], "user") && cmp_has_timed(S[k], "kmod") ?
				   "both:" : cmp_has_timed(S[k], "user") ? "user:" : "kmod:";

		if (!strncmp(hl.v[k], k ? "new: " : "base:", 5))
			memcpy(hl.v[k], what, 5);
	}
	mem = open_memstream(&buf, &blen);
	if (mem) {
		int e = cmp_emit_across_suites(mem, o->fmt, (size_t)o->width, A, B, o->cycles, &hl);

		if (fclose(mem) || e < 0)
			mem = NULL;
		else if (e > 0) {
			snprintf(err, errlen, "--across-suites: no guard in %s or %s",
				 A->path, B->path);
			goto out;
		}
	}
	if (!mem) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	ret = put_stdout(buf, blen);
out:
	for (size_t i = 0; i < hl.n; i++)
		free(hl.v[i]);
	free(hl.v);
	free(buf);
	return ret;
}

/* The column labels: long (table heads) and short (commit log, CSV, role lines, verdicts). */
struct labels {
	char la[160], lb[160], las[160], lbs[160];
};

/* Which lines to compare, and how to label their sides. NULL when out of memory or no baseline rows (err set). */
static struct cmp *pair_lines(const struct opts *o, const struct side *A, const struct side *B,
			      size_t *n, struct labels *l, char *err, size_t errlen)
{
	struct cmp *v;
	size_t nbase = 0;

	if (o->baseline) {
		v = cmp_pair_baseline(A, o->baseline, n, &nbase);
		if (v && !nbase) {
			snprintf(err, errlen, "%s: no rows for guard '%s'", A->path, o->baseline);
			free(v);
			return NULL;
		}
		snprintf(l->la, sizeof(l->la), "%s", o->baseline);
		snprintf(l->lb, sizeof(l->lb), "value");
		snprintf(l->las, sizeof(l->las), "%s", o->baseline);
		snprintf(l->lbs, sizeof(l->lbs), "value");
	} else {
		v = cmp_pair_ab(A, B, o->across, n);
		if (v && o->across)
			v = cmp_pair_roles(v, n);
		if (o->across) {
			cmp_host_label(A, l->la, sizeof(l->la), true);
			cmp_host_label(B, l->lb, sizeof(l->lb), true);
			cmp_host_label(A, l->las, sizeof(l->las), false);
			cmp_host_label(B, l->lbs, sizeof(l->lbs), false);
		} else {
			snprintf(l->la, sizeof(l->la), "base");
			snprintf(l->lb, sizeof(l->lb), "new");
			snprintf(l->las, sizeof(l->las), "base");
			snprintf(l->lbs, sizeof(l->lbs), "new");
		}
	}
	if (!v)
		snprintf(err, errlen, "out of memory");
	return v;
}

/* The lines above the table: the sides, their differences, the stand-ins by role, notes. */
static void header(struct lines *hl, const struct opts *o, const struct side *A,
		   const struct side *B, const struct cmp *v, size_t n, const struct labels *l,
		   const char *emu)
{
	cmp_header_lines(hl, A, o->baseline ? NULL : B, o->across, o->fmt != OUT_COMMIT);
	if (!o->baseline)
		cmp_interleave_lines(hl, v, n);
	if (!o->baseline && !o->across)
		cmp_aa_lines(hl, A, B, v, n, o->cycles);
	/* Which guard stood in for a role on each side (once per role and pair of names). */
	for (size_t i = 0; o->across && i < n; i++) {
		bool seen = false;

		if (!v[i].role[0])
			continue;
		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(v[k].role, v[i].role) &&
			       !strcmp(rg_row_s(v[k].a, RG_COL_guard), rg_row_s(v[i].a, RG_COL_guard)) &&
			       !strcmp(rg_row_s(v[k].b, RG_COL_guard), rg_row_s(v[i].b, RG_COL_guard));
		if (!seen)
			cmp_addl(hl, "role %s: %s=%s, %s=%s", v[i].role, l->las,
				 rg_row_s(v[i].a, RG_COL_guard), l->lbs, rg_row_s(v[i].b, RG_COL_guard));
	}
	if (emu)
		cmp_addl(hl, "note: emulated CPU (virt: %s): timings are the emulator's, not a machine's", emu);
	if (o->baseline)
		cmp_addl(hl, "every guard relative to '%s' on the same suite/scenario/threads/duty",
			 o->baseline);
	unit_lines(o, hl);
}

/* BASE against NEW, or every guard against --baseline: 0, or 1 with err set. */
static int run_pairs(const struct opts *o, const struct side *A, const struct side *B,
		     const char *emu, char *err, size_t errlen)
{
	struct lines hl = { 0 };
	struct labels l;
	struct cmp *v;
	char *buf = NULL;
	size_t n = 0, blen = 0;
	int ret = 1;
	FILE *mem;

	v = pair_lines(o, A, B, &n, &l, err, errlen);
	if (!v)
		return 1;
	header(&hl, o, A, B, v, n, &l, emu);
	/* Build everything in memory: on any failure nothing reaches stdout. */
	mem = open_memstream(&buf, &blen);
	if (mem) {
		/* a row selection is the rows asked for: every one of them */
		struct emit_opts eo = { o->fmt, l.la, l.lb, l.las, l.lbs, o->baseline != NULL,
					o->cycles, o->all || o->any_sel, (size_t)o->width };
		int e = cmp_emit(mem, &eo, v, n, &hl);

		if (fclose(mem) || e)
			mem = NULL;
	}
	if (mem)
		ret = put_stdout(buf, blen);
	else
		snprintf(err, errlen, "out of memory");
	for (size_t i = 0; i < hl.n; i++)
		free(hl.v[i]);
	free(hl.v);
	free(buf);
	free(v);
	return ret;
}

int rg_compare_main(int argc, char **argv)
{
	struct opts o = { .fmt = OUT_TEXT, .width = 72 };
	struct side A = { 0 }, B = { 0 };
	char err[1024] = "";
	const char *emu;
	int ret;

	rg_cl_set_prog("rgbench compare");
	ret = parse_args(argc, argv, &o);
	if (ret >= 0)
		return ret;
	/* SIGINT, SIGTERM, SIGHUP, SIGQUIT: nothing printed after one, one line, 128+signal. */
	rg_cl_catch_stop_signals(NULL);
	if (o.across && cmp_fleet_wanted(argv + o.first, (size_t)o.nfiles)) {
		/* the page over several hosts shows ns and reference cycles side by side */
		if (o.width_given && o.fmt == OUT_COMMIT)
			return rg_cl_usage_error("--commit-log over more than two hosts is %d columns: drop --width",
						 COMMIT_LOG_WIDTH);
		if (o.all)
			return rg_cl_usage_error("--all chooses among the lines of two files or --baseline: "
						 "the page over more than two hosts has no such choice");
		if (o.unit)
			return rg_cl_usage_error("--unit: the page over more than two hosts shows ns and "
						 "reference cycles both; drop --unit");
		return cmp_fleet_main(argv + o.first, (size_t)o.nfiles, o.fmt, o.width, o.allow_emulated,
				      o.any_sel ? &o.sel : NULL);
	}
	if (o.across) {
		o.path[0] = argv[o.first];
		o.path[1] = argv[o.first + 1];
	}
	ret = RG_EXIT_FAIL;
	A.path = o.path[0];
	if (rg_read_path(A.path, &A.rows, err, sizeof(err)))
		goto out;
	if (!o.baseline) {
		B.path = o.path[1];
		if (rg_read_path(B.path, &B.rows, err, sizeof(err)))
			goto out;
	}
	if (rg_cl_signal_status()) {
		ret = rg_cl_interrupted();
		goto out;
	}
	/* The rows asked for, on every form; a selection that keeps nothing is a usage error. */
	/* --baseline keeps its guard's rows; B has none then. */
	if (o.any_sel && (rg_rows_select(&A.rows, &o.sel, o.baseline) == (size_t)-1 ||
			  rg_rows_select(&B.rows, &o.sel, NULL) == (size_t)-1)) {
		snprintf(err, sizeof(err), "out of memory");
		goto out;
	}
	if (o.any_sel && !A.rows.n && !B.rows.n) {
		rg_cl_usage_error("the row selection keeps no row of %s%s%s", A.path,
				  o.baseline ? "" : " or ", o.baseline ? "" : B.path);
		ret = RG_EXIT_USAGE;
		goto out;
	}
	/* Timings taken under qemu are the emulator's: refuse them unless asked. */
	emu = emulated_virt(&A);
	if (!emu && !o.baseline)
		emu = emulated_virt(&B);
	if (emu && !o.allow_emulated) {
		rg_cl_error("%s holds rows measured on an emulated CPU (virt: %s), whose timings are "
			    "not a machine's; --allow-emulated compares them anyway",
			    emulated_virt(&A) ? A.path : B.path, emu);
		ret = RG_EXIT_USAGE;
		err[0] = 0;
		goto out;
	}
	o.cycles = o.unit && !strcmp(o.unit, "cycles");
	if (o.cycles) {
		o.nocycle = rg_rows_to_cycles(&A.rows) + rg_rows_to_cycles(&B.rows);
	}
	if (o.suites)
		ret = run_across_suites(&o, &A, &B, err, sizeof(err));
	else
		ret = run_pairs(&o, &A, &B, emu, err, sizeof(err));
out:
	if (ret == RG_EXIT_FAIL && rg_cl_signal_status())
		ret = rg_cl_interrupted();	/* a read a stop signal ended: one line, 128+signal */
	else if (err[0])
		rg_cl_error("%s", err);
	rg_rows_free(&A.rows);
	rg_rows_free(&B.rows);
	return ret;
}
