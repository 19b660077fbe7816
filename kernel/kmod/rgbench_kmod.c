// SPDX-License-Identifier: GPL-2.0
/*
 * rgbench_kmod: per-CPU recursion guards measured in kernel context (ns per
 * enter/exit pair, refscale-style kthreads) and tested for re-entry from a
 * real hardirq on the same CPU; results as CSV rows in debugfs.
 *
 * Usage (see docs/kmod.md):
 *   insmod rgbench_kmod.ko guards=all cpus=0-3 loops=100000 runs=5
 *   echo 1 > /sys/kernel/debug/rgbench_kmod/run       (blocks until done)
 *   cat /sys/kernel/debug/rgbench_kmod/results        (CSV, one row per run and CPU)
 *   rmmod rgbench_kmod
 *
 * Every guard is a pair of __always_inline functions, enter() (true: granted,
 * false: refused, nothing held) and exit(). The timed loop is instantiated
 * once per guard (RG_LOOP below), so the measured loop contains the guard's
 * instructions and nothing called through a pointer.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/delay.h>
#include <linux/debugfs.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/irqflags.h>
#include <linux/irq_work.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/uaccess.h>
#include <linux/timekeeping.h>
#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/version.h>
#include <linux/timex.h>
#include <asm/local.h>
#ifdef CONFIG_ARM64
#include <asm/cpufeature.h>
#endif

/* ------------------------------------------------------------------------ */
/* Parameters                                                                */

static char *guards = "all";
module_param(guards, charp, 0444);
MODULE_PARM_DESC(guards, "comma-separated guard names, or \"all\" (default)");

static char *cpus = "all";
module_param(cpus, charp, 0444);
MODULE_PARM_DESC(cpus, "CPU list for the timed kthreads, e.g. 0-3,8 (default: all online)");

static ulong loops = 100000;
module_param(loops, ulong, 0444);
MODULE_PARM_DESC(loops, "enter/exit pairs per timed run (default 100000)");

static uint runs = 5;
module_param(runs, uint, 0444);
MODULE_PARM_DESC(runs, "timed runs per guard (default 5), after one untimed warm-up run");

static uint duty_ns;
module_param(duty_ns, uint, 0444);
MODULE_PARM_DESC(duty_ns, "ndelay() between pairs, ns (default 0: back to back)");

static bool irqs_off;
module_param(irqs_off, bool, 0444);
MODULE_PARM_DESC(irqs_off, "disable interrupts in the timed region (default N)");

static uint irq_iters = 1000;
module_param(irq_iters, uint, 0444);
MODULE_PARM_DESC(irq_iters, "hardirq re-entry attempts per guard (0: skip that test; default 1000)");

static int irq_cpu = -1;
module_param(irq_cpu, int, 0444);
MODULE_PARM_DESC(irq_cpu, "CPU for the hardirq re-entry test (default: first selected CPU)");

/* ------------------------------------------------------------------------ */
/* The guards                                                                */

/* Each guard has its own per-CPU slot, on its own cache line. */
struct rg_slot {
	union {
		int v;
		u32 u;
		u8 active[4];	/* rctx: one byte per interrupt_context_level() */
	};
} ____cacheline_aligned;

static DEFINE_PER_CPU_ALIGNED(struct rg_slot, rg_s_inc_return);
static DEFINE_PER_CPU_ALIGNED(struct rg_slot, rg_s_inc);
static DEFINE_PER_CPU_ALIGNED(struct rg_slot, rg_s_rctx);
static DEFINE_PER_CPU_ALIGNED(struct rg_slot, rg_s_preempt);
static DEFINE_PER_CPU_ALIGNED(struct rg_slot, rg_s_irqsave);
static DEFINE_PER_CPU_ALIGNED(local_t, rg_s_local);
static DEFINE_PER_CPU_ALIGNED(struct rg_slot, rg_s_asm);
static atomic_t rg_shared ____cacheline_aligned = ATOMIC_INIT(0);

#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 19, 0)
#define rg_ctx_level() interrupt_context_level()
#else
/* Same levels as interrupt_context_level(): 0 task, 1 softirq, 2 hardirq, 3 NMI. */
static __always_inline unsigned char rg_ctx_level(void)
{
	unsigned long pc = preempt_count();

	return !!(pc & NMI_MASK) + !!(pc & (NMI_MASK | HARDIRQ_MASK)) +
	       !!(pc & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET));
}
#endif

/*
 * noop: enter and exit do nothing; the loop around them is the harness floor.
 * Protects nothing: a hardirq is granted.
 */
static __always_inline bool g_noop_enter(void) { barrier(); return true; }
static __always_inline void g_noop_exit(void) { barrier(); }

/*
 * this_cpu_inc_return: the pre-change BPF guard, whatever this kernel compiles
 * it to (x86: xadd %gs:, arm64: LSE LDADD or LL/SC inside preempt_disable).
 *   enter: this_cpu_inc_return(c) == 1, else this_cpu_dec(c) and refuse
 *   exit:  this_cpu_dec(c)
 * The caller keeps migration off (bound kthread), as BPF does.
 */
