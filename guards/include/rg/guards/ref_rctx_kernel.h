/* SPDX-License-Identifier: MIT */
/* Guard "ref-rctx-kernel": REFERENCE: the kernel-form rctx check as hand-written x86-64 asm, to check rctx-kernel against. */
#ifndef RG_GUARDS_REF_RCTX_KERNEL_H
#define RG_GUARDS_REF_RCTX_KERNEL_H

#include "rg/guard.h"
#include "rg/preempt.h"

/*
 * The sequence of rctx-kernel (rg/guards/rctx_kernel.h) written out by hand
 * in one asm block per enter and exit, so that no compiler choice is in it
 * (only the final compare and the cold branch's target are the compiler's):
 *
 *   movl %fs:count, pc          interrupt_context_level(): preempt_count(),
 *   test/setne/add x3             !!(pc & NMI) + !!(pc & (NMI|HARDIRQ)) +
 *                                 !!(pc & (NMI|HARDIRQ|SOFTIRQ_OFFSET))
 *   movq g->off, p              prog->active
 *   addq %fs:rg_pcpu_base, p    this_cpu_ptr()
 *   incl %fs:count              preempt_disable()
 *   addb $1, (p,lvl)            active[rctx]++        (exit: subb $1)
 *   movl (p), val               32-bit reload         (exit: none)
 *   lea/mov/shl                 BIT(rctx * 8)         (exit: none)
 *   decl %fs:count; je cold     preempt_enable(); cold: the resched call
 *
 * The count is rg_x86_preempt_count, the base rg_pcpu_base (rg/preempt.h,
 * rg/percpu.h), the slots are g's, as rctx-kernel's: the two rows must cost
 * the same, and a difference is the compiler's code for the same
 * statements. A reference row, not a guard design; same protection and
 * assumptions as rctx-kernel on x86-64.
 */
#if RG_ARCH_X86_64
/* interrupt_context_level() into lvl from the modelled count; pc and t are scratch. */
#define RG_REF_RCTX_LEVEL							\
	"movl %%fs:rg_x86_preempt_count@tpoff, %[pc]\n\t"			\
	"xorl %[lvl], %[lvl]\n\t"						\
	"xorl %[t], %[t]\n\t"							\
	"testl $0x00f00000, %[pc]\n\t"						\
	"setne %b[lvl]\n\t"							\
	"testl $0x00ff0000, %[pc]\n\t"						\
	"setne %b[t]\n\t"							\
	"addl %[t], %[lvl]\n\t"							\
	"testl $0x00ff0100, %[pc]\n\t"						\
	"setne %b[t]\n\t"							\
	"addl %[t], %[lvl]\n\t"							\
	"movq %[off], %[p]\n\t"							\
	"addq %%fs:rg_pcpu_base@tpoff, %[p]\n\t"				\
	"incl %%fs:rg_x86_preempt_count@tpoff\n\t"

#define RG_REF_RCTX_ENABLE(label)						\
	__asm__ goto("// rg_ref_rctx_kernel_preempt_enable\n\t"		\
		     "decl %%fs:rg_x86_preempt_count@tpoff\n\t"		\
		     "je %l[" #label "]" : : : "memory", "cc" : label)

static rg_always_inline bool rg_guard_ref_rctx_kernel_enter(struct rg_guard *g)
{
	uint32_t pc, lvl, t, val, bit;
	uintptr_t p;

	__asm__ __volatile__("// rg_ref_rctx_kernel_enter\n\t"
			     RG_REF_RCTX_LEVEL
			     "addb $1, (%[p],%q[lvl])\n\t"
			     "movl (%[p]), %[val]\n\t"
			     "leal 0(,%q[lvl],8), %%ecx\n\t"
			     "movl $1, %[bit]\n\t"
			     "shll %%cl, %[bit]"
			     : [pc] "=&r"(pc), [lvl] "=&q"(lvl), [t] "=&q"(t), [p] "=&r"(p),
			       [val] "=&r"(val), [bit] "=&r"(bit)
			     : [off] "m"(g->off)
			     : "rcx", "memory", "cc");
	RG_REF_RCTX_ENABLE(resched);
	return val == bit;
resched:
	rg_preempt_schedule_notrace();
	return val == bit;
}

static rg_always_inline void rg_guard_ref_rctx_kernel_exit(struct rg_guard *g, bool granted)
{
	uint32_t pc, lvl, t;
	uintptr_t p;

	(void)granted;	/* a counter: every enter is undone, granted or not */
	__asm__ __volatile__("// rg_ref_rctx_kernel_exit\n\t"
			     RG_REF_RCTX_LEVEL
			     "subb $1, (%[p],%q[lvl])"
			     : [pc] "=&r"(pc), [lvl] "=&q"(lvl), [t] "=&q"(t), [p] "=&r"(p)
			     : [off] "m"(g->off)
			     : "memory", "cc");
	RG_REF_RCTX_ENABLE(resched);
	return;
resched:
	rg_preempt_schedule_notrace();
}
#else
RG_GUARD_NOT_ON_THIS_ARCH(ref_rctx_kernel)
#endif

#endif /* RG_GUARDS_REF_RCTX_KERNEL_H */
