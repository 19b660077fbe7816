/* SPDX-License-Identifier: MIT */
/* A case's result row (rows.c; a latency case's histogram bins, latency.c). */
#ifndef RG_BENCH_ROWS_H
#define RG_BENCH_ROWS_H

#include "cases.h"
#include "rg/schema.h"

/* A case's result row (from its samples) appended to s->rs and its progress line. 0, or -ENOMEM. */
int suite_add_row(struct suite *s, struct bcase *c);
/*
 * Progress: the work of group's benchmarks for one pass (pass 0 or -1: with the
 * calibration run; later passes: a warm-up chunk) marked done.
 */
void suite_progress_done(struct suite *s, int group, int pass);
/* " (12 s, ~40 s left)": the time since the suite began and the rest at the rate so far. */
void suite_progress_clock(const struct suite *s, char *buf, size_t len);
/*
 * The rows of every group from s->rows_next to upto (inclusive), in case order,
 * each with its progress line: called as soon as a group's last pass is measured.
 * 0, or -1 (out of memory, printed).
 */
int suite_rows_upto(struct suite *s, int upto);
/*
 * latency.c: the histogram of the case's per-batch values, its non-empty bins
 * in order (at most RG_LAT_HIST_BINS, latency.h). Returns their number.
 */
size_t lat_hist_bins(const struct bcase *c, double *lo, double *hi, uint64_t *count);

#endif /* RG_BENCH_ROWS_H */
