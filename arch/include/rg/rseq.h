/* SPDX-License-Identifier: MIT */
/* glibc's rseq registration and a per-CPU non-atomic add as a real restartable sequence. */
#ifndef RG_RSEQ_H
#define RG_RSEQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "rg/compiler.h"
#include "rg/preempt.h"

/*
 * glibc >= 2.35 registers one struct rseq per thread at thread pointer +
 * __rseq_offset and publishes __rseq_size (20 on Debian 12's glibc 2.36: the
 * original ABI size, not sizeof(struct rseq)); __rseq_size is 0 when it did
 * not register (kernel without rseq, qemu-user, GLIBC_TUNABLES=
 * glibc.pthread.rseq=0). We only use the original ABI fields:
 *   +0 u32 cpu_id_start, +4 u32 cpu_id, +8 u64 rseq_cs, +16 u32 flags.
 */
#define RG_RSEQ_OFF_CPU_ID	4
#define RG_RSEQ_OFF_CS		8

/*
 * The abort signature; the asm below emits this same token, with
 * RG_RSEQ_SIG_DIRECTIVE, before each abort handler, which jumps back with
 * RG_RSEQ_JUMP.
 */
#if defined(__x86_64__)
# define RG_RSEQ_SIG		0x53053053	/* glibc bits/rseq.h; bytes of ud1 */
# define RG_RSEQ_SIG_DIRECTIVE	".long"
# define RG_RSEQ_JUMP		"jmp"
#elif defined(__aarch64__)
# define RG_RSEQ_SIG		0xd428bc00	/* BRK #0x45E0 (little-endian code) */
# define RG_RSEQ_SIG_DIRECTIVE	".inst"
# define RG_RSEQ_JUMP		"b"
#else
# error "rgbench supports x86_64 and aarch64 only"
#endif

/* The calling thread's rseq area, or NULL when glibc did not register one. */
void *rg_rseq_area(void);

/* True when this thread has a registered rseq area with a valid cpu_id. */
bool rg_rseq_available(void);

/* Why rg_rseq_available() is false ("rseq not registered", ...), NULL when true. */
const char *rg_rseq_why(void);

static rg_always_inline char *rg_rseq_area_fast(void)
{
	extern const ptrdiff_t __rseq_offset;
	return (char *)__builtin_thread_pointer() + __rseq_offset;
}

/*
 * rg_rseq_add_return_u32(base, shift, v):
 *	cpu = rseq->cpu_id; p = base + (cpu << shift); *p += v; return *p;
 * as one restartable sequence: a plain (non-atomic) load/add/store whose
 * store is the commit. If the thread is preempted, migrated or signalled
 * between the cpu_id load and the store, the kernel moves it to the abort
 * handler (preceded by RG_RSEQ_SIG), which simply starts over, so the update
 * is never lost and never lands on another CPU's slot. This is the
 * userspace form of preempt_disable(); __this_cpu_add(); preempt_enable():
 * reading cpu_id inside the sequence is its real cost (the kernel reads
 * tpidr_el1 / uses %gs at the same point). Slots are a power of two apart,
 * so the index is a shift, not a multiply. Only valid when
 * rg_rseq_available() in this thread.
 *
 * rg_rseq_add8_load32(base, shift, idx, v): the merged bpf-next recursion
 * check (rctx):
 *	p = base + (cpu << shift); p[idx] += v (a BYTE load/add/store, the
 *	store commits the sequence); then return the 32-bit word at p,
 *	reloaded after the commit.
 * The wide load right after the narrow store is the kernel's shape
 * (active[rctx]++ then a u32 read of active[0..3]); it cannot be forwarded
 * from the store buffer on common cores. The reload is outside the
 * sequence (a restart after the commit would apply the add twice); the
 * thread is pinned, so it reads the same CPU's word. A preemption between
 * commit and reload can only make the reload see another context's
 * increment, i.e. refuse (what the kernel's preempt_disable() avoids),
 * never grant twice.
 *
 * rg_rseq_add8(base, shift, idx, v): p[idx] += v as above, no reload (the
 * rctx exit: active[rctx]--). Both come from RG_RSEQ_DEFINE_ADD8(); they
 * differ only in what follows the commit.
 */
#define RG_RSEQ_STR_(x)	#x
#define RG_RSEQ_STR(x)	RG_RSEQ_STR_(x)
#define RG_RSEQ_CS_BEGIN(arm)								\
	".pushsection __rseq_cs, \"aw\"\n\t"						\
	".balign 32\n"									\
	"3:\n\t"									\
	".long 0x0, 0x0\n\t"			/* version, flags */			\
	".quad 1f, (2f - 1f), 4f\n\t"		/* start, post-commit offset, abort */	\
	".popsection\n"									\
	"0:\n\t" arm "1:\n\t"
