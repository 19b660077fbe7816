/* SPDX-License-Identifier: MIT */
/* What a row's kept disturbed rounds did to its figure (disturb.c): the verdict rows.c turns into `noisy` and its reason. */
#ifndef RG_BENCH_DISTURB_H
#define RG_BENCH_DISTURB_H

#include <stdbool.h>
#include <stddef.h>

struct rg_disturb {
	size_t disturbed;	/* rounds kept with CPU/wall below the limit */
	size_t outside;		/* ... of them outside [lo, hi] (0 when every round is disturbed) */
	double lo, hi;		/* the undisturbed rounds' range (+-inf when none) */
	bool noisy;		/* half the rounds or more disturbed, or one outside */
};

/*
 * The verdict over n kept rounds: ns[i] the round's figure, ratio[i] its
 * lowest thread CPU/wall, a round disturbed when ratio[i] < min_ratio.
 * Noisy when the disturbed rounds are half of them or more (the median may
 * be one of them), or one lies outside the undisturbed rounds' range.
 */
struct rg_disturb rg_disturb_judge(const double *ns, const double *ratio, size_t n, double min_ratio);

#endif /* RG_BENCH_DISTURB_H */
