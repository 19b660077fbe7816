// SPDX-License-Identifier: MIT
/* The cycle reference: a dependent chain of single-cycle adds in inline asm, the same on every run and every machine of an architecture. */
#include <stdint.h>

#include "suite_int.h"

/*
 * n iterations of RG_REF_ADDS_PER_ITER adds of 1 to one register, each
 * waiting on the one before (one cycle of latency each on every core that
 * rgbench targets); the loop counter is a separate chain the core runs
 * beside it. Returns x + n * 16 so that nothing can be folded away.
 *   x86-64:  add $1, %reg  (x16); dec %cnt; jnz
 *   arm64:   add x, x, #1  (x16); subs cnt, cnt, #1; b.ne
 */
uint64_t rg_ref_chain(uint64_t n, uint64_t x)
{
	if (!n)
		return x;
#if defined(__x86_64__)
	__asm__ __volatile__(
		"// rg_ref_chain\n"
		"1:\n\t"
		".rept 16\n\t"
		"add $1, %0\n\t"
		".endr\n\t"
		"dec %1\n\t"
		"jnz 1b"
		: "+r"(x), "+r"(n) : : "cc");
#elif defined(__aarch64__)
	__asm__ __volatile__(
		"// rg_ref_chain\n"
		"1:\n\t"
		".rept 16\n\t"
		"add %0, %0, #1\n\t"
		".endr\n\t"
		"subs %1, %1, #1\n\t"
		"b.ne 1b"
		: "+r"(x), "+r"(n) : : "cc");
#else
#error "rgbench: the cycle reference for x86_64 or aarch64 only"
#endif
	return x;
}
