/* SPDX-License-Identifier: MIT */
/* The current CPU for per-CPU guards: one TLS load and one load, the same for every guard. */
#ifndef RG_PERCPU_H
#define RG_PERCPU_H

#include <stdint.h>
#include "rg/compiler.h"

/*
 * rg_cpu_ptr points either at the cpu_id field of this thread's glibc rseq
 * area (kept current by the kernel on every return to userspace) or, when
 * rseq is not registered, at rg_cpu_cached, a value taken from sched_getcpu()
 * by rg_percpu_thread_init(). The cached value is only right because every
 * per-CPU guard requires its thread to be pinned to one CPU (RG_NEEDS_PIN):
 * call rg_percpu_thread_init() AFTER pinning. Before init it points at a
 * constant 0, so an uninitialised thread reads CPU 0 and never faults.
 */
extern __thread const volatile uint32_t *rg_cpu_ptr;

static rg_always_inline unsigned int rg_this_cpu(void)
{
	return *rg_cpu_ptr;
}

/*
 * Point rg_cpu_ptr at the rseq cpu_id when glibc registered rseq for this
 * thread, else at a cached sched_getcpu(). Returns the CPU now current, or
 * -1 when sched_getcpu() fails (rg_this_cpu() then reads 0).
 */
int rg_percpu_thread_init(void);

/* 1 when rg_this_cpu() reads the rseq area in this thread, 0 when it reads a cached value. */
int rg_percpu_uses_rseq(void);

#endif /* RG_PERCPU_H */