#define RG_RSEQ_CS_END									\
	".pushsection __rseq_failure, \"ax\"\n\t"					\
	RG_RSEQ_SIG_DIRECTIVE " " RG_RSEQ_STR(RG_RSEQ_SIG) "\n" /* the signature right before abort */ \
	"4:\n\t"									\
	RG_RSEQ_JUMP " 0b\n\t"			/* aborted: re-arm and retry */		\
	".popsection\n"

/*
 * Per architecture, the pieces of the sequences below (the C around them and
 * the operands are the same):
 *   RG_RSEQ_ARM(tmp)  arm the descriptor: rseq->rseq_cs = &desc
 *   RG_RSEQ_SLOT      p = base + (rseq->cpu_id << shift)
 *   RG_RSEQ_ADD32     *p += v: 32-bit load, add, store (the commit)
 *   RG_RSEQ_ADD8      p[idx] += v: byte load, add, byte store (the commit)
 *   RG_RSEQ_RELOAD32  val = the 32-bit word at p
 *   RG_RSEQ_SHIFT(s), RG_RSEQ_VAL8, RG_RSEQ_CLOBBERS   operands and clobbers
 */
#if defined(__x86_64__)
# define RG_RSEQ_ARM(tmp)								\
	"leaq 3b(%%rip), %q[" tmp "]\n\t"						\
	"movq %q[" tmp "], %c[cs](%[rs])\n"	/* arm: rseq->rseq_cs = &desc */
# define RG_RSEQ_SLOT									\
	"movl %c[cpuid](%[rs]), %k[p]\n\t"	/* cpu = rseq->cpu_id */		\
	"shlq %%cl, %q[p]\n\t"								\
	"addq %[base], %q[p]\n\t"
# define RG_RSEQ_ADD32									\
	"movl (%q[p]), %[val]\n\t"							\
	"addl %[v], %[val]\n\t"								\
	"movl %[val], (%q[p])\n"		/* commit */
# define RG_RSEQ_ADD8									\
	"movzbl (%q[p],%[idx]), %k[val]\n\t"	/* active[rctx]++: byte load, */	\
	"addl %[v], %k[val]\n\t"							\
	"movb %b[val], (%q[p],%[idx])\n"	/* byte store: commit */
# define RG_RSEQ_RELOAD32	"movl (%q[p]), %k[val]\n\t"
# define RG_RSEQ_SHIFT(s)	"c"(s)
# define RG_RSEQ_VAL8		"=&q"	/* a register with a byte form */
# define RG_RSEQ_CLOBBERS	"memory", "cc"
#elif defined(__aarch64__)
# define RG_RSEQ_ARM(tmp)								\
	"adrp %[" tmp "], 3b\n\t"							\
	"add %[" tmp "], %[" tmp "], :lo12:3b\n\t"					\
	"str %[" tmp "], [%[rs], #%c[cs]]\n"	/* arm: rseq->rseq_cs = &desc */
# define RG_RSEQ_SLOT									\
	"ldr %w[p], [%[rs], #%c[cpuid]]\n\t"	/* cpu = rseq->cpu_id */		\
	"lsl %[p], %[p], %[shift]\n\t"							\
	"add %[p], %[p], %[base]\n\t"
# define RG_RSEQ_ADD32									\
	"ldr %w[val], [%[p]]\n\t"							\
	"add %w[val], %w[val], %w[v]\n\t"						\
	"str %w[val], [%[p]]\n"			/* commit */
# define RG_RSEQ_ADD8									\
	"ldrb %w[val], [%[p], %[idx]]\n\t"	/* active[rctx]++: byte load, */	\
	"add %w[val], %w[val], %w[v]\n\t"						\
	"strb %w[val], [%[p], %[idx]]\n"	/* byte store: commit */
# define RG_RSEQ_RELOAD32	"ldr %w[val], [%[p]]\n\t"
# define RG_RSEQ_SHIFT(s)	[shift] "r"((uint64_t)(s))
# define RG_RSEQ_VAL8		"=&r"
# define RG_RSEQ_CLOBBERS	"memory"
#endif

static rg_always_inline uint32_t rg_rseq_add_return_u32(char *base, unsigned int shift, uint32_t v)
{
	char *rs = rg_rseq_area_fast();
	uint64_t p;
	uint32_t val;

	__asm__ __volatile__(
		"// rg_rseq_add_return_u32\n\t"
		RG_RSEQ_CS_BEGIN(RG_RSEQ_ARM("p"))
		RG_RSEQ_SLOT
		RG_RSEQ_ADD32
		"2:\n\t"
		RG_RSEQ_CS_END
		: [p] "=&r"(p), [val] "=&r"(val)
		: [rs] "r"(rs), [base] "r"(base), RG_RSEQ_SHIFT(shift), [v] "r"(v),
		  [cs] "i"(RG_RSEQ_OFF_CS), [cpuid] "i"(RG_RSEQ_OFF_CPU_ID)
		: RG_RSEQ_CLOBBERS);
	return val;
}

