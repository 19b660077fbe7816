/* SPDX-License-Identifier: MIT */
/* The parts of the composite designs (RG_LADDER/RG_PART lines of guards.def): the step constants the design headers test, and the ladder table. */
#ifndef RG_PARTS_H
#define RG_PARTS_H

#include <stdint.h>

struct rg_guard;

/* RG_LADDER's profile column: in every profile, or with --full only. */
#define RG_LADDER_DEFAULT	1u
#define RG_LADDER_FULL		2u

/*
 * One constant per RG_PART line, in file order: RG_PART_<design>__<part>.
 * A design's parts are consecutive, so step k of its ladder is "every part
 * whose constant is <= the k-th part's": a design header's
 * rg_guard_<id>_enter_upto(g, upto) does a part when upto >= its constant,
 * and the design's own enter passes RG_PARTS_ALL. upto is a constant in
 * every loop (guards/steps.c.in, loops.c.in), so the tests fold away.
 */
enum rg_part_id {
#define RG_PART(design, part, ...) RG_PART_##design##__##part,
#include "rg/parts.def"
#undef RG_PART
	RG_PART__COUNT
};
#define RG_PARTS_ALL ((unsigned int)RG_PART__COUNT)

/* One RG_PART line: a step of its design's ladder (guards/parts.c). */
struct rg_part_info {
	unsigned int design;		/* enum rg_guard_id of the design */
	const char *part;		/* the part's C identifier */
	const char *name;		/* the step's row name: "<design>+<what it adds>" */
	const char *adds;		/* what the step adds to the one before */
	const char *models;		/* the kernel source of the part */
	const char *insns_x86_64, *insns_aarch64;	/* what its step loop must contain */
};

extern const struct rg_part_info rg_parts[];

/* The design's RG_LADDER profile (RG_LADDER_DEFAULT or _FULL), 0 when it has no ladder. */
unsigned int rg_ladder_profile(unsigned int design);
/* Index in rg_parts of the design's first part, -1 when it has none; its number of parts. */
int rg_ladder_first(unsigned int design);
int rg_ladder_len(unsigned int design);
/* rg_parts[i]'s place in its design's ladder, 1-based (the last is the whole). */
int rg_part_step(int i);
/* The step's loop (rg_loop_step_<design>__<part>, library rg_loops): call once per batch. */
extern uint64_t (*const rg_step_loops[])(struct rg_guard *, uint64_t);
/* The markdown table of docs/guards.md: every part of every design with its kernel source. */
#include <stdio.h>
void rg_parts_print_table(FILE *f);

/*
 * The design's own enter/exit: every part (RG_PARTS_ALL), for a header that
 * defines rg_guard_<id>_enter_upto()/_exit_upto().
 */
#define RG_DEFINE_GUARD_FROM_PARTS(id)							\
static rg_always_inline bool rg_guard_##id##_enter(struct rg_guard *g)			\
{											\
	return rg_guard_##id##_enter_upto(g, RG_PARTS_ALL);				\
}											\
											\
static rg_always_inline void rg_guard_##id##_exit(struct rg_guard *g, bool granted)	\
{											\
	rg_guard_##id##_exit_upto(g, granted, RG_PARTS_ALL);				\
}

/* Keep a value computed by a part that later parts would consume: no instruction. */
#define rg_part_keep(v) __asm__ __volatile__("" : : "r"(v))

#endif /* RG_PARTS_H */
