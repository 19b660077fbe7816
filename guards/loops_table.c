// SPDX-License-Identifier: MIT
/* The table of measured loops, one row per line of guards.def. */
#include "rg/loops.h"
#include "rg/parts.h"

const struct rg_loops rg_loops[RG_GUARD__COUNT] = {
#define RG_GUARD(id, ...)							\
	[RG_GUARD_##id] = { .pair = rg_loop_pair_##id, .duty = rg_loop_duty_##id, \
			    .nested = rg_loop_nested_##id },
#include "rg/guards.def"
#undef RG_GUARD
};

/* The ladder steps, one per RG_PART line (guards/steps.c.in). */
#define RG_PART(design, part, ...)							\
	uint64_t rg_loop_step_##design##__##part(struct rg_guard *g, uint64_t n);
#include "rg/parts.def"
#undef RG_PART

uint64_t (*const rg_step_loops[RG_PART__COUNT + 1])(struct rg_guard *, uint64_t) = {
#define RG_PART(design, part, ...) [RG_PART_##design##__##part] = rg_loop_step_##design##__##part,
#include "rg/parts.def"
#undef RG_PART
};
