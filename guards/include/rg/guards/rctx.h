/* SPDX-License-Identifier: MIT */
/* Guard "rctx": the bpf-next design, a per-CPU u8[4] indexed by context level, whole-word check. */
#ifndef RG_GUARDS_RCTX_H
#define RG_GUARDS_RCTX_H

#include "rg/guard.h"
#include "rg/rseq.h"

/*
 * enter: active = slot(cpu) as u8[4]; active[rctx]++;
 *        return *(u32 *)active == 1 << (rctx * 8)
 * exit:  active[rctx]--
 * rctx is the context level: in the kernel normal/softirq/hardirq/NMI, here the
 * thread's signal nesting depth (rg_rctx_level, kept by handlers that call
 * rg_rctx_enter_signal()/rg_rctx_exit_signal(); capped at 3). Adding
 * 1 << (rctx*8) to the 32-bit word is active[rctx]++ on a little-endian u8[4].
 * Instruction: non-atomic, inside an rseq critical section
 * (rg_rseq_add_return_u32), the userspace form of the kernel's
 * preempt_disable() + __this_cpu ops. The whole-word check refuses any second
 * user on the CPU at any level, so an interrupting context is refused too.
 * Assumes: rseq registered (RG_NEEDS_RSEQ), thread pinned.
 */
static rg_always_inline uint32_t rg_guard_rctx_bit(void)
{
	uint32_t lvl = RG_READ_ONCE(rg_rctx_level);

	return 1u << ((lvl < 3 ? lvl : 3) * 8);
}

static rg_always_inline bool rg_guard_rctx_enter(struct rg_guard *g)
{
	uint32_t bit = rg_guard_rctx_bit();

	return rg_rseq_add_return_u32(g->pcpu, g->stride, bit) == bit;
}

static rg_always_inline void rg_guard_rctx_exit(struct rg_guard *g, bool granted)
{
	(void)granted;	/* a counter: every enter is undone, granted or not */
	rg_rseq_add_return_u32(g->pcpu, g->stride, -rg_guard_rctx_bit());
}

#endif /* RG_GUARDS_RCTX_H */
