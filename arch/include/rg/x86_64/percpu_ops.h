/* SPDX-License-Identifier: MIT */
/* x86-64 per-CPU ops (rg_gs_*): one %gs-relative instruction each, as the kernel's this_cpu_* ops. */
#ifndef RG_X86_64_PERCPU_OPS_H
#define RG_X86_64_PERCPU_OPS_H
#if !RG_ARCH_H_INSIDE
# error "include rg/arch.h, not this file"
#endif

/*
 * `off` is a guard's per-CPU offset (g->off, rg/guard.h); the thread's %gs
 * base is its CPU's base (rg/percpu.h), so %gs:(off) is this CPU's slot.
 * The memory operand is a __seg_gs lvalue: GCC prints the %gs: override and
 * knows which word the op reads and writes. The clobbers are the kernel's
 * (arch/x86/include/asm/percpu.h, 6.1 and later): percpu_add_op() ->
 * percpu_unary_op() (this_cpu_inc/dec/add) names only its word, no
 * "memory" clobber; percpu_add_return_op() (this_cpu_add_return, the xadd)
 * HAS a "memory" clobber, and so has xadd32 here. The locked ones keep it
 * too: the kernel's atomic_*() on x86 are full barriers and say so to the
 * compiler.
 * Markers "// rg_gs_<name>32".
 *
 *   xadd32(off, v)       old = *p; *p += v; return old   xadd %r, %gs:(off)      (this_cpu_add_return)
 *   dec32(off)           *p -= 1                          decl %gs:(off)          (this_cpu_dec)
 *   lock_xadd32(off, v)  the same, atomic                 lock xadd %r, %gs:(off)
 *   lock_dec32(off)      *p -= 1, atomic                  lock decl %gs:(off)
 *   xchg32(off, v)       old = *p; *p = v; return old     xchg %r, %gs:(off)      (implicitly locked)
 *   lock_cmpxchg32(off, e, n)                             lock cmpxchg %r, %gs:(off)
 *   write32(off, v)      *p = v                           movl %r, %gs:(off)      (this_cpu_write)
 *   plain_add_return32(off, v)  load, add, store: NOT one instruction (the racy control)
 */
#ifndef __cplusplus	/* named address spaces are GNU C only; C++ users (bench's native noop) need none of this */
#define RG_GS32(off)	(*(__seg_gs uint32_t *)(off))

static rg_always_inline uint32_t rg_gs_xadd32(uintptr_t off, uint32_t v)
{
	__asm__ __volatile__("// rg_gs_xadd32\n\txaddl %[v], %[p]"
			     : [v] "+r"(v), [p] "+m"(RG_GS32(off)) : : "memory", "cc");
	return v;
}

static rg_always_inline void rg_gs_dec32(uintptr_t off)
{
	__asm__ __volatile__("// rg_gs_dec32\n\tdecl %[p]" : [p] "+m"(RG_GS32(off)) : : "cc");
}

static rg_always_inline uint32_t rg_gs_lock_xadd32(uintptr_t off, uint32_t v)
{
	__asm__ __volatile__("// rg_gs_lock_xadd32\n\tlock xaddl %[v], %[p]"
			     : [v] "+r"(v), [p] "+m"(RG_GS32(off)) : : "memory", "cc");
	return v;
}

static rg_always_inline void rg_gs_lock_dec32(uintptr_t off)
{
	__asm__ __volatile__("// rg_gs_lock_dec32\n\tlock decl %[p]"
			     : [p] "+m"(RG_GS32(off)) : : "memory", "cc");
}

static rg_always_inline uint32_t rg_gs_xchg32(uintptr_t off, uint32_t v)
{
	__asm__ __volatile__("// rg_gs_xchg32\n\txchgl %[v], %[p]"
			     : [v] "+r"(v), [p] "+m"(RG_GS32(off)) : : "memory");
	return v;
}

static rg_always_inline uint32_t rg_gs_lock_cmpxchg32(uintptr_t off, uint32_t expected, uint32_t desired)
{
	__asm__ __volatile__("// rg_gs_lock_cmpxchg32\n\tlock cmpxchgl %[d], %[p]"
			     : "+a"(expected), [p] "+m"(RG_GS32(off)) : [d] "r"(desired)
			     : "memory", "cc");
	return expected;
}

static rg_always_inline void rg_gs_write32(uintptr_t off, uint32_t v)
{
	__asm__ __volatile__("// rg_gs_write32\n\tmovl %[v], %[p]" : [p] "=m"(RG_GS32(off)) : [v] "r"(v));
}

static rg_always_inline uint32_t rg_gs_plain_add_return32(uintptr_t off, uint32_t v)
{
	uint32_t t;

	__asm__ __volatile__("// rg_gs_plain_add_return32\n\t"
			     "movl %[p], %[t]\n\t"
			     "addl %[v], %[t]\n\t"
			     "movl %[t], %[p]"
			     : [t] "=&r"(t), [p] "+m"(RG_GS32(off)) : [v] "r"(v) : "cc");
	return t;
}

#endif /* !__cplusplus */

#endif /* RG_X86_64_PERCPU_OPS_H */
