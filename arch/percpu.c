// SPDX-License-Identifier: MIT
/* Where rg_this_cpu() reads the current CPU from: the rseq area or a value cached after pinning. */
#define _GNU_SOURCE
#include <sched.h>

#include "rg/percpu.h"
#include "rg/rseq.h"

static const uint32_t rg_cpu_zero;
static __thread uint32_t rg_cpu_cached;
__thread const volatile uint32_t *rg_cpu_ptr = &rg_cpu_zero;

int rg_percpu_thread_init(void)
{
	int cpu;

	if (rg_rseq_available()) {
		rg_cpu_ptr = (const volatile uint32_t *)((char *)rg_rseq_area() + RG_RSEQ_OFF_CPU_ID);
		return (int)*rg_cpu_ptr;
	}
	cpu = sched_getcpu();
	rg_cpu_cached = cpu < 0 ? 0 : (uint32_t)cpu;
	rg_cpu_ptr = &rg_cpu_cached;
	return cpu;
}

int rg_percpu_uses_rseq(void)
{
	return rg_cpu_ptr != &rg_cpu_cached && rg_cpu_ptr != &rg_cpu_zero;
}
