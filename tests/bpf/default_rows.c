// SPDX-License-Identifier: MIT
/* rg_bpf_run_default() (what the default suite calls as root): one row per variant and mode, each with a spread and a paired delta. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"
#include "rg/env.h"
#include "rg/schema.h"
#include "rg/bpf.h"

static bool is_baseline(const char *g)
{
	return !strcmp(g, "base") || !strcmp(g, "user-count") || !strcmp(g, "driver-empty") ||
	       !strcmp(g, "driver-kfunc") || !strcmp(g, "driver-count");
}

/* The row a variant is measured against (docs/bpf.md), NULL for the baselines. */
static const char *baseline_of(const char *g, const char *mode)
{
	if (!strcmp(g, "driver-count"))
		return "driver-empty";
	if (is_baseline(g))
		return NULL;
	if (!strcmp(mode, "syscall"))
		return "base";
	if (!strcmp(g, "fmod_ret") || !strcmp(g, "tp") || !strcmp(g, "raw_tp") || !strcmp(g, "tp_btf"))
		return "driver-kfunc";
	return "driver-empty";
}

static volatile sig_atomic_t g_stop;

static void on_signal(int sig)
{
	g_stop = sig;
}

static void *send_sigint(void *arg)
{
	(void)arg;
	usleep(1500 * 1000);
	kill(getpid(), SIGINT);
	return NULL;
}

/*
 * "stop": SIGINT 1.5 s into the default BPF rows (about 20 s here). The run
 * stops at the next sample boundary, returns 0, and keeps only finished rows.
 */
static int stop_case(void)
{
	struct sigaction sa;
	struct rg_resultset rs;
	struct rg_env env;
	pthread_t tid;
	int rc;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	rg_env_collect(&env);
	rg_results_init(&rs, &env);
	pthread_create(&tid, NULL, send_sigint, NULL);
	rc = rg_bpf_run_default(&rs, 1, &g_stop, stdout);
	pthread_join(tid, NULL);
	CHECK(rc == 0, "interrupted run returned %d", rc);
	CHECK(g_stop == SIGINT, "the stop flag is the caller's: %d", (int)g_stop);
	/* The full default has >= 20 rows; 1.5 s in, only the first few are done. */
	CHECK(rs.n < 12, "%zu rows: the run did not stop", rs.n);
	for (size_t i = 0; i < rs.n; i++) {
		struct rg_result *r = &rs.rows[i];

		CHECK(strcmp(r->status, "ok") || r->repetitions == 5,
		      "%s/%s: a cut row was kept (%ld samples)", r->guard, r->scenario, r->repetitions);
	}
	printf("stopped after %zu rows\n", rs.n);
	rg_results_free(&rs);
	return rg_test_done("bpf.default_rows stop");
}

static double vmin(const double *v, size_t n)
{
	double m = v[0];

	for (size_t i = 1; i < n; i++)
		m = fmin(m, v[i]);
	return m;
}

static double vmax(const double *v, size_t n)
{
	double m = v[0];

	for (size_t i = 1; i < n; i++)
		m = fmax(m, v[i]);
	return m;
}

/*
 * 5 samples in 3 passes (2, 2, 1): each pass's value is the median of its
 * samples' producer CPU ns per event (and of their CPU deltas); the row's
 * delta, interval and floor are over the passes exactly as the user suite's
 * are over its runs.
 */
