/* SPDX-License-Identifier: MIT */
/* Guard "pcpu-xadd": per-CPU xadd/dec without lock: the x86 kernel's this_cpu ops, exactly. */
#ifndef RG_GUARDS_PCPU_XADD_H
#define RG_GUARDS_PCPU_XADD_H

#include "rg/guard.h"

/*
 * enter: return this_cpu_inc_return(*active) == 1   exit: this_cpu_dec(*active)
 * Instruction: `mov off(g), %r` then `xadd %r2, %gs:(%r)` on entry and
 * `decl %gs:(%r)` on exit, no lock: what the x86 kernel runs for
 * this_cpu_inc_return()/this_cpu_dec() (arch/x86/include/asm/percpu.h,
 * percpu_add_return_op with its "memory" clobber / percpu_unary_op without
 * one, as rg_gs_xadd32/rg_gs_dec32), one load of prog->active and one
 * %gs-relative instruction each. x86 needs no preempt_disable() around
 * them (one instruction cannot be split by an interrupt or preemption), so
 * this IS the kernel's whole this_cpu sequence, before and after 6.18: x86
 * has no separate -kernel row. Not atomic against another CPU, which
 * pinning rules out.
 * Protects against: re-entry on the same CPU (thread, signal, preempting thread).
 * Assumes: the thread is pinned (RG_NEEDS_PIN) and called rg_percpu_thread_init(),
 * and rg_guard_prepare(g) ran in this thread since (the measured loops do it once
 * per batch), so the per-CPU base is this CPU's and enter/exit hit the same slot,
 * as the kernel guarantees by running BPF programs with migration disabled. An
 * unpinned thread faults on its first op instead of using a stale slot.
 */
#if RG_ARCH_X86_64
static rg_always_inline bool rg_guard_pcpu_xadd_enter(struct rg_guard *g)
{
	return rg_gs_xadd32(rg_guard_off(g), 1) == 0;
}

static rg_always_inline void rg_guard_pcpu_xadd_exit(struct rg_guard *g, bool granted)
{
	(void)granted;	/* a counter: every enter is undone, granted or not */
	rg_gs_dec32(rg_guard_off(g));
}
#else
RG_GUARD_NOT_ON_THIS_ARCH(pcpu_xadd)
#endif

#endif /* RG_GUARDS_PCPU_XADD_H */
