// SPDX-License-Identifier: MIT
/* The disturbance verdict of a row (disturb.h): its kept disturbed rounds against the range of its undisturbed ones. */
#include <math.h>

#include "disturb.h"

struct rg_disturb rg_disturb_judge(const double *ns, const double *ratio, size_t n, double min_ratio)
{
	struct rg_disturb d = { .lo = INFINITY, .hi = -INFINITY };

	for (size_t i = 0; i < n; i++) {
		if (ratio[i] < min_ratio) {
			d.disturbed++;
			continue;
		}
		d.lo = fmin(d.lo, ns[i]);
		d.hi = fmax(d.hi, ns[i]);
	}
	for (size_t i = 0; i < n && d.disturbed < n; i++)	/* none undisturbed: no range */
		d.outside += ratio[i] < min_ratio && (ns[i] < d.lo || ns[i] > d.hi);
	d.noisy = d.disturbed && (2 * d.disturbed >= n || d.outside);
	return d;
}
