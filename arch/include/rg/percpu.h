/* SPDX-License-Identifier: MIT */
/* The current CPU and the per-CPU base of a pinned thread: located once per thread, used by every per-CPU op. */
#ifndef RG_PERCPU_H
#define RG_PERCPU_H

#include <stddef.h>
#include <stdint.h>
#include "rg/compiler.h"

/*
 * rg_cpu_ptr points either at the cpu_id field of this thread's glibc rseq
 * area (kept current by the kernel on every return to userspace) or, when
 * rseq is not registered, at rg_cpu_cached, a value taken from sched_getcpu()
 * by rg_percpu_thread_init(). Slow users only (tests, checks): the guards do
 * not call it in their loops (see the per-CPU base below). Before init it
 * points at a constant 0.
 */
extern __thread const volatile uint32_t *rg_cpu_ptr;

static rg_always_inline unsigned int rg_this_cpu(void)
{
	return *rg_cpu_ptr;
}

/*
 * The per-CPU base, the kernel's way.
 *
 * The kernel finds a per-CPU variable as "this CPU's base + the variable's
 * offset": x86-64 keeps the base in the %gs segment base, arm64 in
 * tpidr_el1. A guard here keeps one offset, g->off (rg/guard.h), and every
 * op adds it to the calling thread's base:
 *
 *   x86-64  the %gs base of the thread (glibc uses %fs only), set with
 *           wrgsbase when the kernel enabled FSGSBASE for userspace, else
 *           arch_prctl(ARCH_SET_GS). An op is `xadd %reg, %gs:(off)`, exactly
 *           the kernel's this_cpu_inc_return() once off is loaded.
 *   arm64   tpidr_el0 is glibc's thread pointer, so the base lives in a
 *           thread-local word, rg_pcpu_base: an op is `mrs tpidr_el0`, one
 *           load of that word (the one load the kernel does not do: its base
 *           IS tpidr_el1), `add off`, then the LSE op.
 *
 * The base depends on the CPU and on the slot layout (g->stride: 128-byte
 * padded or 4-byte packed slots), so it is
 *   base = cpu * stride,   off = pcpu (CPU 0's slot),
 * and base + off = pcpu + cpu * stride, the slot of this CPU. A thread that
 * is NOT pinned to exactly one CPU gets RG_PCPU_POISON as its base (so does
 * a new thread on its first rg_percpu_use(): on x86 it inherited its
 * creator's %gs base, but its rg_pcpu_layout is still 0): poison + off is
 * not a user address (x86-64: past 2^47, non-canonical; arm64: bit 55 set,
 * the kernel half, which TBI does not ignore), so such a thread faults on
 * its first per-CPU op instead of silently using another CPU's slot.
 *
 * The base is set outside the measured loops: by rg_percpu_thread_init()
 * (after pinning) and by rg_percpu_use(stride) at the start of each batch,
 * which only calls the slow path when the layout changes or the thread
 * was moved to another CPU.
 */
#if defined(__x86_64__)
/* the highest page-aligned value arch_prctl(ARCH_SET_GS) accepts, minus 128 KiB: + any heap address >= 2^47 */
# define RG_PCPU_POISON		((uintptr_t)0x7ffffffe0000)
#else
# define RG_PCPU_POISON		((uintptr_t)1 << 55)
#endif

/*
 * arm64: read by every op; x86-64: copy of the %gs base, read by rctx-kernel's
 * this_cpu_ptr() as the kernel reads this_cpu_off. Local-exec, as the arm64
 * asm addresses it (#:tprel:), so x86 reads it as %fs:rg_pcpu_base@tpoff.
 */
extern __thread uintptr_t rg_pcpu_base __attribute__((tls_model("local-exec")));
extern __thread size_t rg_pcpu_layout;	/* the stride rg_pcpu_base is for; 0: not set yet */
extern __thread int rg_pcpu_cpu;	/* the CPU this thread is pinned to, -1 when not pinned */

/*
 * Pin first, then call this: when the thread's affinity is exactly one CPU,
 * records it and sets the per-CPU base (for the current layout, default
 * RG_CACHELINE) and returns that CPU. When the thread is not pinned to one
 * CPU (or sched_getaffinity fails) it returns -1 and leaves the base
 * poisoned, so per-CPU guards fault instead of using a stale slot.
 * Also points rg_this_cpu() at the rseq cpu_id (or a cached sched_getcpu()).
 * Call again after every change of affinity.
 */
int rg_percpu_thread_init(void);

/* Forget the CPU (after unpinning): the base is poisoned again. */
void rg_percpu_thread_fini(void);

/* 1 when rg_this_cpu() reads the rseq area in this thread, 0 when it reads a cached value. */
int rg_percpu_uses_rseq(void);

/* Slow path of rg_percpu_use(): (re)computes and installs the base, signals blocked. */
void rg_percpu_rebase(size_t stride);

/*
 * Make this thread's base right for slots `stride` apart. Once per batch,
 * outside the measured loop: one TLS load and compare when nothing changed
 * (plus, when pinned, a check that rg_this_cpu() is still the pinned CPU).
 * The barrier keeps every later per-CPU op after it.
 */
static rg_always_inline void rg_percpu_use(size_t stride)
{
	if (rg_unlikely(RG_READ_ONCE(rg_pcpu_layout) != stride ||
			(RG_READ_ONCE(rg_pcpu_cpu) >= 0 &&
			 rg_this_cpu() != (unsigned int)RG_READ_ONCE(rg_pcpu_cpu))))
		rg_percpu_rebase(stride);
	rg_barrier();
}

/*
 * NULL when this process can set a per-CPU base, else why not (x86-64:
 * "cannot set the %gs base: <errno>"); per-CPU guards are then unavailable.
 */
const char *rg_percpu_base_why(void);

/* How the base is installed here: "wrgsbase", "arch_prctl(ARCH_SET_GS)" or "tpidr_el0 + TLS word". */
const char *rg_percpu_base_mode(void);

#endif /* RG_PERCPU_H */
