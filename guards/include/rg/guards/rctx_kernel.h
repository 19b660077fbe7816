/* SPDX-License-Identifier: MIT */
/* Guard "rctx-kernel": the merged bpf-next recursion check in its kernel form, preempt count and per-CPU base included. */
#ifndef RG_GUARDS_RCTX_KERNEL_H
#define RG_GUARDS_RCTX_KERNEL_H

#include "rg/guard.h"
#include "rg/parts.h"
#include "rg/preempt.h"

/*
 * enter: bpf_prog_get_recursion_context()   exit: bpf_prog_put_recursion_context()
 * (include/linux/bpf.h, bpf-next 2025-12, "bpf: arm64: Optimize recursion
 * detection by not using atomics"), statement for statement:
 *
 *   rctx = interrupt_context_level();       read the preempt count, NMI/HARDIRQ/
 *                                           SOFTIRQ_OFFSET masks (rg/preempt.h)
 *   active = this_cpu_ptr(prog->active);    one load of g->off + this CPU's base
 *   preempt_disable();
 *   active[rctx]++;                         a BYTE read-modify-write
 *   val = le32_to_cpu(*(__le32 *)active);   a 32-bit reload of the same word
 *   preempt_enable();                       decrement and test; the resched call
 *                                           is on the cold, never-taken path
 *   return val == BIT(rctx * 8);
 * exit: rctx and active the same way, then preempt_disable();
 * active[rctx]--; preempt_enable().
 *
 * Per architecture (the kernel merged it for arm64; on x86-64 it is what
 * the same C would compile to, the design upstream measured at -30%):
 *   arm64   count: the thread-local model of thread_info's preempt count
 *           (32-bit load/add/store; enable 64-bit load, sub, store, test,
 *           reload; rg/preempt.h, as the *-kernel rows); base: rg_pcpu_ptr()
 *           (mrs tpidr_el0 + the thread's base word, one load more than the
 *           kernel's mrs tpidr_el1); byte op ldrb/add/strb, reload ldr w.
 *   x86-64  count: `incl`/`decl %fs:rg_x86_preempt_count@tpoff` + `je` to
 *           the cold call, `movl %fs:` for the level (the kernel: %gs:
 *           __preempt_count; rg/preempt.h says why %fs here); base: `add
 *           %fs:rg_pcpu_base@tpoff, %r` (the kernel's arch_raw_cpu_ptr() is
 *           `add %gs:this_cpu_off, %r`: the same instruction reading the
 *           thread-local copy of this CPU's base, since %gs:constant here
 *           would depend on the slot layout); byte op `addb $1, (%p,%i)` (exit `subb $1`),
 *           reload `movl (%p), %r`.
 * The inline asm pins the instructions the kernel's compiler emits for the
 * byte op and the reload (markers // rg_kbyte_*); the level arithmetic and
 * the compare are C, as in the kernel.
 *
 * Context level: a signal handler that may enter the guard calls
 * rg_rctx_enter_signal() (rg/rseq.h), which adds HARDIRQ_OFFSET (nested:
 * NMI_OFFSET + HARDIRQ_OFFSET) to the modelled count as irq_enter() /
 * nmi_enter() do, so the handler uses byte 2 (3), and the whole-word check
 * refuses it while the interrupted code holds byte 0.
 * Protects against: re-entry on the same CPU from a signal handler or the
 * same thread. Against another thread on the same CPU only where nothing
 * can split the byte read-modify-write: the kernel's preempt_disable()
 * ensures that, the userspace count cannot (it disables nothing). x86-64:
 * `addb`/`subb` on memory is one instruction, exact with any number of
 * threads per CPU (a preemption between the byte op and the reload can make
 * an enter refuse that the kernel would grant, never grant twice). arm64:
 * ldrb/add/strb can be split by a preemption, so with two threads pinned
 * to one CPU it can lose a count or grant twice (RG_NEEDS_OWN_CPU: the
 * stress test runs it one thread per CPU there).
 * Assumes: the per-CPU contract's pinning (rg/guard.h).
 */
#if RG_ARCH_X86_64
/* arch_raw_cpu_ptr(): ptr + this CPU's base, one add with a segment-relative source. */
static rg_always_inline uint8_t *rg_kthis_cpu_ptr(uintptr_t off)
{
	__asm__("// rg_kthis_cpu_ptr\n\taddq %[base], %[p]" : [p] "+r"(off) : [base] "m"(rg_pcpu_base) : "cc");
	return (uint8_t *)off;
}

/* active[rctx]++; return the 32-bit word at active: addb $1 on memory, then movl. */
static rg_always_inline uint32_t rg_kbyte_inc_load32(uint8_t *active, unsigned int rctx)
{
	uint32_t val;

	__asm__ __volatile__("// rg_kbyte_inc_load32\n\t"
			     "addb $1, (%[p],%q[i])\n\t"
			     "movl (%[p]), %[val]"
			     : [val] "=r"(val), "+m"(*(uint32_t *)active)
			     : [p] "r"(active), [i] "r"(rctx) : "cc");
	return val;
}

