/* SPDX-License-Identifier: MIT */
/* Guard "ref-lock-xadd": REFERENCE: lock xadd / lock decl on one fixed address, no per-CPU lookup. */
#ifndef RG_GUARDS_REF_LOCK_XADD_H
#define RG_GUARDS_REF_LOCK_XADD_H

#include "rg/guard.h"

/*
 * enter: return atomic_inc_return(&rg_ref_word[0]) == 1    exit: atomic_dec(&rg_ref_word[0])
 * Instruction: `lock xadd %r, rg_ref_word(%rip)` and `lock decl
 * rg_ref_word(%rip)`: the hand-written loop pcpu-lock-xadd is measured
 * against (issue 9: the per-CPU lookup must cost no more than the load of
 * the offset). A reference row, not a guard design: one word for the whole
 * process (a global scope), so with several threads it is global-atomic
 * without the pointer load.
 * Protects against: any second holder in the process.
 */
#if RG_ARCH_X86_64
/* The guard's state: one word (element 0) at a fixed address, alone on its cache lines (weak: rg/guard.h). */
uint32_t rg_ref_word[RG_CACHELINE / sizeof(uint32_t)]
	__attribute__((weak, aligned(RG_CACHELINE)));

RG_GUARD_STATE_HOOK(ref_lock_xadd, rg_ref_word[0])

static rg_always_inline bool rg_guard_ref_lock_xadd_enter(struct rg_guard *g)
{
	uint32_t v = 1;

	(void)g;
	__asm__ __volatile__("// rg_ref_lock_xadd\n\tlock xaddl %[v], %[p]"
			     : [v] "+r"(v), [p] "+m"(rg_ref_word[0]) : : "memory", "cc");
	return v == 0;
}

static rg_always_inline void rg_guard_ref_lock_xadd_exit(struct rg_guard *g, bool granted)
{
	(void)g;
	(void)granted;
	__asm__ __volatile__("// rg_ref_lock_decl\n\tlock decl %[p]"
			     : [p] "+m"(rg_ref_word[0]) : : "memory", "cc");
}
#else
RG_GUARD_NOT_ON_THIS_ARCH(ref_lock_xadd)
#endif

#endif /* RG_GUARDS_REF_LOCK_XADD_H */
