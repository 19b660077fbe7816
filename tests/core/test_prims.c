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

/* Fetch-add style: returns old, stores old + v (wrapping). */
#define TEST_FETCH_ADD(W, fn)								\
	do {										\
		CELLS(W);								\
		c[1] = 5;								\
		CHECK_EQ(fn(&c[1], 3), 5);	CHECK_EQ(c[1], 8);			\
		c[1] = MAX##W;								\
		CHECK_EQ(fn(&c[1], 1), MAX##W);	CHECK_EQ(c[1], 0);	/* wrap up */	\
		CHECK_EQ(fn(&c[1], (uint##W##_t)-1), 0); CHECK_EQ(c[1], MAX##W); /* wrap down */ \
		NEIGHBOURS(W);								\
	} while (0)

/* No-result add: stores old + v (wrapping). */
#define TEST_ADD(W, fn)									\
	do {										\
		CELLS(W);								\
		c[1] = 5;								\
		fn(&c[1], 3);			CHECK_EQ(c[1], 8);			\
		c[1] = MAX##W;								\
		fn(&c[1], 1);			CHECK_EQ(c[1], 0);			\
		fn(&c[1], (uint##W##_t)-1);	CHECK_EQ(c[1], MAX##W);			\
		NEIGHBOURS(W);								\
	} while (0)

/* Add-and-return-new: returns old + v. */
#define TEST_ADD_RETURN(W, fn)								\
	do {										\
		CELLS(W);								\
		c[1] = 5;								\
		CHECK_EQ(fn(&c[1], 3), 8);	CHECK_EQ(c[1], 8);			\
		c[1] = MAX##W;								\
		CHECK_EQ(fn(&c[1], 1), 0);	CHECK_EQ(c[1], 0);			\
		CHECK_EQ(fn(&c[1], (uint##W##_t)-1), MAX##W); CHECK_EQ(c[1], MAX##W);	\
		NEIGHBOURS(W);								\
	} while (0)

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

static void test_plain(void)
{
	TEST_ADD_RETURN(32, rg_plain_add_return32);
	TEST_ADD_RETURN(64, rg_plain_add_return64);
}

#if RG_ARCH_X86_64
static void test_arch(int expect_lse)
{
	(void)expect_lse;
	CHECK(!rg_cpu_has_lse(), "LSE reported on x86-64");
	TEST_FETCH_ADD(32, rg_x86_lock_xadd32);
	TEST_FETCH_ADD(64, rg_x86_lock_xadd64);
	TEST_FETCH_ADD(32, rg_x86_xadd32);
	TEST_FETCH_ADD(64, rg_x86_xadd64);
	TEST_INC_DEC(32, rg_x86_lock_inc32, rg_x86_lock_dec32);
	TEST_INC_DEC(64, rg_x86_lock_inc64, rg_x86_lock_dec64);
	TEST_INC_DEC(32, rg_x86_inc32, rg_x86_dec32);
	TEST_INC_DEC(64, rg_x86_inc64, rg_x86_dec64);
	TEST_SWAP(32, rg_x86_xchg32);
	TEST_SWAP(64, rg_x86_xchg64);
	TEST_CAS(32, rg_x86_lock_cmpxchg32);
	TEST_CAS(64, rg_x86_lock_cmpxchg64);
	printf("x86-64 primitives: lock xadd, xadd, lock inc/dec, inc/dec, xchg, lock cmpxchg (32, 64)\n");
}
#else
static void test_arch(int expect_lse)
{
	bool lse = rg_cpu_has_lse();

	if (expect_lse >= 0)
		CHECK(lse == (expect_lse == 1), "rg_cpu_has_lse() = %d, RG_EXPECT_LSE = %d", lse, expect_lse);

	TEST_FETCH_ADD(32, rg_llsc_ldadd32);
	TEST_FETCH_ADD(64, rg_llsc_ldadd64);
	TEST_FETCH_ADD(32, rg_llsc_ldaddal32);
	TEST_FETCH_ADD(64, rg_llsc_ldaddal64);
	TEST_ADD(32, rg_llsc_stadd32);
	TEST_ADD(64, rg_llsc_stadd64);
	TEST_ADD(32, rg_llsc_prfm_stadd32);
	TEST_ADD(64, rg_llsc_prfm_stadd64);
	TEST_SWAP(32, rg_llsc_swp32);
	TEST_SWAP(64, rg_llsc_swp64);
	TEST_CAS(32, rg_llsc_cas32);
	TEST_CAS(64, rg_llsc_cas64);
	printf("LL/SC primitives: ldadd, ldaddal, stadd, prfm_stadd, swp, cas (32, 64)\n");

	if (!lse) {
		printf("LSE primitives: skipped, no LSE on this CPU (never executed)\n");
		return;
	}
	TEST_FETCH_ADD(32, rg_lse_ldadd32);
	TEST_FETCH_ADD(64, rg_lse_ldadd64);
	TEST_FETCH_ADD(32, rg_lse_ldaddal32);
	TEST_FETCH_ADD(64, rg_lse_ldaddal64);
	TEST_ADD(32, rg_lse_stadd32);
	TEST_ADD(64, rg_lse_stadd64);
	TEST_ADD(32, rg_lse_ldadd_unused32);
	TEST_ADD(64, rg_lse_ldadd_unused64);
	TEST_ADD(32, rg_lse_prfm_stadd32);
	TEST_ADD(64, rg_lse_prfm_stadd64);
	TEST_SWAP(32, rg_lse_swp32);
	TEST_SWAP(64, rg_lse_swp64);
	TEST_CAS(32, rg_lse_cas32);
	TEST_CAS(64, rg_lse_cas64);
	printf("LSE primitives: ldadd, ldaddal, stadd, ldadd_unused, prfm_stadd, swp, cas (32, 64)\n");
}
#endif

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
	return rg_test_done("test_prims");
}
