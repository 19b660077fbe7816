/* SPDX-License-Identifier: MIT */
/* Guard "pcpu-cas": a per-CPU flag taken with CAS / lock cmpxchg 0->1, released with a store. */
#ifndef RG_GUARDS_PCPU_CAS_H
#define RG_GUARDS_PCPU_CAS_H

#include "rg/guard.h"
#include "rg/guards/tsan_flag.h"	/* TSan: what the asm does */

/*
 * enter: return cmpxchg(slot, 0, 1) == 0           exit: if (granted) slot = 0
 * Instruction: arm64 CAS (relaxed) on rg_pcpu_ptr(off); x86 `lock cmpxchg %r,
 * %gs:(off)`. Release is a plain store, %gs-relative / through rg_pcpu_ptr().
 * A refused enter does not write.
 * Protects against: re-entry on the same CPU (thread, signal, preempting thread).
 * Assumes: the thread is pinned (RG_NEEDS_PIN) and called rg_percpu_thread_init(),
 * and rg_guard_prepare(g) ran in this thread since (the measured loops do it once
 * per batch), so the per-CPU base is this CPU's and enter/exit hit the same slot,
 * as the kernel guarantees by running BPF programs with migration disabled. An
 * unpinned thread faults on its first op instead of using a stale slot.
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
	/* a flag: only the enter that took it gives it back */
	if (granted) {
#if RG_ARCH_X86_64
		rg_gs_write32(rg_guard_off(g), 0);
#else
		rg_flag_give_back(rg_pcpu_ptr(rg_guard_off(g)));
#endif
	}
}

#endif /* RG_GUARDS_PCPU_CAS_H */