/* active[rctx]--: subb $1 on memory. */
static rg_always_inline void rg_kbyte_dec(uint8_t *active, unsigned int rctx)
{
	__asm__ __volatile__("// rg_kbyte_dec\n\tsubb $1, (%[p],%q[i])"
			     : "+m"(*(uint32_t *)active) : [p] "r"(active), [i] "r"(rctx) : "cc");
}

/* active[rctx]++ without the reload (the ladder's byte step): addb $1 on memory. */
static rg_always_inline void rg_kbyte_inc(uint8_t *active, unsigned int rctx)
{
	__asm__ __volatile__("// rg_kbyte_inc\n\taddb $1, (%[p],%q[i])"
			     : "+m"(*(uint32_t *)active) : [p] "r"(active), [i] "r"(rctx) : "cc");
}
#elif RG_ARCH_AARCH64
static rg_always_inline uint8_t *rg_kthis_cpu_ptr(uintptr_t off)
{
	return (uint8_t *)rg_pcpu_ptr(off);
}

/* active[rctx]++; return the 32-bit word at active: ldrb/add/strb, then ldr w. */
static rg_always_inline uint32_t rg_kbyte_inc_load32(uint8_t *active, unsigned int rctx)
{
	uint32_t val, t;

	__asm__ __volatile__("// rg_kbyte_inc_load32\n\t"
			     "ldrb %w[t], [%[p], %x[i]]\n\t"
			     "add %w[t], %w[t], #1\n\t"
			     "strb %w[t], [%[p], %x[i]]\n\t"
			     "ldr %w[val], [%[p]]"
			     : [val] "=r"(val), [t] "=&r"(t), "+m"(*(uint32_t *)active)
			     : [p] "r"(active), [i] "r"((uint64_t)rctx));
	return val;
}

/* active[rctx] op= 1 without a reload: ldrb/op/strb (dec: the exit; inc: the ladder's byte step). */
#define RG_KBYTE_OP(name, op)								\
static rg_always_inline void name(uint8_t *active, unsigned int rctx)			\
{											\
	uint32_t t;									\
											\
	__asm__ __volatile__("// " #name "\n\t"					\
			     "ldrb %w[t], [%[p], %x[i]]\n\t"				\
			     #op " %w[t], %w[t], #1\n\t"				\
			     "strb %w[t], [%[p], %x[i]]"				\
			     : [t] "=&r"(t), "+m"(*(uint32_t *)active)			\
			     : [p] "r"(active), [i] "r"((uint64_t)rctx));		\
}
RG_KBYTE_OP(rg_kbyte_dec, sub)
RG_KBYTE_OP(rg_kbyte_inc, add)
#undef RG_KBYTE_OP
#endif

/*
 * The parts (guards.def's RG_PART lines for rctx_kernel), in ladder order:
 * preempt, level, ptr, byte, reload. upto is a constant (rg/parts.h): a
 * step's loop has exactly the instructions of its parts. A value that a
 * later part consumes is kept in a register (rg_part_keep) until that part
 * is there; before the reload, enter grants without a test.
 */
/* rctx and active as far as upto: the level, then this_cpu_ptr (kept until the byte op uses them). */
static rg_always_inline uint8_t *rg_rctx_kernel_where(struct rg_guard *g, unsigned int upto,
						       unsigned int *rctx)
{
	uint8_t *active = NULL;

	*rctx = 0;
	if (upto >= RG_PART_rctx_kernel__level)
		*rctx = rg_interrupt_context_level();
	if (upto >= RG_PART_rctx_kernel__ptr)
		active = rg_kthis_cpu_ptr(rg_guard_off(g));
	if (upto == RG_PART_rctx_kernel__level || upto == RG_PART_rctx_kernel__ptr)
		rg_part_keep(*rctx);
	if (upto == RG_PART_rctx_kernel__ptr)
		rg_part_keep(active);
	return active;
}

static rg_always_inline bool rg_guard_rctx_kernel_enter_upto(struct rg_guard *g, unsigned int upto)
{
	unsigned int rctx;
	uint8_t *active = rg_rctx_kernel_where(g, upto, &rctx);
	uint32_t val = 0;

	rg_preempt_disable_notrace();
	if (upto >= RG_PART_rctx_kernel__reload)
		val = rg_kbyte_inc_load32(active, rctx);
	else if (upto >= RG_PART_rctx_kernel__byte)
		rg_kbyte_inc(active, rctx);
	rg_preempt_enable_notrace();
	return upto >= RG_PART_rctx_kernel__reload ? val == 1u << (rctx * 8) : true;
}

static rg_always_inline void rg_guard_rctx_kernel_exit_upto(struct rg_guard *g, bool granted,
							    unsigned int upto)
{
	unsigned int rctx;
	uint8_t *active = rg_rctx_kernel_where(g, upto, &rctx);

	(void)granted;	/* a counter: every enter is undone, granted or not */
	rg_preempt_disable_notrace();
	if (upto >= RG_PART_rctx_kernel__byte)
		rg_kbyte_dec(active, rctx);
	rg_preempt_enable_notrace();
}

RG_DEFINE_GUARD_FROM_PARTS(rctx_kernel)

#endif /* RG_GUARDS_RCTX_KERNEL_H */