static __always_inline bool g_this_cpu_inc_return_enter(void)
{
	if (likely(this_cpu_inc_return(rg_s_inc_return.v) == 1))
		return true;
	this_cpu_dec(rg_s_inc_return.v);
	return false;
}
static __always_inline void g_this_cpu_inc_return_exit(void) { this_cpu_dec(rg_s_inc_return.v); }

/*
 * this_cpu_inc: this_cpu_inc(c) / this_cpu_dec(c), the no-return forms
 * (x86: incl/decl %gs:, arm64 <6.18: STADD, >=6.18: LDADD to an unused
 * register). A counter, not a check: a hardirq is granted.
 */
static __always_inline bool g_this_cpu_inc_enter(void) { this_cpu_inc(rg_s_inc.v); return true; }
static __always_inline void g_this_cpu_inc_exit(void) { this_cpu_dec(rg_s_inc.v); }

/*
 * rctx: the merged bpf-next design. A per-CPU u8[4] indexed by
 * interrupt_context_level(); under preempt_disable() bump our level's byte,
 * then the whole 32-bit word must equal 1 << (level * 8): at most one user per
 * CPU in any context. exit: drop our byte under preempt_disable().
 */
static __always_inline bool g_rctx_enter(void)
{
	u8 rctx = rg_ctx_level();
	struct rg_slot *s;
	u32 val;

	preempt_disable();
	s = this_cpu_ptr(&rg_s_rctx);
	s->active[rctx]++;
	barrier();			/* the byte store before the word load */
	val = le32_to_cpu((__force __le32)READ_ONCE(s->u));
	if (likely(val == BIT(rctx * 8))) {
		preempt_enable();
		return true;
	}
	s->active[rctx]--;
	preempt_enable();
	return false;
}
static __always_inline void g_rctx_exit(void)
{
	u8 rctx = rg_ctx_level();

	preempt_disable();
	this_cpu_ptr(&rg_s_rctx)->active[rctx]--;
	preempt_enable();
}

/*
 * preempt-raw: preempt_disable(); __this_cpu_inc(c); check c == 1 ...
 * __this_cpu_dec(c); preempt_enable(). Plain per-CPU RMW (x86: incl %gs:,
 * arm64: ldr/add/str), preemption off while held.
 */
static __always_inline bool g_preempt_raw_enter(void)
{
	preempt_disable();
	__this_cpu_inc(rg_s_preempt.v);
	if (likely(__this_cpu_read(rg_s_preempt.v) == 1))
		return true;
	__this_cpu_dec(rg_s_preempt.v);
	preempt_enable();
	return false;
}
static __always_inline void g_preempt_raw_exit(void)
{
	__this_cpu_dec(rg_s_preempt.v);
	preempt_enable();
}

/*
 * irqsave: the same plain RMW under local_irq_save(): interrupts stay off
 * while held, so a hardirq cannot re-enter; it is deferred until exit.
 * Flags live in a per-CPU slot (the holder cannot migrate with irqs off).
 */
static DEFINE_PER_CPU(unsigned long, rg_irqsave_flags);
static __always_inline bool g_irqsave_enter(void)
{
	unsigned long flags;

	local_irq_save(flags);
	__this_cpu_inc(rg_s_irqsave.v);
	if (likely(__this_cpu_read(rg_s_irqsave.v) == 1)) {
		__this_cpu_write(rg_irqsave_flags, flags);
		return true;
	}
	__this_cpu_dec(rg_s_irqsave.v);
	local_irq_restore(flags);
	return false;
}
static __always_inline void g_irqsave_exit(void)
{
	unsigned long flags = __this_cpu_read(rg_irqsave_flags);

	__this_cpu_dec(rg_s_irqsave.v);
	local_irq_restore(flags);
}

/*
 * local-t: local_inc_return() == 1 / local_dec() on a per-CPU local_t under
 * preempt_disable() (x86: xadd without lock, arm64: atomic_long = LSE/LL-SC).
 */
static __always_inline bool g_local_t_enter(void)
{
	preempt_disable();
	if (likely(local_inc_return(this_cpu_ptr(&rg_s_local)) == 1))
		return true;
	local_dec(this_cpu_ptr(&rg_s_local));
	preempt_enable();
	return false;
}
static __always_inline void g_local_t_exit(void)
{
	local_dec(this_cpu_ptr(&rg_s_local));
	preempt_enable();
}

/*
 * atomic-shared: one atomic_t for all CPUs (contention ceiling).
 * enter: atomic_inc_return(g) == 1, else atomic_dec(g) and refuse. With
 * several CPUs in the timed loop, refusals count real cross-CPU collisions.
 */
static __always_inline bool g_atomic_shared_enter(void)
{
	if (likely(atomic_inc_return(&rg_shared) == 1))
		return true;
	atomic_dec(&rg_shared);
	return false;
}
static __always_inline void g_atomic_shared_exit(void) { atomic_dec(&rg_shared); }

#ifdef CONFIG_X86_64
/*
 * x86 lock-prefixed forms on the flat per-CPU address (this_cpu_ptr) under
 * preempt_disable(), beside the kernel's %gs:-relative non-locked ones.
 *   x86-lock-xadd: lock xadd (old == 0 granted) / lock decl
 *   x86-lock-inc:  lock incl / lock decl (a counter: a hardirq is granted)
 */
