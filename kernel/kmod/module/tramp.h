/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tramp scenario's loops: a real BPF program (the trigger bench's raw_tp
 * program, resolved by tramp.c) run through the trampoline's path under each
 * trampoline design of rg_kguards.h's RG_KTRAMP(X), in two shapes, each as the
 * kernel whose headers the module is built against does it (LINUX_VERSION_CODE:
 * 6.1, 6.12, 6.18 or 7.2 below, RG_TRAMP_SHAPES in kmod.h; a version between two
 * follows the older one; the shapes per version are tabled in docs/kmod.md):
 *
 *   fentry  what a JITed fentry trampoline does around the program,
 *           kernel/bpf/trampoline.c: a noinline enter shaped like
 *           __bpf_prog_enter_recur() (rcu_read_lock(); migrate_disable(), or
 *           from 6.18 rcu_read_lock_dont_migrate(); bpf_set_run_ctx(); the
 *           design's check, a miss counted on refusal; the start time only when
 *           BPF stats are on), the program's JIT image
 *           prog->bpf_func(ctx, prog->insnsi) when granted, a noinline exit
 *           shaped like __bpf_prog_exit_recur() (bpf_reset_run_ctx(); the stats;
 *           the design's exit; migrate_enable(); rcu_read_unlock(), or from 6.18
 *           rcu_read_unlock_migrate()).
 *           The trampoline calls the image directly; C calls it through the
 *           pointer, as bpf_prog_run() does (behind the retpoline where the
 *           kernel has one): the tramp-call row times that call alone.
 *   rawtp   __bpf_trace_run() of kernel/trace/bpf_trace.c: (7.2: all of it in
 *           rcu_read_lock_dont_migrate()) the design's check (a miss on
 *           refusal), from 6.12 the link's cookie into a bpf_trace_run_ctx set
 *           as the run context, rcu_read_lock() (before 7.2), bpf_prog_run(),
 *           rcu_read_unlock(), from 6.12 the run context reset, the design's
 *           exit; noinline, as bpf_trace_run<N>() calls it (6.1) or is it (6.12
 *           on inline __bpf_trace_run() into it).
 *
 * The design's check is the module guard's own body (guards.h) on the guard's
 * own per-CPU state: an int for the this_cpu designs, u8[4] for the merged
 * check, never the program's real prog->active; it stands where the kernel has
 * this_cpu_inc_return(*(prog->active)) != 1 (7.2: bpf_prog_get_recursion_context()).
 * A miss is counted as bpf_prog_inc_misses_counter() counts it (the same in
 * 6.1, 6.12, 6.18 and 7.2), on
 * the module's own per-CPU stats. Included once, by loops.c, after guards.h.
 */
#ifndef RG_KMOD_TRAMP_H
#define RG_KMOD_TRAMP_H

#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/sched/clock.h>
#include "kmod.h"

#define RG_NO_START_TIME 1	/* trampoline.c's NO_START_TIME */

#if RG_TRAMP_SHAPES >= 618
/*
 * 6.18 (commit 8e4f0b1ebcf2; 7.2 the same): __bpf_prog_enter_recur() takes
 * rcu_read_lock_dont_migrate() (migrate_disable() only under PREEMPT_RCU, then
 * rcu_read_lock()), __bpf_prog_exit_recur() rcu_read_unlock_migrate().
 */
#define rg_tramp_lock()		rcu_read_lock_dont_migrate()
#define rg_tramp_unlock()	rcu_read_unlock_migrate()
#else
/* 6.1 and 6.12: rcu_read_lock(); migrate_disable(); ... migrate_enable(); rcu_read_unlock(). */
#define rg_tramp_lock()		do { rcu_read_lock(); migrate_disable(); } while (0)
#define rg_tramp_unlock()	do { migrate_enable(); rcu_read_unlock(); } while (0)
#endif

/*
 * bpf_prog_inc_misses_counter() (kernel/bpf/syscall.c, out of line, the same in
 * 6.1, 6.12, 6.18 and 7.2) on the module's own per-CPU stats (tramp.c), so that the
 * real program's recursion_misses stay the kernel's.
 */
static noinline void notrace rg_tramp_inc_misses(struct bpf_prog_stats __percpu *pstats)
{
	struct bpf_prog_stats *stats;
	unsigned int flags;

	if (unlikely(!pstats))
		return;
	stats = this_cpu_ptr(pstats);
	flags = u64_stats_update_begin_irqsave(&stats->syncp);
	u64_stats_inc(&stats->misses);
	u64_stats_update_end_irqrestore(&stats->syncp, flags);
}

/*
 * The fentry enter's refusal: the miss, then (6.18 and 7.2, for struct_ops programs)
 * the program's recursion_detected callback when it has one.
 */
static __always_inline void notrace rg_tenter_refused(struct bpf_prog *prog)
{
	rg_tramp_inc_misses(&rg_tramp_pstats);
#if RG_TRAMP_SHAPES >= 618
	if (prog->aux->recursion_detected)
		prog->aux->recursion_detected(prog);
#endif
}

