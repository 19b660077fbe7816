// SPDX-License-Identifier: MIT
/* The C binding to Google Benchmark: exact iterations, threads, counters, errors and flag pass-through. */
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "rg/gbench.h"

#define BATCH 1000
#define ITERS (7 * BATCH)

static atomic_ulong batches, loop_iters, bad_max;

/* The measured function: counts its own batches and iterations. */
static void counting(struct rg_gb_state *st, void *arg)
{
	uint64_t mine = 0;

	(void)arg;
	/* Fixed iterations: every thread is told the run's count up front. */
	if (rg_gb_max_iterations(st) != ITERS)
		atomic_fetch_add(&bad_max, 1);
	while (rg_gb_keep_running_batch(st, BATCH)) {
		atomic_fetch_add(&batches, 1);
		for (int i = 0; i < BATCH; i++)
			__asm__ __volatile__("" : : "r"(i) : "memory");
		mine += BATCH;
	}
	atomic_fetch_add(&loop_iters, mine);
	rg_gb_set_counter(st, "ones", 1);
	rg_gb_set_counter(st, "iters_seen", (double)mine);
	rg_gb_set_counter(st, "range0", (double)rg_gb_range(st, 0));
}

static void failing(struct rg_gb_state *st, void *arg)
{
	(void)arg;
	if (rg_gb_thread_index(st) == 0)
		rg_gb_skip_with_error(st, "deliberate failure");
	/* Every thread still passes the start/stop barriers. */
	while (rg_gb_keep_running_batch(st, BATCH))
		;
}

struct seen {
	int runs, last_flags;
	char names[8][64];
	struct rg_gb_run run[8];
	double ones[8], iters_seen[8], range0[8];
	char errmsg[8][64];
};

static void on_run(const struct rg_gb_run *r, bool last, void *ctx)
{
	struct seen *s = ctx;
	int i = s->runs++;

	if (i >= 8)
		return;
	s->run[i] = *r;
	snprintf(s->names[i], sizeof(s->names[i]), "%s", r->name);
	snprintf(s->errmsg[i], sizeof(s->errmsg[i]), "%s", r->error ? r->error_message : "");
	s->ones[i] = rg_gb_run_counter(r, "ones", -1);
	s->iters_seen[i] = rg_gb_run_counter(r, "iters_seen", -1);
	s->range0[i] = rg_gb_run_counter(r, "range0", -1);
	s->last_flags += last;
}

