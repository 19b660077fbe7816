/* SPDX-License-Identifier: MIT */
/* Guard "pcpu-xadd": per-CPU xadd/dec without lock (the x86 kernel's this_cpu ops). */
#ifndef RG_GUARDS_PCPU_XADD_H
#define RG_GUARDS_PCPU_XADD_H

#include "rg/guard.h"

/*
 * enter: return this_cpu_inc_return(slot) == 1     exit: this_cpu_dec(slot)
 * Instruction: xadd and dec on memory WITHOUT lock: what the x86 kernel emits
 * (%gs-relative) for this_cpu_inc_return()/this_cpu_dec(). One instruction
 * cannot be split by a signal or by preemption, so it is exact per CPU; it is
 * not atomic against another CPU, which pinning rules out.
 * Protects against: re-entry on the same CPU (thread, signal, preempting thread).
 * Assumes: the thread is pinned (RG_NEEDS_PIN) and called rg_percpu_thread_init(),
 * so rg_this_cpu() is right and enter/exit hit the same slot, as the kernel
 * guarantees by running BPF programs with migration disabled.
 */
#if RG_ARCH_X86_64
static rg_always_inline bool rg_guard_pcpu_xadd_enter(struct rg_guard *g)
{
	uint32_t *slot = rg_guard_this_slot(g);

	return rg_x86_xadd32(slot, 1) == 0;
}

static rg_always_inline void rg_guard_pcpu_xadd_exit(struct rg_guard *g, bool granted)
{
	uint32_t *slot = rg_guard_this_slot(g);

	(void)granted;	/* a counter: every enter is undone, granted or not */
	rg_x86_dec32(slot);
}
#else
RG_GUARD_NOT_ON_THIS_ARCH(pcpu_xadd)
#endif

#endif /* RG_GUARDS_PCPU_XADD_H */
