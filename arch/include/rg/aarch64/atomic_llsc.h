/* SPDX-License-Identifier: MIT */
/* aarch64 LL/SC atomics (rg_llsc_*): LDXR/STXR loops with the same names and results as rg_lse_*. */
#ifndef RG_AARCH64_ATOMIC_LLSC_H
#define RG_AARCH64_ATOMIC_LLSC_H
#if !RG_ARCH_H_INSIDE
# error "include rg/arch.h, not this file"
#endif

/*
 * Armv8.0 load-exclusive/store-exclusive loops: run on every arm64 CPU. Same
 * pseudo-code as the sibling rg_lse_* (rg/aarch64/atomic_lse.h); markers
 * "// rg_llsc_<name><width>".
 *
 *   ldadd(p, v)      1: ldxr old,[p]; add new,old,v; stxr st,new,[p]; cbnz st,1b; return old
 *   ldaddal(p, v)    the same with ldaxr/stlxr (acquire+release)
 *   stadd(p, v)      the ldadd loop, result dropped (what arm64 kernels without
 *                    LSE run for this_cpu_add())
 *   prfm_stadd(p, v) prfm pstl1strm,[p] then the stadd loop (the older kernel LL/SC form)
 *   swp(p, v)        1: ldxr old,[p]; stxr st,v,[p]; cbnz st,1b; return old
 *   cas(p, e, n)     1: ldxr old,[p]; cmp old,e; b.ne 2f; stxr st,n,[p]; cbnz st,1b; 2: return old
 */
/*
 * The add loops, generated per name as the kernel's atomic_ll_sc.h does
 * (ATOMIC_OP_RETURN with its acquire/release and clobber columns):
 *   RG_LLSC_ADD_RETURN(name, acq, rel, cl)  old and new in two registers;
 *					      ld<acq>xr / st<rel>xr, clobber cl
 *   RG_LLSC_ADD(name, pre)                  one register, result dropped,
 *					      after the instructions pre
 */
#define RG_LLSC_ADD_RETURN(W, T, R, name, acq, rel, cl)					\
static rg_always_inline T rg_llsc_##name##W(T *p, T v)					\
{											\
	T old, nv;									\
	uint32_t st;									\
	__asm__ __volatile__("// rg_llsc_" #name #W "\n"				\
			     "1:\tld" acq "xr %" R "[old], %[p]\n\t"			\
			     "add %" R "[nv], %" R "[old], %" R "[v]\n\t"		\
			     "st" rel "xr %w[st], %" R "[nv], %[p]\n\t"		\
			     "cbnz %w[st], 1b"						\
			     : [old] "=&r"(old), [nv] "=&r"(nv), [st] "=&r"(st),	\
			       [p] "+Q"(*p)						\
			     : [v] "r"(v) : cl);					\
	return old;									\
}
#define RG_LLSC_ADD(W, T, R, name, pre)							\
static rg_always_inline void rg_llsc_##name##W(T *p, T v)				\
{											\
	T nv;										\
	uint32_t st;									\
	__asm__ __volatile__("// rg_llsc_" #name #W "\n\t"				\
			     pre							\
			     "1:\tldxr %" R "[nv], %[p]\n\t"				\
			     "add %" R "[nv], %" R "[nv], %" R "[v]\n\t"		\
			     "stxr %w[st], %" R "[nv], %[p]\n\t"			\
			     "cbnz %w[st], 1b"						\
			     : [nv] "=&r"(nv), [st] "=&r"(st), [p] "+Q"(*p)		\
			     : [v] "r"(v) );					\
}
#define RG_LLSC_FOR_WIDTH(W, T, R)							\
RG_LLSC_ADD_RETURN(W, T, R, ldadd, "", "", )						\
RG_LLSC_ADD_RETURN(W, T, R, ldaddal, "a", "l", "memory")				\
RG_LLSC_ADD(W, T, R, stadd, "")								\
RG_LLSC_ADD(W, T, R, prfm_stadd, "prfm pstl1strm, %[p]\n")				\
static rg_always_inline T rg_llsc_swp##W(T *p, T v)					\
{											\
	T old;										\
	uint32_t st;									\
	__asm__ __volatile__("// rg_llsc_swp" #W "\n"					\
			     "1:\tldxr %" R "[old], %[p]\n\t"				\
			     "stxr %w[st], %" R "[v], %[p]\n\t"			\
			     "cbnz %w[st], 1b"						\
			     : [old] "=&r"(old), [st] "=&r"(st), [p] "+Q"(*p)		\
			     : [v] "r"(v) );					\
	return old;									\
}											\
static rg_always_inline T rg_llsc_cas##W(T *p, T expected, T desired)			\
{											\
	T old;										\
	uint32_t st;									\
	__asm__ __volatile__("// rg_llsc_cas" #W "\n"					\
			     "1:\tldxr %" R "[old], %[p]\n\t"				\
			     "cmp %" R "[old], %" R "[e]\n\t"				\
			     "b.ne 2f\n\t"						\
			     "stxr %w[st], %" R "[d], %[p]\n\t"			\
			     "cbnz %w[st], 1b\n"					\
			     "2:"							\
			     : [old] "=&r"(old), [st] "=&r"(st), [p] "+Q"(*p)		\
			     : [e] "r"(expected), [d] "r"(desired) : "cc");	\
	return old;									\
}

RG_FOR_WIDTHS(RG_LLSC_FOR_WIDTH)
#undef RG_LLSC_FOR_WIDTH
#undef RG_LLSC_ADD
#undef RG_LLSC_ADD_RETURN

#endif /* RG_AARCH64_ATOMIC_LLSC_H */
