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
 *   rg_loop_duty_<id>(g, n, work_in, work_out)
 *	n traced calls, the trampoline's shape: ok = enter(g); if (ok)
 *	work_in units; exit(g, ok); work_out units. The units are one
 *	dependency chain carried across iterations that the guard neither
 *	feeds nor reads (ok only steers a predicted branch; see loops.c.in);
 *	returns refused enters. work_in = work_out = 0 is the pair loop with
 *	that branch.
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
	uint64_t rg_loop_duty_##id(struct rg_guard *g, uint64_t n, uint32_t work_in,	\
				   uint32_t work_out);					\
	uint64_t rg_loop_nested_##id(struct rg_guard *g, uint64_t n);
#include "rg/guards.def"
#undef RG_GUARD

struct rg_loops {
	uint64_t (*pair)(struct rg_guard *, uint64_t);
	uint64_t (*duty)(struct rg_guard *, uint64_t, uint32_t, uint32_t);
	uint64_t (*nested)(struct rg_guard *, uint64_t);
};

/* Indexed by enum rg_guard_id. Call once per batch, never per pair. */
extern const struct rg_loops rg_loops[RG_GUARD__COUNT];

/*
 * Count a refused enter through a branch that is predicted not taken, the
 * way the kernel consumes a guard's result (if (this_cpu_inc_return() != 1)
 * goto skip), never as data: the empty volatile asm on the cold side keeps
 * the compiler from turning the branch into a setcc/adc on the loop's path.
 */
static rg_always_inline void rg_count_refusal(bool ok, uint64_t *refused)
{
	if (rg_unlikely(!ok)) {
		__asm__ __volatile__("");
		(*refused)++;
	}
}

/*
 * ONE WORK UNIT is one 64-bit multiply-add on the loop-carried value
 * (x = x * K + 1: imul + add on x86-64, madd on arm64), about 4 cycles of
 * latency on current x86 and Neoverse cores, with an empty asm between
 * units so that the compiler cannot fold, reassociate or vectorise the
 * chain. rg_work_chain(x, units) continues the chain from x (the duty loops
 * carry it across iterations, in and out of the guarded region alike);
 * rg_work(units) starts one from `units`. The one work unit of every suite
 * (the module's copy says so).
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

#endif /* RG_LOOPS_H */
