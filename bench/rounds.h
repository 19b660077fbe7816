/* SPDX-License-Identifier: MIT */
/* Measuring one group: its interleaved rounds (rounds.c) and the loop kinds' runs (measure.c, latency.c). */
#ifndef RG_BENCH_ROUNDS_H
#define RG_BENCH_ROUNDS_H

#include <stdbool.h>
#include <stddef.h>

#include "cases.h"

/* Calibrate, then measure one group in suite_group_rounds() interleaved rounds. 0, or -1. */
int suite_run_group(struct suite *s, int group, struct bcase **set);
/* The group's C-binding noop (its rows' default baseline), or NULL. */
struct bcase *suite_group_noop(struct suite *s, int group);
/* The group's cycle reference, or NULL. */
struct bcase *suite_group_ref(struct suite *s, int group);
/* Rounds per run of a group: cfg->repetitions, or (latency, one process) the rounds of all runs. */
int suite_group_rounds(const struct rg_suite_cfg *cfg, const struct bcase *c);
/* measure.c: register set[0..n) with the library and run them once (calib: for min_time, else each case's chunk). */
int suite_run_set(struct suite *s, struct bcase **set, size_t n, bool calib);
/* latency.c: the latency kind's operations. */
int lat_prepare(struct suite *s, struct bcase **set, size_t n);
int lat_run(struct suite *s, struct bcase **set, size_t n, bool calib);

#endif /* RG_BENCH_ROUNDS_H */
