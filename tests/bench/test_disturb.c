// SPDX-License-Identifier: MIT
/* rg_disturb_judge(): which kept disturbed rounds make a row noisy (half or more of them, or one outside the undisturbed rounds' range), exactly. */
#include <math.h>

#include "disturb.h"
#include "../check.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void expect(const char *what, const double *ns, const double *ratio, size_t n, size_t disturbed,
		   size_t outside, double lo, double hi, int noisy)
{
	struct rg_disturb d = rg_disturb_judge(ns, ratio, n, 0.99);

	CHECK(d.disturbed == disturbed, "%s: %zu disturbed, want %zu", what, d.disturbed, disturbed);
	CHECK(d.outside == outside, "%s: %zu outside, want %zu", what, d.outside, outside);
	CHECK(d.noisy == noisy, "%s: noisy %d, want %d", what, d.noisy, noisy);
	if (disturbed < n)
		CHECK(d.lo == lo && d.hi == hi, "%s: range %g-%g, want %g-%g", what, d.lo, d.hi, lo, hi);
	else
		CHECK(isinf(d.lo) && isinf(d.hi), "%s: range %g-%g with no undisturbed round", what, d.lo, d.hi);
}

int main(void)
{
	const double ns[] = { 2.0, 2.1, 1.9, 2.2, 2.05, 2.15 };
	const double quiet[] = { 1, 1, 1, 1, 1, 1 };
	/* a switch that cost under 1 % (CPU/wall 0.99 and up) is no disturbance */
	const double small[] = { 0.995, 0.99, 1, 1.001, 0.999, 1 };
	/* round 4 (2.05, inside 1.9-2.2) lost time */
	const double one_in[] = { 1, 1, 1, 1, 0.5, 1 };
	/* round 3 (2.2, outside 1.9-2.15) lost time */
	const double one_out[] = { 1, 1, 1, 0.98, 1, 1 };
	const double three[] = { 0.5, 1, 0.5, 1, 0.5, 1 };
	/* rounds 1 and 4 (2.1, 2.05: inside 1.9-2.2) lost time: a third, inside */
	const double two_in[] = { 1, 0.9, 1, 1, 0.9, 1 };
	const double every[] = { 0.5, 0.5, 0.5, 0.5, 0.5, 0.5 };

	expect("quiet", ns, quiet, N(ns), 0, 0, 1.9, 2.2, 0);
	expect("switches that cost under 1%", ns, small, N(ns), 0, 0, 1.9, 2.2, 0);
	expect("one disturbed, inside", ns, one_in, N(ns), 1, 0, 1.9, 2.2, 0);
	expect("one disturbed, outside", ns, one_out, N(ns), 1, 1, 1.9, 2.15, 1);
	expect("two disturbed, inside", ns, two_in, N(ns), 2, 0, 1.9, 2.2, 0);
	expect("half disturbed", ns, three, N(ns), 3, 3, 2.1, 2.2, 1);
	expect("every round disturbed", ns, every, N(ns), 6, 0, 0, 0, 1);
	/* one round of two (2.1 against 2.0): half, and outside */
	expect("one of two", ns, one_in + 3, 2, 1, 1, 2.0, 2.0, 1);
	/* one round, undisturbed; and none */
	expect("one round", ns, quiet, 1, 0, 0, 2.0, 2.0, 0);
	expect("no rounds", ns, quiet, 0, 0, 0, INFINITY, -INFINITY, 0);
	return rg_test_done("test_disturb");
}
