// SPDX-License-Identifier: MIT
/* `rgbench export --gbench`: a result file as Google Benchmark JSON, one entry per repetition and the aggregates. */
#define _GNU_SOURCE
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/cmdline.h"
#include "rg/export.h"
#include "rg/page.h"
#include "rg/results.h"

static void usage(FILE *f)
{
	fputs("usage: rgbench export --gbench FILE [--out OUT.json] [-q|-qq]\n"
	      "\n"
	      "Writes one rgbench result (CSV or JSON) as Google Benchmark's JSON, so that\n"
	      "its tools read it: `compare.py benchmarks a.json b.json` (Debian's\n"
	      "libbenchmark-tools) pairs every measured row of two runs and prints its\n"
	      "U test. Each row is a benchmark named suite/guard/scenario/threads:N/duty_ns:D\n"
	      "(stable across runs: no iteration or batch count in it). Its repetitions are\n"
	      "the row's runs (runs_ns), else its samples (BPF rows: wall and producer CPU\n"
	      "time per event; rates only: 1e3 x producers / Mops), else its median alone\n"
	      "(a CSV file keeps no samples); then\n"
	      "the aggregates median, mean, stddev and cv over them. Times are ns per pair\n"
	      "(per event for bpf rows). Rows that measured nothing (skipped) are left out.\n"
	      "Without --out the JSON goes to stdout.\n"
	      "\n"
	      "  --gbench   Google Benchmark JSON (the one format so far; required)\n"
	      "  --out F    write F whole or not at all (the one output policy); the line\n"
	      "             naming it goes to stderr\n"
	      "  -q, --quiet  no progress (export prints none; that line stays);\n"
	      "  -qq, --silent  not that line either\n"
	      "  -V, --version: the release and commit of this build; -h, --help: this text.\n"
	      "\n"
	      "example: rgbench export --gbench base.json --out base-gb.json\n"
	      "         rgbench export --gbench new.json --out new-gb.json\n"
	      "         python3 /usr/share/benchmark/compare.py benchmarks base-gb.json new-gb.json\n", f);
}

/* One repetition: real (wall) and CPU time, ns. */
struct rep {
	double real, cpu;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The row's repetitions into *out (malloc'ed), their count returned: its runs,
 * else its wall samples paired with CPU samples (bpf), else its samples, else
 * its median. 0 when the row measured nothing; -1 out of memory.
 */
static long row_reps(const struct rg_row *r, struct rep **out)
{
	const double *real = NULL, *cpu = NULL, *mops = NULL;
	double med = rg_row_d(r, RG_COL_ns_median), thr = (double)rg_row_i(r, RG_COL_threads);
	size_t n = 0;
	struct rep *v;

	*out = NULL;
	if (r->n_runs_ns) {
		real = cpu = r->runs_ns;
		n = r->n_runs_ns;
	} else if (r->n_ns && r->n_cpu == r->n_ns) {
		real = r->samples_ns;
		cpu = r->samples_cpu_ns;
		n = r->n_ns;
	} else if (r->n_ns) {
		real = cpu = r->samples_ns;
		n = r->n_ns;
	} else if (r->n_mops && rg_row_i(r, RG_COL_threads) > 0) {
		/* Rates only (bpf rows of older files): ns per event per producer, as ns_median is. */
		mops = r->samples_mops;
		n = r->n_mops;
	} else if (isfinite(med)) {
		n = 1;
	}
	if (!n)
		return 0;
	v = calloc(n, sizeof(*v));
	if (!v)
		return -1;
	for (size_t i = 0; i < n; i++) {
		v[i].real = real ? real[i] : mops ? 1e3 * thr / mops[i] : med;
		v[i].cpu = cpu ? cpu[i] : v[i].real;
	}
	*out = v;
	return (long)n;
}

/* Median, mean, stddev (n - 1) and cv of x[0..n), in that order; x is sorted. */
static void aggregates(double *x, size_t n, double agg[4])
{
	double sum = 0, ss = 0, mean;

	qsort(x, n, sizeof(*x), cmp_double);
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - mean) * (x[i] - mean);
	agg[0] = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
	agg[1] = mean;
	agg[2] = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
	agg[3] = mean != 0 ? agg[2] / mean : 0;
}

