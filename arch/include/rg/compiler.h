/* SPDX-License-Identifier: MIT */
/* Compiler helpers shared by every rgbench header: inlining, barriers, cache lines. */
#ifndef RG_COMPILER_H
#define RG_COMPILER_H

#define rg_always_inline	inline __attribute__((always_inline))
#define rg_noinline		__attribute__((noinline))
#define rg_likely(x)		__builtin_expect(!!(x), 1)
#define rg_unlikely(x)		__builtin_expect(!!(x), 0)

/* Compiler-only barrier: orders nothing on the CPU. */
#define rg_barrier()		__asm__ __volatile__("" ::: "memory")

/*
 * Keep a value alive in a register without emitting code (the C analogue of
 * benchmark::DoNotOptimize): the measured loop cannot be folded away.
 */
#define rg_keep(v)		__asm__ __volatile__("" : : "r"(v) : "memory")

/*
 * Per-CPU slots are padded to 128 bytes: two 64-byte lines, because adjacent-line
 * prefetchers on both x86 and Neoverse pull pairs of lines.
 */
#define RG_CACHELINE		128
#define rg_cacheline_aligned	__attribute__((aligned(RG_CACHELINE)))

#define RG_READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define RG_WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))

#endif /* RG_COMPILER_H */
