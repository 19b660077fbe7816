/* SPDX-License-Identifier: MIT */
/* Per-CPU counter guards of one instruction per op: arm64's bare rows (pcpu-stadd, pcpu-ldadd, ...), x86's %gs: rows. */
#ifndef RG_GUARDS_PCPU_INSN_H
#define RG_GUARDS_PCPU_INSN_H

#include "rg/guard.h"
#include "rg/parts.h"

/*
 * enter: return this_cpu_inc_return(slot) == 1     exit: this_cpu_dec(slot)
 * INSTRUCTION ONLY: not the kernel's whole this_cpu sequence (no
 * preempt_disable()/enable() around the op; the -kernel twin,
 * rg/guards/pcpu_kernel.h, has them). The slot is found the kernel's way:
 * one load of g->off, then rg_pcpu_ptr() (mrs tpidr_el0 + the thread's base
 * word + add). Relaxed, no "memory" clobber. Contract: per-CPU (rg/guard.h).
 *
 * RG_DEFINE_PCPU_INSN_GUARD(id, enter_op, exit_op) defines
 * rg_guard_<id>_enter()/_exit(): enter_op(slot, 1) returns the old value
 * (granted when it was 0), exit_op(slot, -1) undoes it (a counter: every
 * enter is undone, granted or not); on x86-64 the guard does not exist.
 */
#if RG_ARCH_AARCH64
#define RG_DEFINE_PCPU_INSN_GUARD(id, enter_op, exit_op)				\
static rg_always_inline bool rg_guard_##id##_enter(struct rg_guard *g)			\
{											\
	return enter_op(rg_pcpu_ptr(rg_guard_off(g)), 1) == 0;				\
}											\
											\
static rg_always_inline void rg_guard_##id##_exit(struct rg_guard *g, bool granted)	\
{											\
	(void)granted;									\
	exit_op(rg_pcpu_ptr(rg_guard_off(g)), (uint32_t)-1);				\
}
#else
#define RG_DEFINE_PCPU_INSN_GUARD(id, enter_op, exit_op) RG_GUARD_NOT_ON_THIS_ARCH(id)
#endif

/*
 * RG_DEFINE_GS_GUARD(id, enter_op, exit_op): the x86-64 form, the slot
 * found by one load of g->off and addressed %gs:-relative (rg_gs_*32,
 * rg/x86_64/percpu_ops.h): enter_op(off, 1) returns the old value (granted
 * when it was 0), exit_op(off) decrements; on arm64 the guard does not
 * exist. One instruction needs no preempt_disable() around it on x86, so
 * whether this is the kernel's whole sequence depends only on the ops.
 * Contract: per-CPU (rg/guard.h).
 */
#if RG_ARCH_X86_64
#define RG_DEFINE_GS_GUARD(id, enter_op, exit_op)					\
static rg_always_inline bool rg_guard_##id##_enter(struct rg_guard *g)			\
{											\
	return enter_op(rg_guard_off(g), 1) == 0;					\
}											\
											\
static rg_always_inline void rg_guard_##id##_exit(struct rg_guard *g, bool granted)	\
{											\
	(void)granted;									\
	exit_op(rg_guard_off(g));							\
}
#else
#define RG_DEFINE_GS_GUARD(id, enter_op, exit_op) RG_GUARD_NOT_ON_THIS_ARCH(id)
#endif

/*
 * RG_DEFINE_GS_GUARD_PARTS(id, enter_op, exit_op): RG_DEFINE_GS_GUARD with
 * its parts (guards.def: RG_PART(id, active / enter_op / exit_op)):
 * rg_guard_<id>_enter_upto()/_exit_upto() do the load of g->off (kept in
 * a register until an op uses it), then the entry op, then the exit op and
 * the test of the entry's value, as far as upto (rg/parts.h).
 */
#if RG_ARCH_X86_64
#define RG_DEFINE_GS_GUARD_PARTS(id, enter_op, exit_op)				\
static rg_always_inline bool rg_guard_##id##_enter_upto(struct rg_guard *g, unsigned int upto) \
{											\
	uintptr_t off = rg_guard_off(g);						\
	uint32_t old = 0;								\
											\
	if (upto >= RG_PART_##id##__enter_op)						\
		old = enter_op(off, 1);							\
	else										\
		rg_part_keep(off);							\
	if (upto == RG_PART_##id##__enter_op)						\
		rg_part_keep(old);							\
	return upto >= RG_PART_##id##__exit_op ? old == 0 : true;			\
}											\
											\
static rg_always_inline void rg_guard_##id##_exit_upto(struct rg_guard *g, bool granted,	\
						       unsigned int upto)		\
{											\
	uintptr_t off = rg_guard_off(g);						\
											\
	(void)granted;									\
	if (upto >= RG_PART_##id##__exit_op)						\
		exit_op(off);								\
	else										\
		rg_part_keep(off);							\
}											\
RG_DEFINE_GUARD_FROM_PARTS(id)
#else
#define RG_DEFINE_GS_GUARD_PARTS(id, enter_op, exit_op) RG_GUARD_NOT_ON_THIS_ARCH(id)
#endif

#endif /* RG_GUARDS_PCPU_INSN_H */
