/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ladder scenario's step loops: each composite design of this build
 * (RG_KLADDER, rg_kguards.h: generated from the RG_PART lines of guards.def)
 * taken apart, one noinline loop per step, the step a constant so that
 * nothing in the loop chooses parts. Step k runs parts 1..k of the design
 * with the kernel's own primitives (preempt_disable(), interrupt_context_level(),
 * this_cpu_ptr(), this_cpu_inc_return()); the last step is the design's own
 * g_<id>_enter()/_exit() (guards.h), the same code as its loop-irqsoff row.
 * Included once, by loops.c, after guards.h (it uses its slot and op helpers).
 * The steps keep their state in their own per-CPU slots (rg_ls): a step that
 * enters without its exit op leaves its count climbing, never a guard's.
 */
#ifndef RG_KMOD_LADDER_H
#define RG_KMOD_LADDER_H

#include "kmod.h"
#include "guards.h"
#include "rg_kguards.h"

/* RG_KP_<design>__<part>: the part's step, 1-based, in its design's ladder. */
#define RG_KP_ENUM(d, p, nm, k, last) RG_KP_##d##__##p = k,
enum { RG_KLADDER(RG_KP_ENUM) RG_KP__UNUSED };

/* Keep a value a later part would consume: no instruction. */
#define rg_lkeep(v) asm volatile("" : : "r" (v))

enum { RG_LS_THIS_CPU, RG_LS_RCTX, RG_LS__COUNT };
static DEFINE_PER_CPU_ALIGNED(struct rg_slot, rg_ls[RG_LS__COUNT]);
static struct rg_prog rg_lprog[RG_LS__COUNT] ____cacheline_aligned = {
	[RG_LS_THIS_CPU] = { &rg_ls[RG_LS_THIS_CPU] },
	[RG_LS_RCTX] = { &rg_ls[RG_LS_RCTX] },
};

/*
 * rctx-kernel (g_rctx_kernel_enter/_exit): preempt; + level
 * (interrupt_context_level()); + this-cpu-ptr (this_cpu_ptr(prog->active));
 * + byte-inc-dec (active[rctx]++ / --); the last, reload32, is the whole.
 */
/* The parts before preempt_disable() (as the guard orders them): the level, then the slot. */
static __always_inline struct rg_slot *l_rctx_kernel_slot(int k, u8 *rctx)
{
	*rctx = k >= RG_KP_rctx_kernel__level ? rg_ctx_level() : 0;
	return k >= RG_KP_rctx_kernel__ptr ? this_cpu_ptr(READ_ONCE(rg_lprog[RG_LS_RCTX].active)) : NULL;
}
/* Under preempt_disable(): the byte op (by +1 or -1), or what it would consume, kept. */
static __always_inline void l_rctx_kernel_byte(int k, u8 rctx, struct rg_slot *s, u8 by)
{
	if (k >= RG_KP_rctx_kernel__byte) {
		u8 *active = s->active;	/* as g_rctx_kernel_enter() */

		active[rctx] += by;
		barrier();
		return;
	}
	if (k >= RG_KP_rctx_kernel__level)
		rg_lkeep(rctx);
	if (k >= RG_KP_rctx_kernel__ptr)
		rg_lkeep(s);
}
static __always_inline bool l_rctx_kernel_enter_upto(int k)
{
	u8 rctx;
	struct rg_slot *s = l_rctx_kernel_slot(k, &rctx);

	preempt_disable();
	l_rctx_kernel_byte(k, rctx, s, 1);
	preempt_enable();
	return true;
}
static __always_inline void l_rctx_kernel_exit_upto(bool ok, int k)
{
	u8 rctx;
	struct rg_slot *s = l_rctx_kernel_slot(k, &rctx);

	preempt_disable();
	l_rctx_kernel_byte(k, rctx, s, (u8)-1);
	preempt_enable();
}

#ifdef CONFIG_X86_64
/*
 * pcpu-xadd, the x86 kernel's this_cpu guard (RG_THIS_CPU_GUARD): active-load
 * (prog->active on enter and exit); + xadd (this_cpu_inc_return(), its value
 * kept, not tested); the last, dec (this_cpu_dec() and the test), is the whole.
 */
