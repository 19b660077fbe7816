/* SPDX-License-Identifier: MIT */
/* Per-CPU counter guards of one instruction per op: arm64's bare rows (pcpu-stadd, pcpu-ldadd, ...), x86's %gs: rows. */
#ifndef RG_GUARDS_PCPU_INSN_H
#define RG_GUARDS_PCPU_INSN_H

#include "rg/guard.h"

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

#endif /* RG_GUARDS_PCPU_INSN_H */
