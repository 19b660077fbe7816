// SPDX-License-Identifier: MIT
/* Every arch primitive at every width: exact results, wrap-around, neighbours untouched. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include "rg/arch.h"
#include "rg/env.h"
#include "rg/percpu.h"
#include "rg/rseq.h"
#include "check.h"

/*
 * Each op works on cell[1] of a 3-element array whose outer cells hold a
 * canary, so a wrong width (or a wrong address) shows up as a changed
 * neighbour.
 */
#define CANARY32 0xa5a5a5a5u
#define CANARY64 0xa5a5a5a5a5a5a5a5ull
#define MAX32	 UINT32_MAX
#define MAX64	 UINT64_MAX

#define CELLS(W) uint##W##_t c[3] = { CANARY##W, 0, CANARY##W }
#define NEIGHBOURS(W) do { CHECK_EQ(c[0], CANARY##W); CHECK_EQ(c[2], CANARY##W); } while (0)

/*
 * The three adds of v to c[1] holding old, by what they return: the old value
 * (fetch-add), the new one (add-return) or nothing (add).
 */
#define RET_OLD(W, fn, old, v)	CHECK_EQ(fn(&c[1], v), old)
#define RET_NEW(W, fn, old, v)	CHECK_EQ(fn(&c[1], v), (uint##W##_t)((old) + (v)))
#define RET_NONE(W, fn, old, v)	fn(&c[1], v)

