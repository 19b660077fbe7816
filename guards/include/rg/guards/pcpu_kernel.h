/* SPDX-License-Identifier: MIT */
/* The arm64 kernel's whole this_cpu sequence around one entry op and one exit op: the *-kernel guards. */
#ifndef RG_GUARDS_PCPU_KERNEL_H
#define RG_GUARDS_PCPU_KERNEL_H

#include "rg/guard.h"
#include "rg/parts.h"
#include "rg/preempt.h"

/*
 * enter: return this_cpu_inc_return(*active) == 1   exit: this_cpu_dec(*active)
 * The kernel's WHOLE arm64 this_cpu sequence (arch/arm64/include/asm/percpu.h
 * _pcp_protect_return()/_pcp_protect(), asm/preempt.h), for enter and for exit:
 *   preempt_disable_notrace()   32-bit load/add/store of the thread-local
 *                               preempt count (rg/preempt.h), barrier()
 *   raw_cpu_ptr(&pcp)           one load of g->off, mrs tpidr_el0 + the
 *                               thread's base word, add (rg_pcpu_ptr)
 *   the op                      as patched at boot: LSE padded with NOPs to
 *                               the LL/SC length, or the LL/SC loop
 *   preempt_enable_notrace()    barrier(), 64-bit load, subtract 1, 32-bit
 *                               store, test for zero, reload and test again;
 *                               the call to the scheduler sits on the
 *                               never-taken branch (cold, out of line).
 * Userspace differences: the preempt count is reached through tpidr_el0
 * (the kernel: sp_el0) and the base costs one extra load (the kernel's IS
 * tpidr_el1); the count disables nothing here, pinning does that.
 * Contract: per-CPU (rg/guard.h).
 *
 * RG_DEFINE_PCPU_KERNEL_GUARD(id, enter_op, exit_op) defines
 * rg_guard_<id>_enter()/_exit() with enter_op (an add-return, rg/aarch64/percpu_ops.h)
 * and exit_op (an add) inside that sequence; on x86-64 the guard does not exist.
 */
#if RG_ARCH_AARCH64
/*
 * Its parts (guards.def: RG_PART(id, preempt / ptr / enter_op / exit_op)),
 * as far as upto (rg/parts.h): the preempt count pair around nothing; the
 * slot's address inside it (kept in a register until an op uses it); the
 * entry op (its value kept, not tested); the exit op and the test.
 */
#define RG_DEFINE_PCPU_KERNEL_GUARD(id, enter_op, exit_op)				\
static rg_always_inline bool rg_guard_##id##_enter_upto(struct rg_guard *g, unsigned int upto) \
{											\
	uint32_t v = 1;									\
											\
	rg_preempt_disable_notrace();							\
	if (upto >= RG_PART_##id##__ptr) {						\
		uint32_t *p = rg_pcpu_ptr(rg_guard_off(g));				\
											\
		if (upto >= RG_PART_##id##__enter_op)					\
			v = enter_op(p, 1);						\
		else									\
			rg_part_keep(p);						\
		if (upto == RG_PART_##id##__enter_op)					\
			rg_part_keep(v);						\
	}										\
	rg_preempt_enable_notrace();							\
	return upto >= RG_PART_##id##__exit_op ? v == 1 : true;			\
}											\
											\
static rg_always_inline void rg_guard_##id##_exit_upto(struct rg_guard *g, bool granted,	\
						       unsigned int upto)		\
{											\
	(void)granted;	/* a counter: every enter is undone, granted or not */		\
	rg_preempt_disable_notrace();							\
	if (upto >= RG_PART_##id##__ptr) {						\
		uint32_t *p = rg_pcpu_ptr(rg_guard_off(g));				\
											\
		if (upto >= RG_PART_##id##__exit_op)					\
			exit_op(p, (uint32_t)-1);					\
		else									\
			rg_part_keep(p);						\
	}										\
	rg_preempt_enable_notrace();							\
}											\
RG_DEFINE_GUARD_FROM_PARTS(id)
#else
#define RG_DEFINE_PCPU_KERNEL_GUARD(id, enter_op, exit_op) RG_GUARD_NOT_ON_THIS_ARCH(id)
#endif

#endif /* RG_GUARDS_PCPU_KERNEL_H */
