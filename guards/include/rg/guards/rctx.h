/* SPDX-License-Identifier: MIT */
/* Guard "rctx": the merged bpf-next recursion check, byte increment then whole-word reload. */
#ifndef RG_GUARDS_RCTX_H
#define RG_GUARDS_RCTX_H

#include "rg/guard.h"
#include "rg/rseq.h"

/*
 * enter: rctx = context level; active = this CPU's u8[4];
 *        active[rctx]++;                       a BYTE load/add/store
 *        return *(u32 *)active == 1 << (rctx * 8)   a 32-bit reload of the word
 * exit:  active[rctx]--                         a byte load/add/store
 * This is the merged bpf-next design (the kernel's __bpf_prog_enter_recur()
 * on arm64 since 2025-12; the module, kernel/kmod, runs it in the kernel):
 * rctx is interrupt_context_level() there (normal/softirq/hardirq/NMI), here
 * the signal nesting depth (rg_rctx_level, kept by handlers that call
 * rg_rctx_enter_signal()/rg_rctx_exit_signal(); capped at 3). The whole-word
 * check refuses any second user on the CPU at any level.
 * Instruction: rg_rseq_add8_load32()/rg_rseq_add8(): the byte read-modify-
 * write is the commit of an rseq critical section (the userspace form of the
 * kernel's preempt_disable(): a preemption, migration or signal before the
 * commit restarts it); the 32-bit reload follows the byte store, so it pays
 * the store-forwarding stall the kernel's shape pays. The cpu_id is read
 * inside the sequence and the slot is cpu_id << g->shift (no multiply).
 * Whole-word add instead of the byte op: rctx-word.
 * Exact: no double grant, no lost count, counters back to 0 (tests/guards).
 * A preemption between the commit and the reload can make an enter refuse
 * that the kernel would grant (its preempt_disable() covers the reload),
 * never grant twice.
 * Assumes: rseq registered (RG_NEEDS_RSEQ), thread pinned.
 */
static rg_always_inline uint32_t rg_guard_rctx_level(void)
{
	uint32_t lvl = RG_READ_ONCE(rg_rctx_level);

	return lvl < 3 ? lvl : 3;
}

static rg_always_inline bool rg_guard_rctx_enter(struct rg_guard *g)
{
	uint32_t rctx = rg_guard_rctx_level();

	return rg_rseq_add8_load32(g->pcpu, g->shift, rctx, 1) == 1u << (rctx * 8);
}

static rg_always_inline void rg_guard_rctx_exit(struct rg_guard *g, bool granted)
{
	(void)granted;	/* a counter: every enter is undone, granted or not */
	rg_rseq_add8(g->pcpu, g->shift, rg_guard_rctx_level(), (uint32_t)-1);
}

#endif /* RG_GUARDS_RCTX_H */
