/* SPDX-License-Identifier: MIT */
/* x86-64 plain (non-atomic) load/add/store: the racy per-CPU increment, as named instructions. */
#ifndef RG_X86_64_PLAIN_H
#define RG_X86_64_PLAIN_H
#if !RG_ARCH_H_INSIDE
# error "include rg/arch.h, not this file"
#endif

/*
 * rg_plain_add_return<W>(p, v): mov t,[p]; add t,v; mov [p],t; return t.
 * Deliberately three instructions (not one "add [p]"): preemption between the
 * load and the store loses an update, exactly like an arm64 ldr/add/str.
 * Same names on aarch64 (rg/aarch64/plain.h).
 */
#define RG_PLAIN_FOR_WIDTH(W, T, S)							\
static rg_always_inline T rg_plain_add_return##W(T *p, T v)				\
{											\
	T t;										\
	__asm__ __volatile__("// rg_plain_add_return" #W "\n\t"			\
			     "mov" S " %[p], %[t]\n\t"					\
			     "add" S " %[v], %[t]\n\t"					\
			     "mov" S " %[t], %[p]"					\
			     : [t] "=&r"(t), [p] "+m"(*p) : [v] "r"(v) : "memory", "cc"); \
	return t;									\
}

RG_PLAIN_FOR_WIDTH(32, uint32_t, "l")
RG_PLAIN_FOR_WIDTH(64, uint64_t, "q")
#undef RG_PLAIN_FOR_WIDTH

#endif /* RG_X86_64_PLAIN_H */