static __always_inline bool l_pcpu_xadd_enter_upto(int k)
{
	struct rg_slot __percpu *active = READ_ONCE(rg_lprog[RG_LS_THIS_CPU].active);

	if (k >= RG_KP_pcpu_xadd__enter_op) {
		int v = this_cpu_inc_return(active->v);

		rg_lkeep(v);
	} else {
		rg_lkeep(active);
	}
	return true;
}
static __always_inline void l_pcpu_xadd_exit_upto(bool ok, int k)
{
	struct rg_slot __percpu *active = READ_ONCE(rg_lprog[RG_LS_THIS_CPU].active);

	rg_lkeep(active);
}
#endif /* CONFIG_X86_64 */

#ifdef CONFIG_ARM64
/*
 * The arm64 -kernel forms (RG_A64_KERNEL_GUARD, and the kernel's own
 * this_cpu_inc_return()/this_cpu_dec() for its version): preempt
 * (preempt_disable_notrace()/preempt_enable_notrace() around nothing, enter
 * and exit); + this-cpu-ptr (raw_cpu_ptr() inside); + the entry op, its
 * value kept, not tested; the last, the exit op and the test, is the whole.
 */
static __always_inline u32 *rg_a64_lslot(void) { return &raw_cpu_ptr(&rg_ls[RG_LS_THIS_CPU])->u; }
#define RG_A64_KERNEL_STEPS(name, in_op)				\
static __always_inline bool l_##name##_enter_upto(int k)		\
{									\
	preempt_disable_notrace();					\
	if (k >= RG_KP_##name##__enter_op) {				\
		bool v = in_op(rg_a64_lslot());				\
									\
		rg_lkeep(v);						\
	} else if (k >= RG_KP_##name##__ptr) {				\
		rg_lkeep(rg_a64_lslot());				\
	}								\
	preempt_enable_notrace();					\
	return true;							\
}									\
static __always_inline void l_##name##_exit_upto(bool ok, int k)	\
{									\
	preempt_disable_notrace();					\
	if (k >= RG_KP_##name##__ptr)					\
		rg_lkeep(rg_a64_lslot());				\
	preempt_enable_notrace();					\
}
RG_A64_KERNEL_STEPS(pcpu_stadd_kernel, rg_a64_in_lse)
RG_A64_KERNEL_STEPS(pcpu_ldadd_kernel, rg_a64_in_lse)
RG_A64_KERNEL_STEPS(pcpu_prfm_stadd_kernel, rg_a64_in_lse)
RG_A64_KERNEL_STEPS(pcpu_ldadd_llsc_kernel, rg_a64_in_lse)
RG_A64_KERNEL_STEPS(pcpu_llsc_kernel, rg_a64_in_llsc)
#endif /* CONFIG_ARM64 */

/*
 * One loop per step, the pair loop of loops.c (RG_LOOP) with the step's
 * enter/exit: rg_step_<design>__<part>. last is a constant: the whole's
 * step calls the design's own guard, the others its parts up to k.
 */
#define RG_STEP_LOOP(d, p, nm, k, last)					\
static noinline u64 rg_step_##d##__##p(u64 n)				\
{									\
	u64 i, refused = 0;						\
									\
	for (i = 0; i < n; i++) {					\
		bool ok = (last) ? g_##d##_enter() : l_##d##_enter_upto(k); \
									\
		refused += !ok;						\
		if (last)						\
			g_##d##_exit(ok);				\
		else							\
			l_##d##_exit_upto(ok, k);			\
	}								\
	return refused;							\
}
RG_KLADDER(RG_STEP_LOOP)

#define RG_STEP_ENTRY(d, p, nm, k, last)				\
	{ .name = nm, .role = "n/a", .pair = rg_step_##d##__##p, .kind = RG_CHECK },
const struct rg_kguard rg_kladder[] = { RG_KLADDER(RG_STEP_ENTRY) };
const unsigned int rg_nkladder = ARRAY_SIZE(rg_kladder);

#endif /* RG_KMOD_LADDER_H */
