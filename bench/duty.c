// SPDX-License-Identifier: MIT
/* The duty scenario's calibration: work units that add a target number of ns per pair. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <time.h>

#include "rg/loops.h"
#include "rg/percpu.h"
#include "rg/platform.h"
#include "clock.h"

/* The calibration runs on CPU time too: a preempted step does not shrink the work. */
static double thread_cpu_s(void)
{
	return ts_ns(CLOCK_THREAD_CPUTIME_ID) * 1e-9;
}

/*
 * CPU ns per iteration that `in` units inside the guarded region and `out`
 * after it add to the noop pair loop (best of 3, >= 2 ms each).
 */
static double duty_cost_ns(struct rg_guard *g, uint32_t in, uint32_t out)
{
	const struct rg_loops *L = &rg_loops[rg_guard_floor()->id];
	uint64_t n = 1;
	double best = INFINITY;

	for (int tries = 0, good = 0; tries < 48 && good < 3; tries++) {
		double t0 = thread_cpu_s(), t1, t2;

		L->duty(g, n, in, out);
		t1 = thread_cpu_s();
		L->pair(g, n);
		t2 = thread_cpu_s();
		if (t1 - t0 < 2e-3 && n < (1ull << 32)) {
			n *= 4;
			continue;
		}
		best = fmin(best, ((t1 - t0) - (t2 - t1)) * 1e9 / (double)n);
		good++;
	}
	return best;
}

/*
 * Units of one part (inside: the other part 0; after: the inside part as
 * calibrated) that add target_ns per call. Calibrated at the target itself
 * (a few damped fixed-point steps): short chains overlap the loop's own
 * work, so ns per unit depends on length.
 */
static uint32_t duty_part_units(struct rg_guard *g, long target_ns, bool inside, uint32_t in,
				uint32_t hint)
{
	double units = hint ? hint : 16, cost, base;

	if (target_ns <= 0)
		return 0;
	base = inside || !in ? 0 : duty_cost_ns(g, in, 0);
	/* From another run's figure two steps settle it; from 16 units, five. */
	for (int step = 0; step < (hint ? 2 : 5); step++) {
		uint32_t u = (uint32_t)lround(units);

		cost = (inside ? duty_cost_ns(g, u, 0) : duty_cost_ns(g, in, u)) - base;
		/* Damped: noise (or an emulator) cannot send the estimate far off. */
		double f = cost > 0 ? (double)target_ns / cost : 4;

		units = fmax(1, fmin(1e6, units * fmax(0.25, fmin(4, f))));
	}
	return (uint32_t)lround(units);
}

void rg_suite_duty_units(int cpu, long in_ns, long out_ns, uint32_t *in, uint32_t *out)
{
	uint32_t hint_in = *in, hint_out = *out;
	struct rg_guard g;
	char err[200];

	*in = *out = 0;
	if (in_ns + out_ns <= 0 || rg_guard_init(&g, 0))
		return;
	if (cpu >= 0 && !rg_topo_pin_self(cpu, err, sizeof(err)))
		rg_percpu_thread_init();	/* the loops may take the per-CPU base */
	*in = duty_part_units(&g, in_ns, true, 0, hint_in);
	*out = duty_part_units(&g, out_ns, false, *in, hint_out);
	rg_guard_fini(&g);
}
