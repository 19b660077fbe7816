/* SPDX-License-Identifier: MIT */
/* A case's result row (rows.c; a latency case's from its distribution, latency.c). */
#ifndef RG_BENCH_ROWS_H
#define RG_BENCH_ROWS_H

#include "cases.h"
#include "rg/schema.h"

/* A case's result row (from its samples) appended to s->rs and its progress line. 0, or -ENOMEM. */
int suite_add_row(struct suite *s, struct bcase *c);
/* latency.c: a row's figures from the case's per-batch values. */
int lat_fill_row(struct rg_result *r, const struct bcase *c);

#endif /* RG_BENCH_ROWS_H */
