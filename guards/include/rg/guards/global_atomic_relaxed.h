/* SPDX-License-Identifier: MIT */
/* Guard "global-atomic-relaxed": the shared counter with a relaxed LDADD entry (arm64 only). */
#ifndef RG_GUARDS_GLOBAL_ATOMIC_RELAXED_H
#define RG_GUARDS_GLOBAL_ATOMIC_RELAXED_H

#include "rg/guard.h"

/*
 * enter: return atomic_inc_return_relaxed(global) == 1   exit: atomic_dec(global)
 * Instruction: LDADD (relaxed, no "memory" clobber) on entry, STADD on exit:
 * what global-atomic measured before it took the kernel's orderings; beside
 * global-atomic (LDADDAL) it shows what the acquire+release costs. arm64
 * only: every x86 locked RMW is fully ordered, so x86's row would be
 * global-atomic again. Protects against any second holder; needs LSE.
 */
#if RG_ARCH_AARCH64
static rg_always_inline bool rg_guard_global_atomic_relaxed_enter(struct rg_guard *g)
{
	return rg_lse_ldadd32(g->global, 1) == 0;
}

static rg_always_inline void rg_guard_global_atomic_relaxed_exit(struct rg_guard *g, bool granted)
{
	(void)granted;	/* a counter: every enter is undone, granted or not */
	rg_lse_stadd32(g->global, (uint32_t)-1);
}
#else
RG_GUARD_NOT_ON_THIS_ARCH(global_atomic_relaxed)
#endif

#endif /* RG_GUARDS_GLOBAL_ATOMIC_RELAXED_H */