static void check_passes(const struct rg_result *r, bool paired)
{
	static const size_t lo[] = { 0, 2, 4, 5 };
	const char *g = r->guard, *m = r->scenario;
	const double *run = paired ? r->runs_delta_ns : r->runs_ns;

	CHECK(r->samples_cpu_ns && r->runs == 3 && r->nruns == 3 && r->runs_ns && r->runs_where,
	      "%s/%s: %ld passes, CPU samples %s", g, m, r->runs, r->samples_cpu_ns ? "kept" : "missing");
	if (!r->samples_cpu_ns || r->nruns != 3 || !r->runs_ns || (paired && !r->runs_delta_ns))
		return;
	CHECK(r->cpu_ns_median == rg_stat_median(r->samples_cpu_ns, r->nsamples),
	      "%s/%s: cpu_ns_median %g is the samples' median", g, m, r->cpu_ns_median);
	CHECK(!strncmp(r->layout, "3 passes over all rows in one process", 37),
	      "%s/%s: layout %s", g, m, r->layout);
	CHECK(!paired == !r->samples_cpu_delta_ns && !paired == !r->runs_delta_ns,
	      "%s/%s: CPU deltas only with a baseline", g, m);
	for (size_t p = 0; p < 3; p++) {
		size_t n = lo[p + 1] - lo[p];
		char want[32];

		snprintf(want, sizeof(want), "pass %zu of 3: %zu sample(s)", p + 1, n);
		CHECK(r->runs_ns[p] == rg_stat_median(r->samples_cpu_ns + lo[p], n),
		      "%s/%s: pass %zu: %g, not its samples' median", g, m, p, r->runs_ns[p]);
		CHECK(!paired || r->runs_delta_ns[p] == rg_stat_median(r->samples_cpu_delta_ns + lo[p], n),
		      "%s/%s: pass %zu: CPU delta %g, not its samples' median", g, m, p,
		      paired ? r->runs_delta_ns[p] : 0);
		CHECK(!strncmp(r->runs_where[p], want, strlen(want)), "%s/%s: runs_where %s", g, m,
		      r->runs_where[p]);
	}
	CHECK(r->aa_floor_ns == rg_stat_aa_floor(run, 3), "%s/%s: aa_floor_ns %g", g, m, r->aa_floor_ns);
	if (paired)
		CHECK(r->delta_ns == rg_stat_median(run, 3) && r->delta_ci_lo == vmin(run, 3) &&
		      r->delta_ci_hi == vmax(run, 3), "%s/%s: delta %g [%g, %g] over the passes",
		      g, m, r->delta_ns, r->delta_ci_lo, r->delta_ci_hi);
}

