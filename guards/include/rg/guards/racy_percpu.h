/* SPDX-License-Identifier: MIT */
/* Guard "racy-percpu": NEGATIVE CONTROL, a plain per-CPU increment with no protection. */
#ifndef RG_GUARDS_RACY_PERCPU_H
#define RG_GUARDS_RACY_PERCPU_H

#include "rg/guard.h"

/*
 * enter: return ++slot(cpu) == 1                   exit: --slot(cpu)
 * Instruction: ldr/add/str (arm64), mov/add/mov (x86): a load, an add and a
 * store, none atomic, no rseq (rg_plain_add_return32).
 * Protects against: same-thread nesting and a signal handler that runs to
 * completion (its ++/-- is balanced), but NOT against a thread that preempts
 * the holder between the load and the store on the same CPU: both see 0, both
 * are granted, and a count is lost. Kept so the stress tests prove they can
 * fail (tests/core). RG_NO_PROTECTION: never report it as a guard.
 * Assumes: the thread is pinned (RG_NEEDS_PIN) and called rg_percpu_thread_init(),
 * so rg_this_cpu() is right and enter/exit hit the same slot, as the kernel
 * guarantees by running BPF programs with migration disabled.
 */
static rg_always_inline bool rg_guard_racy_percpu_enter(struct rg_guard *g)
{
	return rg_plain_add_return32(rg_guard_this_slot(g), 1) == 1;
}

static rg_always_inline void rg_guard_racy_percpu_exit(struct rg_guard *g, bool granted)
{
	(void)granted;
	rg_plain_add_return32(rg_guard_this_slot(g), (uint32_t)-1);
}

#endif /* RG_GUARDS_RACY_PERCPU_H */
