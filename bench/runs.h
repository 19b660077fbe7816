/* SPDX-License-Identifier: MIT */
/* The --runs parent (runs.c): every group measured in cfg->runs re-executed processes, each a child that measures. */
#ifndef RG_BENCH_RUNS_H
#define RG_BENCH_RUNS_H

#include <stdbool.h>

#include "cases.h"

/*
 * Measure every group in cfg->runs processes, in passes spread over the
 * command (latency groups here, in the first pass); each case's rounds end up
 * in c->run[], then in its samples. 0, or -1.
 */
int suite_runs_start(struct suite *s);
int suite_runs_all(struct suite *s, struct bcase **set);
void suite_runs_stop(struct suite *s);
/* A group the runs measure (not latency: a distribution, measured in this process). */
bool suite_group_in_runs(const struct suite *s, int group);

#endif /* RG_BENCH_RUNS_H */