static __always_inline int rg_x86_lock_xadd(int *p, int v)
{
	asm volatile("# rg: lock xadd\n\tlock xaddl %[v], %[p]"
		     : [v] "+r" (v), [p] "+m" (*p) : : "memory", "cc");
	return v;
}
static __always_inline void rg_x86_lock_inc(int *p)
{
	asm volatile("# rg: lock incl\n\tlock incl %[p]" : [p] "+m" (*p) : : "memory", "cc");
}
static __always_inline void rg_x86_lock_dec(int *p)
{
	asm volatile("# rg: lock decl\n\tlock decl %[p]" : [p] "+m" (*p) : : "memory", "cc");
}

static __always_inline bool g_x86_lock_xadd_enter(void)
{
	int *p;

	preempt_disable();
	p = &this_cpu_ptr(&rg_s_asm)->v;
	if (likely(rg_x86_lock_xadd(p, 1) == 0))
		return true;
	rg_x86_lock_dec(p);
	preempt_enable();
	return false;
}
static __always_inline void g_x86_lock_xadd_exit(void)
{
	rg_x86_lock_dec(&this_cpu_ptr(&rg_s_asm)->v);
	preempt_enable();
}

static __always_inline bool g_x86_lock_inc_enter(void)
{
	preempt_disable();
	rg_x86_lock_inc(&this_cpu_ptr(&rg_s_asm)->v);
	return true;
}
static __always_inline void g_x86_lock_inc_exit(void)
{
	rg_x86_lock_dec(&this_cpu_ptr(&rg_s_asm)->v);
	preempt_enable();
}
#endif /* CONFIG_X86_64 */

#ifdef CONFIG_ARM64
/*
 * arm64 explicit variants on this_cpu_ptr() under preempt_disable(). Entry is
 * always LDADD #1 returning the old value (0: granted); exits differ:
 *   arm64-ldadd-stadd: STADD #-1 (store form: executed "far" on Neoverse)
 *   arm64-ldadd-ldadd: LDADD #-1 into an unused register (the 6.18 change)
 *   arm64-prfm-stadd:  PRFM PSTL1STRM, then STADD #-1
 *   arm64-llsc:        LDXR/ADD/STXR loops for both (no LSE needed)
 * The LSE ones run only when the kernel uses LSE atomics on this system.
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

#define RG_A64_LSE_GUARD(name, exit_op)					\
static __always_inline bool g_##name##_enter(void)			\
{									\
	u32 *p;								\
									\
	preempt_disable();						\
	p = &this_cpu_ptr(&rg_s_asm)->u;				\
	if (likely(rg_a64_ldadd(p, 1) == 0))				\
		return true;						\
	exit_op(p, (u32)-1);						\
	preempt_enable();						\
	return false;							\
}									\
static __always_inline void g_##name##_exit(void)			\
{									\
	exit_op(&this_cpu_ptr(&rg_s_asm)->u, (u32)-1);			\
	preempt_enable();						\
}
RG_A64_LSE_GUARD(arm64_ldadd_stadd, rg_a64_stadd)
RG_A64_LSE_GUARD(arm64_ldadd_ldadd, rg_a64_ldadd_unused)
RG_A64_LSE_GUARD(arm64_prfm_stadd, rg_a64_prfm_stadd)

static __always_inline bool g_arm64_llsc_enter(void)
{
	u32 *p;

	preempt_disable();
	p = &this_cpu_ptr(&rg_s_asm)->u;
	if (likely(rg_a64_llsc_add_return(p, 1) == 1))
		return true;
	rg_a64_llsc_add_return(p, (u32)-1);
	preempt_enable();
	return false;
}
static __always_inline void g_arm64_llsc_exit(void)
{
	rg_a64_llsc_add_return(&this_cpu_ptr(&rg_s_asm)->u, (u32)-1);
	preempt_enable();
}

static const char *rg_need_lse(void)
{
#ifdef CONFIG_ARM64_LSE_ATOMICS
	if (cpus_have_cap(ARM64_HAS_LSE_ATOMICS))
		return NULL;
	return "CPU has no LSE atomics";
#else
	return "kernel built without CONFIG_ARM64_LSE_ATOMICS";
#endif
}
#endif /* CONFIG_ARM64 */

/* ------------------------------------------------------------------------ */
/* The guard table                                                           */

enum rg_expect { RG_EXPECT_REFUSE, RG_EXPECT_GRANT, RG_EXPECT_DEFER };
static const char *const rg_expect_name[] = { "refuse", "grant", "defer" };

/*
 * RG_KGUARDS(X): X(id, "name", expect from a hardirq while held, availability
 * check or NULL). Order is the output order.
 */
#define RG_KGUARDS_COMMON(X)						\
	X(noop, "noop", RG_EXPECT_GRANT, NULL)				\
	X(this_cpu_inc_return, "this-cpu-inc-return", RG_EXPECT_REFUSE, NULL) \
	X(this_cpu_inc, "this-cpu-inc", RG_EXPECT_GRANT, NULL)		\
	X(rctx, "rctx", RG_EXPECT_REFUSE, NULL)				\
	X(preempt_raw, "preempt-raw", RG_EXPECT_REFUSE, NULL)		\
	X(irqsave, "irqsave", RG_EXPECT_DEFER, NULL)			\
	X(local_t, "local-t", RG_EXPECT_REFUSE, NULL)			\
	X(atomic_shared, "atomic-shared", RG_EXPECT_REFUSE, NULL)