int main(int argc, char **argv)
{
	static const char *const want[][2] = {
		{ "base", "syscall" }, { "user-count", "syscall" }, { "tp", "syscall" },
		{ "raw_tp", "syscall" }, { "fentry", "syscall" }, { "kprobe", "syscall" },
		{ "driver-empty", "driver" }, { "driver-count", "driver" }, { "fentry", "driver" },
		{ "raw_tp", "driver" }, { "fexit", "recurse" }, { "raw_tp", "recurse" },
	};
	struct rg_resultset rs;
	struct rg_env env;
	long batch = -1;
	int rc, ok = 0;

	if (geteuid() != 0) {
		printf("SKIP: needs root\n");
		return 77;
	}
	if (syscall(__NR_bpf, -1, NULL, 0) < 0 && errno == ENOSYS) {
		printf("SKIP: the bpf() system call is not implemented here (ENOSYS: user-mode emulation?)\n");
		return 77;
	}
	if (argc > 1 && !strcmp(argv[1], "stop"))
		return stop_case();
	rg_env_collect(&env);
	rg_results_init(&rs, &env);
	rc = rg_bpf_run_default(&rs, 1, NULL, stdout);
	CHECK(rc == 0, "rg_bpf_run_default returned %d", rc);
	for (size_t w = 0; w < sizeof(want) / sizeof(want[0]); w++) {
		int n = 0;

		for (size_t i = 0; i < rs.n; i++)
			n += !strcmp(rs.rows[i].guard, want[w][0]) && !strcmp(rs.rows[i].scenario, want[w][1]);
		CHECK(n == 1, "%d rows for %s/%s, want 1", n, want[w][0], want[w][1]);
	}
	for (size_t i = 0; i < rs.n; i++) {
		struct rg_result *r = &rs.rows[i];
		const char *g = r->guard, *m = r->scenario, *bl = baseline_of(g, m);

		CHECK(!strcmp(r->suite, "bpf"), "row %zu: suite %s", i, r->suite);
		CHECK(!strcmp(r->status, "ok") || !strcmp(r->status, "skipped"),
		      "%s/%s: status %s (%s)", g, m, r->status, r->reason);
		CHECK(!strcmp(r->role, is_baseline(g) ? "baseline" :
			      !strcmp(g, "tp") || !strcmp(g, "kprobe") ? "bpf-prog-active" : "prog-active"),
		      "%s/%s: role %s", g, m, r->role);
		if (!strcmp(r->status, "skipped"))
			CHECK(r->reason[0] == 'E', "%s/%s skipped without an errno: %s", g, m, r->reason);
		if (strcmp(r->status, "ok"))
			continue;
		ok++;
		/* 5 samples in 3 passes: a spread, and a delta interval of 75% ([min, max] of 3 passes). */
		CHECK(r->ops > 0 && r->mops_mean > 0, "%s/%s: ops %llu M/s %g", g, m,
		      (unsigned long long)r->ops, r->mops_mean);
		CHECK(r->repetitions == 5 && r->nsamples == (size_t)r->repetitions,
		      "%s/%s: %ld samples", g, m, r->repetitions);
		CHECK(isfinite(r->mops_stddev) && isfinite(r->ns_stddev), "%s/%s: no spread", g, m);
		/* ns per event per producer, baselines included. */
		CHECK(fabs(r->ns_median - 1e3 / r->mops_per_thread) <= 1e-9 * r->ns_median,
		      "%s/%s: ns_median %g != 1e3 / %g", g, m, r->ns_median, r->mops_per_thread);
		CHECK(r->wall_ns_median == r->ns_median && r->cpu_ns_median > 0,
		      "%s/%s: wall %g cpu %g", g, m, r->wall_ns_median, r->cpu_ns_median);
		for (size_t s = 0; s < r->nsamples; s++)
			CHECK(fabs(r->samples_ns[s] * r->samples_mops[s] - 1e3 * r->threads) <=
			      1e-6 * 1e3 * r->threads, "%s/%s: sample %zu: %g ns, %g M/s", g, m, s,
			      r->samples_ns[s], r->samples_mops[s]);
		check_passes(r, bl != NULL);
		if (bl) {
			CHECK(!strcmp(r->baseline, bl) && !strcmp(r->interleave, "alternating"),
			      "%s/%s: baseline %s interleave %s", g, m, r->baseline, r->interleave);
			CHECK(r->delta_ci_lo <= r->delta_ns && r->delta_ns <= r->delta_ci_hi,
			      "%s/%s: delta %g outside [%g, %g]", g, m, r->delta_ns, r->delta_ci_lo,
			      r->delta_ci_hi);
			CHECK(r->delta_ci_level == 0.75, "%s/%s: interval level %g, want 0.75 (3 passes)",
			      g, m, r->delta_ci_level);
		} else {
			CHECK(!strcmp(r->baseline, "n/a") && !strcmp(r->interleave, "none") &&
			      isnan(r->delta_ns), "%s/%s: a baseline row has no delta", g, m);
		}
		if (!strcmp(m, "syscall")) {
			CHECK(r->batch == 1, "%s/%s: batch %ld", g, m, r->batch);
		} else {
			CHECK(r->batch >= 1000 && r->batch <= 20000 && (batch < 0 || r->batch == batch),
			      "%s/%s: batch %ld (others %ld)", g, m, r->batch, batch);
			batch = r->batch;
		}
	}
	CHECK(ok >= 3, "only %d rows measured", ok);
	printf("%zu rows, %d measured, driver batch %ld\n", rs.n, ok, batch);
	rg_results_free(&rs);
	return rg_test_done("bpf.default_rows");
}
