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
 * call of any kind (tests/guards asm test disassembles and checks).
 *
 *   rg_loop_pair_<id>(g, n)
 *	n enter/exit pairs back to back; returns the number of refused enters
 *	(0 on one pinned thread).
 *   rg_loop_duty_<id>(g, n, work)
 *	the same with `work` units of dependent work after each pair, in one
 *	dependency chain through the guard (x = rg_work_chain(x ^ ok, work),
 *	the next enter reaches g through x: see loops.c.in); returns refused
 *	enters. work = 0 is the pair loop plus the chain's XOR and the
 *	dependency on g.
 *   rg_loop_nested_<id>(g, n)
 *	n times: enter, nested enter, exit(nested), exit(outer); returns the
 *	number of refused enters, which is n for every guard that claims
 *	protection (the outer enter is granted on one thread) and 0 for noop.
 *
 * Every loop starts with rg_guard_prepare(g) (the per-CPU base for g's slot
 * layout: a TLS compare, outside the loop). Per-CPU guards need the calling
 * thread pinned and rg_percpu_thread_init() called after pinning (an
 * unpinned thread faults instead of using a stale slot). Callers check
 * rg_guard_available() first: a guard built for another architecture traps,
 * an LSE guard on a CPU without LSE dies of SIGILL.
 */
#define RG_GUARD(id, ...)								\
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
 * ONE WORK UNIT is one 64-bit multiply-add on the loop-carried value
 * (x = x * K + 1: imul + add on x86-64, madd on arm64), about 4 cycles of
 * latency on current x86 and Neoverse cores, with an empty asm between
 * units so that the compiler cannot fold, reassociate or vectorise the
 * chain. rg_work_chain(x, units) continues the chain from x (the duty loops
 * carry it across iterations); rg_work(units) starts one from `units`.
 */
static rg_always_inline uint64_t rg_work_chain(uint64_t x, uint32_t units)
{
	for (uint32_t i = 0; i < units; i++) {
		__asm__ __volatile__("" : "+r"(x));
		x = x * 0x9e3779b97f4a7c15ull + 1;
	}
	return x;
}

static rg_always_inline uint64_t rg_work(uint32_t units)
{
	return rg_work_chain(units, units);
}

/*
 * 0, computed from x by one real instruction (AND with zero: not a
 * dependency-breaking idiom on x86 or arm64), so that what is addressed
 * with it waits for x. The compiler cannot see that it is 0.
 */
static rg_always_inline uintptr_t rg_dep_zero(uint64_t x)
{
#if RG_ARCH_X86_64
	__asm__("andq $0, %0" : "+r"(x) : : "cc");
#else
	__asm__("and %0, %0, xzr" : "+r"(x));
#endif
	return (uintptr_t)x;
}

#endif /* RG_LOOPS_H */
