/* SPDX-License-Identifier: MIT */
/* Guard "rseq": per-CPU non-atomic inc_return/dec inside rseq critical sections. */
#ifndef RG_GUARDS_RSEQ_H
#define RG_GUARDS_RSEQ_H

#include "rg/guard.h"
#include "rg/rseq.h"

/*
 * enter: return rseq{ slot(cpu_id) += 1 } == 1      exit: rseq{ slot(cpu_id) -= 1 }
 * Instruction: a plain load/add/store whose store commits a restartable
 * sequence (rg_rseq_add_return_u32): the userspace counterpart of
 * preempt_disable(); __this_cpu_inc(); the kernel restarts the sequence
 * instead of disabling preemption, so no atomic is needed and no update is
 * lost to preemption, migration or a signal.
 * Protects against: re-entry on the same CPU (thread, signal, preempting thread).
 * Assumes: glibc registered rseq for the thread (RG_NEEDS_RSEQ) and the thread
 * is pinned, so enter and exit hit the same CPU's slot (the cpu is read inside
 * each sequence, cpu_id << g->shift: no multiply; the per-CPU base of
 * rg/percpu.h is not used, reading cpu_id inside the sequence is the cost).
 */
static rg_always_inline bool rg_guard_rseq_enter(struct rg_guard *g)
{
	return rg_rseq_add_return_u32(g->pcpu, g->shift, 1) == 1;
}

static rg_always_inline void rg_guard_rseq_exit(struct rg_guard *g, bool granted)
{
	(void)granted;	/* a counter: every enter is undone, granted or not */
	rg_rseq_add_return_u32(g->pcpu, g->shift, (uint32_t)-1);
}

#endif /* RG_GUARDS_RSEQ_H */
