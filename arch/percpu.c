// SPDX-License-Identifier: MIT
/* Where rg_this_cpu() reads the current CPU from, and the per-CPU base of a pinned thread (%gs or a TLS word). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__x86_64__)
# include <asm/prctl.h>
#endif

#include "rg/percpu.h"
#include "rg/preempt.h"
#include "rg/rseq.h"

static const uint32_t rg_cpu_zero;
static __thread uint32_t rg_cpu_cached;
__thread const volatile uint32_t *rg_cpu_ptr = &rg_cpu_zero;

__thread uintptr_t rg_pcpu_base;
__thread size_t rg_pcpu_layout;
__thread int rg_pcpu_cpu = -1;

#if defined(__aarch64__)
/* The userspace model of thread_info->preempt_count (rg/preempt.h): count 0, need_resched 1 (= none). */
__thread union rg_preempt_count rg_thread_preempt = { .preempt = { .count = 0, .need_resched = 1 } };
#else
/* The model of x86's __preempt_count (rg/preempt.h): count 0, PREEMPT_NEED_RESCHED set (= none). */
__thread uint32_t rg_x86_preempt_count = RG_X86_PREEMPT_ENABLED;
#endif
unsigned long rg_preempt_schedule_calls;

void rg_preempt_schedule_notrace(void)
{
	/* The kernel would schedule here. Nothing sets need_resched, so this never runs: tests check. */
	__atomic_add_fetch(&rg_preempt_schedule_calls, 1, __ATOMIC_RELAXED);
}

#if defined(__x86_64__)
# ifndef HWCAP2_FSGSBASE
#  define HWCAP2_FSGSBASE (1 << 1)
# endif
static int base_mode = -1;	/* -1 unknown, 0 refused, 1 wrgsbase, 2 arch_prctl */
static char base_why[96];
static pthread_once_t base_once = PTHREAD_ONCE_INIT;

/* Once per process (threads pin concurrently): how this kernel lets a thread set %gs. */
static void probe_base_once(void)
{
	unsigned long cur = 0;

	if (getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE) {
		base_mode = 1;
		return;
	}
	if (syscall(SYS_arch_prctl, ARCH_GET_GS, &cur) == 0 &&
	    syscall(SYS_arch_prctl, ARCH_SET_GS, cur) == 0) {
		base_mode = 2;
		return;
	}
	snprintf(base_why, sizeof(base_why), "cannot set the %%gs base: %s", strerror(errno));
	base_mode = 0;
}

static void probe_base(void)
{
	pthread_once(&base_once, probe_base_once);
}

static void set_base(uintptr_t base)
{
	probe_base();
	if (base_mode == 1)
		__asm__ __volatile__("wrgsbase %0" : : "r"(base) : "memory");
	else if (base_mode == 2)
		syscall(SYS_arch_prctl, ARCH_SET_GS, base);
}

const char *rg_percpu_base_why(void)
{
	probe_base();
	return base_mode == 0 ? base_why : NULL;
}

const char *rg_percpu_base_mode(void)
{
	probe_base();
	return base_mode == 1 ? "wrgsbase" : base_mode == 2 ? "arch_prctl(ARCH_SET_GS)" : "none";
}
#else
static void set_base(uintptr_t base)
{
	(void)base;	/* the TLS word rg_pcpu_base is the base */
}

const char *rg_percpu_base_why(void)
{
	return NULL;
}

const char *rg_percpu_base_mode(void)
{
	return "tpidr_el0 + TLS word";
}
#endif

/* The one CPU this thread may run on, or -1. */
static int pinned_cpu(void)
{
	cpu_set_t set;
	int cpu = -1;

	if (sched_getaffinity(0, sizeof(set), &set) || CPU_COUNT(&set) != 1)
		return -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			cpu = c;
	return cpu;
}

void rg_percpu_rebase(size_t stride)
{
	sigset_t all, old;
	uintptr_t base = RG_PCPU_POISON;	/* off + poison is not a user address */

	/* A signal handler that uses a guard must not see a half-installed base. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (rg_pcpu_cpu >= 0 && rg_this_cpu() != (unsigned int)rg_pcpu_cpu)
		rg_pcpu_cpu = pinned_cpu();	/* moved: re-pinned elsewhere (adopt) or unpinned (-1) */
	if (rg_pcpu_cpu >= 0 && stride)
		base = (uintptr_t)rg_pcpu_cpu * stride;
	set_base(base);
	rg_pcpu_base = base;
	rg_pcpu_layout = stride;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

int rg_percpu_thread_init(void)
{
	int cpu = pinned_cpu();

	if (cpu >= 0 && rg_rseq_available()) {
		rg_cpu_ptr = (const volatile uint32_t *)((char *)rg_rseq_area() + RG_RSEQ_OFF_CPU_ID);
	} else {
		int now = sched_getcpu();

		rg_cpu_cached = now < 0 ? 0 : (uint32_t)now;
		rg_cpu_ptr = &rg_cpu_cached;
		if (cpu >= 0 && now != cpu)
			cpu = -1;
	}
	rg_pcpu_cpu = cpu;
	if (cpu >= 0 && (int)rg_this_cpu() != cpu)
		rg_pcpu_cpu = cpu = -1;	/* not running where the mask says: cannot trust it */
	rg_percpu_rebase(rg_pcpu_layout ? rg_pcpu_layout : RG_CACHELINE);
	return cpu;
}

void rg_percpu_thread_fini(void)
{
	rg_pcpu_cpu = -1;
	rg_percpu_rebase(rg_pcpu_layout);
}

int rg_percpu_uses_rseq(void)
{
	return rg_cpu_ptr != &rg_cpu_cached && rg_cpu_ptr != &rg_cpu_zero;
}
