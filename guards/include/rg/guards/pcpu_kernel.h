/* SPDX-License-Identifier: MIT */
/* The arm64 kernel's whole this_cpu sequence around one entry op and one exit op: the *-kernel guards. */
#ifndef RG_GUARDS_PCPU_KERNEL_H
#define RG_GUARDS_PCPU_KERNEL_H

#include "rg/guard.h"
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
#define RG_DEFINE_PCPU_KERNEL_GUARD(id, enter_op, exit_op)				\
static rg_always_inline bool rg_guard_##id##_enter(struct rg_guard *g)			\
{											\
	uint32_t v;									\
											\
	rg_preempt_disable_notrace();							\
	v = enter_op(rg_pcpu_ptr(rg_guard_off(g)), 1);					\
	rg_preempt_enable_notrace();							\
	return v == 1;									\
}											\
											\
static rg_always_inline void rg_guard_##id##_exit(struct rg_guard *g, bool granted)	\
{											\
	(void)granted;	/* a counter: every enter is undone, granted or not */		\
	rg_preempt_disable_notrace();							\
	exit_op(rg_pcpu_ptr(rg_guard_off(g)), (uint32_t)-1);				\
	rg_preempt_enable_notrace();							\
}
#else
#define RG_DEFINE_PCPU_KERNEL_GUARD(id, enter_op, exit_op) RG_GUARD_NOT_ON_THIS_ARCH(id)
#endif

#endif /* RG_GUARDS_PCPU_KERNEL_H */
