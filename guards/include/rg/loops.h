/* SPDX-License-Identifier: MIT */
/* The measured loops: one instantiation per guard (generated from guards.def), and their table. */
#ifndef RG_LOOPS_H
#define RG_LOOPS_H

#include <stdint.h>
#include "rg/guard.h"
#include "rg/percpu.h"
#include "rg/registry.h"

/*
 * For every guard id in guards.def, guards/loops.c.in is instantiated in its
 * own translation unit (library rg_loops) that includes only that guard's
 * header, so enter/exit are inlined into the loop and the loop contains no
 * call of any kind (tests/core asm test disassembles and checks).
 *
 *   rg_loop_pair_<id>(g, n)
 *	n enter/exit pairs back to back; returns the number of refused enters
 *	(0 on one pinned thread).
 *   rg_loop_duty_<id>(g, n, work)
 *	the same with rg_work(work) after each pair (a duty cycle: the guard
 *	with real work between pairs); returns refused enters.
 *   rg_loop_nested_<id>(g, n)
 *	n times: enter, nested enter, exit(nested), exit(outer); returns the
 *	number of refused enters, which is n for every guard that claims
 *	protection (the outer enter is granted on one thread) and 0 for noop.
 *
 * Per-CPU guards read the CPU with rg_this_cpu(): the calling thread must be
 * pinned and have called rg_percpu_thread_init(). Callers check
 * rg_guard_available() first: a guard built for another architecture traps,
 * an LSE guard on a CPU without LSE dies of SIGILL.
 */
#define RG_GUARD(id, name, arch, needs, summary)					\
	uint64_t rg_loop_pair_##id(struct rg_guard *g, uint64_t n);			\
	uint64_t rg_loop_duty_##id(struct rg_guard *g, uint64_t n, uint32_t work);	\
	uint64_t rg_loop_nested_##id(struct rg_guard *g, uint64_t n);
#include "guards.def"
#undef RG_GUARD

struct rg_loops {
	uint64_t (*pair)(struct rg_guard *, uint64_t);
	uint64_t (*duty)(struct rg_guard *, uint64_t, uint32_t);
	uint64_t (*nested)(struct rg_guard *, uint64_t);
};

/* Indexed by enum rg_guard_id. Call once per batch, never per pair. */
extern const struct rg_loops rg_loops[RG_GUARD__COUNT];

/*
 * units of dependent ALU work that the compiler cannot fold or vectorise:
 * each unit is one multiply-add on a loop-carried value (about 4 cycles of
 * latency on current x86 and Neoverse cores). Returns the value so the
 * caller can rg_keep() it.
 */
static rg_always_inline uint64_t rg_work(uint32_t units)
{
	uint64_t x = units;

	for (uint32_t i = 0; i < units; i++) {
		__asm__ __volatile__("" : "+r"(x));
		x = x * 0x9e3779b97f4a7c15ull + 1;
	}
	return x;
}

#endif /* RG_LOOPS_H */
