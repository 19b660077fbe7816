// SPDX-License-Identifier: MIT
/* rgbench's run, from the plan only: the environment, the suite and the default run's BPF rows, the CSV and JSON. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "command.h"
#include "rg/env.h"
#include "rg/gbench.h"
#include "rg/platform.h"
#include "rg/schema.h"
#include "rg/writer.h"
#include "rg/version.h"
#include "rg/text.h"

/* The first progress line, and the warning that an emulator's timings are not a machine's. */
static void announce(const struct rg_suite_cfg *cfg, const struct rg_env *env)
{
	if (cfg->progress) {
		char topo[256];

		rg_topo_describe(topo, sizeof(topo));
		fprintf(cfg->progress, "rgbench %s: %s %s, kernel %s; %s\n", rg_version(), env->arch,
			env->cpu_model, env->kernel, topo);
		/* the CPU choice and why (profile.c, rg_place_quiet()) */
		if (cfg->ncpus > 0) {
			fprintf(cfg->progress, "rgbench: cpus %d", cfg->cpus[0]);
			for (int i = 1; i < cfg->ncpus && i < 8; i++)
				fprintf(cfg->progress, ",%d", cfg->cpus[i]);
			fprintf(cfg->progress, "%s (single-thread rows on CPU %d): %s\n",
				cfg->ncpus > 8 ? ",..." : "", cfg->cpus[0], cfg->cpus_why);
		}
	}
	if (rg_env_virt_emulated(env->virt))
		fprintf(stderr, "rgbench: WARNING: %s CPU: these timings are the emulator's, not a "
			"machine's (rows say virt=%s; compare refuses them without --allow-emulated)\n",
			env->virt, env->virt);
}

/* The default run also measures the kernel side when the plan says so (Ctrl-C is honoured between its samples). */
static void run_bpf(const struct rg_suite_cfg *cfg, struct rg_resultset *rs)
{
	if (cfg->bpf_run) {
		if (cfg->bpf_run(rs, cfg->bpf_quick, cfg->stop, cfg->progress))
			fprintf(stderr, "rgbench: the BPF suite reported an error (see above)\n");
	} else if (cfg->bpf_why && cfg->progress) {
		fprintf(cfg->progress, "rgbench: BPF suite skipped: %s\n", cfg->bpf_why);
	}
}

/* The CSV (and JSON) written atomically, then the count of failed benchmarks. The exit status. */
static int write_results(const struct rg_suite_cfg *cfg, struct rg_resultset *rs)
{
	const char *json = cfg->out_json[0] ? cfg->out_json : NULL;
	char err[PATH_MAX + 256];
	size_t nerr = 0;

	const char *gb_path, *gb_text;
	size_t gb_len;

	/*
	 * Google Benchmark's own report (kept in memory by the binding) in the
	 * same batch: all of the run's outputs or none.
	 */
	gb_text = rg_gb_out_report(&gb_path, &gb_len);
	/*
	 * A run that selected nothing this machine can run (--scenarios xpkg on
	 * one package) produced nothing, so it replaces nothing: skipped, 77.
	 */
	if (!rs->n) {
		fprintf(stderr, "rgbench: nothing to measure here: the selection has no benchmark this "
			"machine can run; no results written (%s left as it was)\n", cfg->out_csv);
		rg_output_release();
		if (cfg->out_default)
			rmdir("results");	/* only when empty: the default folder made for this run */
		return RG_EXIT_SKIP;
	}
	if (rg_results_write_with(rs, cfg->out_csv, json, gb_text ? gb_path : NULL, gb_text, gb_len,
				  err, sizeof(err))) {
		fprintf(stderr, "rgbench: %s\n", err);
		return RG_EXIT_FAIL;
	}
	rg_output_release();
	if (cfg->wrote) {
		char shown[4200];

		rg_output_say_wrote(cfg->wrote, "rgbench", rs->n, cfg->out_csv, json);
		if (gb_text) {
			rg_str_printable(shown, sizeof(shown), gb_path);	/* the terminal's sanitizer */
			fprintf(cfg->wrote, "rgbench: wrote %s\n", shown);
		}
	}
	/* Written, and a failure all the same: the same policy as kmod and bpf (README, exit codes). */
	nerr = rg_results_nerror(rs);
	if (nerr)
		fprintf(stderr, "rgbench: %zu benchmark(s) failed (status=error in the output)\n", nerr);
	return nerr ? RG_EXIT_FAIL : RG_EXIT_OK;
}

int rg_bench_run(const struct rg_suite_cfg *cfg)
{
	struct rg_env env;
	struct rg_resultset rs;
	int ndone, rc;

	rg_env_collect(&env);
	rg_results_init(&rs, &env);
	/* SIGINT and SIGTERM set *cfg->stop: the suite stops at its next batch, nothing is written. */
	rg_cl_catch_stop_signals(cfg->stop);
	announce(cfg, &env);
	ndone = rg_suite_run(cfg, &rs);
	if (ndone < 0) {
		rg_results_free(&rs);
		return RG_EXIT_FAIL;
	}
	if (!*cfg->stop)
		run_bpf(cfg, &rs);
	if (*cfg->stop) {
		fprintf(stderr, "rgbench: interrupted by %s; no results written\n",
			rg_cl_signal_name(*cfg->stop));
		rg_results_free(&rs);
		rg_output_release();	/* the lock files go, then an empty default results/ */
		if (cfg->out_default)
			rmdir("results");
		return RG_EXIT_SIGNAL + *cfg->stop;
	}
	rc = write_results(cfg, &rs);
	rg_results_free(&rs);
	return rc;
}
