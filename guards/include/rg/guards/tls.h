/* SPDX-License-Identifier: MIT */
/* Guard "tls": a thread-local nesting counter, the floor for any real guard. */
#ifndef RG_GUARDS_TLS_H
#define RG_GUARDS_TLS_H

#include "rg/guard.h"

/* The guard's state: the thread's nesting depth (RG_GUARD_TLS_STATE: rg/guard.h). */
RG_GUARD_TLS_STATE(tls, rg_tls_depth)

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
