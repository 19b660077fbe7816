/* SPDX-License-Identifier: MIT */
/* Guard "noop": the harness floor. */
#ifndef RG_GUARDS_NOOP_H
#define RG_GUARDS_NOOP_H

#include "rg/guard.h"

/*
 * enter: return true          exit: nothing
 * Instruction: none. Protects against: nothing (RG_NO_PROTECTION).
 * Its cost is the loop, the batch bookkeeping and the call into the measured
 * function: it is the baseline a guard is compared with (the result's
 * baseline and delta_ns columns), not a guard cost to report on its own.
 */
static rg_always_inline bool rg_guard_noop_enter(struct rg_guard *g)
{
	(void)g;
	rg_barrier();
	return true;
}

static rg_always_inline void rg_guard_noop_exit(struct rg_guard *g, bool granted)
{
	(void)g;
	(void)granted;
	rg_barrier();
}

#endif /* RG_GUARDS_NOOP_H */
