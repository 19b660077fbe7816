/* SPDX-License-Identifier: MIT */
/* The latency loop kind's parts: the per-guard timed loops, the cheap counter and the histogram's bins (the percentiles: rg_stat_percentile()). */
#ifndef RG_BENCH_LATENCY_H
#define RG_BENCH_LATENCY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rg/guard.h"
#include "rg/registry.h"


/*
 * Per guard id in guards.def (bench/latency_loop.c.in, one translation unit
 * per guard): nbatches batches of `batch` inlined pairs, ticks[b] = counter
 * ticks of batch b. Returns refused enters. No call inside a timed batch.
 */
#define RG_GUARD(id, ...)							\
	uint64_t rg_loop_lat_##id(struct rg_guard *g, uint64_t batch, uint64_t nbatches, \
				  uint64_t *ticks);
#include "rg/guards.def"
#undef RG_GUARD

extern uint64_t (*const rg_lat_loops[RG_GUARD__COUNT])(struct rg_guard *, uint64_t, uint64_t,
							 uint64_t *);

/* The counter as measured on this machine. */
struct rg_lat_timer {
	bool usable;
	char why[160];			/* when !usable: why (the skipped rows' reason) */
	char source[48];		/* "rdtsc (invariant TSC)" or "cntvct_el0" */
	double hz;			/* ticks per second (x86-64: measured; arm64: CNTFRQ_EL0) */
	double tick_ns;			/* 1e9 / hz */
	double resolution_ns;		/* smallest non-zero step between two reads, measured */
	double overhead_ticks;		/* median of an empty timed region, subtracted per batch */
	double overhead_ns;
};

/*
 * Probe and measure the counter: invariant-TSC check (CPUID 0x80000007
 * EDX[8]) and rate against CLOCK_MONOTONIC_RAW on x86-64, CNTFRQ_EL0 on arm64,
 * then resolution and overhead. A non-empty force (the plan's test switch
 * RG_TEST_LATENCY_UNUSABLE) forces the unusable path. Returns t->usable.
 */
bool rg_lat_timer_probe(struct rg_lat_timer *t, const char *force);

/*
 * Log-bucketed histogram of ns per pair: bin 0 is [0, RG_LAT_HIST_MIN_NS),
 * bin k >= 1 is [MIN * 2^((k-1)/P), MIN * 2^(k/P)) with P = RG_LAT_HIST_PER_OCTAVE,
 * the last bin is open-ended.
 */
#define RG_LAT_HIST_MIN_NS	(1.0 / 64)
#define RG_LAT_HIST_PER_OCTAVE	8
#define RG_LAT_HIST_BINS	(1 + 34 * RG_LAT_HIST_PER_OCTAVE)	/* up to ~268 ms per pair */
int rg_lat_hist_bin(double ns);
double rg_lat_hist_lo(int bin);
double rg_lat_hist_hi(int bin);		/* INFINITY for the last bin */

#endif /* RG_BENCH_LATENCY_H */
