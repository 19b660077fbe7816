/* SPDX-License-Identifier: MIT */
/* Guard "racy-percpu": NEGATIVE CONTROL, a plain per-CPU increment with no protection. */
#ifndef RG_GUARDS_RACY_PERCPU_H
#define RG_GUARDS_RACY_PERCPU_H

#include "rg/guard.h"

/*
 * enter: return ++slot(cpu) == 1                   exit: --slot(cpu)
 * Instruction: ldr/add/str (arm64, through rg_pcpu_ptr()), mov/add/mov with
 * %gs: (x86, rg_gs_plain_add_return32): a load, an add and a store, none
 * atomic, no rseq; the slot found like every per-CPU guard's.
 * Protects against: same-thread nesting and a signal handler that runs to
 * completion (its ++/-- is balanced), but NOT against a thread that preempts
 * the holder between the load and the store on the same CPU: both see 0, both
 * are granted, and a count is lost. Kept so the stress tests prove they can
 * fail (tests/guards). RG_NO_PROTECTION: never report it as a guard.
 * Assumes: the per-CPU contract's pinning (rg/guard.h).
 */
static rg_always_inline bool rg_guard_racy_percpu_enter(struct rg_guard *g)
{
#if RG_ARCH_X86_64
	return rg_gs_plain_add_return32(rg_guard_off(g), 1) == 1;
#else
	return rg_plain_add_return32(rg_pcpu_ptr(rg_guard_off(g)), 1) == 1;
#endif
}

static rg_always_inline void rg_guard_racy_percpu_exit(struct rg_guard *g, bool granted)
{
	(void)granted;
#if RG_ARCH_X86_64
	rg_gs_plain_add_return32(rg_guard_off(g), (uint32_t)-1);
#else
	rg_plain_add_return32(rg_pcpu_ptr(rg_guard_off(g)), (uint32_t)-1);
#endif
}

#endif /* RG_GUARDS_RACY_PERCPU_H */
