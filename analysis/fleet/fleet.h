/* SPDX-License-Identifier: MIT */
/* The fleet pages' decision: the design each host's kernel runs and the kernel-form candidates as changes against it. */
#ifndef RG_PLOTS_FLEET_H
#define RG_PLOTS_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include "rg/fleet.h"

/* How many kernel-form candidate roles there are (fleet_decide.c lists them). */
#define NCAND 6

/* One candidate design as a change against the current one. */
struct change {
	const char *role;
	const struct rg_row *r;
	double v, lo, hi;	/* candidate - current, ns per pair; lo/hi NAN without intervals */
};

/* The host's current design and its candidates ranked by change. */
struct decision {
	const char *role;	/* current design's role, NULL when unknown */
	char why[160];
	const char *suite;	/* where the guard rows come from: kmod or user */
	const struct rg_row *cur;
	struct cost kcur;
	struct change c[NCAND];
	size_t n;
};

/* Fill d for h: the current design's row and every candidate's change, cheapest first. */
bool rp_fleet_decide(const struct host *h, struct decision *d);
/* " cheaper" / " dearer" when the change's interval excludes zero, else "". */
const char *rp_fleet_verdict(const struct change *c);

#endif /* RG_PLOTS_FLEET_H */
