/* SPDX-License-Identifier: MIT */
/* aarch64 LSE atomics (rg_lse_*), inline asm usable from an armv8.0 binary; never run without LSE. */
#ifndef RG_AARCH64_ATOMIC_LSE_H
#define RG_AARCH64_ATOMIC_LSE_H
#if !RG_ARCH_H_INSIDE
# error "include rg/arch.h, not this file"
#endif

/*
 * Every function is one named instruction (two for prfm_stadd) in inline asm
 * whose string starts with a marker comment "// rg_lse_<name><width>", so a
 * disassembly (objdump -S, or -save-temps) shows what a loop measures.
 * ".arch_extension lse" lets the assembler accept LSE in a binary built for
 * plain armv8.0. Executing any of these on a CPU without LSE raises SIGILL:
 * callers check rg_cpu_has_lse() (rg/env.h: getauxval(AT_HWCAP) & HWCAP_ATOMICS)
 * or rg_guard_available(). Sibling rg/aarch64/atomic_llsc.h has the same
 * names with rg_llsc_ and LDXR/STXR loops.
 *
 *   ldadd(p, v)        old = *p; *p = old + v; return old     relaxed  LDADD
 *   ldaddal(p, v)      the same, acquire+release              LDADDAL
 *   stadd(p, v)        *p += v, no result                      STADD (= LDADD to XZR)
 *   ldadd_unused(p, v) *p += v, result into a register nobody reads: LDADD with
 *                      a non-XZR destination, the arm64 6.18 this_cpu_add()
 *   prfm_stadd(p, v)   PRFM PSTL1STRM, [p]; STADD               (the "prefetch for
 *                      store" proposal: bring the line near before the far op)
 *   swp(p, v)          old = *p; *p = v; return old            relaxed  SWP
 *   cas(p, e, n)       old = *p; if (old == e) *p = n; return old   relaxed CAS
 *
 * Clobbers follow the ordering, as in the kernel's atomic_lse.h: the relaxed
 * ops name only the word they touch ("+Q"), no "memory" clobber; ldaddal
 * (acquire+release) has one, so the compiler does not move other memory
 * accesses across it either.
 */
#define RG_LSE_FOR_WIDTH(W, T, R)							\
static rg_always_inline T rg_lse_ldadd##W(T *p, T v)					\
{											\
	T old;										\
	__asm__ __volatile__("// rg_lse_ldadd" #W "\n\t"				\
			     ".arch_extension lse\n\t"					\
			     "ldadd %" R "[v], %" R "[old], %[p]"			\
			     : [old] "=r"(old), [p] "+Q"(*p) : [v] "r"(v));	\
	return old;									\
}											\
static rg_always_inline T rg_lse_ldaddal##W(T *p, T v)					\
{											\
	T old;										\
	__asm__ __volatile__("// rg_lse_ldaddal" #W "\n\t"				\
			     ".arch_extension lse\n\t"					\
			     "ldaddal %" R "[v], %" R "[old], %[p]"			\
			     : [old] "=r"(old), [p] "+Q"(*p) : [v] "r"(v) : "memory");	\
	return old;									\
}											\
static rg_always_inline void rg_lse_stadd##W(T *p, T v)				\
{											\
	__asm__ __volatile__("// rg_lse_stadd" #W "\n\t"				\
			     ".arch_extension lse\n\t"					\
			     "stadd %" R "[v], %[p]"					\
			     : [p] "+Q"(*p) : [v] "r"(v));			\
}											\
static rg_always_inline void rg_lse_ldadd_unused##W(T *p, T v)			\
{											\
	T unused;									\
	__asm__ __volatile__("// rg_lse_ldadd_unused" #W "\n\t"			\
			     ".arch_extension lse\n\t"					\
			     "ldadd %" R "[v], %" R "[unused], %[p]"			\
			     : [unused] "=&r"(unused), [p] "+Q"(*p) : [v] "r"(v)	\
			    );						\
	(void)unused;									\
}											\
static rg_always_inline void rg_lse_prfm_stadd##W(T *p, T v)				\
{											\
	__asm__ __volatile__("// rg_lse_prfm_stadd" #W "\n\t"				\
			     ".arch_extension lse\n\t"					\
			     "prfm pstl1strm, %[p]\n\t"					\
			     "stadd %" R "[v], %[p]"					\
			     : [p] "+Q"(*p) : [v] "r"(v));			\
}											\
static rg_always_inline T rg_lse_swp##W(T *p, T v)					\
{											\
	T old;										\
	__asm__ __volatile__("// rg_lse_swp" #W "\n\t"					\
			     ".arch_extension lse\n\t"					\
			     "swp %" R "[v], %" R "[old], %[p]"				\
			     : [old] "=r"(old), [p] "+Q"(*p) : [v] "r"(v));	\
	return old;									\
}											\
static rg_always_inline T rg_lse_cas##W(T *p, T expected, T desired)			\
{											\
	__asm__ __volatile__("// rg_lse_cas" #W "\n\t"					\
			     ".arch_extension lse\n\t"					\
			     "cas %" R "[e], %" R "[d], %[p]"				\
			     : [e] "+r"(expected), [p] "+Q"(*p) : [d] "r"(desired)	\
			    );						\
	return expected;	/* CAS leaves the value it found in Rs */		\
}

RG_LSE_FOR_WIDTH(32, uint32_t, "w")
RG_LSE_FOR_WIDTH(64, uint64_t, "x")
#undef RG_LSE_FOR_WIDTH

#endif /* RG_AARCH64_ATOMIC_LSE_H */
