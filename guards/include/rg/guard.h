/* SPDX-License-Identifier: MIT */
/* The state every guard works on, and the inline interface each guard header implements. */
#ifndef RG_GUARD_H
#define RG_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "rg/arch.h"
#include "rg/percpu.h"

/*
 * Interface (each guards/include/rg/guards/<id>.h, all static inline):
 *
 *   bool rg_guard_<id>_enter(struct rg_guard *g);
 *	Returns true when entry is granted, false when the guard is already
 *	held on this CPU/thread (a recursion: the caller must skip its work).
 *   void rg_guard_<id>_exit(struct rg_guard *g, bool granted);
 *	Called after EVERY enter, granted or not, with enter's result, exactly
 *	like the kernel's __bpf_prog_exit_recur(), which always does
 *	this_cpu_dec(). Counter guards ignore @granted; flag guards (swp, cas)
 *	release only when @granted.
 *
 * All per-CPU guards assume what the kernel guarantees by running BPF programs
 * with migration disabled: enter and the matching exit run on the same CPU.
 * Benchmarks and tests pin their threads (RG_NEEDS_PIN).
 *
 * The per-CPU contract (a guard header that says "Contract: per-CPU
 * (rg/guard.h)" has it; the header adds only what differs):
 * Protects against: re-entry on the same CPU (thread, signal, preempting thread).
 * Assumes: the thread is pinned (RG_NEEDS_PIN) and called rg_percpu_thread_init(),
 * and rg_guard_prepare(g) ran in this thread since (the measured loops do it once
 * per batch), so the per-CPU base is this CPU's and enter/exit hit the same slot,
 * as the kernel guarantees by running BPF programs with migration disabled. An
 * unpinned thread faults on its first op instead of using a stale slot.
 *
 * A balanced sequence leaves every counter at its initial value (0).
 */
struct rg_guard {
	char *pcpu;		/* per-CPU slots, slot(cpu) = pcpu + cpu * stride */
	size_t stride;		/* RG_CACHELINE (padded, default) or 4 (packed); a power of two */
	unsigned int ncpus;	/* slots allocated: configured CPUs */
	uint32_t *global;	/* one shared counter on its own cache line */
	/*
	 * The per-CPU offset, the analogue of prog->active: pcpu (CPU 0's slot).
	 * A per-CPU op loads it (once, like the kernel loads prog->active) and
	 * adds it to the thread's per-CPU base (rg/percpu.h): %gs:(off) on
	 * x86-64, rg_pcpu_ptr(off) on arm64.
	 */
	uintptr_t off;
	unsigned int shift;	/* log2(stride): the rseq guards index slots by cpu_id << shift */
};

/*
 * Allocate slots for every configured CPU; stride 0 means RG_CACHELINE.
 * -EINVAL unless stride is a power of two >= 4; -ENOMEM.
 */
int rg_guard_init(struct rg_guard *g, size_t stride);
void rg_guard_fini(struct rg_guard *g);

static rg_always_inline uint32_t *rg_guard_slot(const struct rg_guard *g, unsigned int cpu)
{
	return (uint32_t *)(g->pcpu + (size_t)cpu * g->stride);
}

/* This CPU's slot the slow way (tests, checks): rg_this_cpu(), then pcpu + cpu * stride. */
static rg_always_inline uint32_t *rg_guard_this_slot(const struct rg_guard *g)
{
	return rg_guard_slot(g, rg_this_cpu());
}

/*
 * The guard's per-CPU offset, loaded for each op: the load of prog->active
 * in the kernel's this_cpu_inc_return(*prog->active). Volatile so that the
 * loop cannot hoist it: every enter and every exit loads it, as every
 * kernel invocation does.
 */
static rg_always_inline uintptr_t rg_guard_off(const struct rg_guard *g)
{
	return RG_READ_ONCE(g->off);
}

/*
 * Before using a guard in a thread (once per batch, outside the measured
 * loop): make the thread's per-CPU base right for this guard's slot layout.
 */
static rg_always_inline void rg_guard_prepare(const struct rg_guard *g)
{
	rg_percpu_use(g->stride);
}

/*
 * A guard's own state outside g (tls, ref-lock-xadd) is defined in its
 * header, weak, so one variable results however many translation units
 * include it and the guard needs no line in any .c file.
 *
 * RG_GUARD_STATE_HOOK(id, expr): rg_guard_<id>_state() returning expr, the
 * state the tests check is back to 0 when nobody holds the guard
 * (rg_guard_info.state). It expands to nothing here; guards/registry.c
 * redefines it before it includes the guard headers, so the function exists
 * once, in the registry's translation unit, and never beside a loop.
 *
 * RG_GUARD_TLS_STATE(id, var): `__thread uint32_t var` and its hook.
 * initial-exec: the access an extern declaration had (offset loaded from the
 * GOT, then %fs:/tpidr_el0-relative); a definition in the translation unit
 * alone would let the compiler pick local-exec and change the measured loops.
 */
#define RG_GUARD_STATE_HOOK(id, expr)
#define RG_GUARD_TLS_STATE(id, var)							\
	__thread uint32_t var __attribute__((weak, tls_model("initial-exec")));		\
	RG_GUARD_STATE_HOOK(id, var)

/*
 * A guard whose instructions do not exist on the architecture being built
 * still compiles (the registry and the loop table list every guard), but its
 * enter/exit trap: rg_guard_available() says "arm64 only"/"x86-64 only" and
 * nothing may call it.
 */
#define RG_GUARD_NOT_ON_THIS_ARCH(id)							\
	static rg_always_inline bool rg_guard_##id##_enter(struct rg_guard *g)		\
	{ (void)g; __builtin_trap(); }							\
	static rg_always_inline void rg_guard_##id##_exit(struct rg_guard *g, bool granted) \
	{ (void)g; (void)granted; __builtin_trap(); }					\
	static rg_always_inline bool rg_guard_##id##_enter_upto(struct rg_guard *g, unsigned int upto) \
	{ (void)g; (void)upto; __builtin_trap(); }					\
	static rg_always_inline void rg_guard_##id##_exit_upto(struct rg_guard *g, bool granted, \
							       unsigned int upto)	\
	{ (void)g; (void)granted; (void)upto; __builtin_trap(); }

#endif /* RG_GUARD_H */
