/* SPDX-License-Identifier: MIT */
/* Guard "pcpu-lock-xadd": per-CPU lock xadd entry, lock dec exit. */
#ifndef RG_GUARDS_PCPU_LOCK_XADD_H
#define RG_GUARDS_PCPU_LOCK_XADD_H

#include "rg/guard.h"

/*

 * enter: return atomic_inc_return(this CPU's slot) == 1    exit: atomic_dec(slot)
 * Instruction: `lock xadd %r, %gs:(off)` on entry, `lock decl %gs:(off)` on
 * exit, the slot found like pcpu-xadd's (one load of g->off, %gs-relative):
 * the x86 cost of making a per-CPU counter atomic. Compare with
 * ref-lock-xadd (the same two instructions on a fixed address): the two
 * should cost the same, the address chain being one load.
 * Protects against: re-entry on the same CPU (thread, signal, preempting thread).
 * Assumes: the thread is pinned (RG_NEEDS_PIN) and called rg_percpu_thread_init(),
 * and rg_guard_prepare(g) ran in this thread since (the measured loops do it once
 * per batch), so the per-CPU base is this CPU's and enter/exit hit the same slot,
 * as the kernel guarantees by running BPF programs with migration disabled. An
 * unpinned thread faults on its first op instead of using a stale slot.
 */
#if RG_ARCH_X86_64
static rg_always_inline bool rg_guard_pcpu_lock_xadd_enter(struct rg_guard *g)
{
	return rg_gs_lock_xadd32(rg_guard_off(g), 1) == 0;
}

static rg_always_inline void rg_guard_pcpu_lock_xadd_exit(struct rg_guard *g, bool granted)
{
	(void)granted;	/* a counter: every enter is undone, granted or not */
	rg_gs_lock_dec32(rg_guard_off(g));
}
#else
RG_GUARD_NOT_ON_THIS_ARCH(pcpu_lock_xadd)
#endif

#endif /* RG_GUARDS_PCPU_LOCK_XADD_H */
