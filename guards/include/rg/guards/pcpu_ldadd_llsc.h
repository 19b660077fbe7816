/* SPDX-License-Identifier: MIT */
/* Guard "pcpu-ldadd-llsc": per-CPU LDADD entry, LDXR/STXR exit. */
#ifndef RG_GUARDS_PCPU_LDADD_LLSC_H
#define RG_GUARDS_PCPU_LDADD_LLSC_H

#include "rg/guard.h"

/*

 * enter: return this_cpu_inc_return(slot) == 1     exit: this_cpu_dec(slot)
 * Instruction: LDADD on entry; an LDXR/ADD/STXR/CBNZ loop on exit (LL/SC
 * stays in L1: the other proposed fix for the slow STADD).
 * INSTRUCTION ONLY: not the kernel's whole this_cpu sequence (no
 * preempt_disable()/enable() around it; see the -kernel twin). The slot is
 * found the kernel's way: one load of g->off, then rg_pcpu_ptr() (mrs
 * tpidr_el0 + the thread's base word + add). Relaxed, no "memory" clobber.
 * Protects against: re-entry on the same CPU (thread, signal, preempting thread).
 * Assumes: the thread is pinned (RG_NEEDS_PIN) and called rg_percpu_thread_init(),
 * and rg_guard_prepare(g) ran in this thread since (the measured loops do it once
 * per batch), so the per-CPU base is this CPU's and enter/exit hit the same slot,
 * as the kernel guarantees by running BPF programs with migration disabled. An
 * unpinned thread faults on its first op instead of using a stale slot.
 * Needs LSE.
 */
#if RG_ARCH_AARCH64
static rg_always_inline bool rg_guard_pcpu_ldadd_llsc_enter(struct rg_guard *g)
{
	return rg_lse_ldadd32(rg_pcpu_ptr(rg_guard_off(g)), 1) == 0;
}

static rg_always_inline void rg_guard_pcpu_ldadd_llsc_exit(struct rg_guard *g, bool granted)
{
	(void)granted;	/* a counter: every enter is undone, granted or not */
	rg_llsc_stadd32(rg_pcpu_ptr(rg_guard_off(g)), (uint32_t)-1);
}
#else
RG_GUARD_NOT_ON_THIS_ARCH(pcpu_ldadd_llsc)
#endif

#endif /* RG_GUARDS_PCPU_LDADD_LLSC_H */
