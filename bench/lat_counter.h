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
 *   x86-64: "lfence; rdtsc; lfence" on both sides (the leading LFENCE waits
 *           until every earlier instruction has completed locally, the
 *           trailing one keeps later ones after the read: the kernel's
 *           rdtsc_ordered() plus a fence after; no RDTSCP needed, which
 *           some VMs do not expose).
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
	return rg_lat_read_begin();
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
