/* SPDX-License-Identifier: MIT */
/* Guard "tls": a thread-local nesting counter, the floor for any real guard. */
#ifndef RG_GUARDS_TLS_H
#define RG_GUARDS_TLS_H

#include "rg/guard.h"

/*
 * The guard's state: the thread's nesting depth. Defined here, weak, so that
 * every translation unit that includes this header (the loops, the registry,
 * tests) defines the same one variable and the linker keeps one: the guard
 * needs no line in any .c file. initial-exec: the access the extern
 * declaration had (offset loaded from the GOT, then %fs:/tpidr_el0-relative);
 * a definition in the translation unit alone would let the compiler pick
 * local-exec and change the measured loops (their objdump is unchanged).
 */
__thread uint32_t rg_tls_depth __attribute__((weak, tls_model("initial-exec")));

#ifdef RG_GUARD_STATE_HOOKS	/* the registry's translation unit only */
/* The state the tests check is back to 0 (rg_guard_info.state). */
__attribute__((weak)) uint32_t rg_guard_tls_state(void)
{
	return rg_tls_depth;
}
#endif

/*
 * enter: return ++depth == 1        exit: --depth
 * Instruction: a plain load/add/store on a thread-local word (compiler code,
 * no atomics: only this thread and its own signal handlers touch it).
 * Protects against: re-entry on the same thread, including from a signal
 * handler (a handler runs to completion before the interrupted code resumes,
 * so its balanced ++/-- cannot be lost). Does not serialize different threads
 * on one CPU: it guards a thread, not a CPU. Needs no pinning.
 */
static rg_always_inline bool rg_guard_tls_enter(struct rg_guard *g)
{
	(void)g;
	uint32_t d = RG_READ_ONCE(rg_tls_depth) + 1;

	RG_WRITE_ONCE(rg_tls_depth, d);
	return d == 1;
}

static rg_always_inline void rg_guard_tls_exit(struct rg_guard *g, bool granted)
{
	(void)g;
	(void)granted;
	RG_WRITE_ONCE(rg_tls_depth, RG_READ_ONCE(rg_tls_depth) - 1);
}

#endif /* RG_GUARDS_TLS_H */
