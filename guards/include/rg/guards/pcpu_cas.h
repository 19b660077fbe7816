/* SPDX-License-Identifier: MIT */
/* Guard "pcpu-cas": a per-CPU flag taken with CAS / lock cmpxchg 0->1, released with a store. */
#ifndef RG_GUARDS_PCPU_CAS_H
#define RG_GUARDS_PCPU_CAS_H

#include "rg/guard.h"
#include "rg/guards/tsan_flag.h"	/* the flag's exit; TSan: what the asm does */

/*
 * enter: return cmpxchg(slot, 0, 1) == 0           exit: if (granted) slot = 0
 * Instruction: arm64 CAS (relaxed) on rg_pcpu_ptr(off); x86 `lock cmpxchg %r,
 * %gs:(off)`. Release is a plain store, %gs-relative / through rg_pcpu_ptr().
 * A refused enter does not write.
 * Contract: per-CPU (rg/guard.h).
 * Needs LSE on arm64.
 */
static rg_always_inline bool rg_guard_pcpu_cas_enter(struct rg_guard *g)
{
#if RG_ARCH_X86_64
	return rg_gs_lock_cmpxchg32(rg_guard_off(g), 0, 1) == 0;
#else
	uint32_t *slot = rg_pcpu_ptr(rg_guard_off(g));

	return rg_flag_taken(slot, rg_lse_cas32(slot, 0, 1) == 0);
#endif
}

static rg_always_inline void rg_guard_pcpu_cas_exit(struct rg_guard *g, bool granted)
{
	rg_flag_exit(g, granted);	/* a flag: only the enter that took it gives it back */
}

#endif /* RG_GUARDS_PCPU_CAS_H */
