// SPDX-License-Identifier: MIT
/* The cycle reference: a dependent chain of single-cycle register adds in inline asm, the same on every run and every machine of an architecture. */
#include <stdint.h>

#include "refloop.h"

/*
 * n iterations of RG_REF_ADDS_PER_ITER adds to one register of a register
 * that holds 1, each waiting on the one before (one cycle of latency each on
 * every core that rgbench targets); the loop counter is a separate chain the
 * core runs beside it. Returns x + n * 16 so that nothing can be folded away.
 *   x86-64:  add %one, %reg  (x16); dec %cnt; jnz
 *   arm64:   add x, x, one   (x16); subs cnt, cnt, #1; b.ne
 * Not an immediate: Intel's cores since Golden Cove execute a chain of
 * `add $1, %reg` in the renamer at about five per cycle (measured on this
 * project's Xeon VM: 0.053 ns per add against 0.28 ns for the register form,
 * whose 0.28 ns matches a third of `imul`'s three-cycle chain), which made
 * every reference-cycle figure there five times too large. `one` comes from
 * a volatile read, so no compiler or core knows its value ahead.
 */
uint64_t rg_ref_chain(uint64_t n, uint64_t x)
{
	static volatile uint64_t one_src = 1;
	uint64_t one = one_src;

	if (!n)
		return x;
#if defined(__x86_64__)
	__asm__ __volatile__(
		"// rg_ref_chain\n"
		"1:\n\t"
		".rept 16\n\t"
		"add %2, %0\n\t"
		".endr\n\t"
		"dec %1\n\t"
		"jnz 1b"
		: "+r"(x), "+r"(n) : "r"(one) : "cc");
#elif defined(__aarch64__)
	__asm__ __volatile__(
		"// rg_ref_chain\n"
		"1:\n\t"
		".rept 16\n\t"
		"add %0, %0, %2\n\t"
		".endr\n\t"
		"subs %1, %1, #1\n\t"
		"b.ne 1b"
		: "+r"(x), "+r"(n) : "r"(one) : "cc");
#else
#error "rgbench: the cycle reference for x86_64 or aarch64 only"
#endif
	return x;
}
