/* SPDX-License-Identifier: MIT */
/* Guard "rctx-word": the rctx design with one 32-bit add instead of the byte op and reload. */
#ifndef RG_GUARDS_RCTX_WORD_H
#define RG_GUARDS_RCTX_WORD_H

#include "rg/guard.h"
#include "rg/rseq.h"
#include "rg/guards/rctx.h"

/*
 * enter: active = this CPU's u8[4] as one u32; v = (active += 1 << (rctx*8));
 *        return v == 1 << (rctx * 8)
 * exit:  active -= 1 << (rctx * 8)
 * The same per-CPU u8[4] and whole-word check as rctx, but the increment is
 * a 32-bit add whose result is the word to check (no byte store, no
 * reload): on a little-endian u8[4] it is active[rctx]++ while no byte
 * overflows. NOT the merged kernel code: a variant, kept to show whether
 * the byte-store/word-load shape costs (the store-forwarding stall).
 * Instruction: rg_rseq_add_return_u32() (an rseq critical section, cpu_id
 * << g->shift). Assumes: rseq registered (RG_NEEDS_RSEQ), thread pinned.
 */
static rg_always_inline bool rg_guard_rctx_word_enter(struct rg_guard *g)
{
	uint32_t bit = 1u << (rg_guard_rctx_level() * 8);

	return rg_rseq_add_return_u32(g->pcpu, g->shift, bit) == bit;
}

static rg_always_inline void rg_guard_rctx_word_exit(struct rg_guard *g, bool granted)
{
	(void)granted;	/* a counter: every enter is undone, granted or not */
	rg_rseq_add_return_u32(g->pcpu, g->shift, -(1u << (rg_guard_rctx_level() * 8)));
}

#endif /* RG_GUARDS_RCTX_WORD_H */
