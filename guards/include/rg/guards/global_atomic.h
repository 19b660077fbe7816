/* SPDX-License-Identifier: MIT */
/* Guard "global-atomic": one shared atomic counter with the kernel's orderings, the contention ceiling. */
#ifndef RG_GUARDS_GLOBAL_ATOMIC_H
#define RG_GUARDS_GLOBAL_ATOMIC_H

#include "rg/guard.h"

/*
 * enter: return atomic_inc_return(global) == 1      exit: atomic_dec(global)
 * Orderings: the kernel's. atomic_inc_return() is fully ordered: arm64
 * LDADDAL (acquire+release, "memory" clobber), x86 lock xadd. atomic_dec()
 * is relaxed and returns nothing: arm64 STADD (no "memory" clobber, as the
 * kernel's __lse_atomic_add), x86 lock decl (a full barrier in hardware;
 * the kernel's x86 atomic_dec() has a "memory" clobber, so has this one).
 * This is the module's shared counter (kernel/kmod). The relaxed-entry
 * variant is global-atomic-relaxed (arm64 only: x86 has no relaxed RMW).
 * Protects against: any second holder anywhere (same thread, signal handler,
 * another thread on any CPU): at most one holder system-wide, so with several
 * threads most enters are refused. It is the ceiling: every enter/exit bounces
 * one cache line between all CPUs. Needs no pinning; needs LSE on arm64.
 */
static rg_always_inline bool rg_guard_global_atomic_enter(struct rg_guard *g)
{
#if RG_ARCH_X86_64
	return rg_x86_lock_xadd32(g->global, 1) == 0;
#else
	return rg_lse_ldaddal32(g->global, 1) == 0;
#endif
}

static rg_always_inline void rg_guard_global_atomic_exit(struct rg_guard *g, bool granted)
{
	(void)granted;	/* a counter: every enter is undone, granted or not */
#if RG_ARCH_X86_64
	rg_x86_lock_dec32(g->global);
#else
	rg_lse_stadd32(g->global, (uint32_t)-1);
#endif
}

#endif /* RG_GUARDS_GLOBAL_ATOMIC_H */
