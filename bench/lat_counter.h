/* SPDX-License-Identifier: MIT */
/* The architecture's cheap counter for the latency scenario: rdtsc on x86-64, CNTVCT_EL0 on arm64. */
#ifndef RG_BENCH_LAT_COUNTER_H
#define RG_BENCH_LAT_COUNTER_H

#include <stdint.h>
#include "rg/compiler.h"

/*
 * rg_lat_read_begin() before a timed batch and rg_lat_read_end() after it.
 * Both are fenced so that the batch's instructions can neither start before
 * the first read nor be still in flight at the second:
 *   x86-64: "lfence; rdtsc; lfence" ... "rdtscp; lfence" (rdtscp waits for
 *           every earlier instruction; lfence keeps later ones after it).
 *   arm64:  "isb; mrs cntvct_el0; isb" on both sides (the ISB stops the
 *           counter read from being executed early or late).
 * Ticks: TSC ticks (x86-64, rate measured) or generic-timer ticks at
 * CNTFRQ_EL0 (arm64, a fixed-frequency timer, not core cycles).
 */
#if defined(__x86_64__)
static rg_always_inline uint64_t rg_lat_read_begin(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

static rg_always_inline uint64_t rg_lat_read_end(void)
{
	uint32_t lo, hi, aux;

	__asm__ __volatile__("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}
#elif defined(__aarch64__)
static rg_always_inline uint64_t rg_lat_read_begin(void)
{
	uint64_t v;

	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0\n\tisb" : "=r"(v) : : "memory");
	return v;
}

static rg_always_inline uint64_t rg_lat_read_end(void)
{
	return rg_lat_read_begin();
}

static rg_always_inline uint64_t rg_lat_cntfrq(void)
{
	uint64_t v;

	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(v));
	return v;
}
#else
#error "rgbench: latency counter for x86_64 or aarch64 only"
#endif

#endif /* RG_BENCH_LAT_COUNTER_H */
