// SPDX-License-Identifier: MIT
/* `rgbench report`'s rows of one host: grouping them, finding a row, a guard's cost over noop, a role's row. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rg/results.h"

bool rp_row_ok(const struct rg_row *r)
{
	return !strcmp(rg_row_s(r, RG_COL_status), "ok") || !strcmp(rg_row_s(r, RG_COL_status), "noisy");
}

/* strcmp-like: r's (suite, guard, scenario) against the wanted ones. */
static int cmp_prefix(const struct rg_row *r, const char *suite, const char *guard, const char *scenario)
{
	int d = strcmp(rg_row_s(r, RG_COL_suite), suite);

	if (!d)
		d = strcmp(rg_row_s(r, RG_COL_guard), guard);
	return d ? d : strcmp(rg_row_s(r, RG_COL_scenario), scenario);
}

/* A binary search in the host's rows sorted by key, then the rows of that guard and scenario in key order. */
const struct rg_row *rp_find(const struct host *h, const char *suite, const char *guard,
				 const char *scenario, long long threads, long long duty)
{
	size_t lo = 0, hi = h->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_prefix(h->by_key[mid], suite, guard, scenario) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < h->n && !cmp_prefix(h->by_key[lo], suite, guard, scenario); lo++) {
		const struct rg_row *r = h->by_key[lo];

		if (rp_row_ok(r) && (threads < 0 || rg_row_i(r, RG_COL_threads) == threads) &&
		    (duty < 0 || rg_row_i(r, RG_COL_duty_ns) == duty))
			return r;	/* the smallest matching threads, duty, batch */
	}
	return NULL;
}

bool rp_is_pair1(const struct rg_row *r)
{
	return rp_row_ok(r) && !strcmp(rg_row_s(r, RG_COL_suite), "user") &&
	       !strcmp(rg_row_s(r, RG_COL_scenario), "pair") && rg_row_i(r, RG_COL_threads) == 1 &&
	       rg_row_i(r, RG_COL_duty_ns) == 0;
}

struct cost rp_paired_cost(const struct rg_row *r)
{
	struct cost k = { NAN, NAN, NAN, rg_row_d(r, RG_COL_ns_median), false };

	if (!isnan(rg_row_d(r, RG_COL_delta_ns))) {
		k.v = rg_row_d(r, RG_COL_delta_ns);
		k.lo = rg_row_d(r, RG_COL_delta_ci_lo);
		k.hi = rg_row_d(r, RG_COL_delta_ci_hi);
		k.paired = true;
	}
	return k;
}

/* A guard's cost over noop: the paired difference when the row has one, else a difference of medians. */
struct cost rp_cost_of(const struct host *h, const struct rg_row *r)
{
	const struct rg_row *noop = rp_find(h, "user", "noop", rg_row_s(r, RG_COL_scenario),
					 rg_row_i(r, RG_COL_threads), rg_row_i(r, RG_COL_duty_ns));
	struct cost k = rp_paired_cost(r);

	if (k.paired)
		return k;
	if (!strcmp(rg_row_s(r, RG_COL_guard), "noop")) {
		k.v = 0;	/* the baseline itself: nothing to pair */
		k.paired = true;
	} else if (noop) {
		k.v = k.ns - rg_row_d(noop, RG_COL_ns_median);
	}
	return k;
}

const struct rg_row *rp_by_role(const struct host *h, const char *role)
{
	for (size_t i = 0; i < h->n; i++)
		if (rp_is_pair1(h->rows[i]) && rg_role_has(rg_row_role(h->rows[i], NULL), role))
			return h->rows[i];
	return NULL;
}

double rp_cmp_value(const struct cost *k)
{
	return !isnan(k->v) && k->v > 0 ? k->v : NAN;
}

bool rp_has_tramp(const struct host *h)
{
	for (size_t i = 0; i < h->n; i++) {
		const char *sc = rg_row_s(h->rows[i], RG_COL_scenario);

		if (!strcmp(rg_row_s(h->rows[i], RG_COL_suite), "kmod") &&
		    (!strcmp(sc, "tramp-fentry") || !strcmp(sc, "tramp-rawtp")) && rp_row_ok(h->rows[i]))
			return true;
	}
	return false;
}
