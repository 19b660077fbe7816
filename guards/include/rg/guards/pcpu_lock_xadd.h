/* SPDX-License-Identifier: MIT */
/* Guard "pcpu-lock-xadd": per-CPU lock xadd entry, lock dec exit. */
#ifndef RG_GUARDS_PCPU_LOCK_XADD_H
#define RG_GUARDS_PCPU_LOCK_XADD_H

#include "rg/guard.h"

/*
 * enter: return atomic_inc_return(slot) == 1       exit: atomic_dec(slot)
 * Instruction: lock xadd on entry, lock dec on exit: the x86 cost of making the
 * per-CPU counter atomic (a userspace per-CPU counter without rseq must be,
 * in general; here pinning already makes the lock unnecessary, see pcpu-xadd).
 * Protects against: re-entry on the same CPU (thread, signal, preempting thread).
 * Assumes: the thread is pinned (RG_NEEDS_PIN) and called rg_percpu_thread_init(),
 * so rg_this_cpu() is right and enter/exit hit the same slot, as the kernel
 * guarantees by running BPF programs with migration disabled.
 */
#if RG_ARCH_X86_64
static rg_always_inline bool rg_guard_pcpu_lock_xadd_enter(struct rg_guard *g)
{
	uint32_t *slot = rg_guard_this_slot(g);

	return rg_x86_lock_xadd32(slot, 1) == 0;
}

static rg_always_inline void rg_guard_pcpu_lock_xadd_exit(struct rg_guard *g, bool granted)
{
	uint32_t *slot = rg_guard_this_slot(g);

	(void)granted;	/* a counter: every enter is undone, granted or not */
	rg_x86_lock_dec32(slot);
}
#else
RG_GUARD_NOT_ON_THIS_ARCH(pcpu_lock_xadd)
#endif

#endif /* RG_GUARDS_PCPU_LOCK_XADD_H */