#ifdef CONFIG_X86_64
#define RG_KGUARDS_ARCH(X)						\
	X(x86_lock_xadd, "x86-lock-xadd", RG_EXPECT_REFUSE, NULL)	\
	X(x86_lock_inc, "x86-lock-inc", RG_EXPECT_GRANT, NULL)
#elif defined(CONFIG_ARM64)
#define RG_KGUARDS_ARCH(X)						\
	X(arm64_ldadd_stadd, "arm64-ldadd-stadd", RG_EXPECT_REFUSE, rg_need_lse) \
	X(arm64_ldadd_ldadd, "arm64-ldadd-ldadd", RG_EXPECT_REFUSE, rg_need_lse) \
	X(arm64_prfm_stadd, "arm64-prfm-stadd", RG_EXPECT_REFUSE, rg_need_lse) \
	X(arm64_llsc, "arm64-llsc", RG_EXPECT_REFUSE, NULL)
#else
#define RG_KGUARDS_ARCH(X)
#endif
#define RG_KGUARDS(X) RG_KGUARDS_COMMON(X) RG_KGUARDS_ARCH(X)

/* Guards of the other architecture: accepted by name, reported as skipped. */
static const char *const rg_other_arch[] = {
#ifndef CONFIG_X86_64
	"x86-lock-xadd", "x86-lock-inc",
#endif
#ifndef CONFIG_ARM64
	"arm64-ldadd-stadd", "arm64-ldadd-ldadd", "arm64-prfm-stadd", "arm64-llsc",
#endif
};

/*
 * The timed loop, one instance per guard. duty is ndelay() between pairs,
 * branched around when 0. Returns refused enters.
 */
