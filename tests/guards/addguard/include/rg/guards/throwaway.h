/* SPDX-License-Identifier: MIT */
/* Guard "throwaway": a test-only design (a ladder of two parts from a family) that proves adding one is four files. */
#ifndef RG_GUARDS_THROWAWAY_H
#define RG_GUARDS_THROWAWAY_H

#include "rg/guard.h"
#include "rg/parts.h"

/*
 * enter: return ++depth == 1        exit: --depth
 * Like tls, a thread-local nesting counter, but stepped with a shape no
 * other guard has, so the asm test can tell its loop apart: +1 is
 * neg(not(x)) and -1 is not(neg(x)) (x86 not/neg, arm64 mvn/neg).
 * Its ladder (addguard/guards.def: RG_PARTS from the family throwaway_steps):
 * load-store (the depth read and written back, no step), then not-neg (the
 * steps and the test: the whole).
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

static rg_always_inline bool rg_guard_throwaway_enter_upto(struct rg_guard *g, unsigned int upto)
{
	uint32_t d = RG_READ_ONCE(rg_throwaway_depth);

	(void)g;
	if (upto >= RG_PART_throwaway__step)
		__asm__(RG_THROWAWAY_INC : "+r"(d));
	RG_WRITE_ONCE(rg_throwaway_depth, d);
	return upto >= RG_PART_throwaway__step ? d == 1 : true;
}

static rg_always_inline void rg_guard_throwaway_exit_upto(struct rg_guard *g, bool granted, unsigned int upto)
{
	uint32_t d = RG_READ_ONCE(rg_throwaway_depth);

	(void)g;
	(void)granted;
	if (upto >= RG_PART_throwaway__step)
		__asm__(RG_THROWAWAY_DEC : "+r"(d));
	RG_WRITE_ONCE(rg_throwaway_depth, d);
}

RG_DEFINE_GUARD_FROM_PARTS(throwaway)

#endif /* RG_GUARDS_THROWAWAY_H */
