/* SPDX-License-Identifier: MIT */
/* Per-thread cycle and instruction counters (libperf) around a measured region. */
#ifndef RG_BENCH_COUNTERS_H
#define RG_BENCH_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Probe once whether this thread can count cycles and instructions in user
 * mode. NULL when it can; otherwise why not, in the words the `counters`
 * column uses ("n/a: no hardware PMU (cycles: ENOENT)", ...).
 */
const char *rg_counters_probe(void);

/* What the `counters` column says when counting worked ("perf"). */
const char *rg_counters_kind(void);

struct rg_counters {
	void *ev[2];		/* struct perf_evsel *: cycles, instructions */
	void *threads;		/* struct perf_thread_map * (this thread) */
	bool open;
};

/* Open disabled counters on the calling thread. 0, or -1 (nothing counted). */
int rg_counters_open(struct rg_counters *c);
void rg_counters_start(struct rg_counters *c);
/* Stop and read (scaled when multiplexed). Values are 0 when not open. */
void rg_counters_stop(struct rg_counters *c, double *cycles, double *instructions);
void rg_counters_close(struct rg_counters *c);

#endif /* RG_BENCH_COUNTERS_H */
