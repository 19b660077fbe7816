/* SPDX-License-Identifier: MIT */
/* x86-64 read-modify-write primitives (rg_x86_*), locked and unlocked, as named instructions. */
#ifndef RG_X86_64_ATOMIC_H
#define RG_X86_64_ATOMIC_H
#if !RG_ARCH_H_INSIDE
# error "include rg/arch.h, not this file"
#endif

/*
 * One instruction each, inline asm whose string starts with the marker
 * "// rg_x86_<name><width>".
 *
 *   lock_xadd(p, v)   old = *p; *p += v; return old          lock xadd (atomic)
 *   lock_inc(p)       *p += 1                                 lock inc
 *   lock_dec(p)       *p -= 1                                 lock dec
 *   xchg(p, v)        old = *p; *p = v; return old            xchg (implicitly locked)
 *   lock_cmpxchg(p, e, n)  old = *p; if (old == e) *p = n; return old   lock cmpxchg
 *   xadd(p, v)        old = *p; *p += v; return old          xadd, no lock
 *   inc(p) / dec(p)   *p += 1 / *p -= 1                       inc / dec, no lock
 *
 * The unlocked forms are what the x86 kernel's this_cpu_inc_return() and
 * this_cpu_dec() compile to (%gs-relative): one instruction, so neither an
 * interrupt (here: a signal) nor preemption can split it, but not atomic
 * against another CPU writing the same word.
 */
/*
 * xadd, inc and dec come in two forms that differ only by the lock prefix:
 * RG_X86_RMW(pfx, lock) generates rg_x86_<pfx>{xadd,inc,dec}<W> with lock
 * ("lock " or "") before each instruction.
 */
#define RG_X86_RMW(W, T, S, pfx, lock)							\
static rg_always_inline T rg_x86_##pfx##xadd##W(T *p, T v)				\
{											\
	__asm__ __volatile__("// rg_x86_" #pfx "xadd" #W "\n\t"			\
			     lock "xadd" S " %[v], %[p]"				\
			     : [v] "+r"(v), [p] "+m"(*p) : : "memory", "cc");		\
	return v;									\
}											\
static rg_always_inline void rg_x86_##pfx##inc##W(T *p)				\
{											\
	__asm__ __volatile__("// rg_x86_" #pfx "inc" #W "\n\t"			\
			     lock "inc" S " %[p]" : [p] "+m"(*p) : : "memory", "cc");	\
}											\
static rg_always_inline void rg_x86_##pfx##dec##W(T *p)				\
{											\
	__asm__ __volatile__("// rg_x86_" #pfx "dec" #W "\n\t"			\
			     lock "dec" S " %[p]" : [p] "+m"(*p) : : "memory", "cc");	\
}
#define RG_X86_FOR_WIDTH(W, T, S)							\
RG_X86_RMW(W, T, S, lock_, "lock ")							\
RG_X86_RMW(W, T, S, , "")								\
static rg_always_inline T rg_x86_xchg##W(T *p, T v)					\
{											\
	__asm__ __volatile__("// rg_x86_xchg" #W "\n\t"				\
			     "xchg" S " %[v], %[p]"					\
			     : [v] "+r"(v), [p] "+m"(*p) : : "memory");		\
	return v;									\
}											\
static rg_always_inline T rg_x86_lock_cmpxchg##W(T *p, T expected, T desired)		\
{											\
	__asm__ __volatile__("// rg_x86_lock_cmpxchg" #W "\n\t"			\
			     "lock cmpxchg" S " %[d], %[p]"				\
			     : "+a"(expected), [p] "+m"(*p) : [d] "r"(desired)		\
			     : "memory", "cc");						\
	return expected;	/* cmpxchg leaves the value it found in %eax/%rax */	\
}

RG_FOR_WIDTHS(RG_X86_FOR_WIDTH)
#undef RG_X86_FOR_WIDTH
#undef RG_X86_RMW

#endif /* RG_X86_64_ATOMIC_H */
