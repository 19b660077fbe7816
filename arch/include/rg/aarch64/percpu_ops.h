/* SPDX-License-Identifier: MIT */
/* aarch64 per-CPU addressing (tpidr_el0 + the thread's base) and the kernel's this_cpu op bodies (rg_kpcpu_*). */
#ifndef RG_AARCH64_PERCPU_OPS_H
#define RG_AARCH64_PERCPU_OPS_H
#if !RG_ARCH_H_INSIDE
# error "include rg/arch.h, not this file"
#endif

/*
 * rg_pcpu_ptr(off): this CPU's slot of a guard whose per-CPU offset is off.
 * The kernel does `mrs tpidr_el1` (the CPU's base) and adds the offset
 * (__kern_my_cpu_offset(), arch/arm64/include/asm/percpu.h). tpidr_el0 is
 * glibc's thread pointer, so here the base is the thread-local word
 * rg_pcpu_base (rg/percpu.h), set once when the thread was pinned:
 *
 *   mrs  x, tpidr_el0
 *   add  x, x, #:tprel_hi12:rg_pcpu_base, lsl #12
 *   ldr  x, [x, #:tprel_lo12_nc:rg_pcpu_base]     <- the one load the kernel does not do
 *   add  p, x, off
 *
 * Local-exec TLS: the variable is in the executable's own TLS block
 * (rg_arch is a static library; linking it into a shared object fails at
 * link time, loudly). The asm is volatile, so the base is fetched for
 * every op and never hoisted out of a loop: the kernel's non-volatile mrs
 * may be cached between ops, but only until the next barrier(), and the
 * preempt_enable()/preempt_disable() around every arm64 this_cpu op are
 * barriers.
 */
static rg_always_inline uint32_t *rg_pcpu_ptr(uintptr_t off)
{
	uintptr_t b;

	__asm__ __volatile__("// rg_pcpu_base\n\t"
			     "mrs %0, tpidr_el0\n\t"
			     "add %0, %0, #:tprel_hi12:rg_pcpu_base, lsl #12\n\t"
			     "ldr %0, [%0, #:tprel_lo12_nc:rg_pcpu_base]"
			     : "=r"(b));
	return (uint32_t *)(b + off);
}

/*
 * The bodies of the kernel's arm64 this_cpu ops, 32-bit, as patched at boot
 * (ARM64_LSE_ATOMIC_INSN alternatives, arch/arm64/include/asm/percpu.h,
 * __PERCPU_OP_CASE / __PERCPU_RET_OP_CASE): the LSE alternative is padded
 * with NOPs to the length of the LL/SC one (4 instructions), and those NOPs
 * are executed. No "memory" clobber (the kernel has none: ordering comes
 * from the preempt_disable()/enable() barriers around them). Markers
 * "// rg_kpcpu_<name>32".
 *
 *   add_return_lse(p, v)  ldadd v, r, [p]; add r, r, v; nop; nop     -> r (new value)
 *   add_return_llsc(p, v) 1: ldxr r; add r, r, v; stxr; cbnz 1b      -> r (new value)
 *   add_stadd(p, v)       stadd v, [p]; nop; nop; nop                (this_cpu_add, arm64 < 6.18)
 *   add_ldadd(p, v)       ldadd v, tmp, [p]; nop; nop; nop           (this_cpu_add, 6.18: commit
 *                         535fdfc5a228, a real unused destination register)
 *   add_prfm_stadd(p, v)  prfm pstl1strm, [p]; stadd v, [p]; nop; nop (the prefetch-for-store
 *                         proposal; modelled in the same 4-instruction slot)
 *   add_llsc(p, v)        1: ldxr t; add t, t, v; stxr; cbnz 1b      (this_cpu_add without LSE)
 */
static rg_always_inline uint32_t rg_kpcpu_add_return_lse32(uint32_t *p, uint32_t v)
{
	uint32_t ret;

	__asm__ __volatile__("// rg_kpcpu_add_return_lse32\n\t"
			     ".arch_extension lse\n\t"
			     "ldadd %w[v], %w[ret], %[p]\n\t"
			     "add %w[ret], %w[ret], %w[v]\n\t"
			     "nop\n\tnop"
			     : [ret] "=&r"(ret), [p] "+Q"(*p) : [v] "r"(v));
	return ret;
}

static rg_always_inline uint32_t rg_kpcpu_add_return_llsc32(uint32_t *p, uint32_t v)
{
	uint32_t ret, loop;

	__asm__ __volatile__("// rg_kpcpu_add_return_llsc32\n"
			     "1:\tldxr %w[ret], %[p]\n\t"
			     "add %w[ret], %w[ret], %w[v]\n\t"
			     "stxr %w[loop], %w[ret], %[p]\n\t"
			     "cbnz %w[loop], 1b"
			     : [loop] "=&r"(loop), [ret] "=&r"(ret), [p] "+Q"(*p) : [v] "r"(v));
	return ret;
}

static rg_always_inline void rg_kpcpu_add_stadd32(uint32_t *p, uint32_t v)
{
	__asm__ __volatile__("// rg_kpcpu_add_stadd32\n\t"
			     ".arch_extension lse\n\t"
			     "stadd %w[v], %[p]\n\t"
			     "nop\n\tnop\n\tnop"
			     : [p] "+Q"(*p) : [v] "r"(v));
}

static rg_always_inline void rg_kpcpu_add_ldadd32(uint32_t *p, uint32_t v)
{
	uint32_t tmp;

	__asm__ __volatile__("// rg_kpcpu_add_ldadd32\n\t"
			     ".arch_extension lse\n\t"
			     "ldadd %w[v], %w[tmp], %[p]\n\t"
			     "nop\n\tnop\n\tnop"
			     : [tmp] "=&r"(tmp), [p] "+Q"(*p) : [v] "r"(v));
	(void)tmp;
}

static rg_always_inline void rg_kpcpu_add_prfm_stadd32(uint32_t *p, uint32_t v)
{
	__asm__ __volatile__("// rg_kpcpu_add_prfm_stadd32\n\t"
			     ".arch_extension lse\n\t"
			     "prfm pstl1strm, %[p]\n\t"
			     "stadd %w[v], %[p]\n\t"
			     "nop\n\tnop"
			     : [p] "+Q"(*p) : [v] "r"(v));
}

static rg_always_inline void rg_kpcpu_add_llsc32(uint32_t *p, uint32_t v)
{
	uint32_t tmp, loop;

	__asm__ __volatile__("// rg_kpcpu_add_llsc32\n"
			     "1:\tldxr %w[tmp], %[p]\n\t"
			     "add %w[tmp], %w[tmp], %w[v]\n\t"
			     "stxr %w[loop], %w[tmp], %[p]\n\t"
			     "cbnz %w[loop], 1b"
			     : [loop] "=&r"(loop), [tmp] "=&r"(tmp), [p] "+Q"(*p) : [v] "r"(v));
}

#endif /* RG_AARCH64_PERCPU_OPS_H */
