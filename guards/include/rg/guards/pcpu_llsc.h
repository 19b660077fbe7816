/* SPDX-License-Identifier: MIT */
/* Guard "pcpu-llsc": per-CPU LDXR/STXR entry and exit, no LSE needed. */
#ifndef RG_GUARDS_PCPU_LLSC_H
#define RG_GUARDS_PCPU_LLSC_H

#include "rg/guard.h"

/*
 * enter: return this_cpu_inc_return(slot) == 1     exit: this_cpu_dec(slot)
 * Instruction: LDXR/ADD/STXR/CBNZ loops on entry (result used) and exit: what
 * an armv8.0 kernel without LSE runs.
 * Protects against: re-entry on the same CPU (thread, signal, preempting thread).
 * Assumes: the thread is pinned (RG_NEEDS_PIN) and called rg_percpu_thread_init(),
 * so rg_this_cpu() is right and enter/exit hit the same slot, as the kernel
 * guarantees by running BPF programs with migration disabled.
 */
#if RG_ARCH_AARCH64
static rg_always_inline bool rg_guard_pcpu_llsc_enter(struct rg_guard *g)
{
	uint32_t *slot = rg_guard_this_slot(g);

	return rg_llsc_ldadd32(slot, 1) == 0;
}

static rg_always_inline void rg_guard_pcpu_llsc_exit(struct rg_guard *g, bool granted)
{
	uint32_t *slot = rg_guard_this_slot(g);

	(void)granted;	/* a counter: every enter is undone, granted or not */
	rg_llsc_stadd32(slot, (uint32_t)-1);
}
#else
RG_GUARD_NOT_ON_THIS_ARCH(pcpu_llsc)
#endif

#endif /* RG_GUARDS_PCPU_LLSC_H */
