// SPDX-License-Identifier: MIT
/* rgbench's run: output names and locks, the environment, the suite and the default run's BPF rows, the CSV and JSON. */
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

#ifndef RG_VERSION
#define RG_VERSION "unknown"
#endif

/* The stop signal caught (rg_cl_catch_stop_signals), or 0. */
static volatile sig_atomic_t g_stop;

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
	if (host[0] == '.')
		host[0] = '_';	/* visible: a host name ".x" would hide the results */
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
			return RG_EXIT_OK;
		rg_output_release();
	}
	fprintf(stderr, "rgbench: %s: a thousand results of this name already exist\n", base);
	return RG_EXIT_FAIL;
}

/* --out, --json and --benchmark_out under one check (rg_output_checkv). */
static int check_outputs(const struct rg_bench_opts *o, char *err, size_t errlen)
{
	const char *paths[3] = { o->out_csv, o->want_json ? o->out_json : NULL, o->gb_out };

	return rg_output_checkv(paths, 3, err, errlen);
}

/* results/ was created by this run: removed again when the run writes nothing. */
static bool g_made_results;

/*
 * Everything about the output is settled, and the names locked, before
 * measuring: --out (and --json FILE, or the JSON beside it), or the default
 * results/<host>-<time>.csv and .json. 0, or the exit status after one line.
 */
static int prepare_output(struct rg_bench_opts *o, const struct rg_env *env)
{
	char err[PATH_MAX + 256], base[PATH_MAX];
	int rc;

	if (!o->out_csv[0]) {
		bool made = !mkdir("results", 0755);

		g_made_results = made;
		if (!made && errno != EEXIST)
			return rg_cl_error("cannot create results/: %s", strerror(errno));
		default_base(base, sizeof(base), env);
		rc = default_output(base, o->out_csv, o->out_json, sizeof(o->out_csv),
				    o->out_json[0] != 0);
		o->want_json = true;
		if (!rc && o->gb_out) {
			rg_output_release();
			rc = check_outputs(o, err, sizeof(err));
			if (rc)
				fprintf(stderr, "rgbench: %s\n", err);
		}
		if (rc) {
			if (made)
				rmdir("results");
			return rc;
		}
		return RG_EXIT_OK;
	}
	if (o->want_json && !o->out_json[0])
		json_beside(o->out_json, sizeof(o->out_json), o->out_csv);
	rc = check_outputs(o, err, sizeof(err));
	if (rc)
		fprintf(stderr, "rgbench: %s\n", err);
	return rc;
}

/* The first progress line, and the warning that an emulator's timings are not a machine's. */
static void announce(const struct rg_suite_cfg *cfg, const struct rg_env *env)
{
	if (cfg->progress) {
		char topo[256];

		rg_topo_describe(topo, sizeof(topo));
		fprintf(cfg->progress, "rgbench %s: %s %s, kernel %s; %s\n", RG_VERSION, env->arch,
			env->cpu_model, env->kernel, topo);
	}
	if (rg_env_virt_emulated(env->virt))
		fprintf(stderr, "rgbench: WARNING: %s CPU: these timings are the emulator's, not a "
			"machine's (rows say virt=%s; compare refuses them without --allow-emulated)\n",
			env->virt, env->virt);
}

/* The default run also measures the kernel side when it can. */
static void run_bpf(const struct rg_bench_opts *o, const struct rg_suite_cfg *cfg,
		    const struct rg_bench_hooks *hooks, struct rg_resultset *rs)
{
	if (!hooks || !hooks->bpf_default) {
		if (cfg->progress)
			fprintf(cfg->progress, "rgbench: BPF suite skipped: rg_bpf not built\n");
	} else if (geteuid() == 0) {
		/*
		 * Short BPF durations except in --full: the default suite
		 * has to finish within a minute on a 2-core machine.
		 * Ctrl-C is honoured between its samples.
		 */
		if (hooks->bpf_default(rs, o->profile != 2, &g_stop, cfg->progress))
			fprintf(stderr, "rgbench: the BPF suite reported an error (see above)\n");
	} else if (cfg->progress) {
		fprintf(cfg->progress, "rgbench: BPF suite skipped: needs root\n");
	}
}

/* The CSV (and JSON) written atomically, then the count of failed benchmarks. The exit status. */
static int write_results(const struct rg_bench_opts *o, const struct rg_suite_cfg *cfg,
			 struct rg_resultset *rs)
{
	char err[PATH_MAX + 256];
	size_t nerr = 0;

	const char *gb_path, *gb_text;
	size_t gb_len;

	if (rg_results_write(rs, o->out_csv, o->want_json ? o->out_json : NULL, err, sizeof(err))) {
		fprintf(stderr, "rgbench: %s\n", err);
		return RG_EXIT_FAIL;
	}
	/* Google Benchmark's own report, kept in memory by the binding, the same way. */
	gb_text = rg_gb_out_report(&gb_path, &gb_len);
	if (gb_text && rg_output_write(gb_path, gb_text, gb_len, err, sizeof(err))) {
		fprintf(stderr, "rgbench: --benchmark_out: %s\n", err);
		return RG_EXIT_FAIL;
	}
	rg_output_release();
	if (cfg->progress) {
		fprintf(cfg->progress, "rgbench: wrote %zu rows to %s\n", rs->n, o->out_csv);
		if (o->want_json)
			fprintf(cfg->progress, "rgbench: wrote %s\n", o->out_json);
	}
	for (size_t i = 0; i < rs->n; i++)
		nerr += !strcmp(rs->rows[i].status, "error");
	if (nerr)
		fprintf(stderr, "rgbench: %zu benchmark(s) failed (status=error in the output)\n", nerr);
	return RG_EXIT_OK;
}

int rg_bench_run(struct rg_bench_opts *o, struct rg_suite_cfg *cfg,
		 const struct rg_bench_hooks *hooks)
{
	struct rg_env env;
	struct rg_resultset rs;
	int ndone, rc;

	cfg->stop = &g_stop;
	rg_env_collect(&env);
	rc = prepare_output(o, &env);
	if (rc)
		return rc;
	rg_results_init(&rs, &env);
	/* SIGINT and SIGTERM set g_stop: the suite stops at its next batch, nothing is written. */
	rg_cl_catch_stop_signals(&g_stop);
	announce(cfg, &env);
	ndone = rg_suite_run(cfg, &rs);
	if (ndone < 0) {
		rg_results_free(&rs);
		return RG_EXIT_FAIL;
	}
	if (ndone == 0 && o->gb_filter && !g_stop) {
		rg_results_free(&rs);
		rg_bench_die_usage("--benchmark_filter=%s matches no benchmark that runs here "
				   "(names: user/<guard>/<scenario>..., see --benchmark_list_tests=true)",
				   o->gb_filter);
	}
	if (rg_bench_default_run(o) && !g_stop)
		run_bpf(o, cfg, hooks, &rs);
	if (g_stop) {
		fprintf(stderr, "rgbench: interrupted by %s; no results written\n",
			rg_cl_signal_name(g_stop));
		rg_results_free(&rs);
		rg_output_release();	/* the lock files go, then an empty results/ we made */
		if (g_made_results)
			rmdir("results");
		return RG_EXIT_SIGNAL + g_stop;
	}
	rc = write_results(o, cfg, &rs);
	rg_results_free(&rs);
	return rc;
}
