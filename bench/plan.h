/* SPDX-License-Identifier: MIT */
/* rgbench --plan: what the current options would run, on which CPUs, and how long it would take. */
#ifndef RG_BENCH_PLAN_H
#define RG_BENCH_PLAN_H

#include <stdbool.h>
#include <stdio.h>

struct rg_suite_cfg;

/*
 * Print the plan: the topology source, every benchmark cfg selects (the same
 * cases rg_suite_run() builds, the BPF rows when planned), the CPUs each
 * would use and the estimated wall time, the outputs, the cycle reference and
 * any test switch, then one summary line
 *   "rgbench: plan: N benchmarks, estimated S s (M min)".
 * Runs nothing. Returns the estimate in seconds.
 */
double rg_plan_print(FILE *f, const struct rg_suite_cfg *cfg);

#endif /* RG_BENCH_PLAN_H */
