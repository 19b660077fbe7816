/* SPDX-License-Identifier: MIT */
/* Stand-in for core's rg/loops.h (LOOPS-CONTRACT.md), used only while the rg_loops target does not exist. */
#ifndef RG_LOOPS_H
#define RG_LOOPS_H

#include <stdint.h>
#include "rg/guard.h"
#include "rg/registry.h"

/* Dependent ALU chain of `units` steps; the compiler cannot fold it. */
static rg_always_inline uint64_t rg_work(uint32_t units)
{
	uint64_t x = units;

	for (uint32_t i = 0; i < units; i++) {
		x = x * 3 + 1;
		__asm__ __volatile__("" : "+r"(x));
	}
	return x;
}

struct rg_loops {
	uint64_t (*pair)(struct rg_guard *, uint64_t);
	uint64_t (*duty)(struct rg_guard *, uint64_t, uint32_t);
	uint64_t (*nested)(struct rg_guard *, uint64_t);
};

extern const struct rg_loops rg_loops[RG_GUARD__COUNT];

#endif /* RG_LOOPS_H */
