// SPDX-License-Identifier: MIT
/* Stand-in measured loops for every guard in guards.def, until core's rg_loops exists. */
#include "rg/loops.h"
#include "rg/guards/all.h"

#define RG_GUARD(id, name, arch, needs, summary)					\
	static uint64_t pair_##id(struct rg_guard *g, uint64_t n)			\
	{										\
		uint64_t refused = 0;							\
		for (uint64_t i = 0; i < n; i++) {					\
			bool ok = rg_guard_##id##_enter(g);				\
			refused += !ok;							\
			rg_guard_##id##_exit(g, ok);					\
		}									\
		return refused;								\
	}										\
	static uint64_t duty_##id(struct rg_guard *g, uint64_t n, uint32_t work)	\
	{										\
		uint64_t refused = 0;							\
		for (uint64_t i = 0; i < n; i++) {					\
			bool ok = rg_guard_##id##_enter(g);				\
			refused += !ok;							\
			rg_guard_##id##_exit(g, ok);					\
			rg_keep(rg_work(work));						\
		}									\
		return refused;								\
	}										\
	static uint64_t nested_##id(struct rg_guard *g, uint64_t n)			\
	{										\
		uint64_t refused = 0;							\
		for (uint64_t i = 0; i < n; i++) {					\
			bool outer = rg_guard_##id##_enter(g);				\
			bool inner = rg_guard_##id##_enter(g);				\
			refused += !inner;						\
			rg_guard_##id##_exit(g, inner);					\
			rg_guard_##id##_exit(g, outer);					\
		}									\
		return refused;								\
	}
#include "guards.def"
#undef RG_GUARD

const struct rg_loops rg_loops[RG_GUARD__COUNT] = {
#define RG_GUARD(id, name, arch, needs, summary)					\
	[RG_GUARD_##id] = { pair_##id, duty_##id, nested_##id },
#include "guards.def"
#undef RG_GUARD
};