#define RG_LOOP(id, name, expect, avail)				\
static noinline u64 rg_loop_##id(unsigned long n, unsigned int duty)	\
{									\
	unsigned long i;						\
	u64 refused = 0;						\
									\
	for (i = 0; i < n; i++) {					\
		if (likely(g_##id##_enter()))				\
			g_##id##_exit();				\
		else							\
			refused++;					\
		if (duty)						\
			ndelay(duty);					\
	}								\
	return refused;							\
}									\
static bool rg_enter_##id(void) { return g_##id##_enter(); }		\
static void rg_exit_##id(void) { g_##id##_exit(); }
RG_KGUARDS(RG_LOOP)

struct rg_kguard {
	const char *name;
	u64 (*loop)(unsigned long n, unsigned int duty);
	/* Out of line, for the hardirq test only (never in a timed loop). */
	bool (*enter)(void);
	void (*exit)(void);
	enum rg_expect expect;
	const char *(*unavailable)(void);
};

#define RG_ENTRY(id, nm, ex, av)					\
	{ .name = nm, .loop = rg_loop_##id, .enter = rg_enter_##id,	\
	  .exit = rg_exit_##id, .expect = ex, .unavailable = av },
static const struct rg_kguard rg_kguards[] = { RG_KGUARDS(RG_ENTRY) };
#define RG_NGUARDS ARRAY_SIZE(rg_kguards)

/* ------------------------------------------------------------------------ */
/* Selection                                                                 */

#define RG_MAX_SEL (ARRAY_SIZE(rg_kguards) + ARRAY_SIZE(rg_other_arch))

struct rg_sel {
	const struct rg_kguard *g;	/* NULL: skipped, see skip */
	const char *name;
	const char *skip;
};

static struct rg_sel rg_sel[RG_MAX_SEL];
static unsigned int rg_nsel;
static cpumask_var_t rg_cpus;
static unsigned int rg_ncpus;
static int rg_cpu_of[NR_CPUS > 4096 ? 4096 : NR_CPUS];	/* thread index -> CPU */

static int rg_select_guards(void)
{
	char *buf, *cur, *tok;
	unsigned int i;
	int ret = 0;

	rg_nsel = 0;
	if (!strcmp(guards, "all") || !*guards) {
		for (i = 0; i < RG_NGUARDS; i++) {
			rg_sel[rg_nsel].g = &rg_kguards[i];
			rg_sel[rg_nsel].name = rg_kguards[i].name;
			rg_sel[rg_nsel].skip = rg_kguards[i].unavailable ?
					       rg_kguards[i].unavailable() : NULL;
			rg_nsel++;
		}
		return 0;
	}
	buf = kstrdup(guards, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	cur = buf;
	while ((tok = strsep(&cur, ",")) != NULL) {
		bool found = false;

		if (!*tok)
			continue;
		if (rg_nsel == RG_MAX_SEL) {
			pr_err("too many guards in \"%s\"\n", guards);
			ret = -EINVAL;
			break;
		}
		for (i = 0; i < RG_NGUARDS && !found; i++) {
			if (strcmp(tok, rg_kguards[i].name))
				continue;
			rg_sel[rg_nsel].g = &rg_kguards[i];
			rg_sel[rg_nsel].name = rg_kguards[i].name;
			rg_sel[rg_nsel].skip = rg_kguards[i].unavailable ?
					       rg_kguards[i].unavailable() : NULL;
			found = true;
		}
		for (i = 0; i < ARRAY_SIZE(rg_other_arch) && !found; i++) {
			if (strcmp(tok, rg_other_arch[i]))
				continue;
			rg_sel[rg_nsel].g = NULL;
			rg_sel[rg_nsel].name = rg_other_arch[i];
			rg_sel[rg_nsel].skip = "not this architecture";
			found = true;
		}
		if (!found) {
			pr_err("unknown guard \"%s\"\n", tok);
			ret = -EINVAL;
			break;
		}
		for (i = 0; i < rg_nsel; i++) {
			if (rg_sel[i].name == rg_sel[rg_nsel].name) {
				pr_err("guard \"%s\" listed twice\n", tok);
				ret = -EINVAL;
				break;
			}
		}
		if (ret)
			break;
		rg_nsel++;
	}
	kfree(buf);
	return ret;
}

static int rg_select_cpus(void)
{
	unsigned int cpu;
	int ret;

	if (!strcmp(cpus, "all") || !*cpus) {
		cpumask_copy(rg_cpus, cpu_online_mask);
	} else {
		ret = cpulist_parse(cpus, rg_cpus);
		if (ret) {
			pr_err("bad cpus=\"%s\"\n", cpus);
			return ret;
		}
		if (!cpumask_subset(rg_cpus, cpu_online_mask)) {
			pr_err("cpus=\"%s\" names CPUs that are not online (online: %*pbl)\n",
			       cpus, cpumask_pr_args(cpu_online_mask));
			return -EINVAL;
		}
	}
	rg_ncpus = 0;
	for_each_cpu(cpu, rg_cpus) {
		if (rg_ncpus == ARRAY_SIZE(rg_cpu_of)) {
			pr_err("more than %zu CPUs selected\n", ARRAY_SIZE(rg_cpu_of));
			return -E2BIG;
		}
		rg_cpu_of[rg_ncpus++] = cpu;
	}
	if (!rg_ncpus) {
		pr_err("cpus=\"%s\" selects no CPU\n", cpus);
		return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Timed runs: one kthread per selected CPU, bound, starting together        */

struct rg_sample {
	u64 ns;
	u64 cycles;	/* get_cycles() delta: x86 TSC reference cycles; 0 elsewhere */
	u64 refused;
};

/* get_cycles() is the TSC on x86; on arm64 it is CNTVCT (a fixed-rate timer), not worth a column. */
#ifdef CONFIG_X86
#define RG_HAVE_CYCLES 1
#else
#define RG_HAVE_CYCLES 0
#endif

static struct rg_sample *rg_samples;	/* [sel][run][thread] */
static bool rg_have_results;
static atomic_long_t rg_arrive;
static bool rg_abort;
static struct completion rg_done;
static atomic_t rg_nrunning;

static inline struct rg_sample *rg_sample_at(unsigned int s, unsigned int r, unsigned int t)
{
	return &rg_samples[((size_t)s * runs + r) * rg_ncpus + t];
}

/* Every thread arrives; phase k ends when all have arrived k times. */
static void rg_barrier(unsigned long *phase)
{
	long want = (long)(++*phase * rg_ncpus);

	atomic_long_inc(&rg_arrive);
	while (atomic_long_read(&rg_arrive) < want && !READ_ONCE(rg_abort))
		cpu_relax();
}

/* Stay until kthread_stop(), so the task cannot go away under its creator. */
static int rg_park_until_stopped(void)
{
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

static int rg_timed_thread(void *arg)
{
	unsigned int t = (unsigned int)(uintptr_t)arg;
	unsigned long phase = 0;
	unsigned int s, r;

	for (s = 0; s < rg_nsel; s++) {
		const struct rg_kguard *g = rg_sel[s].g;

		if (!g || rg_sel[s].skip)
			continue;
		/* Untimed warm-up, then the timed runs. */
		rg_barrier(&phase);
		g->loop(loops < 1000 ? loops : 1000, duty_ns);
		for (r = 0; r < runs && !READ_ONCE(rg_abort); r++) {
			unsigned long flags = 0;
			u64 t0, t1, refused;
			cycles_t c0 = 0, c1 = 0;

			cond_resched();
			rg_barrier(&phase);
			if (irqs_off)
				local_irq_save(flags);
			if (RG_HAVE_CYCLES)
				c0 = get_cycles();
			t0 = ktime_get_mono_fast_ns();
			refused = g->loop(loops, duty_ns);
			t1 = ktime_get_mono_fast_ns();
			if (RG_HAVE_CYCLES)
				c1 = get_cycles();
			if (irqs_off)
				local_irq_restore(flags);
			rg_sample_at(s, r, t)->ns = t1 - t0;
			rg_sample_at(s, r, t)->cycles = c1 - c0;
			rg_sample_at(s, r, t)->refused = refused;
		}
	}
	if (atomic_dec_and_test(&rg_nrunning))
		complete(&rg_done);
	return rg_park_until_stopped();
}

static int rg_run_timed(void)
{
	struct task_struct **tasks;
	unsigned int t;
	int ret = 0;

	tasks = kcalloc(rg_ncpus, sizeof(*tasks), GFP_KERNEL);
	if (!tasks)
		return -ENOMEM;
	atomic_long_set(&rg_arrive, 0);
	atomic_set(&rg_nrunning, rg_ncpus);
	WRITE_ONCE(rg_abort, false);
	init_completion(&rg_done);
	for (t = 0; t < rg_ncpus; t++) {
		tasks[t] = kthread_create(rg_timed_thread, (void *)(uintptr_t)t,
					  "rg_kmod/%d", rg_cpu_of[t]);
		if (IS_ERR(tasks[t])) {
			ret = PTR_ERR(tasks[t]);
			tasks[t] = NULL;
			break;
		}
		kthread_bind(tasks[t], rg_cpu_of[t]);
	}
	if (ret) {
		for (t = 0; t < rg_ncpus; t++)
			if (tasks[t])
				kthread_stop(tasks[t]);	/* never woken: threadfn does not run */
		kfree(tasks);
		return ret;
	}
	for (t = 0; t < rg_ncpus; t++)
		wake_up_process(tasks[t]);
	if (wait_for_completion_killable(&rg_done)) {
		/* Fatal signal: let the threads leave their loops, then wait. */
		WRITE_ONCE(rg_abort, true);
		wait_for_completion(&rg_done);
		ret = -EINTR;
	}
	for (t = 0; t < rg_ncpus; t++)
		kthread_stop(tasks[t]);
	kfree(tasks);
	return ret;
}

/* ------------------------------------------------------------------------ */
/* Recursion from a real hardirq on the holder's CPU                         */

struct rg_irq_state {
	struct irq_work work;
	const struct rg_kguard *g;
	int held;		/* holder is inside the guard */
	int done;		/* handler ran for this attempt */
	/* counts, written by the handler only */
	u64 attempts, granted, refused, while_held, in_hardirq, level_hardirq;
	u64 timeouts;
	int cpu;
};

struct rg_irq_result {
	u64 attempts, granted, refused, while_held, in_hardirq, level_hardirq, timeouts;
	int cpu;
};

static struct rg_irq_result *rg_irq_results;	/* [sel] */

static void rg_irq_handler(struct irq_work *w)
{
	struct rg_irq_state *st = container_of(w, struct rg_irq_state, work);
	const struct rg_kguard *g = st->g;

	st->attempts++;
	if (READ_ONCE(st->held))
		st->while_held++;
	if (in_hardirq())
		st->in_hardirq++;
	if (rg_ctx_level() == 2)
		st->level_hardirq++;
	if (g->enter()) {
		g->exit();
		st->granted++;
	} else {
		st->refused++;
	}
	st->cpu = smp_processor_id();
	smp_store_release(&st->done, 1);
}

/* Spin with irqs enabled until the handler ran, at most 50 ms. */
static bool rg_wait_done(struct rg_irq_state *st)
{
	u64 deadline = ktime_get_mono_fast_ns() + 50 * NSEC_PER_MSEC;

	while (!smp_load_acquire(&st->done)) {
		if (ktime_get_mono_fast_ns() > deadline)
			return false;
		cpu_relax();
	}
	return true;
}

static struct rg_irq_state rg_irq_st;
static struct completion rg_irq_done;

static int rg_irq_thread(void *arg)
{
	struct rg_irq_state *st = &rg_irq_st;
	unsigned int s, i;

	(void)arg;
	for (s = 0; s < rg_nsel && !READ_ONCE(rg_abort); s++) {
		const struct rg_kguard *g = rg_sel[s].g;
		struct rg_irq_result *res = &rg_irq_results[s];

		if (!g || rg_sel[s].skip)
			continue;
		memset(st, 0, sizeof(*st));
#ifdef IRQ_WORK_INIT_HARD
		/* Run in hardirq even on PREEMPT_RT. */
		st->work = IRQ_WORK_INIT_HARD(rg_irq_handler);
#else
		init_irq_work(&st->work, rg_irq_handler);
#endif
		st->g = g;
		for (i = 0; i < irq_iters && !READ_ONCE(rg_abort); i++) {
			bool ok;

			WRITE_ONCE(st->done, 0);
			if (!g->enter()) {
				pr_warn("%s: holder refused in task context\n", g->name);
				st->timeouts++;
				break;
			}
			WRITE_ONCE(st->held, 1);
			/* Queued on this CPU; raised as a self-IPI where the arch has one. */
			irq_work_queue(&st->work);
			/* irqsave holds with irqs off: the handler cannot run until exit. */
			if (!irqs_disabled())
				rg_wait_done(st);
			WRITE_ONCE(st->held, 0);
			g->exit();
			ok = rg_wait_done(st);
			if (!ok) {
				st->timeouts++;
				irq_work_sync(&st->work);
			}
			if ((i & 63) == 63)
				cond_resched();
		}
		irq_work_sync(&st->work);
		res->attempts = st->attempts;
		res->granted = st->granted;
		res->refused = st->refused;
		res->while_held = st->while_held;
		res->in_hardirq = st->in_hardirq;
		res->level_hardirq = st->level_hardirq;
		res->timeouts = st->timeouts;
		res->cpu = smp_processor_id();
	}
	complete(&rg_irq_done);
	return rg_park_until_stopped();
}

static int rg_run_irq(void)
{
	struct task_struct *task;
	int cpu = irq_cpu >= 0 ? irq_cpu : rg_cpu_of[0];
	int ret = 0;

	if (cpu >= nr_cpu_ids || !cpu_online(cpu)) {
		pr_err("irq_cpu=%d is not online\n", cpu);
		return -EINVAL;
	}
	init_completion(&rg_irq_done);
	task = kthread_create(rg_irq_thread, NULL, "rg_kmod_irq/%d", cpu);
	if (IS_ERR(task))
		return PTR_ERR(task);
	kthread_bind(task, cpu);
	wake_up_process(task);
	if (wait_for_completion_killable(&rg_irq_done)) {
		WRITE_ONCE(rg_abort, true);
		wait_for_completion(&rg_irq_done);
		ret = -EINTR;
	}
	kthread_stop(task);
	return ret;
}

/* ------------------------------------------------------------------------ */
/* CSV                                                                       */

static const char rg_csv_header[] =
	"suite,guard,scenario,threads,cpus,cpu,run,batch,duty_ns,irqs_off,"
	"ns_total,ns_per_pair,cycles_total,ops,refusals,granted,while_held,"
	"in_hardirq,expect,status,reason\n";

static char *rg_csv;
static size_t rg_csv_len, rg_csv_cap;
static DEFINE_MUTEX(rg_lock);

static __printf(1, 2) void rg_out(const char *fmt, ...)
{
	va_list ap;
	int n;

	if (rg_csv_len >= rg_csv_cap)
		return;
	va_start(ap, fmt);
	n = vsnprintf(rg_csv + rg_csv_len, rg_csv_cap - rg_csv_len, fmt, ap);
	va_end(ap);
	rg_csv_len = min_t(size_t, rg_csv_len + n, rg_csv_cap);
}

static int rg_format(void)
{
	const char *scen = irqs_off ? "loop-irqsoff" : "loop";
	size_t rows = (size_t)rg_nsel * (runs * rg_ncpus + 2) + 4;
	unsigned int s, r, t;

	kvfree(rg_csv);
	rg_csv_len = 0;
	rg_csv_cap = rows * 320 + sizeof(rg_csv_header);
	rg_csv = kvmalloc(rg_csv_cap, GFP_KERNEL);
	if (!rg_csv)
		return -ENOMEM;
	rg_out("%s", rg_csv_header);
	for (s = 0; s < rg_nsel; s++) {
		const char *name = rg_sel[s].name;

		if (!rg_sel[s].g || rg_sel[s].skip) {
			rg_out("kmod,%s,%s,%u,\"%*pbl\",,,%lu,%u,%d,,,,0,0,,,,,skipped,\"%s\"\n",
			       name, scen, rg_ncpus, cpumask_pr_args(rg_cpus), loops,
			       duty_ns, irqs_off, rg_sel[s].skip);
			if (irq_iters)
				rg_out("kmod,%s,irq-recursion,1,,,,%u,0,0,,,,0,0,,,,,skipped,\"%s\"\n",
				       name, irq_iters, rg_sel[s].skip);
			continue;
		}
		for (r = 0; r < runs; r++) {
			for (t = 0; t < rg_ncpus; t++) {
				struct rg_sample *x = rg_sample_at(s, r, t);
				u64 milli = loops ? div64_u64(x->ns * 1000, loops) : 0;

				char cyc[24] = "";

				if (RG_HAVE_CYCLES)
					snprintf(cyc, sizeof(cyc), "%llu", x->cycles);
				rg_out("kmod,%s,%s,%u,\"%*pbl\",%d,%u,%lu,%u,%d,%llu,%llu.%03llu,%s,%lu,%llu,,,,,ok,\n",
				       name, scen, rg_ncpus, cpumask_pr_args(rg_cpus),
				       rg_cpu_of[t], r, loops, duty_ns, irqs_off,
				       x->ns, div_u64(milli, 1000), milli % 1000, cyc,
				       loops, x->refused);
			}
		}
		if (irq_iters) {
			const struct rg_irq_result *x = &rg_irq_results[s];
			enum rg_expect ex = rg_sel[s].g->expect;
			char why[160] = "";
			bool ok;

			if (x->timeouts)
				snprintf(why, sizeof(why), "%llu hardirqs never ran", x->timeouts);
			else if (x->attempts != irq_iters || x->in_hardirq != x->attempts ||
				 x->level_hardirq != x->attempts)
				snprintf(why, sizeof(why),
					 "%llu of %u attempts ran, %llu in hardirq, %llu at level 2",
					 x->attempts, irq_iters, x->in_hardirq, x->level_hardirq);
			else if (ex == RG_EXPECT_REFUSE &&
				 (x->refused != x->attempts || x->while_held != x->attempts))
				snprintf(why, sizeof(why),
					 "expected every re-entry refused: %llu refused, %llu while held",
					 x->refused, x->while_held);
			else if (ex == RG_EXPECT_GRANT &&
				 (x->granted != x->attempts || x->while_held != x->attempts))
				snprintf(why, sizeof(why),
					 "expected every re-entry granted: %llu granted, %llu while held",
					 x->granted, x->while_held);
			else if (ex == RG_EXPECT_DEFER &&
				 (x->while_held != 0 || x->granted != x->attempts))
				snprintf(why, sizeof(why),
					 "expected the hardirq deferred to exit: %llu while held, %llu granted",
					 x->while_held, x->granted);
			ok = !why[0];
			rg_out("kmod,%s,%s,1,\"%d\",%d,0,%u,0,0,,,,%llu,%llu,%llu,%llu,%llu,%s,%s,\"%s\"\n",
			       name, x->while_held ? "irq-recursion" : "irq-deferred",
			       x->cpu, x->cpu, irq_iters, x->attempts, x->refused,
			       x->granted, x->while_held, x->in_hardirq,
			       rg_expect_name[ex], ok ? "ok" : "error", why);
		}
	}
	if (rg_csv_len >= rg_csv_cap) {
		pr_err("result buffer too small\n");
		return -ENOSPC;
	}
	return 0;
}

static int rg_run_all(void)
{
	int ret;

	kvfree(rg_samples);
	rg_samples = kvcalloc((size_t)rg_nsel * runs * rg_ncpus, sizeof(*rg_samples),
			      GFP_KERNEL);
	kfree(rg_irq_results);
	rg_irq_results = kcalloc(rg_nsel, sizeof(*rg_irq_results), GFP_KERNEL);
	if ((!rg_samples && runs) || !rg_irq_results)
		return -ENOMEM;
	rg_have_results = false;
	pr_info("run: %u guards, cpus %*pbl, loops=%lu runs=%u duty_ns=%u irqs_off=%d irq_iters=%u\n",
		rg_nsel, cpumask_pr_args(rg_cpus), loops, runs, duty_ns, irqs_off, irq_iters);
	ret = rg_run_timed();
	if (!ret && irq_iters)
		ret = rg_run_irq();
	if (!ret)
		ret = rg_format();
	if (!ret) {
		rg_have_results = true;
		pr_info("run: done, %zu bytes of CSV\n", rg_csv_len);
	}
	return ret;
}

/* ------------------------------------------------------------------------ */
/* debugfs: run (write to start, blocks until done), results, guards         */

static struct dentry *rg_dir;

static ssize_t rg_run_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	int ret;

	if (mutex_lock_interruptible(&rg_lock))
		return -EINTR;
	ret = rg_run_all();
	mutex_unlock(&rg_lock);
	return ret ? ret : count;
}

static const struct file_operations rg_run_fops = {
	.owner = THIS_MODULE,
	.write = rg_run_write,
	.llseek = noop_llseek,
};

static ssize_t rg_results_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	ssize_t ret;

	if (mutex_lock_interruptible(&rg_lock))
		return -EINTR;
	if (!rg_have_results)
		ret = -ENODATA;
	else
		ret = simple_read_from_buffer(ubuf, count, ppos, rg_csv, rg_csv_len);
	mutex_unlock(&rg_lock);
	return ret;
}

static const struct file_operations rg_results_fops = {
	.owner = THIS_MODULE,
	.read = rg_results_read,
	.llseek = default_llseek,
};

static int rg_guards_show(struct seq_file *m, void *v)
{
	unsigned int i;

	seq_puts(m, "guard,available,expect,reason\n");
	for (i = 0; i < RG_NGUARDS; i++) {
		const char *why = rg_kguards[i].unavailable ? rg_kguards[i].unavailable() : NULL;

		seq_printf(m, "%s,%d,%s,%s\n", rg_kguards[i].name, !why,
			   rg_expect_name[rg_kguards[i].expect], why ? why : "");
	}
	for (i = 0; i < ARRAY_SIZE(rg_other_arch); i++)
		seq_printf(m, "%s,0,,not this architecture\n", rg_other_arch[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rg_guards);

static int __init rg_init(void)
{
	int ret;

	if (!loops || !runs) {
		pr_err("loops and runs must be at least 1\n");
		return -EINVAL;
	}
	if (!zalloc_cpumask_var(&rg_cpus, GFP_KERNEL))
		return -ENOMEM;
	ret = rg_select_guards();
	if (!ret)
		ret = rg_select_cpus();
	if (ret)
		goto fail;
	rg_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR_OR_NULL(rg_dir)) {
		pr_err("debugfs unavailable\n");
		ret = rg_dir ? PTR_ERR(rg_dir) : -ENODEV;
		goto fail;
	}
	debugfs_create_file("run", 0200, rg_dir, NULL, &rg_run_fops);
	debugfs_create_file("results", 0400, rg_dir, NULL, &rg_results_fops);
	debugfs_create_file("guards", 0444, rg_dir, NULL, &rg_guards_fops);
	pr_info("loaded: %u guards selected, %u CPUs (%*pbl)\n", rg_nsel, rg_ncpus,
		cpumask_pr_args(rg_cpus));
	return 0;
fail:
	free_cpumask_var(rg_cpus);
	return ret;
}

static void __exit rg_exit(void)
{
	debugfs_remove_recursive(rg_dir);
	kvfree(rg_csv);
	kvfree(rg_samples);
	kfree(rg_irq_results);
	free_cpumask_var(rg_cpus);
}

module_init(rg_init);
module_exit(rg_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rgbench: per-CPU recursion guards measured in kernel context");
