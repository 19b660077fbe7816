/* SPDX-License-Identifier: MIT */
/* Userspace model of the kernel's preempt count: arm64 and x86-64 preempt_disable()/enable(), interrupt_context_level(). */
#ifndef RG_PREEMPT_H
#define RG_PREEMPT_H

#include <stdbool.h>
#include <stdint.h>
#include "rg/compiler.h"

/*
 * The kernel's preempt_count bit layout (include/linux/preempt.h): bits 0-7
 * preemption depth, 8-15 softirq count, 16-19 hardirq count, 20-23 NMI
 * count. irq_enter() adds HARDIRQ_OFFSET, nmi_enter() NMI_OFFSET +
 * HARDIRQ_OFFSET; interrupt_context_level() turns them into 0 (task),
 * 1 (softirq), 2 (hardirq), 3 (NMI).
 */
#define RG_SOFTIRQ_OFFSET	0x00000100u
#define RG_HARDIRQ_OFFSET	0x00010000u
#define RG_NMI_OFFSET		0x00100000u
#define RG_HARDIRQ_MASK		0x000f0000u
#define RG_NMI_MASK		0x00f00000u

__attribute__((cold, noinline)) void rg_preempt_schedule_notrace(void);
extern unsigned long rg_preempt_schedule_calls;

#if defined(__aarch64__)
/*
 * arm64 keeps preempt_count in thread_info, reached through sp_el0
 * (current_thread_info()), as a 64-bit word: the count in the low half and
 * an INVERTED need_resched flag in the high half (1 = no reschedule
 * pending), so "count == 0 and a reschedule is due" is one test for zero
 * (arch/arm64/include/asm/preempt.h). Here the word is a thread-local
 * variable reached through tpidr_el0; the code below is the kernel's,
 * access for access:
 *
 *   preempt_disable_notrace():  __preempt_count_add(1): 32-bit load, add 1,
 *                               32-bit store; then barrier()
 *   preempt_enable_notrace():   barrier(); if (unlikely(
 *                               __preempt_count_dec_and_test()))
 *                                   __preempt_schedule_notrace();
 *   __preempt_count_dec_and_test(): 64-bit load, subtract 1, 32-bit store of
 *                               the count; true if the 64-bit value is 0,
 *                               else reload the 64-bit word and test it
 *                               again (an interrupt may have cleared
 *                               need_resched in between).
 *   preempt_count():            READ_ONCE of the 32-bit count.
 *
 * preempt_disable()/preempt_enable() (the bpf recursion check's) are the
 * same code without CONFIG_DEBUG_PREEMPT/CONFIG_TRACE_PREEMPT_TOGGLE.
 */
union rg_preempt_count {
	uint64_t preempt_count;
	struct {
		uint32_t count;		/* little-endian: the low half */
		uint32_t need_resched;	/* 1: no reschedule pending (inverted, as arm64) */
	} preempt;
};

extern __thread union rg_preempt_count rg_thread_preempt;

static rg_always_inline void rg_preempt_disable_notrace(void)
{
	uint32_t pc = RG_READ_ONCE(rg_thread_preempt.preempt.count);

	RG_WRITE_ONCE(rg_thread_preempt.preempt.count, pc + 1);
	rg_barrier();
}

static rg_always_inline bool rg_preempt_count_dec_and_test(void)
{
	uint64_t pc = RG_READ_ONCE(rg_thread_preempt.preempt_count);

	RG_WRITE_ONCE(rg_thread_preempt.preempt.count, (uint32_t)--pc);
	return !pc || !RG_READ_ONCE(rg_thread_preempt.preempt_count);
}

static rg_always_inline void rg_preempt_enable_notrace(void)
{
	rg_barrier();
	if (rg_unlikely(rg_preempt_count_dec_and_test()))
		rg_preempt_schedule_notrace();
}

static rg_always_inline uint32_t rg_preempt_count(void)
{
	return RG_READ_ONCE(rg_thread_preempt.preempt.count);
}

/* irq_enter()/nmi_enter() and their exits (a signal handler, rg/rseq.h): add/subtract the offsets. */
static rg_always_inline void rg_preempt_count_add_irq(uint32_t v)
{
	RG_WRITE_ONCE(rg_thread_preempt.preempt.count, RG_READ_ONCE(rg_thread_preempt.preempt.count) + v);
	rg_barrier();
}

static rg_always_inline void rg_preempt_count_sub_irq(uint32_t v)
{
	rg_barrier();
	RG_WRITE_ONCE(rg_thread_preempt.preempt.count, RG_READ_ONCE(rg_thread_preempt.preempt.count) - v);
}

/* The count when nothing holds it (tests): 0, need_resched flag 1 (none pending). */
static inline bool rg_preempt_count_idle(void)
{
	return rg_thread_preempt.preempt.count == 0 && rg_thread_preempt.preempt.need_resched == 1;
}

