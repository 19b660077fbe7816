// SPDX-License-Identifier: MIT
/* compare's verdicts on synthetic nested data (runs of rounds, known between-run and within-run spread, fixed seeds): false-positive rate against the nominal level, power against a shift of twice the between-run spread. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "rg/results.h"
#include "rg/schema.h"

#include "check.h"

#define TRIALS 4000
#define MAX_RUNS 8
#define MAX_ROUNDS 16

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static double uniform(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return ((double)((rng * 0x2545f4914f6cdd1dull) >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

/*
 * One side: runs processes of rounds rounds each; a process's level is mu +
 * sb * N(0,1) (what moves between processes), each round adds sw * N(0,1).
 * run[k] is the run's median (as rgbench stores it), all[] every round.
 */
static void side(double mu, double sb, double sw, int runs, int rounds, double *run, double *all)
{
	for (int k = 0; k < runs; k++) {
		double lvl = mu + sb * normal(), v[MAX_ROUNDS];

		for (int i = 0; i < rounds; i++)
			all[k * rounds + i] = v[i] = lvl + sw * normal();
		run[k] = rg_stat_median(v, (size_t)rounds);
	}
}

struct rates {
	double runs_fp, runs_power, rounds_fp, floor_fp, floor_power;
};

/*
 * TRIALS A/A comparisons (both sides the same) and TRIALS with side b
 * shifted by 2 * sb: how often each verdict calls a change.
 *   runs:   the run-level test compare uses with several runs per side;
 *   rounds: the U test on all rounds pooled (what one process's rounds
 *           would say; blind to the between-run spread);
 *   floor:  one run per side against the A/A floor of a third file of
 *           `runs` runs from the same host.
 */
static struct rates measure(double sb, double sw, int runs, int rounds)
{
	struct rates r = { 0 };
	double a[MAX_RUNS], b[MAX_RUNS], f[MAX_RUNS];
	double aa[MAX_RUNS * MAX_ROUNDS], ab[MAX_RUNS * MAX_ROUNDS], af[MAX_RUNS * MAX_ROUNDS];
	size_t n = (size_t)runs, nr = (size_t)(runs * rounds);

	for (int shift = 0; shift < 2; shift++) {
		size_t called = 0, pooled = 0, fcalled = 0;

		for (int t = 0; t < TRIALS; t++) {
			struct rg_mwu u;
			double p, floor;

			side(0, sb, sw, runs, rounds, a, aa);
			side(shift * 2 * sb, sb, sw, runs, rounds, b, ab);
			side(0, sb, sw, runs, rounds, f, af);
			if (!cmp_runs_test(a, n, b, n, &p) && p < 0.05)
				called++;
			if (!shift && !rg_mwu_test(aa, nr, ab, nr, &u) && u.p < 0.05)
				pooled++;
			floor = rg_stat_aa_floor(f, n);
			if (fabs(b[0] - a[0]) > floor)
				fcalled++;
		}
		if (shift) {
			r.runs_power = (double)called / TRIALS;
			r.floor_power = (double)fcalled / TRIALS;
		} else {
			r.runs_fp = (double)called / TRIALS;
			r.rounds_fp = (double)pooled / TRIALS;
			r.floor_fp = (double)fcalled / TRIALS;
		}
	}
	return r;
}

int main(void)
{
	static const struct { double sb, sw; int runs, rounds; } cfg[] = {
		{ 1.0, 1.0, 3, 3 },	/* the default profile's shape */
		{ 1.0, 0.2, 3, 3 },	/* between-run spread dominates, as measured here */
		{ 1.0, 0.2, 6, 1 },	/* the same cost in chunks as 3 x 3, spent on runs */
		{ 1.0, 1.0, 5, 9 },	/* --full */
		{ 0.0, 1.0, 3, 3 },	/* nothing between runs (as measured under heavy load) */
	};
	/* Monte Carlo error of a rate near 5% over TRIALS trials: a true 5% stays below this. */
	const double tol = 0.05 + 3 * sqrt(0.05 * 0.95 / TRIALS);

	/* The t distribution the test and the floor use, against known values. */
	CHECK(fabs(rg_stat_t_quantile(0.975, 2) - 4.302653) < 1e-5, "t(0.975, 2) = %g",
	      rg_stat_t_quantile(0.975, 2));
	CHECK(fabs(rg_stat_t_quantile(0.975, 10) - 2.228139) < 1e-5, "t(0.975, 10) = %g",
	      rg_stat_t_quantile(0.975, 10));
	CHECK(fabs(rg_stat_t_sf(1.0, 1) - 0.25) < 1e-9, "P(T1 > 1) = %g", rg_stat_t_sf(1.0, 1));
	CHECK(fabs(rg_stat_t_sf(-2.0, 5) - 0.949030) < 1e-5, "P(T5 > -2) = %g", rg_stat_t_sf(-2.0, 5));
	{
		double x[] = { 1, 2, 3 }, y[] = { 4, 5, 6 }, p;

		/* t = 3 / sqrt(2/3), df = 4: p = 0.02131 */
		CHECK(!cmp_runs_test(x, 3, y, 3, &p) && fabs(p - 0.021312) < 1e-5, "welch p = %g", p);
		CHECK(cmp_runs_test(x, 1, y, 3, &p) == -1, "one run is not a run-level test");
		CHECK(cmp_runs_test(x, 3, x, 3, &p) == 0 && fabs(p - 1) < 1e-12, "same values: p = %g", p);
	}
	printf("synthetic nested data, %d trials per line (nominal 5%%; Monte Carlo bound %.1f%%):\n",
	       TRIALS, tol * 100);
	for (size_t i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++) {
		struct rates r = measure(cfg[i].sb, cfg[i].sw, cfg[i].runs, cfg[i].rounds);

		printf("  between %.1f within %.1f, %d runs x %d rounds: runs test A/A %.2f%%, power at +2 between %.1f%%; "
		       "one run vs floor A/A %.2f%%, power %.1f%%; pooled rounds A/A %.1f%%\n",
		       cfg[i].sb, cfg[i].sw, cfg[i].runs, cfg[i].rounds, 100 * r.runs_fp,
		       100 * r.runs_power, 100 * r.floor_fp, 100 * r.floor_power, 100 * r.rounds_fp);
		CHECK(r.runs_fp <= tol, "runs test false positives %.4f above %.4f", r.runs_fp, tol);
		CHECK(r.floor_fp <= tol, "floor false positives %.4f above %.4f", r.floor_fp, tol);
	}
	return rg_test_done("analysis.runs_aa");
}