/*
 * rg_rseq_add_return_u32 in stages, for the rseq design's parts (stage a
 * constant: the choice folds away): 0 the critical section armed and left
 * at once (start == commit: nothing to restart), 1 also this CPU's slot
 * computed inside it (returned, for the caller to keep), 2 the whole
 * sequence (returns the new value).
 */
static rg_always_inline uint64_t rg_rseq_add_return_u32_stage(char *base, unsigned int shift,
							      uint32_t v, unsigned int stage)
{
	char *rs = rg_rseq_area_fast();
	uint64_t p = 0;

	if (stage >= 2)
		return rg_rseq_add_return_u32(base, shift, v);
	if (stage == 1)
		__asm__ __volatile__(
			"// rg_rseq_stage_slot\n\t"
			RG_RSEQ_CS_BEGIN(RG_RSEQ_ARM("p"))
			RG_RSEQ_SLOT
			"2:\n\t"
			RG_RSEQ_CS_END
			: [p] "=&r"(p)
			: [rs] "r"(rs), [base] "r"(base), RG_RSEQ_SHIFT(shift),
			  [cs] "i"(RG_RSEQ_OFF_CS), [cpuid] "i"(RG_RSEQ_OFF_CPU_ID)
			: RG_RSEQ_CLOBBERS);
	else
		__asm__ __volatile__(
			"// rg_rseq_stage_arm\n\t"
			RG_RSEQ_CS_BEGIN(RG_RSEQ_ARM("p"))
			"2:\n\t"
			RG_RSEQ_CS_END
			: [p] "=&r"(p)
			: [rs] "r"(rs), [cs] "i"(RG_RSEQ_OFF_CS)
			: RG_RSEQ_CLOBBERS);
	(void)v;
	return p;
}

/* p[idx] += v on this CPU's slot (byte), then `after` once committed. */
#define RG_RSEQ_DEFINE_ADD8(name, after)						\
static rg_always_inline uint32_t name(char *base, unsigned int shift, uint64_t idx, uint32_t v) \
{											\
	char *rs = rg_rseq_area_fast();							\
	uint64_t p;									\
	uint32_t val;									\
											\
	__asm__ __volatile__(								\
		"// " #name "\n\t"							\
		RG_RSEQ_CS_BEGIN(RG_RSEQ_ARM("p"))					\
		RG_RSEQ_SLOT								\
		RG_RSEQ_ADD8								\
		"2:\n\t"								\
		after									\
		RG_RSEQ_CS_END								\
		: [p] "=&r"(p), [val] RG_RSEQ_VAL8(val)					\
		: [rs] "r"(rs), [base] "r"(base), RG_RSEQ_SHIFT(shift), [idx] "r"(idx),	\
		  [v] "r"(v), [cs] "i"(RG_RSEQ_OFF_CS), [cpuid] "i"(RG_RSEQ_OFF_CPU_ID)	\
		: RG_RSEQ_CLOBBERS);							\
	return val;									\
}
RG_RSEQ_DEFINE_ADD8(rg_rseq_add8_load32, RG_RSEQ_RELOAD32)	/* 32-bit reload */
RG_RSEQ_DEFINE_ADD8(rg_rseq_add8, "")

/*
 * Signal nesting depth of this thread, the userspace "context level" of the
 * rctx guard (0: normal, 1: in a signal handler, 2: a handler interrupting a
 * handler, ...). Whoever installs a handler that may enter a guard calls
 * rg_rctx_enter_signal() first thing and rg_rctx_exit_signal() last.
 * They also do to the modelled preempt count (rg/preempt.h) what an
 * interrupt does to the kernel's: the first level adds HARDIRQ_OFFSET
 * (irq_enter()), deeper ones NMI_OFFSET + HARDIRQ_OFFSET (nmi_enter()), so
 * the kernel-form rctx-kernel guard reads level 2, then 3, from the count
 * as interrupt_context_level() does.
 */
extern __thread uint32_t rg_rctx_level;

static rg_always_inline void rg_rctx_enter_signal(void)
{
	uint32_t depth = RG_READ_ONCE(rg_rctx_level) + 1;

	RG_WRITE_ONCE(rg_rctx_level, depth);
	rg_barrier();
	rg_preempt_count_add_irq(rg_preempt_irq_offset(depth));
}

static rg_always_inline void rg_rctx_exit_signal(void)
{
	uint32_t depth = RG_READ_ONCE(rg_rctx_level);

	rg_preempt_count_sub_irq(rg_preempt_irq_offset(depth));
	rg_barrier();
	RG_WRITE_ONCE(rg_rctx_level, depth - 1);
}

#endif /* RG_RSEQ_H */