#elif defined(__x86_64__)
/*
 * x86-64 keeps preempt_count in a per-CPU int, __preempt_count (6.2+:
 * pcpu_hot.preempt_count), with PREEMPT_NEED_RESCHED (bit 31) inverted
 * and folded in (arch/x86/include/asm/preempt.h):
 *
 *   preempt_disable():   raw_cpu_add_4(__preempt_count, 1): `incl %gs:__preempt_count`
 *                        (percpu_add_op -> percpu_unary_op), then barrier()
 *   preempt_enable():    barrier(); __preempt_count_dec_and_test():
 *                        GEN_UNARY_RMWcc("decl", __preempt_count, e): `decl
 *                        %gs:__preempt_count` and a jump on zero to the
 *                        out-of-line __preempt_schedule() call
 *   preempt_count():     raw_cpu_read_4(__preempt_count) & ~PREEMPT_NEED_RESCHED:
 *                        `movl %gs:__preempt_count, %r`
 *
 * Here the count is the thread-local rg_x86_preempt_count, reached through
 * %fs at a constant displacement (local-exec TLS: `incl
 * %fs:rg_x86_preempt_count@tpoff`): the same instruction as the kernel's
 * (a segment-relative read-modify-write at a constant displacement, no
 * register), through the other segment register. Not through %gs because
 * (1) this thread's %gs base is cpu * stride of the guard's slot layout
 * (rg/percpu.h), so %gs:constant would name a different word per layout,
 * and (2) the kernel can keep the count per CPU only because it switches
 * tasks with a fixed count, while userspace threads are preempted anywhere,
 * signal handlers included: threads sharing a CPU would share one count
 * mid-section and read each other's context level. A thread-local count is
 * what the running task's count is.
 */
#define RG_X86_PREEMPT_ENABLED	0x80000000u	/* PREEMPT_NEED_RESCHED set = no reschedule pending */

extern __thread uint32_t rg_x86_preempt_count __attribute__((tls_model("local-exec")));

static rg_always_inline void rg_preempt_disable_notrace(void)
{
	__asm__ __volatile__("// rg_x86_preempt_disable\n\tincl %[c]" : [c] "+m"(rg_x86_preempt_count) : : "cc");
	rg_barrier();
}

static rg_always_inline bool rg_preempt_count_dec_and_test(void)
{
	bool z;

	__asm__ __volatile__("// rg_x86_preempt_count_dec_and_test\n\tdecl %[c]"
			     : [c] "+m"(rg_x86_preempt_count), "=@ccz"(z) : : "memory");
	return z;
}

static rg_always_inline void rg_preempt_enable_notrace(void)
{
	rg_barrier();
	if (rg_unlikely(rg_preempt_count_dec_and_test()))
		rg_preempt_schedule_notrace();
}

static rg_always_inline uint32_t rg_preempt_count(void)
{
	uint32_t pc;

	__asm__("// rg_x86_preempt_count\n\tmovl %[c], %[pc]" : [pc] "=r"(pc) : [c] "m"(rg_x86_preempt_count));
	return pc & ~RG_X86_PREEMPT_ENABLED;
}

static rg_always_inline void rg_preempt_count_add_irq(uint32_t v)
{
	__asm__ __volatile__("addl %[v], %[c]" : [c] "+m"(rg_x86_preempt_count) : [v] "ri"(v) : "cc");
	rg_barrier();
}

static rg_always_inline void rg_preempt_count_sub_irq(uint32_t v)
{
	rg_barrier();
	__asm__ __volatile__("subl %[v], %[c]" : [c] "+m"(rg_x86_preempt_count) : [v] "ri"(v) : "cc");
}

static inline bool rg_preempt_count_idle(void)
{
	return rg_x86_preempt_count == RG_X86_PREEMPT_ENABLED;
}
#else
# error "rgbench supports x86_64 and aarch64 only"
#endif

/*
 * Nothing sets need_resched here, so the call to
 * rg_preempt_schedule_notrace() (out of line, cold) is never taken; it
 * counts its calls in rg_preempt_schedule_calls so the tests can show that
 * it stayed 0. A signal handler that uses these runs to completion and
 * leaves the count as it found it, like an interrupt.
 */

/*
 * interrupt_context_level() (include/linux/preempt.h), from the modelled
 * count: 0 task, 1 softirq, 2 hardirq, 3 NMI.
 */
static rg_always_inline unsigned int rg_interrupt_context_level(void)
{
	uint32_t pc = rg_preempt_count();
	unsigned int level = 0;

	level += !!(pc & RG_NMI_MASK);
	level += !!(pc & (RG_NMI_MASK | RG_HARDIRQ_MASK));
	level += !!(pc & (RG_NMI_MASK | RG_HARDIRQ_MASK | RG_SOFTIRQ_OFFSET));
	return level;
}

/*
 * What an interrupt does to the count, for a signal handler that stands
 * for one (rg_rctx_enter_signal(), rg/rseq.h): the first signal level is
 * a hardirq (irq_enter(): + HARDIRQ_OFFSET), deeper ones are NMIs
 * (nmi_enter(): + NMI_OFFSET + HARDIRQ_OFFSET). depth is the new signal
 * nesting depth (1, 2, ...).
 */
static rg_always_inline uint32_t rg_preempt_irq_offset(uint32_t depth)
{
	return depth <= 1 ? RG_HARDIRQ_OFFSET : RG_NMI_OFFSET + RG_HARDIRQ_OFFSET;
}

#endif /* RG_PREEMPT_H */