/* trampoline.c's bpf_prog_start_time(): a clock read only when BPF stats are on. */
static __always_inline u64 notrace rg_tramp_start_time(void)
{
	u64 start = RG_NO_START_TIME;

	if (static_branch_unlikely(&bpf_stats_enabled_key)) {
		start = sched_clock();
		if (unlikely(!start))
			start = RG_NO_START_TIME;
	}
	return start;
}

/* trampoline.c's update_prog_stats(), on the program's own stats. */
static __always_inline void notrace rg_tramp_stats(struct bpf_prog *prog, u64 start)
{
	if (static_branch_unlikely(&bpf_stats_enabled_key) && start > RG_NO_START_TIME) {
		struct bpf_prog_stats *stats = this_cpu_ptr(prog->stats);
		u64 duration = sched_clock() - start;
		unsigned long flags;

		flags = u64_stats_update_begin_irqsave(&stats->syncp);
		u64_stats_inc(&stats->cnt);
		u64_stats_add(&stats->nsecs, duration);
		u64_stats_update_end_irqrestore(&stats->syncp, flags);
	}
}

#if RG_TRAMP_SHAPES >= 702
/*
 * 7.2's __bpf_trace_run() (the same in 7.3; not read for 6.19 to 7.1, which
 * follow 6.18 here): the whole call inside rcu_read_lock_dont_migrate() /
 * rcu_read_unlock_migrate(), the check included, no rcu_read_lock() of its own
 * around the program, no cant_sleep(). (Its sleepable branch, tasks-trace RCU,
 * is for sleepable programs; the trigger program is not one.)
 */
#define RG_TRACE_RUN_LOCK	rcu_read_lock_dont_migrate();
#define RG_TRACE_RUN_UNLOCK	rcu_read_unlock_migrate();
#define RG_TRACE_RUN_RCU_IN
#define RG_TRACE_RUN_RCU_OUT
#else
/* 6.1 to 6.18: cant_sleep(), then rcu_read_lock() around the program only. */
#define RG_TRACE_RUN_LOCK	cant_sleep();
#define RG_TRACE_RUN_UNLOCK
#define RG_TRACE_RUN_RCU_IN	rcu_read_lock();
#define RG_TRACE_RUN_RCU_OUT	rcu_read_unlock();
#endif

#if RG_TRAMP_SHAPES >= 612
/*
 * 6.12, 6.18 and 7.2's __bpf_trace_run(): once granted, the link's cookie in a
 * bpf_trace_run_ctx set as the run context around the program, reset after.
 * The module has no link: the cookie is loaded from rg_tramp_cookie (0).
 */
#define RG_TRACE_RUN_CTX_DECL						\
	struct bpf_run_ctx *old_run_ctx;				\
	struct bpf_trace_run_ctx run_ctx;
#define RG_TRACE_RUN_CTX_SET						\
	run_ctx.bpf_cookie = READ_ONCE(rg_tramp_cookie);		\
	old_run_ctx = bpf_set_run_ctx(&run_ctx.run_ctx);
#define RG_TRACE_RUN_CTX_RESET	bpf_reset_run_ctx(old_run_ctx);
#else
/* 6.1's __bpf_trace_run() sets no run context. */
#define RG_TRACE_RUN_CTX_DECL
#define RG_TRACE_RUN_CTX_SET
#define RG_TRACE_RUN_CTX_RESET
#endif

/*
 * Per design id: rg_tenter_<id>() / rg_texit_<id>() (the fentry shape's
 * enter and exit), rg_trace_run_<id>() (the raw_tp shape), the timed loops
 * rg_tramp_fentry_<id>(n) and rg_tramp_rawtp_<id>(n) (refused invocations),
 * and rg_tre_enter_<id>() / rg_tre_exit_<id>() for the re-entry tests: one
 * whole invocation split at the program (enter, then the program if granted;
 * exit), its run context and start kept per context level.
 */
