/* SPDX-License-Identifier: MIT */
/* Guard "pcpu-stadd": per-CPU LDADD entry, STADD exit (arm64 before 6.18). */
#ifndef RG_GUARDS_PCPU_STADD_H
#define RG_GUARDS_PCPU_STADD_H

#include "rg/guard.h"

/*
 * enter: return this_cpu_inc_return(slot) == 1     exit: this_cpu_dec(slot)
 * Instruction: LDADD (relaxed, result used) on entry; STADD #-1 on exit: the
 * no-return store atomic that Neoverse cores tend to execute "far", in the
 * interconnect. This is __bpf_prog_enter_recur()/exit on arm64 kernels < 6.18.
 * Protects against: re-entry on the same CPU from the same thread, a signal
 * handler (interrupt stand-in) or another thread that preempted the holder.
 * Assumes: the thread is pinned (RG_NEEDS_PIN) and called rg_percpu_thread_init(),
 * so rg_this_cpu() is right and enter/exit hit the same slot, as the kernel
 * guarantees by running BPF programs with migration disabled.
 * Needs LSE.
 */
#if RG_ARCH_AARCH64
static rg_always_inline bool rg_guard_pcpu_stadd_enter(struct rg_guard *g)
{
	uint32_t *slot = rg_guard_this_slot(g);

	return rg_lse_ldadd32(slot, 1) == 0;
}

static rg_always_inline void rg_guard_pcpu_stadd_exit(struct rg_guard *g, bool granted)
{
	uint32_t *slot = rg_guard_this_slot(g);

	(void)granted;	/* a counter: every enter is undone, granted or not */
	rg_lse_stadd32(slot, (uint32_t)-1);
}
#else
RG_GUARD_NOT_ON_THIS_ARCH(pcpu_stadd)
#endif

#endif /* RG_GUARDS_PCPU_STADD_H */
