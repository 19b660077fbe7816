/* SPDX-License-Identifier: MIT */
/* Guard "throwaway": a test-only guard that proves adding a guard is one header plus one line. */
#ifndef RG_GUARDS_THROWAWAY_H
#define RG_GUARDS_THROWAWAY_H

#include "rg/guard.h"

/*
 * enter: return ++depth == 1        exit: --depth
 * Like tls, a thread-local nesting counter, but stepped with a shape no
 * other guard has, so the asm test can tell its loop apart: +1 is
 * neg(not(x)) and -1 is not(neg(x)) (x86 not/neg, arm64 mvn/neg).
 * Protects against: re-entry on the same thread (scope thread).
 * Its state lives here, like every guard's (RG_GUARD_TLS_STATE: rg/guard.h).
 */
RG_GUARD_TLS_STATE(throwaway, rg_throwaway_depth)

#if RG_ARCH_X86_64
#define RG_THROWAWAY_INC "// rg_throwaway_inc\n\tnotl %0\n\tnegl %0"
#define RG_THROWAWAY_DEC "// rg_throwaway_dec\n\tnegl %0\n\tnotl %0"
#else
#define RG_THROWAWAY_INC "// rg_throwaway_inc\n\tmvn %w0, %w0\n\tneg %w0, %w0"
#define RG_THROWAWAY_DEC "// rg_throwaway_dec\n\tneg %w0, %w0\n\tmvn %w0, %w0"
#endif

static rg_always_inline bool rg_guard_throwaway_enter(struct rg_guard *g)
{
	uint32_t d = RG_READ_ONCE(rg_throwaway_depth);

	(void)g;
	__asm__(RG_THROWAWAY_INC : "+r"(d));
	RG_WRITE_ONCE(rg_throwaway_depth, d);
	return d == 1;
}

static rg_always_inline void rg_guard_throwaway_exit(struct rg_guard *g, bool granted)
{
	uint32_t d = RG_READ_ONCE(rg_throwaway_depth);

	(void)g;
	(void)granted;
	__asm__(RG_THROWAWAY_DEC : "+r"(d));
	RG_WRITE_ONCE(rg_throwaway_depth, d);
}

#endif /* RG_GUARDS_THROWAWAY_H */
