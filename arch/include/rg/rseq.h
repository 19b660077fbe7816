/* SPDX-License-Identifier: MIT */
/* glibc's rseq registration and a per-CPU non-atomic add as a real restartable sequence. */
#ifndef RG_RSEQ_H
#define RG_RSEQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "rg/compiler.h"

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

#if defined(__x86_64__)
# define RG_RSEQ_SIG		0x53053053u	/* glibc bits/rseq.h; bytes of ud1 */
#elif defined(__aarch64__)
# define RG_RSEQ_SIG		0xd428bc00u	/* BRK #0x45E0 (little-endian code) */
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
 * rg_rseq_add_return_u32(base, stride, v):
 *	cpu = rseq->cpu_id; p = base + cpu * stride; *p += v; return *p;
 * as one restartable sequence: a plain (non-atomic) load/add/store whose
 * store is the commit. If the thread is preempted, migrated or signalled
 * between the cpu_id load and the store, the kernel moves it to the abort
 * handler (preceded by RG_RSEQ_SIG), which simply starts over, so the update
 * is never lost and never lands on another CPU's slot. This is the
 * userspace form of preempt_disable(); __this_cpu_add(); preempt_enable().
 * Only valid when rg_rseq_available() in this thread.
 */
#if defined(__x86_64__)
static rg_always_inline uint32_t rg_rseq_add_return_u32(char *base, size_t stride, uint32_t v)
{
	char *rs = rg_rseq_area_fast();
	uint64_t cpu;
	uint32_t val;

	__asm__ __volatile__(
		"// rg_rseq_add_return_u32\n\t"
		".pushsection __rseq_cs, \"aw\"\n\t"
		".balign 32\n"
		"3:\n\t"
		".long 0x0, 0x0\n\t"			/* version, flags */
		".quad 1f, (2f - 1f), 4f\n\t"		/* start, post-commit offset, abort */
		".popsection\n"
		"0:\n\t"
		"leaq 3b(%%rip), %q[cpu]\n\t"
		"movq %q[cpu], %c[cs](%[rs])\n"		/* arm: rseq->rseq_cs = &desc */
		"1:\n\t"
		"movl %c[cpuid](%[rs]), %k[cpu]\n\t"	/* cpu = rseq->cpu_id */
		"imulq %[stride], %q[cpu]\n\t"
		"movl (%[base], %q[cpu]), %[val]\n\t"
		"addl %[v], %[val]\n\t"
		"movl %[val], (%[base], %q[cpu])\n"	/* commit */
		"2:\n\t"
		".pushsection __rseq_failure, \"ax\"\n\t"
		".long 0x53053053\n"			/* RG_RSEQ_SIG right before abort */
		"4:\n\t"
		"jmp 0b\n\t"				/* aborted: re-arm and retry */
		".popsection\n"
		: [cpu] "=&r"(cpu), [val] "=&r"(val)
		: [rs] "r"(rs), [base] "r"(base), [stride] "r"(stride), [v] "r"(v),
		  [cs] "i"(RG_RSEQ_OFF_CS), [cpuid] "i"(RG_RSEQ_OFF_CPU_ID)
		: "memory", "cc");
	return val;
}
#elif defined(__aarch64__)
static rg_always_inline uint32_t rg_rseq_add_return_u32(char *base, size_t stride, uint32_t v)
{
	char *rs = rg_rseq_area_fast();
	uint64_t tmp;
	uint32_t val;

	__asm__ __volatile__(
		"// rg_rseq_add_return_u32\n\t"
		".pushsection __rseq_cs, \"aw\"\n\t"
		".balign 32\n"
		"3:\n\t"
		".long 0x0, 0x0\n\t"			/* version, flags */
		".quad 1f, (2f - 1f), 4f\n\t"		/* start, post-commit offset, abort */
		".popsection\n"
		"0:\n\t"
		"adrp %[tmp], 3b\n\t"
		"add %[tmp], %[tmp], :lo12:3b\n\t"
		"str %[tmp], [%[rs], #%c[cs]]\n"	/* arm: rseq->rseq_cs = &desc */
		"1:\n\t"
		"ldr %w[tmp], [%[rs], #%c[cpuid]]\n\t"	/* cpu = rseq->cpu_id */
		"madd %[tmp], %[tmp], %[stride], %[base]\n\t"
		"ldr %w[val], [%[tmp]]\n\t"
		"add %w[val], %w[val], %w[v]\n\t"
		"str %w[val], [%[tmp]]\n"		/* commit */
		"2:\n\t"
		".pushsection __rseq_failure, \"ax\"\n\t"
		".inst 0xd428bc00\n"			/* RG_RSEQ_SIG right before abort */
		"4:\n\t"
		"b 0b\n\t"				/* aborted: re-arm and retry */
		".popsection\n"
		: [tmp] "=&r"(tmp), [val] "=&r"(val)
		: [rs] "r"(rs), [base] "r"(base), [stride] "r"(stride), [v] "r"(v),
		  [cs] "i"(RG_RSEQ_OFF_CS), [cpuid] "i"(RG_RSEQ_OFF_CPU_ID)
		: "memory");
	return val;
}
#endif

/*
 * Signal nesting depth of this thread, the userspace "context level" of the
 * rctx guard (0: normal, 1: in a signal handler, 2: a handler interrupting a
 * handler, ...). Whoever installs a handler that may enter a guard calls
 * rg_rctx_enter_signal() first thing and rg_rctx_exit_signal() last.
 */
extern __thread uint32_t rg_rctx_level;

static rg_always_inline void rg_rctx_enter_signal(void)
{
	RG_WRITE_ONCE(rg_rctx_level, RG_READ_ONCE(rg_rctx_level) + 1);
	rg_barrier();
}

static rg_always_inline void rg_rctx_exit_signal(void)
{
	rg_barrier();
	RG_WRITE_ONCE(rg_rctx_level, RG_READ_ONCE(rg_rctx_level) - 1);
}

#endif /* RG_RSEQ_H */
