/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's guards: their per-CPU state and their bodies, inline asm
 * included. Included once, by loops.c, so that every timed loop inlines its
 * guard (this header defines the state).
 *
 * Every guard is a pair of __always_inline functions g_<id>_enter() /
 * g_<id>_exit(ok) with the user suite's contract (guards/include/rg/guard.h):
 * enter() returns true (granted) or false (refused), and exit(granted) is
 * called after EVERY enter with enter's result, as __bpf_prog_exit_recur()
 * always does this_cpu_dec(); counter guards always undo. <id> is kmod.def's
 * (guards.def's for a guard the user suite has).
 */
#ifndef RG_KMOD_GUARDS_H
#define RG_KMOD_GUARDS_H

#include "kmod.h"
#include "rg_kguards.h"

/* Each guard has its own per-CPU slot, on its own cache line. */
struct rg_slot {
	union {
		int v;
		u32 u;
		u8 active[4];	/* rctx: one byte per interrupt_context_level() */
		local_t l;
	};
	unsigned long flags[4];	/* irqsave: saved flags, by context level */
} ____cacheline_aligned;

enum {
	RG_S_THIS_CPU, RG_S_THIS_CPU_INC, RG_S_RCTX, RG_S_RCTX_WORD, RG_S_PREEMPT,
	RG_S_IRQSAVE, RG_S_LOCAL, RG_S_ASM, RG_S__COUNT
};
static DEFINE_PER_CPU_ALIGNED(struct rg_slot, rg_s[RG_S__COUNT]);

/*
 * The trampoline's guards find their counter through the program:
 * this_cpu_inc_return(*prog->active), one load of the per-CPU pointer, then
 * the %gs:/tpidr_el1-relative op. The guards that share a name with a user
 * row (pcpu-xadd, rctx-kernel: the user suite loads g->off the same way) do
 * that load here too, from rg_prog (READ_ONCE: every op loads it, as every
 * invocation loads prog->active), instead of addressing rg_s directly.
 */
static struct rg_prog {
	struct rg_slot __percpu *active;
} rg_prog[RG_S__COUNT] ____cacheline_aligned = {
	[RG_S_THIS_CPU] = { &rg_s[RG_S_THIS_CPU] },
	[RG_S_RCTX] = { &rg_s[RG_S_RCTX] },
};
static atomic_t rg_shared ____cacheline_aligned = ATOMIC_INIT(0);

/*
 * noop: enter and exit do nothing; the loop around them is the harness floor.
 * Protects nothing: every re-entry is granted.
 */
static __always_inline bool g_noop_enter(void) { barrier(); return true; }
static __always_inline void g_noop_exit(bool ok) { barrier(); }

/*
 * The kernel's own this_cpu guard (RG_KGUARD_OWN, rg_kguards.h: the guard whose
 * role names the headers' kernel): the pre-change BPF guard exactly as this
 * kernel compiles it:
 *   enter: this_cpu_inc_return(c) == 1;   exit: this_cpu_dec(c), always.
 * x86: xadd %gs: / decl %gs: (pcpu-xadd). arm64: each op is
 * preempt_disable_notrace(); LSE op on raw_cpu_ptr(); preempt_enable_notrace()
 * (patched from LL/SC at boot), with STADD as the exit before 6.18 and LDADD
 * to an unused register since 6.18: pcpu-stadd-kernel or pcpu-ldadd-kernel.
 * The kthread is bound, as BPF runs with migration off.
 */
#define RG_THIS_CPU_GUARD(id)						\
static __always_inline bool g_##id##_enter(void)			\
{									\
	struct rg_slot __percpu *active = READ_ONCE(rg_prog[RG_S_THIS_CPU].active); \
									\
	return this_cpu_inc_return(active->v) == 1;			\
}									\
static __always_inline void g_##id##_exit(bool ok)			\
{									\
	struct rg_slot __percpu *active = READ_ONCE(rg_prog[RG_S_THIS_CPU].active); \
									\
	this_cpu_dec(active->v);					\
}
#define RG_THIS_CPU_GUARD_OF(id) RG_THIS_CPU_GUARD(id)
RG_THIS_CPU_GUARD_OF(RG_KGUARD_OWN)

/*
 * this-cpu-inc: this_cpu_inc(c) / this_cpu_dec(c), the no-return forms
 * (x86: incl/decl %gs:, arm64: STADD before 6.18). A counter, not a check:
 * every re-entry is granted. Module only.
 */
static __always_inline bool g_this_cpu_inc_enter(void) { this_cpu_inc(rg_s[RG_S_THIS_CPU_INC].v); return true; }
static __always_inline void g_this_cpu_inc_exit(bool ok) { this_cpu_dec(rg_s[RG_S_THIS_CPU_INC].v); }

/*
 * rctx-kernel: the merged bpf-next design, as the kernel has it
 * (bpf_prog_get_recursion_context(), statement order included: level and
 * this_cpu_ptr(prog->active) first). A per-CPU u8[4] indexed by
 * interrupt_context_level(); under preempt_disable() bump our level's byte,
 * then reload the whole 32-bit word: granted when it equals 1 << (level * 8)
 * (at most one user per CPU in any context).
 * exit (always): preempt_disable(); active[level]--; preempt_enable().
 */
static __always_inline bool g_rctx_kernel_enter(void)
{
	u8 rctx = rg_ctx_level();
	struct rg_slot *s = this_cpu_ptr(READ_ONCE(rg_prog[RG_S_RCTX].active));
	u8 *active = s->active;	/* a pointer, as the kernel's: no bounds check under UBSAN_BOUNDS */
	u32 val;

	preempt_disable();
	active[rctx]++;
	barrier();			/* the byte store before the word load */
	val = le32_to_cpu((__force __le32)READ_ONCE(s->u));
	preempt_enable();
	return val == BIT(rctx * 8);
}
static __always_inline void g_rctx_kernel_exit(bool ok)
{
	u8 rctx = rg_ctx_level();
	struct rg_slot *s = this_cpu_ptr(READ_ONCE(rg_prog[RG_S_RCTX].active));

	u8 *active = s->active;

	preempt_disable();
	active[rctx]--;
	preempt_enable();
}

/*
 * rctx-word: the same per-level bytes, but one 32-bit add of 1 << (level*8)
 * whose result is checked (no byte store followed by a wider load).
 */
static __always_inline bool g_rctx_word_enter(void)
{
	u32 inc = BIT(rg_ctx_level() * 8), val;
	struct rg_slot *s;

	preempt_disable();
	s = this_cpu_ptr(&rg_s[RG_S_RCTX_WORD]);
	val = s->u + inc;
	WRITE_ONCE(s->u, val);
	preempt_enable();
	return val == inc;
}
static __always_inline void g_rctx_word_exit(bool ok)
{
	u32 inc = BIT(rg_ctx_level() * 8);
	struct rg_slot *s;

	preempt_disable();
	s = this_cpu_ptr(&rg_s[RG_S_RCTX_WORD]);
	WRITE_ONCE(s->u, s->u - inc);
	preempt_enable();
}

/*
 * preempt-raw: preempt_disable(); __this_cpu_inc(c); granted if c == 1 ...
 * exit (always): __this_cpu_dec(c); preempt_enable(). Plain per-CPU RMW
 * (x86: incl %gs:, arm64: ldr/add/str), preemption off while held.
 */
static __always_inline bool g_preempt_raw_enter(void)
{
	preempt_disable();
	__this_cpu_inc(rg_s[RG_S_PREEMPT].v);
	return __this_cpu_read(rg_s[RG_S_PREEMPT].v) == 1;
}
static __always_inline void g_preempt_raw_exit(bool ok)
{
	__this_cpu_dec(rg_s[RG_S_PREEMPT].v);
	preempt_enable();
}

/*
 * irqsave: the same plain RMW under local_irq_save(): interrupts stay off
 * while held, so a softirq or hardirq cannot re-enter; it runs after exit.
 * An NMI still can (and is refused). Flags live in the per-CPU slot, one per
 * context level, so an NMI's enter does not overwrite the task's.
 */
static __always_inline bool g_irqsave_enter(void)
{
	unsigned long flags;

	local_irq_save(flags);
	__this_cpu_write(rg_s[RG_S_IRQSAVE].flags[rg_ctx_level()], flags);
	__this_cpu_inc(rg_s[RG_S_IRQSAVE].v);
	return __this_cpu_read(rg_s[RG_S_IRQSAVE].v) == 1;
}
static __always_inline void g_irqsave_exit(bool ok)
{
	unsigned long flags = __this_cpu_read(rg_s[RG_S_IRQSAVE].flags[rg_ctx_level()]);

	__this_cpu_dec(rg_s[RG_S_IRQSAVE].v);
	local_irq_restore(flags);
}

/*
 * local-t: preempt_disable(); local_inc_return() == 1 / local_dec();
 * preempt_enable() on a per-CPU local_t (x86: xadd without lock, arm64:
 * atomic_long = LSE/LL-SC). Module only.
 */
static __always_inline bool g_local_t_enter(void)
{
	preempt_disable();
	return local_inc_return(this_cpu_ptr(&rg_s[RG_S_LOCAL].l)) == 1;
}
static __always_inline void g_local_t_exit(bool ok)
{
	local_dec(this_cpu_ptr(&rg_s[RG_S_LOCAL].l));
	preempt_enable();
}

/*
 * global-atomic: one atomic_t for all CPUs (the contention ceiling):
 * atomic_inc_return(g) == 1 / atomic_dec(g), always. With several CPUs in
 * the timed loop, refusals count real cross-CPU collisions.
 */
static __always_inline bool g_global_atomic_enter(void) { return atomic_inc_return(&rg_shared) == 1; }
static __always_inline void g_global_atomic_exit(bool ok) { atomic_dec(&rg_shared); }

#ifdef CONFIG_X86_64
/*
 * pcpu-lock-xadd: lock xadd on this CPU's slot, %gs:-relative (one
 * instruction, so no preempt_disable needed), lock decl to exit: the user
 * suite's pcpu-lock-xadd. pcpu-lock-inc: lock incl / lock decl, a counter
 * (every re-entry granted; module only).
 *
 * The memory operand is written as the kernel's own percpu ops write theirs.
 * Before 6.8, __percpu_arg() prints "%gs:" and the operand is the variable.
 * Since 6.8 with CONFIG_USE_X86_SEG_SUPPORT (Debian 13's 6.12), __percpu_arg()
 * prints nothing: the operand itself must be in the __seg_gs address space
 * (__my_cpu_var()) so that the compiler prints %gs:. The plain variable there
 * gave "lock xadd %eax,rg_s(%rip)", the per-CPU offset used as an address:
 * a page fault.
 */
#ifdef __my_cpu_var
#define rg_pcpu_var(v) __my_cpu_var(v)
#else
#define rg_pcpu_var(v) (v)
#endif
static __always_inline int rg_x86_lock_xadd(int v)
{
	asm volatile("# rg: lock xadd %%gs:\n\tlock xaddl %[v], " __percpu_arg([p])
		     : [v] "+r" (v), [p] "+m" (rg_pcpu_var(rg_s[RG_S_ASM].v)) : : "memory", "cc");
	return v;
}
static __always_inline void rg_x86_lock_inc(void)
{
	asm volatile("# rg: lock incl %%gs:\n\tlock incl " __percpu_arg([p])
		     : [p] "+m" (rg_pcpu_var(rg_s[RG_S_ASM].v)) : : "memory", "cc");
}
static __always_inline void rg_x86_lock_dec(void)
{
	asm volatile("# rg: lock decl %%gs:\n\tlock decl " __percpu_arg([p])
		     : [p] "+m" (rg_pcpu_var(rg_s[RG_S_ASM].v)) : : "memory", "cc");
}
static __always_inline bool g_pcpu_lock_xadd_enter(void) { return rg_x86_lock_xadd(1) == 0; }
static __always_inline void g_pcpu_lock_xadd_exit(bool ok) { rg_x86_lock_dec(); }
static __always_inline bool g_pcpu_lock_inc_enter(void) { rg_x86_lock_inc(); return true; }
static __always_inline void g_pcpu_lock_inc_exit(bool ok) { rg_x86_lock_dec(); }
#endif /* CONFIG_X86_64 */

#ifdef CONFIG_ARM64
/*
 * arm64 instruction forms, with the user suite's names. Entry is LDADD #1
 * returning the old value (0: granted), or an LDXR/STXR add-return; exits:
 *   pcpu-stadd:       STADD #-1 (store form: executed "far" on Neoverse)
 *   pcpu-ldadd:       LDADD #-1 into an unused register (the 6.18 change)
 *   pcpu-prfm-stadd:  PRFM PSTL1STRM, then STADD #-1
 *   pcpu-ldadd-llsc:  LDXR/ADD/STXR
 *   pcpu-llsc:        LDXR/STXR both ways (no LSE needed)
 * Bare forms work on raw_cpu_ptr() of the bound kthread with nothing around
 * the op, as the user suite's do. The -kernel forms wrap each op as this_cpu_*
 * does: preempt_disable_notrace(); op on raw_cpu_ptr(); preempt_enable_notrace().
 * The -kernel form of this kernel's own this_cpu_dec is the macro guard
 * RG_THIS_CPU_GUARD above (pcpu-stadd-kernel before 6.18, pcpu-ldadd-kernel since).
 */
static __always_inline u32 rg_a64_ldadd(u32 *p, u32 v)
{
	u32 old;

	asm volatile(".arch_extension lse\n"
		     "// rg: ldadd\n\tldadd %w[v], %w[old], %[p]"
		     : [old] "=r" (old), [p] "+Q" (*p) : [v] "r" (v) : "memory");
	return old;
}
static __always_inline void rg_a64_stadd(u32 *p, u32 v)
{
	asm volatile(".arch_extension lse\n"
		     "// rg: stadd\n\tstadd %w[v], %[p]"
		     : [p] "+Q" (*p) : [v] "r" (v) : "memory");
}
static __always_inline void rg_a64_ldadd_unused(u32 *p, u32 v)
{
	u32 unused;

	asm volatile(".arch_extension lse\n"
		     "// rg: ldadd to unused\n\tldadd %w[v], %w[u], %[p]"
		     : [u] "=&r" (unused), [p] "+Q" (*p) : [v] "r" (v) : "memory");
}
static __always_inline void rg_a64_prfm_stadd(u32 *p, u32 v)
{
	asm volatile(".arch_extension lse\n"
		     "// rg: prfm pstl1strm + stadd\n\tprfm pstl1strm, %[p]\n\tstadd %w[v], %[p]"
		     : [p] "+Q" (*p) : [v] "r" (v) : "memory");
}
static __always_inline u32 rg_a64_llsc_add_return(u32 *p, u32 v)
{
	u32 res, fail;

	asm volatile("// rg: ll/sc add_return\n"
		     "1:\tldxr %w[res], %[p]\n"
		     "\tadd %w[res], %w[res], %w[v]\n"
		     "\tstxr %w[fail], %w[res], %[p]\n"
		     "\tcbnz %w[fail], 1b"
		     : [res] "=&r" (res), [fail] "=&r" (fail), [p] "+Q" (*p)
		     : [v] "r" (v) : "memory");
	return res;
}
static __always_inline void rg_a64_llsc_add(u32 *p, u32 v) { rg_a64_llsc_add_return(p, v); }
/* Entry ops: true when the value before was 0. */
static __always_inline bool rg_a64_in_lse(u32 *p) { return rg_a64_ldadd(p, 1) == 0; }
static __always_inline bool rg_a64_in_llsc(u32 *p) { return rg_a64_llsc_add_return(p, 1) == 1; }

static __always_inline u32 *rg_a64_slot(void) { return &raw_cpu_ptr(&rg_s[RG_S_ASM])->u; }

/* The bare form: the ops alone. */
#define RG_A64_GUARD(name, in_op, out_op)				\
static __always_inline bool g_##name##_enter(void)			\
{ return in_op(rg_a64_slot()); }					\
static __always_inline void g_##name##_exit(bool ok)			\
{ out_op(rg_a64_slot(), (u32)-1); }
/* The -kernel form: each op wrapped as this_cpu_* wraps it. */
#define RG_A64_KERNEL_GUARD(name, in_op, out_op)			\
static __always_inline bool g_##name##_enter(void)			\
{									\
	bool ok;							\
									\
	preempt_disable_notrace();					\
	ok = in_op(rg_a64_slot());					\
	preempt_enable_notrace();					\
	return ok;							\
}									\
static __always_inline void g_##name##_exit(bool ok)			\
{									\
	preempt_disable_notrace();					\
	out_op(rg_a64_slot(), (u32)-1);					\
	preempt_enable_notrace();					\
}
RG_A64_GUARD(pcpu_stadd, rg_a64_in_lse, rg_a64_stadd)
RG_A64_GUARD(pcpu_ldadd, rg_a64_in_lse, rg_a64_ldadd_unused)
RG_A64_GUARD(pcpu_prfm_stadd, rg_a64_in_lse, rg_a64_prfm_stadd)
RG_A64_GUARD(pcpu_ldadd_llsc, rg_a64_in_lse, rg_a64_llsc_add)
RG_A64_GUARD(pcpu_llsc, rg_a64_in_llsc, rg_a64_llsc_add)
/* The kernel's own exit of the other version in inline asm (this version's is the macros above). */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 18, 0)
RG_A64_KERNEL_GUARD(pcpu_stadd_kernel, rg_a64_in_lse, rg_a64_stadd)
#else
RG_A64_KERNEL_GUARD(pcpu_ldadd_kernel, rg_a64_in_lse, rg_a64_ldadd_unused)
#endif
RG_A64_KERNEL_GUARD(pcpu_prfm_stadd_kernel, rg_a64_in_lse, rg_a64_prfm_stadd)
RG_A64_KERNEL_GUARD(pcpu_ldadd_llsc_kernel, rg_a64_in_lse, rg_a64_llsc_add)
RG_A64_KERNEL_GUARD(pcpu_llsc_kernel, rg_a64_in_llsc, rg_a64_llsc_add)

static const char *rg_need_lse(void)
{
	/* 7.2 and 7.3 have no such option: LSE is always built, patched in by capability. */
#if defined(CONFIG_ARM64_LSE_ATOMICS) || LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0)
	if (cpus_have_cap(ARM64_HAS_LSE_ATOMICS))
		return NULL;
	return "CPU has no LSE atomics";
#else
	return "kernel built without CONFIG_ARM64_LSE_ATOMICS";
#endif
}
#endif /* CONFIG_ARM64 */

/* A test build's extra guards (tests/guards/addguard): generated, empty otherwise. */
#include "rg_kguards_extra.h"

#endif /* RG_KMOD_GUARDS_H */