/* The row's stable name; with_batch when another row of the file has the same one. */
static void row_name(const struct rg_row *r, bool with_batch, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s/%s/%s/threads:%lld/duty_ns:%lld", rg_row_s(r, RG_COL_suite),
			 rg_row_s(r, RG_COL_guard), rg_row_s(r, RG_COL_scenario),
			 rg_row_i(r, RG_COL_threads), rg_row_i(r, RG_COL_duty_ns));

	if (with_batch && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, "/batch:%lld", rg_row_i(r, RG_COL_batch));
}

static bool same_name(const struct rg_row *a, const struct rg_row *b)
{
	return !strcmp(rg_row_s(a, RG_COL_suite), rg_row_s(b, RG_COL_suite)) &&
	       !strcmp(rg_row_s(a, RG_COL_guard), rg_row_s(b, RG_COL_guard)) &&
	       !strcmp(rg_row_s(a, RG_COL_scenario), rg_row_s(b, RG_COL_scenario)) &&
	       rg_row_i(a, RG_COL_threads) == rg_row_i(b, RG_COL_threads) &&
	       rg_row_i(a, RG_COL_duty_ns) == rg_row_i(b, RG_COL_duty_ns);
}

/* A number, or null when it is not one (JSON has no NaN). */
static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* Google Benchmark's context: its own keys, then the machine and run the rows carry. */
static json_t *context(const struct rg_row *r, const char *path)
{
	json_t *c = json_object();

	json_object_set_new(c, "date", json_string(rg_row_s(r, RG_COL_timestamp)));
	json_object_set_new(c, "host_name", json_string(rg_row_s(r, RG_COL_host)));
	json_object_set_new(c, "executable", json_string("rgbench"));
	json_object_set_new(c, "library_build_type", json_string("release"));
	json_object_set_new(c, "rgbench_file", json_string(path));
	static const enum rg_col cols[] = {
		RG_COL_rgbench_version, RG_COL_run_id, RG_COL_arch, RG_COL_cpu_vendor,
		RG_COL_cpu_model, RG_COL_cpu_part, RG_COL_kernel, RG_COL_virt, RG_COL_preempt,
	};
	static const char *const names[] = {
		"rgbench_version", "rgbench_run_id", "arch", "cpu_vendor", "cpu_model",
		"cpu_part", "kernel", "virt", "preempt",
	};
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		json_object_set_new(c, names[i], json_string(rg_row_s(r, cols[i])));
	json_object_set_new(c, "rgbench_schema_version",
			    json_integer(rg_row_i(r, RG_COL_schema_version)));
	return c;
}

/* One benchmark entry of Google Benchmark's form. */
static json_t *entry(const char *name, const struct rg_row *r, size_t family, long reps)
{
	json_t *e = json_object();

	json_object_set_new(e, "name", json_string(name));
	json_object_set_new(e, "family_index", json_integer((json_int_t)family));
	json_object_set_new(e, "per_family_instance_index", json_integer(0));
	json_object_set_new(e, "run_name", json_string(name));
	json_object_set_new(e, "repetitions", json_integer(reps));
	json_object_set_new(e, "threads", json_integer(rg_row_i(r, RG_COL_threads)));
	return e;
}

