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
 * A balanced sequence leaves every counter at its initial value (0).
 */
struct rg_guard {
	char *pcpu;		/* per-CPU slots, slot(cpu) = pcpu + cpu * stride */
	size_t stride;		/* RG_CACHELINE (padded, default) or 4 (packed) */
	unsigned int ncpus;	/* slots allocated: configured CPUs */
	uint32_t *global;	/* one shared counter on its own cache line */
};

/* Allocate slots for every configured CPU; stride 0 means RG_CACHELINE. -errno on failure. */
int rg_guard_init(struct rg_guard *g, size_t stride);
void rg_guard_fini(struct rg_guard *g);

static rg_always_inline uint32_t *rg_guard_slot(const struct rg_guard *g, unsigned int cpu)
{
	return (uint32_t *)(g->pcpu + (size_t)cpu * g->stride);
}

/* This CPU's slot: rg_this_cpu() (one TLS load + one load), then base + cpu * stride. */
static rg_always_inline uint32_t *rg_guard_this_slot(const struct rg_guard *g)
{
	return rg_guard_slot(g, rg_this_cpu());
}

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
	{ (void)g; (void)granted; __builtin_trap(); }

#endif /* RG_GUARD_H */
