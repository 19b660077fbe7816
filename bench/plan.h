/* SPDX-License-Identifier: MIT */
/* rgbench --plan: what the current options would run, on which CPUs, and how long it would take. */
#ifndef RG_BENCH_PLAN_H
#define RG_BENCH_PLAN_H

#include <stdbool.h>
#include <stdio.h>

struct rg_suite_cfg;

/*
 * Print every benchmark cfg selects (the same cases rg_suite_run() builds,
 * the latency rows, the BPF rows when with_bpf), the CPUs each would use and
 * the estimated wall time, then one summary line
 *   "rgbench: plan: N benchmarks, estimated S s (M min)".
 * Runs nothing. Returns the estimate in seconds.
 */
double rg_plan_print(FILE *f, const struct rg_suite_cfg *cfg, bool with_bpf, const char *source);

#endif /* RG_BENCH_PLAN_H */
