// SPDX-License-Identifier: MIT
/* Deliberately bad "measured loops" for the asm test's self-check: each hides a call. */
#include <stdint.h>

uint64_t rg_asm_bad_helper(uint64_t x);
extern uint64_t (*rg_asm_bad_fp)(uint64_t);

/* a direct call inside the loop */
uint64_t rg_loop_bad_call(uint64_t n)
{
	uint64_t s = 0;

	for (uint64_t i = 0; i < n; i++)
		s += rg_asm_bad_helper(i);
	return s;
}

/* an indirect call inside the loop */
uint64_t rg_loop_bad_indirect(uint64_t n)
{
	uint64_t s = 0;

	for (uint64_t i = 0; i < n; i++)
		s += rg_asm_bad_fp(i);
	return s;
}

/* a tail call */
uint64_t rg_loop_bad_tail(uint64_t n)
{
	return rg_asm_bad_helper(n + 1);
}

/* a C11 atomic: on arm64 built with -moutline-atomics this is bl __aarch64_ldadd8_relax */
uint64_t rg_loop_bad_atomic(uint64_t *p, uint64_t n)
{
	uint64_t s = 0;

	for (uint64_t i = 0; i < n; i++)
		s += __atomic_fetch_add(p, 1, __ATOMIC_RELAXED);
	return s;
}

/* a clean one: must not be flagged */
uint64_t rg_loop_bad_none(uint64_t n)
{
	uint64_t s = 0;

	for (uint64_t i = 0; i < n; i++) {
		__asm__ __volatile__("" : "+r"(s));
		s += i;
	}
	return s;
}

/* the prologue's slow path called inside the loop: the exception does not cover it */
void rg_percpu_rebase(unsigned long stride);
uint64_t rg_loop_bad_rebase(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		rg_percpu_rebase(i);
	return n;
}

/* the same call before the loop: allowed (not flagged) */
uint64_t rg_loop_bad_none_rebase(uint64_t n)
{
	uint64_t s = 0;

	if (n > 3)
		rg_percpu_rebase(n);
	for (uint64_t i = 0; i < n; i++) {
		__asm__ __volatile__("" : "+r"(s));
		s += i;
	}
	return s;
}

/* the -kernel loops' never-taken call, in a loop that is not a -kernel loop */
void rg_preempt_schedule_notrace(void);
uint64_t rg_loop_bad_sched(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (__builtin_expect(i == 12345, 0))
			rg_preempt_schedule_notrace();
	return n;
}
