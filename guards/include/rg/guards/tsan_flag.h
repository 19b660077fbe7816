/* SPDX-License-Identifier: MIT */
/* A per-CPU flag taken in inline asm and given back with a store, as ThreadSanitizer must be told; the flag guards' exit. */
#ifndef RG_GUARDS_TSAN_FLAG_H
#define RG_GUARDS_TSAN_FLAG_H

#include <stdbool.h>
#include <stdint.h>

#include "rg/compiler.h"
#include "rg/guard.h"

/*
 * ThreadSanitizer cannot see an xchg/SWP or cmpxchg/CAS in inline asm, so it
 * takes the hand-over of a flag (one holder's store of 0, the next holder's
 * store) for a race. Under TSan only (-DRG_SANITIZE=thread), the store that
 * gives the flag back is a release store TSan sees (the same mov on x86), and
 * the asm that took it acquires from it. In every other build these are the
 * plain store and nothing: the measured code is unchanged.
 * On x86-64 the flag is taken and given back with %gs-relative inline asm
 * only (the kernel's addressing), which TSan does not instrument at all, so
 * there is nothing to annotate; these helpers serve the pointer-based forms
 * (arm64's rg_pcpu_ptr()).
 */
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>

static rg_always_inline bool rg_flag_taken(uint32_t *slot, bool taken)
{
	if (taken)
		__tsan_acquire(slot);
	return taken;
}

static rg_always_inline void rg_flag_give_back(uint32_t *slot)
{
	__atomic_store_n(slot, 0, __ATOMIC_RELEASE);
}
#else
static rg_always_inline bool rg_flag_taken(uint32_t *slot, bool taken)
{
	(void)slot;
	return taken;
}

static rg_always_inline void rg_flag_give_back(uint32_t *slot)
{
	RG_WRITE_ONCE(*slot, 0);
}
#endif

/*
 * The exit of the flag guards (pcpu-swp, pcpu-cas): only the enter that took
 * the flag gives it back, with a plain store of 0 (relaxed, like
 * this_cpu_write()): x86 `mov %r, %gs:(off)` (rg_gs_write32), arm64 through rg_pcpu_ptr().
 */
static rg_always_inline void rg_flag_exit(struct rg_guard *g, bool granted)
{
	if (granted) {
#if RG_ARCH_X86_64
		rg_gs_write32(rg_guard_off(g), 0);
#else
		rg_flag_give_back(rg_pcpu_ptr(rg_guard_off(g)));
#endif
	}
}

#endif /* RG_GUARDS_TSAN_FLAG_H */
