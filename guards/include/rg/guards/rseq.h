/* SPDX-License-Identifier: MIT */
/* Guard "rseq": per-CPU non-atomic inc_return/dec inside rseq critical sections. */
#ifndef RG_GUARDS_RSEQ_H
#define RG_GUARDS_RSEQ_H

#include "rg/guard.h"
#include "rg/parts.h"
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
/*
 * Parts (guards.def: RG_PART(rseq, arm / slot / commit)), as far as upto
 * (rg/parts.h): the section armed and left; this CPU's slot computed in
 * it (kept); the add that commits it and the test (the whole).
 */
static rg_always_inline unsigned int rg_guard_rseq_stage(unsigned int upto)
{
	return upto >= RG_PART_rseq__commit ? 2 : upto >= RG_PART_rseq__slot ? 1 : 0;
}

static rg_always_inline bool rg_guard_rseq_enter_upto(struct rg_guard *g, unsigned int upto)
{
	uint64_t r = rg_rseq_add_return_u32_stage(g->pcpu, g->shift, 1, rg_guard_rseq_stage(upto));

	if (upto < RG_PART_rseq__commit) {
		rg_part_keep(r);
		return true;
	}
	return (uint32_t)r == 1;
}

static rg_always_inline void rg_guard_rseq_exit_upto(struct rg_guard *g, bool granted, unsigned int upto)
{
	uint64_t r;

	(void)granted;	/* a counter: every enter is undone, granted or not */
	r = rg_rseq_add_return_u32_stage(g->pcpu, g->shift, (uint32_t)-1, rg_guard_rseq_stage(upto));
	if (upto < RG_PART_rseq__commit)
		rg_part_keep(r);
}

RG_DEFINE_GUARD_FROM_PARTS(rseq)

#endif /* RG_GUARDS_RSEQ_H */
