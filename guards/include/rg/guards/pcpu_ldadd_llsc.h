/* SPDX-License-Identifier: MIT */
/* Guard "pcpu-ldadd-llsc": per-CPU LDADD entry, LDXR/STXR exit. */
#ifndef RG_GUARDS_PCPU_LDADD_LLSC_H
#define RG_GUARDS_PCPU_LDADD_LLSC_H

#include "rg/guard.h"

/*
 * enter: return this_cpu_inc_return(slot) == 1     exit: this_cpu_dec(slot)
 * Instruction: LDADD on entry; an LDXR/ADD/STXR/CBNZ loop on exit (LL/SC
 * stays in L1: the other proposed fix for the slow STADD).
 * Protects against: re-entry on the same CPU (thread, signal, preempting thread).
 * Assumes: the thread is pinned (RG_NEEDS_PIN) and called rg_percpu_thread_init(),
 * so rg_this_cpu() is right and enter/exit hit the same slot, as the kernel
 * guarantees by running BPF programs with migration disabled.
 * Needs LSE (for the entry).
 */
#if RG_ARCH_AARCH64
static rg_always_inline bool rg_guard_pcpu_ldadd_llsc_enter(struct rg_guard *g)
{
	uint32_t *slot = rg_guard_this_slot(g);

	return rg_lse_ldadd32(slot, 1) == 0;
}

static rg_always_inline void rg_guard_pcpu_ldadd_llsc_exit(struct rg_guard *g, bool granted)
{
	uint32_t *slot = rg_guard_this_slot(g);

	(void)granted;	/* a counter: every enter is undone, granted or not */
	rg_llsc_stadd32(slot, (uint32_t)-1);
}
#else
RG_GUARD_NOT_ON_THIS_ARCH(pcpu_ldadd_llsc)
#endif

#endif /* RG_GUARDS_PCPU_LDADD_LLSC_H */
