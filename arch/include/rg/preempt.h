/* SPDX-License-Identifier: MIT */
/* Userspace model of arm64's preempt_disable_notrace()/preempt_enable_notrace(): a thread-local preempt count. */
#ifndef RG_PREEMPT_H
#define RG_PREEMPT_H

#include <stdbool.h>
#include <stdint.h>
#include "rg/compiler.h"

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
 *
 * Nothing sets need_resched here, so the call to
 * rg_preempt_schedule_notrace() (out of line, cold) is never taken; it
 * counts its calls in rg_preempt_schedule_calls so the tests can show that
 * it stayed 0. A signal handler that uses these runs to completion and
 * leaves the count as it found it, like an interrupt.
 */
union rg_preempt_count {
	uint64_t preempt_count;
	struct {
		uint32_t count;		/* little-endian: the low half */
		uint32_t need_resched;	/* 1: no reschedule pending (inverted, as arm64) */
	} preempt;
};

extern __thread union rg_preempt_count rg_thread_preempt;
extern unsigned long rg_preempt_schedule_calls;
__attribute__((cold, noinline)) void rg_preempt_schedule_notrace(void);

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

#endif /* RG_PREEMPT_H */