/* The rows as Google Benchmark JSON into *doc. 0, or 1 with err set. */
static int build(const struct rg_rows *rows, const char *path, json_t **doc, char *err, size_t errlen)
{
	json_t *bench = json_array(), *d = json_object();
	static const char *const agg_name[4] = { "median", "mean", "stddev", "cv" };
	size_t kept = 0;

	*doc = d;
	json_object_set_new(d, "context", context(&rows->v[0], path));
	json_object_set_new(d, "benchmarks", bench);
	for (size_t k = 0; k < rows->n; k++) {
		const struct rg_row *r = &rows->v[k];
		bool clash = false;
		struct rep *reps;
		double *real, *cpu, ar[4], ac[4];
		long n = row_reps(r, &reps);
		char name[600];

		if (n < 0)
			goto oom;
		if (!n)
			continue;
		for (size_t j = 0; j < rows->n && !clash; j++)
			clash = j != k && same_name(r, &rows->v[j]);
		row_name(r, clash, name, sizeof(name));
		real = calloc((size_t)n, sizeof(*real));
		cpu = calloc((size_t)n, sizeof(*cpu));
		if (!real || !cpu) {
			free(real);
			free(cpu);
			free(reps);
			goto oom;
		}
		for (long i = 0; i < n; i++) {
			json_t *e = entry(name, r, kept, n);

			json_object_set_new(e, "run_type", json_string("iteration"));
			json_object_set_new(e, "repetition_index", json_integer(i));
			json_object_set_new(e, "iterations", json_integer(rg_row_i(r, RG_COL_batch) > 0 ?
								      rg_row_i(r, RG_COL_batch) : 1));
			json_object_set_new(e, "real_time", num(reps[i].real));
			json_object_set_new(e, "cpu_time", num(reps[i].cpu));
			json_object_set_new(e, "time_unit", json_string("ns"));
			json_array_append_new(bench, e);
			real[i] = reps[i].real;
			cpu[i] = reps[i].cpu;
		}
		aggregates(real, (size_t)n, ar);
		aggregates(cpu, (size_t)n, ac);
		for (int a = 0; a < 4; a++) {
			char aname[640];
			json_t *e;

			snprintf(aname, sizeof(aname), "%s_%s", name, agg_name[a]);
			e = entry(aname, r, kept, n);
			json_object_set_new(e, "run_name", json_string(name));
			json_object_set_new(e, "run_type", json_string("aggregate"));
			json_object_set_new(e, "aggregate_name", json_string(agg_name[a]));
			json_object_set_new(e, "aggregate_unit", json_string(a == 3 ? "percentage" : "time"));
			json_object_set_new(e, "iterations", json_integer(n));
			json_object_set_new(e, "real_time", num(ar[a]));
			json_object_set_new(e, "cpu_time", num(ac[a]));
			json_object_set_new(e, "time_unit", json_string("ns"));
			json_array_append_new(bench, e);
		}
		free(real);
		free(cpu);
		free(reps);
		kept++;
	}
	if (!kept) {
		snprintf(err, errlen, "%s: no measured row to export (every row skipped)", path);
		return RG_EXIT_FAIL;
	}
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return RG_EXIT_FAIL;
}

int rg_export_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "gbench", no_argument, NULL, 'g' },
		RG_CL_OPT_OUT('o'),
		RG_CL_OPT_QUIET('q'),
		RG_CL_OPT_SILENT(RG_CL_O_SILENT),
		RG_CL_OPT_HELP('h'),
		{ 0 },
	};
	const char *out = NULL;
	struct rg_rows rows = { 0 };
	struct ctx c = { .cmd = "export" };
	json_t *doc = NULL;
	bool gbench = false;
	char err[1024] = "";
	int opt, ret;

	rg_cl_set_prog("rgbench export");
	rg_cl_getopt_reset();
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":qh", opts, NULL)) != -1) {
		switch (opt) {
		case 'g': gbench = true; break;
		case 'o': out = optarg; break;
		case 'q': c.quiet++; break;
		case RG_CL_O_SILENT: c.quiet = 2; break;
		case 'h': usage(stdout); return rg_cl_stdout_status(RG_EXIT_OK);
		default: return rg_cl_option_error(opt, argv);
		}
	}
	if (!gbench)
		return rg_cl_usage_error("choose a format: --gbench (Google Benchmark JSON)");
	if (argc - optind != 1)
		return rg_cl_usage_error("needs exactly one result FILE (got %d)", argc - optind);
	if (out && !*out)
		return rg_cl_usage_error("--out: an empty file name");
	rg_cl_catch_stop_signals(NULL);	/* as report: nothing written after a stop signal */
	if (rg_read_path(argv[optind], &rows, err, sizeof(err))) {
		ret = RG_EXIT_FAIL;
		goto done;
	}
	ret = build(&rows, argv[optind], &doc, err, sizeof(err));
	if (ret)
		goto done;
	ret = rp_page_open(&c, err, sizeof(err));
	if (ret) {
		ret = RG_EXIT_FAIL;
		goto done;
	}
	if (json_dumpf(doc, c.f, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) || fputc('\n', c.f) == EOF) {
		snprintf(err, sizeof(err), "out of memory");
		fclose(c.f);
		ret = RG_EXIT_FAIL;
		goto done;
	}
	ret = rp_page_emit(&c, out, err, sizeof(err));
done:
	json_decref(doc);
	rg_rows_free(&rows);
	return rp_page_end(&c, ret, err);
}
