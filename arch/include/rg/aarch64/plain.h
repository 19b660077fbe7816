/* SPDX-License-Identifier: MIT */
/* aarch64 plain (non-atomic) load/add/store: the racy per-CPU increment, as named instructions. */
#ifndef RG_AARCH64_PLAIN_H
#define RG_AARCH64_PLAIN_H
#if !RG_ARCH_H_INSIDE
# error "include rg/arch.h, not this file"
#endif

/*
 * rg_plain_add_return<W>(p, v): ldr t,[p]; add t,t,v; str t,[p]; return t.
 * Three instructions, not atomic: preemption (or another CPU) between the
 * ldr and the str loses an update. Same names on x86-64 (rg/x86_64/plain.h).
 */
#define RG_PLAIN_FOR_WIDTH(W, T, R)							\
static rg_always_inline T rg_plain_add_return##W(T *p, T v)				\
{											\
	T t;										\
	__asm__ __volatile__("// rg_plain_add_return" #W "\n\t"			\
			     "ldr %" R "[t], %[p]\n\t"					\
			     "add %" R "[t], %" R "[t], %" R "[v]\n\t"			\
			     "str %" R "[t], %[p]"					\
			     : [t] "=&r"(t), [p] "+Q"(*p) : [v] "r"(v) : "memory");	\
	return t;									\
}

RG_PLAIN_FOR_WIDTH(32, uint32_t, "w")
RG_PLAIN_FOR_WIDTH(64, uint64_t, "x")
#undef RG_PLAIN_FOR_WIDTH

#endif /* RG_AARCH64_PLAIN_H */