/* Occurrences of needle in the file at path (-1 when unreadable). */
static int count_in_file(const char *path, const char *needle)
{
	static char buf[1 << 20];
	FILE *f = fopen(path, "r");
	size_t len;
	int n = 0;

	if (!f)
		return -1;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = 0;
	for (const char *p = buf; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

int main(int argc, char **argv)
{
	char out[64], out_flag[96];
	char *gb_argv[] = { argv[0], "--benchmark_filter=^t/", out_flag, NULL };
	int gb_argc = 3;
	int64_t args[] = { 42 };
	struct rg_gb_options two = { .threads = 2, .repetitions = 3, .iterations = ITERS,
				     .args = args, .nargs = 1 };
	struct rg_gb_options one = { .threads = 2, .iterations = ITERS };
	struct rg_gb_options bad = { .threads = -1 };
	struct seen s;
	size_t n;

	(void)argc;
	snprintf(out, sizeof(out), "/tmp/test_gbench.%d.json", (int)getpid());
	snprintf(out_flag, sizeof(out_flag), "--benchmark_out=%s", out);
	CHECK(rg_gb_initialize(&gb_argc, gb_argv) == 0, "unrecognised flags left");
	CHECK(gb_argc == 1, "argc %d after initialize", gb_argc);

	CHECK(rg_gb_register("t/bad", counting, NULL, &bad) < 0, "negative threads accepted");
	CHECK(rg_gb_register("t/count", counting, NULL, &two) == 0, "register");
	CHECK(rg_gb_register("t/fail", failing, NULL, &one) == 0, "register");
	CHECK(rg_gb_register("x/filtered-out", counting, NULL, &one) == 0, "register");
	CHECK(rg_gb_registered() == 3, "%zu registered", rg_gb_registered());

	memset(&s, 0, sizeof(s));
	n = rg_gb_run_all(on_run, &s);
	CHECK(n == 2, "%zu benchmarks ran, expected 2 (filter)", n);
	/* 3 repetitions of t/count, then 1 of t/fail. */
	CHECK(s.runs == 4, "%d runs reported", s.runs);
	CHECK(s.last_flags == 2, "%d last-of-benchmark flags", s.last_flags);
	for (int i = 0; i < 3 && i < s.runs; i++) {
		CHECK(!strcmp(s.names[i], "t/count"), "run %d is %s", i, s.names[i]);
		CHECK(s.run[i].repetition_index == i, "rep index %lld", (long long)s.run[i].repetition_index);
		CHECK(s.run[i].repetitions == 3, "repetitions %lld", (long long)s.run[i].repetitions);
		CHECK(s.run[i].threads == 2, "threads %lld", (long long)s.run[i].threads);
		/* Iterations are all threads' together. */
		CHECK(s.run[i].iterations == 2 * ITERS, "iterations %lld", (long long)s.run[i].iterations);
		CHECK(!s.run[i].error, "unexpected error");
		CHECK(s.run[i].real_time_s > 0, "real time %g", s.run[i].real_time_s);
		/* Counters are summed over the threads. */
		CHECK(s.ones[i] == 2, "ones = %g", s.ones[i]);
		CHECK(s.iters_seen[i] == 2 * ITERS, "iters_seen = %g", s.iters_seen[i]);
		CHECK(s.range0[i] == 84, "range0 sum = %g", s.range0[i]);
	}
	/* Once per batch: 7 batches per thread per repetition, 3 repetitions, 2 threads. */
	CHECK(atomic_load(&batches) == 3 * 2 * 7, "%lu batches", atomic_load(&batches));
	CHECK(atomic_load(&loop_iters) == 3ul * 2 * ITERS, "%lu iterations", atomic_load(&loop_iters));
	if (s.runs >= 4) {
		CHECK(!strcmp(s.names[3], "t/fail"), "run 3 is %s", s.names[3]);
		CHECK(s.run[3].error, "error not reported");
		CHECK(!strcmp(s.errmsg[3], "deliberate failure"), "message '%s'", s.errmsg[3]);
	}
	CHECK(atomic_load(&bad_max) == 0, "%lu runs saw another max_iterations",
	       atomic_load(&bad_max));
	rg_gb_clear();
	CHECK(rg_gb_registered() == 0, "clear left %zu", rg_gb_registered());

	/*
	 * A second call in the same session (rgbench runs one round per call):
	 * --benchmark_out holds the runs of both calls in one JSON document,
	 * complete once rg_gb_finish() closes it.
	 */
	two.repetitions = 1;
	CHECK(rg_gb_register("t/count", counting, NULL, &two) == 0, "register again");
	memset(&s, 0, sizeof(s));
	CHECK(rg_gb_run_all(on_run, &s) == 1 && s.runs == 1, "second call: %d runs", s.runs);
	rg_gb_clear();
	CHECK(access(out, F_OK) != 0, "%s written before the session ended", out);
	rg_gb_finish();
	{
		/* The binding keeps the report; the caller publishes it (bench/run.c). */
		const char *path, *text;
		size_t len;
		FILE *f;

		text = rg_gb_out_report(&path, &len);
		CHECK(text && path && !strcmp(path, out) && len == strlen(text), "no report for %s", out);
		f = text ? fopen(out, "w") : NULL;
		if (f) {
			fwrite(text, 1, len, f);
			fclose(f);
		}
	}
	/* 3 + 1 + 1 runs, one "context" and one closing of the "benchmarks" array. */
	CHECK(count_in_file(out, "\"run_type\": \"iteration\"") == 5, "%d runs in %s",
	       count_in_file(out, "\"run_type\": \"iteration\""), out);
	CHECK(count_in_file(out, "\"context\":") == 1, "%d contexts in %s",
	       count_in_file(out, "\"context\":"), out);
	CHECK(count_in_file(out, "\n  ]\n}") == 1, "%s is not closed once", out);
	unlink(out);
	return rg_test_done("test_gbench");
}
