// SPDX-License-Identifier: MIT
/* The ladders of guards.def: names, order, profiles, and what each step's loop leaves in the slot (exact counts). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include "rg/guard.h"
#include "rg/loops.h"
#include "rg/parts.h"
#include "rg/preempt.h"
#include "rg/registry.h"
#include "check.h"

#define N 1000u

/*
 * Step k of a design runs parts 1..k. Every step leaves the preempt count
 * idle and never calls the scheduler; the step whose entry op is there but
 * not the exit's (the *-kernel and pcpu-xadd "enter_op" steps) leaves
 * exactly N in this CPU's slot; every other step leaves every slot 0 and
 * refuses nothing (enter grants without a test before the test's part).
 */
static void test_step(int i)
{
	const struct rg_part_info *p = &rg_parts[i];
	const struct rg_guard_info *gi = &rg_guards[p->design];
	uint32_t want = !strcmp(p->part, "enter_op") ? N : 0, got;
	struct rg_guard g;
	uint64_t refused;

	CHECK(rg_guard_init(&g, 0) == 0, "rg_guard_init");
	if (!g.pcpu)
		return;
	refused = rg_step_loops[i](&g, N);
	rg_guard_prepare(&g);
	got = *rg_guard_this_slot(&g);
	CHECK(refused == 0, "%s: %llu refused", p->name, (unsigned long long)refused);
	CHECK(got == want, "%s: slot %u after %u pairs, expected %u", p->name, got, N, want);
	for (unsigned int cpu = 0; cpu < g.ncpus; cpu++)
		if (rg_guard_slot(&g, cpu) != rg_guard_this_slot(&g))
			CHECK(*rg_guard_slot(&g, cpu) == 0, "%s: another CPU's slot %u = %u", p->name,
			      cpu, *rg_guard_slot(&g, cpu));
	CHECK(rg_preempt_count_idle(), "%s: preempt count 0x%x, not idle", p->name, rg_preempt_count());
	CHECK(rg_preempt_schedule_calls == 0, "%s: preempt_schedule called", p->name);
	printf("%-36s step %d/%d of %s: %u pairs, slot %u, ok\n", p->name, rg_part_step(i),
	       rg_ladder_len(p->design), gi->name, N, got);
	rg_guard_fini(&g);
}

int main(void)
{
	cpu_set_t set;
	int cpu = sched_getcpu(), ran = 0;

	CPU_ZERO(&set);
	CPU_SET(cpu < 0 ? 0 : cpu, &set);
	CHECK(sched_setaffinity(0, sizeof(set), &set) == 0, "pinning to cpu %d", cpu);
	CHECK_EQ(rg_percpu_thread_init(), cpu);

	for (int i = 0; i < RG_PART__COUNT; i++) {
		const struct rg_part_info *p = &rg_parts[i];
		const struct rg_guard_info *gi = &rg_guards[p->design];
		size_t len = strlen(gi->name);
		const char *why = NULL;

		/* the description: named "<design>+...", consecutive, a profile, steps 1..n */
		CHECK(!strncmp(p->name, gi->name, len) && p->name[len] == '+' && p->name[len + 1],
		      "%s: a step of %s is named \"%s+<what it adds>\"", p->name, gi->name, gi->name);
		CHECK(rg_ladder_profile(p->design) == RG_LADDER_DEFAULT ||
		      rg_ladder_profile(p->design) == RG_LADDER_FULL, "%s: no RG_LADDER line", gi->name);
		CHECK(rg_part_step(i) == i - rg_ladder_first(p->design) + 1,
		      "%s: the parts of %s are not consecutive", p->name, gi->name);
		CHECK(p->adds[0] && p->models[0], "%s: what it adds and its kernel source", p->name);
		if (!rg_guard_available(gi, &why)) {
			printf("%-36s skipped: %s\n", p->name, why);
			continue;
		}
		test_step(i);
		ran++;
	}
	for (int id = 0; id < RG_GUARD__COUNT; id++)
		CHECK(!rg_ladder_profile((unsigned int)id) == (rg_ladder_first((unsigned int)id) < 0),
		      "%s: an RG_LADDER line without parts, or parts without one", rg_guards[id].name);
	printf("%d of %d steps run\n", ran, (int)RG_PART__COUNT);
	return rg_test_done("test_parts");
}