/* An add stores old + v, wrapping up and down; ret checks what it returns. */
#define TEST_ADDS(W, fn, ret)								\
	do {										\
		CELLS(W);								\
		c[1] = 5;								\
		ret(W, fn, 5, 3);			CHECK_EQ(c[1], 8);		\
		c[1] = MAX##W;								\
		ret(W, fn, MAX##W, 1);			CHECK_EQ(c[1], 0);	/* wrap up */	\
		ret(W, fn, 0, (uint##W##_t)-1);		CHECK_EQ(c[1], MAX##W);	/* wrap down */	\
		NEIGHBOURS(W);								\
	} while (0)
#define TEST_FETCH_ADD(W, fn)	TEST_ADDS(W, fn, RET_OLD)
#define TEST_ADD(W, fn)		TEST_ADDS(W, fn, RET_NONE)
#define TEST_ADD_RETURN(W, fn)	TEST_ADDS(W, fn, RET_NEW)

/* Swap: returns old, stores v. */
#define TEST_SWAP(W, fn)								\
	do {										\
		CELLS(W);								\
		c[1] = 7;								\
		CHECK_EQ(fn(&c[1], MAX##W), 7);	CHECK_EQ(c[1], MAX##W);			\
		CHECK_EQ(fn(&c[1], 0), MAX##W);	CHECK_EQ(c[1], 0);			\
		NEIGHBOURS(W);								\
	} while (0)

/* Compare-and-swap: returns the value found; stores only on a match. */
#define TEST_CAS(W, fn)									\
	do {										\
		CELLS(W);								\
		c[1] = 0;								\
		CHECK_EQ(fn(&c[1], 0, MAX##W), 0);	CHECK_EQ(c[1], MAX##W);		\
		CHECK_EQ(fn(&c[1], 0, 1), MAX##W);	CHECK_EQ(c[1], MAX##W);	/* miss */ \
		CHECK_EQ(fn(&c[1], MAX##W, 1), MAX##W);	CHECK_EQ(c[1], 1);		\
		NEIGHBOURS(W);								\
	} while (0)

/* Increment / decrement without result. */
#define TEST_INC_DEC(W, inc, dec)							\
	do {										\
		CELLS(W);								\
		c[1] = MAX##W;								\
		inc(&c[1]);			CHECK_EQ(c[1], 0);			\
		dec(&c[1]);			CHECK_EQ(c[1], MAX##W);			\
		dec(&c[1]);			CHECK_EQ(c[1], MAX##W - 1);		\
		inc(&c[1]);			CHECK_EQ(c[1], MAX##W);			\
		NEIGHBOURS(W);								\
	} while (0)

/* T on both widths of a primitive: fn##32 and fn##64. */
#define BOTH(T, fn) do { T(32, fn##32); T(64, fn##64); } while (0)

static void test_plain(void)
{
	BOTH(TEST_ADD_RETURN, rg_plain_add_return);
}

#if RG_ARCH_X86_64
static void test_arch(int expect_lse)
{
	(void)expect_lse;
	CHECK(!rg_cpu_has_lse(), "LSE reported on x86-64");
	BOTH(TEST_FETCH_ADD, rg_x86_lock_xadd);
	BOTH(TEST_FETCH_ADD, rg_x86_xadd);
	TEST_INC_DEC(32, rg_x86_lock_inc32, rg_x86_lock_dec32);
	TEST_INC_DEC(64, rg_x86_lock_inc64, rg_x86_lock_dec64);
	TEST_INC_DEC(32, rg_x86_inc32, rg_x86_dec32);
	TEST_INC_DEC(64, rg_x86_inc64, rg_x86_dec64);
	BOTH(TEST_SWAP, rg_x86_xchg);
	BOTH(TEST_CAS, rg_x86_lock_cmpxchg);
	printf("x86-64 primitives: lock xadd, xadd, lock inc/dec, inc/dec, xchg, lock cmpxchg (32, 64)\n");
}
#else
/* The ops both arm64 families (rg_llsc_*, rg_lse_*) have, each at both widths. */
#define TEST_ARM64_FAMILY(pfx)								\
	do {										\
		BOTH(TEST_FETCH_ADD, pfx##_ldadd);					\
		BOTH(TEST_FETCH_ADD, pfx##_ldaddal);					\
		BOTH(TEST_ADD, pfx##_stadd);						\
		BOTH(TEST_ADD, pfx##_prfm_stadd);					\
		BOTH(TEST_SWAP, pfx##_swp);						\
		BOTH(TEST_CAS, pfx##_cas);						\
	} while (0)

static void test_arch(int expect_lse)
{
	bool lse = rg_cpu_has_lse();

	if (expect_lse >= 0)
		CHECK(lse == (expect_lse == 1), "rg_cpu_has_lse() = %d, RG_EXPECT_LSE = %d", lse, expect_lse);

	TEST_ARM64_FAMILY(rg_llsc);
	printf("LL/SC primitives: ldadd, ldaddal, stadd, prfm_stadd, swp, cas (32, 64)\n");

	if (!lse) {
		printf("LSE primitives: skipped, no LSE on this CPU (never executed)\n");
		return;
	}
	TEST_ARM64_FAMILY(rg_lse);
	BOTH(TEST_ADD, rg_lse_ldadd_unused);
	printf("LSE primitives: ldadd, ldaddal, stadd, ldadd_unused, prfm_stadd, swp, cas (32, 64)\n");
}
#endif

/*
 * The per-CPU ops on a thread's base: pin, init, then every op on
 * "off = p - base" must act on p (x86-64: %gs-relative; arm64: rg_pcpu_ptr),
 * and the arm64 kernel-shaped op bodies must give the kernel's results.
 */
#if RG_ARCH_X86_64
# define GS_OFF(p)	((uintptr_t)(p) - rg_pcpu_base)
static uint32_t gs_xadd(uint32_t *p, uint32_t v) { return rg_gs_xadd32(GS_OFF(p), v); }
static uint32_t gs_lock_xadd(uint32_t *p, uint32_t v) { return rg_gs_lock_xadd32(GS_OFF(p), v); }
static uint32_t gs_xchg(uint32_t *p, uint32_t v) { return rg_gs_xchg32(GS_OFF(p), v); }
static uint32_t gs_cas(uint32_t *p, uint32_t e, uint32_t n) { return rg_gs_lock_cmpxchg32(GS_OFF(p), e, n); }
static uint32_t gs_plain(uint32_t *p, uint32_t v) { return rg_gs_plain_add_return32(GS_OFF(p), v); }
static void gs_inc(uint32_t *p) { rg_gs_xadd32(GS_OFF(p), 1); }
static void gs_dec(uint32_t *p) { rg_gs_dec32(GS_OFF(p)); }
static void gs_lock_inc(uint32_t *p) { rg_gs_lock_xadd32(GS_OFF(p), 1); }
static void gs_lock_dec(uint32_t *p) { rg_gs_lock_dec32(GS_OFF(p)); }
#endif

static void test_percpu_ops(void)
{
	cpu_set_t set;
	int cpu = 0;

	/* the highest CPU allowed: a base of 0 (CPU 0) would not show that the base is applied */
	CPU_ZERO(&set);
	for (int c = 0; c < CPU_SETSIZE; c++)
		CPU_SET(c, &set);
	sched_setaffinity(0, sizeof(set), &set);
	sched_getaffinity(0, sizeof(set), &set);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			cpu = c;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	CHECK(sched_setaffinity(0, sizeof(set), &set) == 0, "pin to cpu %d", cpu);
	CHECK_EQ(rg_percpu_thread_init(), cpu);
	CHECK_EQ(rg_pcpu_base, (uintptr_t)cpu * RG_CACHELINE);
	rg_percpu_use(4);				/* the packed layout */
	CHECK_EQ(rg_pcpu_base, (uintptr_t)cpu * 4);
	CHECK_EQ(rg_pcpu_layout, (size_t)4);
	rg_percpu_use(RG_CACHELINE);
#if RG_ARCH_X86_64
	if (rg_percpu_base_why()) {
		printf("per-CPU ops: skipped (%s)\n", rg_percpu_base_why());
		return;
	}
	TEST_FETCH_ADD(32, gs_xadd);
	TEST_FETCH_ADD(32, gs_lock_xadd);
	TEST_ADD_RETURN(32, gs_plain);
	TEST_SWAP(32, gs_xchg);
	TEST_CAS(32, gs_cas);
	TEST_INC_DEC(32, gs_inc, gs_dec);
	TEST_INC_DEC(32, gs_lock_inc, gs_lock_dec);
	{
		CELLS(32);
		c[1] = 7;
		rg_gs_write32(GS_OFF(&c[1]), 0);
		CHECK_EQ(c[1], 0);
		NEIGHBOURS(32);
	}
	printf("per-CPU ops (%s, base cpu %d * stride): %%gs xadd, dec, lock xadd/dec, xchg, "
	       "lock cmpxchg, write, plain add\n", rg_percpu_base_mode(), cpu);
#else
	{
		uint32_t x;

		CHECK(rg_pcpu_ptr((uintptr_t)&x - rg_pcpu_base) == &x, "rg_pcpu_ptr(off) != base + off");
	}
	TEST_ADD_RETURN(32, rg_kpcpu_add_return_llsc32);
	TEST_ADD(32, rg_kpcpu_add_llsc32);
	if (rg_cpu_has_lse()) {
		TEST_ADD_RETURN(32, rg_kpcpu_add_return_lse32);
		TEST_ADD(32, rg_kpcpu_add_stadd32);
		TEST_ADD(32, rg_kpcpu_add_ldadd32);
		TEST_ADD(32, rg_kpcpu_add_prfm_stadd32);
	}
	printf("per-CPU ops (%s): rg_pcpu_ptr, kernel-shaped add_return/add, LL/SC%s\n",
	       rg_percpu_base_mode(), rg_cpu_has_lse() ? " and LSE" : " (LSE skipped: no LSE)");
#endif
}

/* The rseq add: lands on this CPU's slot only, wraps, and is exact. */
static void test_rseq(void)
{
	enum { STRIDE = 128, SHIFT = 7, NSLOT = 1024 };
	static char slots[STRIDE * NSLOT] __attribute__((aligned(128)));
	cpu_set_t set;
	int cpu;

	if (!rg_rseq_available()) {
		CHECK(rg_rseq_why() && !strcmp(rg_rseq_why(), "rseq not registered"),
		      "unavailable rseq must say why, got %s", rg_rseq_why() ? rg_rseq_why() : "NULL");
		printf("rseq add: skipped (%s)\n", rg_rseq_why());
		return;
	}
	cpu = sched_getcpu();
	CHECK(cpu >= 0 && cpu < NSLOT, "sched_getcpu() = %d", cpu);
	if (cpu < 0 || cpu >= NSLOT)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	CHECK(sched_setaffinity(0, sizeof(set), &set) == 0, "pin to cpu %d", cpu);
	CHECK_EQ(rg_percpu_thread_init(), cpu);
	CHECK_EQ(rg_this_cpu(), cpu);
	CHECK(rg_percpu_uses_rseq(), "rg_this_cpu() should read the rseq area");

	uint32_t *mine = (uint32_t *)(slots + (size_t)cpu * STRIDE);

	CHECK_EQ(rg_rseq_add_return_u32(slots, SHIFT, 5), 5);
	CHECK_EQ(rg_rseq_add_return_u32(slots, SHIFT, 0x100), 0x105);
	CHECK_EQ(*mine, 0x105);
	CHECK_EQ(rg_rseq_add_return_u32(slots, SHIFT, (uint32_t)-0x105), 0);
	*mine = MAX32;
	CHECK_EQ(rg_rseq_add_return_u32(slots, SHIFT, 1), 0);
	CHECK_EQ(rg_rseq_add_return_u32(slots, SHIFT, (uint32_t)-1), MAX32);
	*mine = 0;
	for (int i = 0; i < 100000; i++)
		rg_rseq_add_return_u32(slots, SHIFT, 1);
	CHECK_EQ(*mine, 100000);
	*mine = 0;
	for (size_t i = 0; i < sizeof(slots); i++)
		CHECK(slots[i] == 0, "byte %zu of the slots touched", i);
	printf("rseq add: exact on cpu %d, wraps, touches only its slot\n", cpu);

	/* rctx's byte add + 32-bit reload: one byte changes, no carry, the word is reloaded */
	CHECK_EQ(rg_rseq_add8_load32(slots, SHIFT, 1, 1), 0x100);
	CHECK_EQ(rg_rseq_add8_load32(slots, SHIFT, 3, 1), 0x01000100);
	rg_rseq_add8(slots, SHIFT, 1, (uint32_t)-1);
	CHECK_EQ(*mine, 0x01000000);
	rg_rseq_add8(slots, SHIFT, 3, (uint32_t)-1);
	CHECK_EQ(*mine, 0);
	*mine = 0xff;
	CHECK_EQ(rg_rseq_add8_load32(slots, SHIFT, 0, 1), 0);	/* 0xff + 1 wraps in its byte */
	CHECK_EQ(rg_rseq_add8_load32(slots, SHIFT, 0, (uint32_t)-1), 0xff);
	*mine = 0;
	for (size_t i = 0; i < sizeof(slots); i++)
		CHECK(slots[i] == 0, "byte %zu of the slots touched by the byte add", i);
	printf("rseq byte add + word reload (rctx): one byte, no carry, word reloaded\n");

	/* moved to another CPU: rg_this_cpu() (the rseq cpu_id) and the sequence follow */
	cpu_set_t allowed;
	int other = -1;

	CPU_ZERO(&allowed);
	for (int c = 0; c < NSLOT; c++)
		CPU_SET(c, &allowed);
	sched_setaffinity(0, sizeof(allowed), &allowed);
	sched_getaffinity(0, sizeof(allowed), &allowed);
	for (int c = 0; c < NSLOT && other < 0; c++)
		if (c != cpu && CPU_ISSET(c, &allowed))
			other = c;
	if (other < 0) {
		printf("rseq migration: skipped, one CPU only\n");
		return;
	}
	CPU_ZERO(&set);
	CPU_SET(other, &set);
	CHECK(sched_setaffinity(0, sizeof(set), &set) == 0, "pin to cpu %d", other);
	CHECK_EQ(rg_this_cpu(), other);
	CHECK_EQ(rg_rseq_add_return_u32(slots, SHIFT, 7), 7);
	CHECK_EQ(*(uint32_t *)(slots + (size_t)other * STRIDE), 7);
	CHECK_EQ(*mine, 0);
	printf("rseq migration: cpu %d -> %d, rg_this_cpu() and the sequence followed\n", cpu, other);
}

int main(void)
{
	test_plain();
	test_arch(rg_test_env_int("RG_EXPECT_LSE"));
	test_rseq();
	test_percpu_ops();
	return rg_test_done("test_prims");
}
