// SPDX-License-Identifier: MIT
/* `--unit cycles` of compare and report: each row's ns figures in reference cycles (ns / its ref_ns_per_cycle). */
#include <math.h>
#include <string.h>

#include "rg/results.h"

/* The columns that hold ns of a measurement (duty_ns and duty_in_ns are a row's key: they stay ns). */
static const enum rg_col ns_cols[] = {
	RG_COL_ns_median, RG_COL_ns_mean, RG_COL_ns_stddev, RG_COL_ns_min, RG_COL_ns_max,
	RG_COL_delta_ns, RG_COL_delta_ci_lo, RG_COL_delta_ci_hi, RG_COL_cpu_ns_median,
	RG_COL_wall_ns_median, RG_COL_lat_p50_ns, RG_COL_lat_p90_ns, RG_COL_lat_p99_ns,
	RG_COL_lat_p999_ns, RG_COL_lat_max_ns, RG_COL_aa_floor_ns,
};

static void scale(double *v, size_t n, double k)
{
	for (size_t i = 0; v && i < n; i++)
		v[i] /= k;
}

size_t rg_rows_to_cycles(struct rg_rows *rows)
{
	size_t missing = 0;

	for (size_t i = 0; i < rows->n; i++) {
		struct rg_row *r = &rows->v[i];
		double k = rg_row_d(r, RG_COL_ref_ns_per_cycle);
		/*
		 * A reference from 1 THz to 1 kHz: one outside is no clock (1e-300
		 * ns per cycle made every figure inf), the row has none to show.
		 */
		bool ok = k >= RG_REF_NS_MIN && k <= RG_REF_NS_MAX;

		if (!ok && !isnan(rg_row_d(r, RG_COL_ns_median)))
			missing++;
		for (size_t c = 0; c < sizeof(ns_cols) / sizeof(ns_cols[0]); c++)
			r->v[ns_cols[c]].d = ok ? r->v[ns_cols[c]].d / k : NAN;
		if (ok) {
			scale(r->samples_ns, r->n_ns, k);
			scale(r->samples_wall_ns, r->n_wall, k);
			scale(r->samples_delta_ns, r->n_delta, k);
			scale(r->samples_cpu_ns, r->n_cpu, k);
			scale(r->samples_cpu_delta_ns, r->n_cpu_delta, k);
			scale(r->runs_ns, r->n_runs_ns, k);
			scale(r->runs_delta_ns, r->n_runs_delta, k);
			scale(r->lat_lo, r->n_lat, k);
			scale(r->lat_hi, r->n_lat, k);
		} else {
			/* No reference: nothing in cycles to show or test. */
			r->n_ns = r->n_wall = r->n_delta = r->n_lat = 0;
			r->n_runs_ns = r->n_runs_delta = r->n_cpu = r->n_cpu_delta = 0;
		}
	}
	return missing;
}
