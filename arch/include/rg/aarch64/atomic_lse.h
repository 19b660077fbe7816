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
/*
 * Generated per name as the kernel's atomic_lse.h does (ATOMIC_OP_ADD_RETURN
 * with its ordering suffix and clobber columns):
 *   RG_LSE_RETURN(name, ins, cl)   old = ins v, old, [p]; clobber cl
 *   RG_LSE_NORETURN(name, ins)     the instructions ins on v and [p], no result
 */
#define RG_LSE_RETURN(W, T, R, name, ins, cl)						\
static rg_always_inline T rg_lse_##name##W(T *p, T v)					\
{											\
	T old;										\
	__asm__ __volatile__("// rg_lse_" #name #W "\n\t"				\
			     ".arch_extension lse\n\t"					\
			     ins " %" R "[v], %" R "[old], %[p]"			\
			     : [old] "=r"(old), [p] "+Q"(*p) : [v] "r"(v) : cl);	\
	return old;									\
}
#define RG_LSE_NORETURN(W, T, R, name, ins)						\
static rg_always_inline void rg_lse_##name##W(T *p, T v)				\
{											\
	__asm__ __volatile__("// rg_lse_" #name #W "\n\t"				\
			     ".arch_extension lse\n\t"					\
			     ins " %" R "[v], %[p]"					\
			     : [p] "+Q"(*p) : [v] "r"(v));			\
}
#define RG_LSE_FOR_WIDTH(W, T, R)							\
RG_LSE_RETURN(W, T, R, ldadd, "ldadd", )						\
RG_LSE_RETURN(W, T, R, ldaddal, "ldaddal", "memory")					\
RG_LSE_RETURN(W, T, R, swp, "swp", )							\
RG_LSE_NORETURN(W, T, R, stadd, "stadd")						\
RG_LSE_NORETURN(W, T, R, prfm_stadd, "prfm pstl1strm, %[p]\n\tstadd")			\
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
static rg_always_inline T rg_lse_cas##W(T *p, T expected, T desired)			\
{											\
	__asm__ __volatile__("// rg_lse_cas" #W "\n\t"					\
			     ".arch_extension lse\n\t"					\
			     "cas %" R "[e], %" R "[d], %[p]"				\
			     : [e] "+r"(expected), [p] "+Q"(*p) : [d] "r"(desired)	\
			    );						\
	return expected;	/* CAS leaves the value it found in Rs */		\
}

RG_FOR_WIDTHS(RG_LSE_FOR_WIDTH)
#undef RG_LSE_FOR_WIDTH
#undef RG_LSE_NORETURN
#undef RG_LSE_RETURN

#endif /* RG_AARCH64_ATOMIC_LSE_H */
