// SPDX-License-Identifier: MIT
/* The table of measured loops, one row per line of guards.def. */
#include "rg/loops.h"

const struct rg_loops rg_loops[RG_GUARD__COUNT] = {
#define RG_GUARD(id, ...)							\
	[RG_GUARD_##id] = { .pair = rg_loop_pair_##id, .duty = rg_loop_duty_##id, \
			    .nested = rg_loop_nested_##id },
#include "rg/guards.def"
#undef RG_GUARD
};
