/* SPDX-License-Identifier: MIT */
/* Guard "pcpu-swp": a per-CPU flag taken with SWP / xchg, released with a store. */
#ifndef RG_GUARDS_PCPU_SWP_H
#define RG_GUARDS_PCPU_SWP_H

#include "rg/guard.h"
#include "rg/guards/tsan_flag.h"	/* the flag's exit; TSan: what the asm does */

/*
 * enter: return xchg(slot, 1) == 0                 exit: if (granted) slot = 0
 * Instruction: arm64 SWP (relaxed, no "memory" clobber) on rg_pcpu_ptr(off);
 * x86 `xchg %r, %gs:(off)` (implicitly locked). Release is a plain store
 * (relaxed, like this_cpu_write()), %gs-relative / through rg_pcpu_ptr(). Refused enters leave the flag
 * as they found it (1), so exit(false) does nothing.
 * Contract: per-CPU (rg/guard.h).
 * Needs LSE on arm64.
 */
static rg_always_inline bool rg_guard_pcpu_swp_enter(struct rg_guard *g)
{
#if RG_ARCH_X86_64
	return rg_gs_xchg32(rg_guard_off(g), 1) == 0;
#else
	uint32_t *slot = rg_pcpu_ptr(rg_guard_off(g));

	return rg_flag_taken(slot, rg_lse_swp32(slot, 1) == 0);
#endif
}

static rg_always_inline void rg_guard_pcpu_swp_exit(struct rg_guard *g, bool granted)
{
	rg_flag_exit(g, granted);	/* a flag: only the enter that took it gives it back */
}

#endif /* RG_GUARDS_PCPU_SWP_H */
