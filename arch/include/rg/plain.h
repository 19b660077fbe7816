/* SPDX-License-Identifier: MIT */
/* Plain (non-atomic) load/add/store as named instructions, x86-64 and aarch64: the racy per-CPU increment. */
#ifndef RG_PLAIN_H
#define RG_PLAIN_H
#if !RG_ARCH_H_INSIDE
# error "include rg/arch.h, not this file"
#endif

/*
 * rg_plain_add_return<W>(p, v): t = *p; t += v; *p = t; return t, as three
 * instructions (deliberately not one "add [p]") and not atomic: preemption
 * (or another CPU) between the load and the store loses an update.
 *   x86-64   mov t,[p]; add t,v; mov [p],t        (RG_PLAIN_ASM(suffix))
 *   aarch64  ldr t,[p]; add t,t,v; str t,[p]      (RG_PLAIN_ASM(register prefix))
 */
#if RG_ARCH_X86_64
# define RG_PLAIN_ASM(S)								\
	"mov" S " %[p], %[t]\n\t"							\
	"add" S " %[v], %[t]\n\t"							\
	"mov" S " %[t], %[p]"
# define RG_PLAIN_MEM		"+m"
# define RG_PLAIN_CLOBBERS	"memory", "cc"
#else
# define RG_PLAIN_ASM(R)								\
	"ldr %" R "[t], %[p]\n\t"							\
	"add %" R "[t], %" R "[t], %" R "[v]\n\t"					\
	"str %" R "[t], %[p]"
# define RG_PLAIN_MEM		"+Q"
# define RG_PLAIN_CLOBBERS	"memory"
#endif

#define RG_PLAIN_FOR_WIDTH(W, T, R)							\
static rg_always_inline T rg_plain_add_return##W(T *p, T v)				\
{											\
	T t;										\
	__asm__ __volatile__("// rg_plain_add_return" #W "\n\t"			\
			     RG_PLAIN_ASM(R)						\
			     : [t] "=&r"(t), [p] RG_PLAIN_MEM(*p) : [v] "r"(v)		\
			     : RG_PLAIN_CLOBBERS);					\
	return t;									\
}
RG_FOR_WIDTHS(RG_PLAIN_FOR_WIDTH)
#undef RG_PLAIN_FOR_WIDTH
#undef RG_PLAIN_CLOBBERS
#undef RG_PLAIN_MEM
#undef RG_PLAIN_ASM

#endif /* RG_PLAIN_H */