#define RG_TRAMP(id, name, role, kind, avail)				\
static noinline u64 notrace rg_tenter_##id(struct bpf_prog *prog,	\
					   struct bpf_tramp_run_ctx *run_ctx) \
{									\
	rg_tramp_lock();						\
	run_ctx->saved_run_ctx = bpf_set_run_ctx(&run_ctx->run_ctx);	\
	if (unlikely(!g_##id##_enter())) {				\
		rg_tenter_refused(prog);				\
		return 0;						\
	}								\
	return rg_tramp_start_time();					\
}									\
static noinline void notrace rg_texit_##id(struct bpf_prog *prog, u64 start, \
					   struct bpf_tramp_run_ctx *run_ctx) \
{									\
	bpf_reset_run_ctx(run_ctx->saved_run_ctx);			\
	rg_tramp_stats(prog, start);					\
	g_##id##_exit(start != 0);					\
	rg_tramp_unlock();						\
}									\
static noinline bool notrace rg_trace_run_##id(struct bpf_prog *prog, u64 *args) \
{									\
	RG_TRACE_RUN_CTX_DECL						\
	bool ok;							\
									\
	RG_TRACE_RUN_LOCK						\
	ok = g_##id##_enter();						\
	if (unlikely(!ok)) {						\
		rg_tramp_inc_misses(&rg_tramp_pstats);			\
		goto out;						\
	}								\
	RG_TRACE_RUN_CTX_SET						\
	RG_TRACE_RUN_RCU_IN						\
	(void)bpf_prog_run(prog, args);					\
	RG_TRACE_RUN_RCU_OUT						\
	RG_TRACE_RUN_CTX_RESET						\
out:									\
	g_##id##_exit(ok);						\
	RG_TRACE_RUN_UNLOCK						\
	return ok;							\
}									\
static noinline u64 rg_tramp_fentry_##id(u64 n)			\
{									\
	struct bpf_prog *prog = READ_ONCE(rg_tprog);			\
	struct bpf_tramp_run_ctx run_ctx = {};				\
	u64 i, refused = 0, args[2] = { 0, 0 };				\
									\
	for (i = 0; i < n; i++) {					\
		u64 start = rg_tenter_##id(prog, &run_ctx);		\
									\
		if (likely(start))					\
			prog->bpf_func(args, prog->insnsi);		\
		else							\
			refused++;					\
		rg_texit_##id(prog, start, &run_ctx);			\
	}								\
	return refused;							\
}									\
static noinline u64 rg_tramp_rawtp_##id(u64 n)				\
{									\
	struct bpf_prog *prog = READ_ONCE(rg_tprog);			\
	u64 i, refused = 0, args[2] = { 0, 0 };				\
									\
	for (i = 0; i < n; i++)						\
		refused += !rg_trace_run_##id(prog, args);		\
	return refused;							\
}									\
static bool rg_tre_enter_##id(void)					\
{									\
	struct bpf_prog *prog = READ_ONCE(rg_tprog);			\
	unsigned int lvl = rg_ctx_level();				\
	u64 args[2] = { 0, 0 };						\
									\
	rg_tre[lvl].start = rg_tenter_##id(prog, &rg_tre[lvl].run_ctx);	\
	if (rg_tre[lvl].start)						\
		prog->bpf_func(args, prog->insnsi);			\
	return rg_tre[lvl].start != 0;					\
}									\
static void rg_tre_exit_##id(bool ok)					\
{									\
	unsigned int lvl = rg_ctx_level();				\
									\
	rg_texit_##id(READ_ONCE(rg_tprog), rg_tre[lvl].start, &rg_tre[lvl].run_ctx); \
}

/*
 * The raw_tp shape's re-entry tests (an addition beside RG_TRAMP, whose
 * loops it leaves alone): rg_trere_enter_<id>() / rg_trere_exit_<id>(), one
 * __bpf_trace_run() split at the program, with the headers' version's locking
 * (RG_TRACE_RUN_*: cant_sleep() and an inner rcu_read_lock() before 7.2, the
 * whole run in rcu_read_lock_dont_migrate() from 7.2; the run context is left
 * out, it does not decide re-entry): enter runs the design's check (a miss
 * counted on refusal) and, when granted, the program; exit the inner unlock
 * when granted and the design's exit. Both sit in
 * preempt_disable_notrace()/preempt_enable_notrace(), the region the
 * tracepoint that calls bpf_trace_run<N>() runs it in, so a task holder is
 * where a real raw_tp program is: preemption off, interrupts on. Nothing is
 * kept per context level: exit needs only enter's result.
 */
#define RG_TRAMP_RE_RAWTP(id, name, role, kind, avail)			\
static bool rg_trere_enter_##id(void)					\
{									\
	struct bpf_prog *prog = READ_ONCE(rg_tprog);			\
	u64 args[2] = { 0, 0 };						\
									\
	preempt_disable_notrace();					\
	RG_TRACE_RUN_LOCK						\
	if (unlikely(!g_##id##_enter())) {				\
		rg_tramp_inc_misses(&rg_tramp_pstats);			\
		return false;						\
	}								\
	RG_TRACE_RUN_RCU_IN						\
	(void)bpf_prog_run(prog, args);					\
	return true;							\
}									\
static void rg_trere_exit_##id(bool ok)					\
{									\
	if (ok) {							\
		RG_TRACE_RUN_RCU_OUT					\
	}								\
	g_##id##_exit(ok);						\
	RG_TRACE_RUN_UNLOCK						\
	preempt_enable_notrace();					\
}

/* The program's call alone, as the fentry loop makes it: what the call adds. */
static noinline u64 rg_tramp_call(u64 n)
{
	struct bpf_prog *prog = READ_ONCE(rg_tprog);
	u64 i, args[2] = { 0, 0 };

	for (i = 0; i < n; i++)
		prog->bpf_func(args, prog->insnsi);
	return 0;
}

#endif /* RG_KMOD_TRAMP_H */
