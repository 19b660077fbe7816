// SPDX-License-Identifier: GPL-2.0
/*
 * rgbench_kmod: per-CPU recursion guards measured in kernel context (ns per
 * enter/exit pair, refscale-style kthreads, interrupts off, guards interleaved
 * round by round) and tested for re-entry from a real softirq, hardirq and
 * (x86) NMI on the same CPU; results as CSV rows in debugfs.
 *
 * Usage (see docs/kmod.md):
 *   insmod rgbench_kmod.ko guards=all cpus=0-3 loops=100000 runs=5
 *   echo 1 > /sys/kernel/debug/rgbench_kmod/run       (blocks until done)
 *   cat /sys/kernel/debug/rgbench_kmod/results        (CSV, one row per run and CPU)
 *   rmmod rgbench_kmod
 *
 * Every guard is a pair of __always_inline functions with the user suite's
 * contract (guards/include/rg/guard.h): enter() returns true (granted) or
 * false (refused), and exit(granted) is called after EVERY enter with
 * enter's result, as __bpf_prog_exit_recur() always does this_cpu_dec();
 * counter guards always undo. The timed loop is instantiated once per guard
 * (RG_LOOP below), so it contains the guard's instructions and nothing
 * called through a pointer.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/debugfs.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/irqflags.h>
#include <linux/irq_work.h>
#include <linux/interrupt.h>
#include <linux/kernel_stat.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/topology.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/uaccess.h>
#include <linux/timekeeping.h>
#include <linux/jiffies.h>
#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/version.h>
#include <linux/timex.h>
#include <asm/local.h>
#ifdef CONFIG_ARM64
#include <asm/cpufeature.h>
#endif
#ifdef CONFIG_X86_64
#include <asm/apic.h>
#include <asm/nmi.h>
#include <asm/hardirq.h>
#endif

/* ------------------------------------------------------------------------ */
/* Parameters                                                                */

static char *guards = "all";
module_param(guards, charp, 0444);
MODULE_PARM_DESC(guards, "comma-separated guard names, or \"all\" (default)");

static char *cpus = "all";
module_param(cpus, charp, 0444);
MODULE_PARM_DESC(cpus, "CPU list for the timed kthreads, e.g. 0-3,8 (default: all online)");

static uint threads;
module_param(threads, uint, 0444);
MODULE_PARM_DESC(threads, "kthreads: the first N of the chosen CPUs (default 0: all of them)");

static bool siblings;
module_param(siblings, bool, 0444);
MODULE_PARM_DESC(siblings, "also run on SMT siblings (default N: one kthread per physical core)");

static ulong loops = 100000;
module_param(loops, ulong, 0444);
MODULE_PARM_DESC(loops, "enter/exit pairs per timed run (default 100000)");

static ulong run_ns;
module_param(run_ns, ulong, 0444);
MODULE_PARM_DESC(run_ns, "if set: size each guard's runs to about this many ns (overrides loops)");

static uint runs = 5;
module_param(runs, uint, 0444);
MODULE_PARM_DESC(runs, "rounds: timed runs per guard (default 5), after one untimed warm-up round");

static uint duty_ns;
module_param(duty_ns, uint, 0444);
MODULE_PARM_DESC(duty_ns, "work per traced call, ns, calibrated to work units (default 0: back to back)");

static int duty_in_ns = -1;
module_param(duty_in_ns, int, 0444);
MODULE_PARM_DESC(duty_in_ns, "ns of duty_ns inside the guarded region (default -1: duty_ns / 2)");

static bool irqs_on;
module_param(irqs_on, bool, 0444);
MODULE_PARM_DESC(irqs_on, "leave interrupts on in the timed runs (default N: off)");

static uint retries = 3;
module_param(retries, uint, 0444);
MODULE_PARM_DESC(retries, "times a disturbed run is discarded and re-run (default 3)");

static uint irq_iters = 1000;
module_param(irq_iters, uint, 0444);
MODULE_PARM_DESC(irq_iters, "re-entry attempts per guard and context (0: skip those tests; default 1000)");

static int irq_cpu = -1;
module_param(irq_cpu, int, 0444);
MODULE_PARM_DESC(irq_cpu, "CPU for the re-entry tests (default: first selected CPU)");

static bool nmi = true;
module_param(nmi, bool, 0444);
MODULE_PARM_DESC(nmi, "x86: also re-enter from a self-NMI (default Y)");

/* ------------------------------------------------------------------------ */
/* The guards                                                                */

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
 * Protects nothing: every re-entry is granted.
 */
static __always_inline bool g_noop_enter(void) { barrier(); return true; }
static __always_inline void g_noop_exit(bool ok) { barrier(); }

/*
 * this_cpu: the pre-change BPF guard exactly as this kernel compiles it:
 *   enter: this_cpu_inc_return(c) == 1;   exit: this_cpu_dec(c), always.
 * x86: xadd %gs: / decl %gs: (user name pcpu-xadd). arm64: each op is
 * preempt_disable_notrace(); LSE op on raw_cpu_ptr(); preempt_enable_notrace()
 * (patched from LL/SC at boot), with STADD as the exit before 6.18 and LDADD
 * to an unused register since 6.18: the user suite's pcpu-stadd-kernel or
 * pcpu-ldadd-kernel. The kthread is bound, as BPF runs with migration off.
 */
static __always_inline bool g_this_cpu_enter(void)
{
	struct rg_slot __percpu *active = READ_ONCE(rg_prog[RG_S_THIS_CPU].active);

	return this_cpu_inc_return(active->v) == 1;
}
static __always_inline void g_this_cpu_exit(bool ok)
{
	struct rg_slot __percpu *active = READ_ONCE(rg_prog[RG_S_THIS_CPU].active);

	this_cpu_dec(active->v);
}

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
static __always_inline bool g_rctx_enter(void)
{
	u8 rctx = rg_ctx_level();
	struct rg_slot *s = this_cpu_ptr(READ_ONCE(rg_prog[RG_S_RCTX].active));
	u32 val;

	preempt_disable();
	s->active[rctx]++;
	barrier();			/* the byte store before the word load */
	val = le32_to_cpu((__force __le32)READ_ONCE(s->u));
	preempt_enable();
	return val == BIT(rctx * 8);
}
static __always_inline void g_rctx_exit(bool ok)
{
	u8 rctx = rg_ctx_level();
	struct rg_slot *s = this_cpu_ptr(READ_ONCE(rg_prog[RG_S_RCTX].active));

	preempt_disable();
	s->active[rctx]--;
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
 * this_cpu above (pcpu-stadd-kernel before 6.18, pcpu-ldadd-kernel since).
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

#define RG_A64_GUARD(name, in_op, out_op)				\
static __always_inline bool g_##name##_enter(void)			\
{ return in_op(rg_a64_slot()); }					\
static __always_inline void g_##name##_exit(bool ok)			\
{ out_op(rg_a64_slot(), (u32)-1); }					\
static __always_inline bool g_##name##_kernel_enter(void)		\
{									\
	bool ok;							\
									\
	preempt_disable_notrace();					\
	ok = in_op(rg_a64_slot());					\
	preempt_enable_notrace();					\
	return ok;							\
}									\
static __always_inline void g_##name##_kernel_exit(bool ok)		\
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

/*
 * What a re-entry on the same CPU gets while the guard is held:
 *   CHECK   refused at every level (a counter with a check)
 *   COUNTER granted at every level (no check: noop and the plain counters)
 *   IRQOFF  softirq and hardirq wait until exit (then granted); NMI refused
 */
enum rg_kind { RG_CHECK, RG_COUNTER, RG_IRQOFF };
static const char *const rg_kind_name[] = { "refuse", "grant", "defer" };

/*
 * RG_KGUARDS(X): X(id, "name", "role", kind, availability check or NULL).
 * Names are the user suite's where the instruction sequence is the same;
 * role is guards.def's for the same name (rgbench kmod takes it from the
 * registry; tests/kmod checks they agree), n/a for module-only guards. Order is
 * the output order. The list is the module's own, not guards.def's (why:
 * docs/guards.md, "In the kernel module"); the test guards.kmod_list checks it
 * against guards.def's roles and the guard tables of docs/kmod.md and
 * docs/guards.md.
 */
#ifdef CONFIG_X86_64
#define RG_THIS_CPU(X) X(this_cpu, "pcpu-xadd", "this-cpu-pre-6.18;this-cpu-6.18", RG_CHECK, NULL)
#elif defined(CONFIG_ARM64) && LINUX_VERSION_CODE >= KERNEL_VERSION(6, 18, 0)
#define RG_THIS_CPU(X) X(this_cpu, "pcpu-ldadd-kernel", "this-cpu-6.18", RG_CHECK, rg_need_lse)
#elif defined(CONFIG_ARM64)
#define RG_THIS_CPU(X) X(this_cpu, "pcpu-stadd-kernel", "this-cpu-pre-6.18", RG_CHECK, rg_need_lse)
#else
#define RG_THIS_CPU(X) X(this_cpu, "this-cpu-inc-return", "n/a", RG_CHECK, NULL)
#endif

#define RG_KGUARDS_COMMON(X)						\
	X(noop, "noop", "harness-floor", RG_COUNTER, NULL)		\
	RG_THIS_CPU(X)							\
	X(this_cpu_inc, "this-cpu-inc", "n/a", RG_COUNTER, NULL)	\
	X(rctx, "rctx-kernel", "merged-rctx", RG_CHECK, NULL)		\
	X(rctx_word, "rctx-word", "rctx-word", RG_CHECK, NULL)	\
	X(preempt_raw, "preempt-raw", "n/a", RG_CHECK, NULL)		\
	X(irqsave, "irqsave", "n/a", RG_IRQOFF, NULL)			\
	X(local_t, "local-t", "n/a", RG_CHECK, NULL)			\
	X(global_atomic, "global-atomic", "shared-atomic", RG_CHECK, NULL)

#ifdef CONFIG_X86_64
#define RG_KGUARDS_ARCH(X)						\
	X(pcpu_lock_xadd, "pcpu-lock-xadd", "pcpu-atomic", RG_CHECK, NULL) \
	X(pcpu_lock_inc, "pcpu-lock-inc", "n/a", RG_COUNTER, NULL)
#elif defined(CONFIG_ARM64)
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 18, 0)
#define RG_A64_KERNEL_EXIT(X)						\
	X(pcpu_stadd_kernel, "pcpu-stadd-kernel", "this-cpu-pre-6.18", RG_CHECK, rg_need_lse)
#else
#define RG_A64_KERNEL_EXIT(X)						\
	X(pcpu_ldadd_kernel, "pcpu-ldadd-kernel", "this-cpu-6.18", RG_CHECK, rg_need_lse)
#endif
#define RG_KGUARDS_ARCH(X)						\
	RG_A64_KERNEL_EXIT(X)						\
	X(pcpu_prfm_stadd_kernel, "pcpu-prfm-stadd-kernel", "this-cpu-prfm-stadd", RG_CHECK, rg_need_lse) \
	X(pcpu_ldadd_llsc_kernel, "pcpu-ldadd-llsc-kernel", "this-cpu-ldadd-llsc", RG_CHECK, rg_need_lse) \
	X(pcpu_llsc_kernel, "pcpu-llsc-kernel", "this-cpu-llsc", RG_CHECK, NULL) \
	X(pcpu_stadd, "pcpu-stadd", "n/a", RG_CHECK, rg_need_lse) \
	X(pcpu_ldadd, "pcpu-ldadd", "pcpu-atomic", RG_CHECK, rg_need_lse) \
	X(pcpu_prfm_stadd, "pcpu-prfm-stadd", "n/a", RG_CHECK, rg_need_lse) \
	X(pcpu_ldadd_llsc, "pcpu-ldadd-llsc", "n/a", RG_CHECK, rg_need_lse) \
	X(pcpu_llsc, "pcpu-llsc", "n/a", RG_CHECK, NULL)
#else
#define RG_KGUARDS_ARCH(X)
#endif
#define RG_KGUARDS(X) RG_KGUARDS_COMMON(X) RG_KGUARDS_ARCH(X)

/* Guards of the other architecture: accepted by name, reported as skipped. */
static const char *const rg_other_arch[] = {
#ifndef CONFIG_X86_64
	"pcpu-xadd", "pcpu-lock-xadd", "pcpu-lock-inc",
#endif
#ifndef CONFIG_ARM64
	"pcpu-stadd-kernel", "pcpu-ldadd-kernel", "pcpu-prfm-stadd-kernel",
	"pcpu-ldadd-llsc-kernel", "pcpu-llsc-kernel", "pcpu-stadd", "pcpu-ldadd",
	"pcpu-prfm-stadd", "pcpu-ldadd-llsc", "pcpu-llsc",
#endif
};

/* One unit of duty work: a multiply-add on a loop-carried value (rg_work_chain() of rg/loops.h). */
static __always_inline u64 rg_work(u64 x, u32 units)
{
	u32 i;

	for (i = 0; i < units; i++) {
		asm volatile("" : "+r" (x));
		x = x * 0x9e3779b97f4a7c15ull + 1;
	}
	return x;
}

/*
 * The timed loops, one instance per guard, the user suite's shapes:
 *   pair: n enter/exit pairs back to back; returns refused enters.
 *   duty: a traced call through a trampoline, as the user suite's
 *         rg_loop_duty_*: ok = enter(); if (ok) in units; exit(ok); out
 *         units. The units are one chain x carried from call to call (and
 *         from run to run through *carry) that the guard neither feeds nor
 *         reads: ok only steers a predicted branch.
 */
#define RG_LOOP(id, name, role, kind, avail)				\
static noinline u64 rg_pair_##id(u64 n)					\
{									\
	u64 i, refused = 0;						\
									\
	for (i = 0; i < n; i++) {					\
		bool ok = g_##id##_enter();				\
									\
		refused += !ok;						\
		g_##id##_exit(ok);					\
	}								\
	return refused;							\
}									\
static noinline u64 rg_duty_##id(u64 n, u32 in, u32 out, u64 *carry) \
{									\
	u64 i, refused = 0, x = *carry;					\
									\
	for (i = 0; i < n; i++) {					\
		bool ok = g_##id##_enter();				\
									\
		if (likely(ok))						\
			x = rg_work(x, in);				\
		else							\
			refused++;					\
		g_##id##_exit(ok);					\
		x = rg_work(x, out);					\
	}								\
	*carry = x;							\
	return refused;							\
}									\
static bool rg_enter_##id(void) { return g_##id##_enter(); }		\
static void rg_exit_##id(bool ok) { g_##id##_exit(ok); }
RG_KGUARDS(RG_LOOP)

struct rg_kguard {
	const char *name, *role;
	u64 (*pair)(u64 n);
	u64 (*duty)(u64 n, u32 in, u32 out, u64 *carry);
	/* Out of line, for the re-entry tests only (never in a timed loop). */
	bool (*enter)(void);
	void (*exit)(bool ok);
	enum rg_kind kind;
	const char *(*unavailable)(void);
};

#define RG_ENTRY(id, nm, rl, kd, av)					\
	{ .name = nm, .role = rl, .pair = rg_pair_##id, .duty = rg_duty_##id, \
	  .enter = rg_enter_##id, .exit = rg_exit_##id, .kind = kd,	\
	  .unavailable = av },
static const struct rg_kguard rg_kguards[] = { RG_KGUARDS(RG_ENTRY) };
#define RG_NGUARDS ARRAY_SIZE(rg_kguards)

/*
 * The cycle reference (the user suite's bench/refloop.c): n iterations of 16
 * dependent adds of 1 to one register, one cycle each, so its ns per add per
 * round shows how fast the core ran in that round. No call inside.
 *   x86-64: add $1, %reg (x16); dec; jnz     arm64: add x, x, #1 (x16); subs; b.ne
 */
#define RG_REF_ADDS 16
static noinline u64 rg_ref_pair(u64 n)
{
	u64 x = 0;

	if (!n)
		return 0;
#ifdef CONFIG_X86
	asm volatile("1:\n\t.rept 16\n\tadd $1, %0\n\t.endr\n\tdec %1\n\tjnz 1b"
		     : "+r" (x), "+r" (n) : : "cc");
#else
	asm volatile("1:\n\t.rept 16\n\tadd %0, %0, #1\n\t.endr\n\tsubs %1, %1, #1\n\tb.ne 1b"
		     : "+r" (x), "+r" (n) : : "cc");
#endif
	return x & 0;	/* refused: none */
}
static u64 rg_ref_duty(u64 n, u32 in, u32 out, u64 *carry) { return rg_ref_pair(n); }
static const struct rg_kguard rg_ref_kguard = {
	.name = "cycle-ref", .role = "n/a", .pair = rg_ref_pair, .duty = rg_ref_duty,
};

/* Every slot back at 0 on cpu (a balanced sequence leaves nothing held). */
static bool rg_slots_idle(int cpu)
{
	unsigned int i;

	for (i = 0; i < RG_S__COUNT; i++)
		if (local_read(&per_cpu_ptr(&rg_s[i], cpu)->l))	/* covers v/u/active[] */
			return false;
	return true;
}

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

/*
 * Why guard s has no timed rows, or NULL. Besides a skipped guard: irqsave in
 * the default loop-irqsoff scenario, where interrupts are already off, so
 * local_irq_restore() restores "off" and never executes the irq-enable (x86
 * sti, arm64 msr daifclr): the loop would time half the guard under its name.
 * Its re-entry rows still run (they hold it with interrupts on).
 */
static const char *rg_timed_skip(unsigned int s)
{
	if (rg_sel[s].skip)
		return rg_sel[s].skip;
	if (rg_sel[s].g && rg_sel[s].g->kind == RG_IRQOFF && !irqs_on)
		return "interrupts already off in loop-irqsoff: local_irq_restore() would never "
		       "execute the irq-enable; timed only with --irqs-on";
	return NULL;
}
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

/*
 * The kthreads' CPUs: the selected online CPUs, one per physical core unless
 * siblings=Y (the first selected CPU of each topology_sibling_cpumask()),
 * then the first `threads` of them.
 */
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
	if (!siblings) {
		for_each_cpu(cpu, rg_cpus)
			if (cpumask_first_and(topology_sibling_cpumask(cpu), rg_cpus) != cpu)
				cpumask_clear_cpu(cpu, rg_cpus);
	}
	rg_ncpus = 0;
	for_each_cpu(cpu, rg_cpus) {
		if (threads && rg_ncpus == threads) {
			cpumask_clear_cpu(cpu, rg_cpus);
			continue;
		}
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
	if (threads > rg_ncpus) {
		pr_err("threads=%u but only %u CPUs (%s) selected\n", threads, rg_ncpus,
		       siblings ? "with siblings" : "one per physical core");
		return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Timed runs: one kthread per core, guards interleaved round by round      */

struct rg_sample {
	u64 ns;
	u64 cycles;	/* get_cycles() delta: x86 TSC reference cycles; 0 elsewhere */
	u64 refused;
	u64 loops;
	bool disturbed;	/* kept after `retries` disturbed attempts */
};

/* get_cycles() is the TSC on x86; on arm64 it is CNTVCT (a fixed-rate timer), not worth a column. */
#ifdef CONFIG_X86
#define RG_HAVE_CYCLES 1
#else
#define RG_HAVE_CYCLES 0
#endif

static struct rg_sample *rg_samples;	/* [sel][run][thread] */
static u16 *rg_order;			/* [run][k]: guard index, shuffled per round */
static unsigned int rg_nrun_sel;	/* guards that run */
static u64 *rg_loops_of;		/* [sel]: pairs per timed run */
static u32 *rg_discarded;		/* [sel]: runs discarded as disturbed */
static bool *rg_dist;			/* [thread]: this attempt was disturbed */
static struct rg_sample *rg_ref;	/* [run][thread]: the cycle reference */
static u16 *rg_ref_pos;			/* [run]: its place among the round's guards */
static u64 rg_ref_loops;		/* its iterations (RG_REF_ADDS adds each) per run */
static u32 rg_ref_discarded;
static u32 rg_units_in, rg_units_out;	/* duty work units per call: inside, after exit */
static bool rg_have_results;
static atomic_long_t rg_arrive;
static bool rg_abort;
static struct completion rg_done;
static atomic_t rg_nrunning;

static inline struct rg_sample *rg_sample_at(unsigned int s, unsigned int r, unsigned int t)
{
	return &rg_samples[((size_t)s * runs + r) * rg_ncpus + t];
}

/*
 * Every thread arrives; phase k ends when all have arrived k times. The
 * full barriers order each thread's writes before its arrival with the
 * other threads' reads after they see everyone arrived.
 */
static void rg_barrier(unsigned long *phase)
{
	long want = (long)(++*phase * rg_ncpus);

	smp_mb__before_atomic();
	atomic_long_inc(&rg_arrive);
	while (atomic_long_read(&rg_arrive) < want && !READ_ONCE(rg_abort))
		cpu_relax();
	smp_mb();
}

/*
 * Events that mean something other than the guard ran on this CPU during a
 * timed run: every interrupt the kernel counts per CPU (kstat irqs_sum: all
 * irq_desc interrupts, on arm64 the timer and IPIs too; softirqs run), on x86
 * also the system vectors counted in irq_stat (local APIC timer, IPIs,
 * irq_work, NMIs), and context switches of this task. With interrupts off
 * only an NMI can land, and only x86 counts those (arm64 pseudo-NMIs are not
 * counted anywhere a module can read).
 */
static u64 rg_cpu_events(int cpu)
{
	const struct kernel_stat *ks = &kstat_cpu(cpu);
	u64 n = ks->irqs_sum;
	unsigned int i;

	for (i = 0; i < NR_SOFTIRQS; i++)
		n += ks->softirqs[i];
#ifdef CONFIG_X86
	{
		const irq_cpustat_t *st = &per_cpu(irq_stat, cpu);

		n += st->__nmi_count + st->x86_platform_ipis + st->apic_perf_irqs +
		     st->apic_irq_work_irqs + st->irq_tlb_count;
#ifdef CONFIG_X86_LOCAL_APIC
		n += st->apic_timer_irqs + st->irq_spurious_count;
#endif
#ifdef CONFIG_SMP
		n += st->irq_resched_count + st->irq_call_count;
#endif
	}
#endif
	return n + current->nvcsw + current->nivcsw;
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

/* One timed run of guard g on this CPU. */
static void rg_timed_run(const struct rg_kguard *g, u64 n, int cpu, u64 *carry,
			 struct rg_sample *out)
{
	unsigned long flags = 0;
	u64 t0, t1, e0, e1, refused;
	cycles_t c0 = 0, c1 = 0;

	if (!irqs_on)
		local_irq_save(flags);
	e0 = rg_cpu_events(cpu);
	if (RG_HAVE_CYCLES)
		c0 = get_cycles();
	t0 = ktime_get_mono_fast_ns();
	refused = duty_ns ? g->duty(n, rg_units_in, rg_units_out, carry) : g->pair(n);
	t1 = ktime_get_mono_fast_ns();
	if (RG_HAVE_CYCLES)
		c1 = get_cycles();
	e1 = rg_cpu_events(cpu);
	if (!irqs_on)
		local_irq_restore(flags);
	out->ns = t1 - t0;
	out->cycles = c1 - c0;
	out->refused = refused;
	out->loops = n;
	out->disturbed = e1 != e0;
}

/* ns of duty_ns inside the guarded region: duty_in_ns, or half of duty_ns (rg_cl_duty_list's default). */
static u32 rg_duty_in(void)
{
	return duty_in_ns >= 0 ? min_t(u32, duty_in_ns, duty_ns) : duty_ns / 2;
}

/*
 * ps per unit of work at one place: the noop loop with `in`, `out` units minus with
 * none, each the fastest of RG_CAL_TRIES interleaved runs. A stall inflates a run
 * and never shortens one (a vCPU descheduled on a busy host: one stalled run
 * without units made b <= a, 1 ps per unit, and a million units per call, so that
 * a fixed --loops run held interrupts off for hours); the minimum is the clean
 * figure.
 */
#define RG_CAL_TRIES 5
#define RG_MIN_UNIT_PS 100
static u64 rg_unit_ps(int cpu, u32 in, u32 out)
{
	const struct rg_kguard *g = &rg_kguards[0];	/* noop */
	struct rg_sample x;
	u64 carry = 1, a = U64_MAX, b = U64_MAX;
	int i;

	for (i = 0; i < RG_CAL_TRIES; i++) {
		rg_units_in = rg_units_out = 0;
		rg_timed_run(g, 20000, cpu, &carry, &x);
		a = min(a, x.ns);
		rg_units_in = in;
		rg_units_out = out;
		rg_timed_run(g, 20000, cpu, &carry, &x);
		b = min(b, x.ns);
		cond_resched();
	}
	rg_units_in = rg_units_out = 0;
	/*
	 * ps per unit = (b - a) ns * 1000 / (20000 * 64), never below RG_MIN_UNIT_PS:
	 * a unit is one dependent 64-bit multiply-add, two cycles or more on the CPUs
	 * we know (hundreds of ps), so a smaller figure is a bad measurement, and it
	 * would multiply the work of every call.
	 */
	return max_t(u64, b > a ? div64_u64((b - a) * 1000, 20000ull * 64) : 0, RG_MIN_UNIT_PS);
}

/* Units for ns at ps per unit: at least one when ns is not 0 (as the user suite's calibration). */
static u32 rg_units_for(u32 ns, u64 ps)
{
	return ns ? (u32)clamp_t(u64, div64_u64((u64)ns * 1000, ps), 1, 1u << 20) : 0;
}

/*
 * Duty work units for both parts, each calibrated where it runs: inside the
 * region and after it, after one untimed pass over both (a cold loop, or an
 * emulator translating it, would count as work).
 */
static void rg_calibrate_units(int cpu)
{
	u32 in_ns = rg_duty_in();
	u64 in_ps, out_ps;

	rg_unit_ps(cpu, 64, 64);
	in_ps = rg_unit_ps(cpu, 64, 0);
	out_ps = rg_unit_ps(cpu, 0, 64);
	rg_units_in = rg_units_for(in_ns, in_ps);
	rg_units_out = rg_units_for(duty_ns - in_ns, out_ps);
}

/*
 * Untimed warm-up of g. With run_ns, each thread doubles its run until it
 * takes an eighth of run_ns; thread 0's rate sizes the runs. Pairs per run.
 * The doubling also ends after a second of jiffies, and yields between runs:
 * if the clock the runs read stood still with interrupts off, it would
 * otherwise go on to 2^30 pairs on a CPU that never schedules.
 */
static u64 rg_warm_up(const struct rg_kguard *g, int cpu, u64 *carry, unsigned long *phase)
{
	unsigned long until = jiffies + HZ;
	struct rg_sample w;
	u64 n = loops < 1000 ? loops : 1000;

	rg_barrier(phase);
	rg_timed_run(g, n, cpu, carry, &w);
	while (run_ns && w.ns < run_ns / 8 && n < (1ull << 30) && time_before(jiffies, until)) {
		cond_resched();
		n *= 2;
		rg_timed_run(g, n, cpu, carry, &w);
	}
	if (run_ns)	/* once more at that size: the rate once warm */
		rg_timed_run(g, n, cpu, carry, &w);
	return run_ns ? clamp_t(u64, div64_u64((u64)run_ns * w.loops, max_t(u64, w.ns, 1)),
				100, 1ull << 32) : loops;
}

/* One timed run of g on every thread, retried while any thread was disturbed. */
static void rg_round_run(const struct rg_kguard *g, const u64 *n, int cpu, unsigned int t,
			 u64 *carry, unsigned long *phase, u32 *discarded, struct rg_sample *x)
{
	unsigned int a, i;

	for (a = 0; a <= retries; a++) {
		bool any = false;

		cond_resched();
		rg_barrier(phase);
		rg_timed_run(g, READ_ONCE(*n), cpu, carry, x);	/* set by thread 0 */
		WRITE_ONCE(rg_dist[t], x->disturbed);
		rg_barrier(phase);
		for (i = 0; i < rg_ncpus; i++)
			any |= READ_ONCE(rg_dist[i]);
		x->disturbed = any;
		if (!any || a == retries)
			break;
		if (t == 0)
			(*discarded)++;
	}
}

static int rg_timed_thread(void *arg)
{
	unsigned int t = (unsigned int)(uintptr_t)arg;
	int cpu = rg_cpu_of[t];
	unsigned long phase = 0;
	unsigned int s, r, k;
	u64 carry = t + 1, n;

	if (t == 0 && duty_ns)
		rg_calibrate_units(cpu);
	/* Untimed warm-up round: the guards, then the cycle reference. */
	for (s = 0; s < rg_nsel; s++) {
		if (!rg_sel[s].g || rg_timed_skip(s))
			continue;
		n = rg_warm_up(rg_sel[s].g, cpu, &carry, &phase);
		if (t == 0)
			rg_loops_of[s] = n;
	}
	n = rg_warm_up(&rg_ref_kguard, cpu, &carry, &phase);
	if (t == 0)
		rg_ref_loops = n;
	/* Each round: its guards in their shuffled order, the reference at rg_ref_pos[r]. */
	for (r = 0; r < runs && !READ_ONCE(rg_abort); r++) {
		for (k = 0; k <= rg_nrun_sel && !READ_ONCE(rg_abort); k++) {
			if (k == rg_ref_pos[r]) {
				rg_round_run(&rg_ref_kguard, &rg_ref_loops, cpu, t, &carry,
					     &phase, &rg_ref_discarded, &rg_ref[r * rg_ncpus + t]);
				continue;
			}
			s = rg_order[r * rg_nrun_sel + k - (k > rg_ref_pos[r])];
			rg_round_run(rg_sel[s].g, &rg_loops_of[s], cpu, t, &carry, &phase,
				     &rg_discarded[s], rg_sample_at(s, r, t));
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

/* The guards that run, in a fresh random order for every round, the cycle reference among them. */
static void rg_shuffle(void)
{
	unsigned int r, k, s, n = 0;
	u16 *o;

	for (s = 0; s < rg_nsel; s++)
		if (rg_sel[s].g && !rg_timed_skip(s))
			n++;
	rg_nrun_sel = n;
	for (r = 0; r < runs; r++) {
		o = &rg_order[r * n];
		k = 0;
		for (s = 0; s < rg_nsel; s++)
			if (rg_sel[s].g && !rg_timed_skip(s))
				o[k++] = s;
		for (k = n; k > 1; k--) {
			unsigned int j = get_random_u32() % k;

			swap(o[k - 1], o[j]);
		}
		rg_ref_pos[r] = get_random_u32() % (n + 1);
	}
}

/* ------------------------------------------------------------------------ */
/* Re-entry from softirq, hardirq and NMI on the holder's CPU                */

/*
 * Modes (what holds the guard, what tries to re-enter it, at which level):
 *   IRQ          task (0) holds; a hard irq_work handler (2) tries
 *   SOFTIRQ      task (0) holds; a hard irq_work schedules a HI tasklet, which
 *                runs at that interrupt's exit, in softirq (1), and tries
 *   SOFTIRQ_IRQ  that tasklet (1) holds and raises a second irq_work (2),
 *                which tries: two levels besides task context, nested
 *   NMI          task (0) holds; a self-NMI (3) tries (x86: APIC NMI IPI)
 */
enum { RG_M_IRQ, RG_M_SOFTIRQ, RG_M_SOFTIRQ_IRQ, RG_M_NMI, RG_M__COUNT };
static const char *const rg_mode_name[RG_M__COUNT] = { "irq", "softirq", "softirq-irq", "nmi" };
static const int rg_mode_level[RG_M__COUNT] = { 2, 1, 2, 3 };

struct rg_re_result {
	u64 attempts, granted, refused, while_held, at_level, timeouts, holder_refused;
	bool idle;		/* every slot back at 0 afterwards */
	const char *skip;
	int cpu;
};

struct rg_re_state {
	struct irq_work work_a, work_b;
	struct tasklet_struct tasklet;
	const struct rg_kguard *g;
	int mode, cpu;
	int held;		/* the holder is inside the guard */
	int done;		/* the re-entry attempt ran */
	int nmi_armed;
	struct rg_re_result c;
};

static struct rg_re_result *rg_re_results;	/* [sel][mode] */
static struct rg_re_state rg_re;
static struct completion rg_re_done;

/* One re-entry attempt in whatever context this runs in; counts the outcome. */
static void rg_re_try(struct rg_re_state *st)
{
	bool ok;

	st->c.attempts++;
	if (READ_ONCE(st->held))
		st->c.while_held++;
	if (rg_ctx_level() == rg_mode_level[st->mode])
		st->c.at_level++;
	ok = st->g->enter();
	st->g->exit(ok);
	if (ok)
		st->c.granted++;
	else
		st->c.refused++;
	smp_store_release(&st->done, 1);
}

/* Spin (with whatever interrupts are on) until the attempt ran, at most 50 ms. */
static bool rg_wait_done(struct rg_re_state *st)
{
	u64 deadline = ktime_get_mono_fast_ns() + 50 * NSEC_PER_MSEC;

	while (!smp_load_acquire(&st->done)) {
		if (ktime_get_mono_fast_ns() > deadline)
			return false;
		cpu_relax();
	}
	return true;
}

static void rg_work_a(struct irq_work *w)
{
	struct rg_re_state *st = container_of(w, struct rg_re_state, work_a);

	if (st->mode == RG_M_IRQ)
		rg_re_try(st);
	else
		tasklet_hi_schedule(&st->tasklet);
}

static void rg_work_b(struct irq_work *w)
{
	rg_re_try(container_of(w, struct rg_re_state, work_b));
}

static void rg_tasklet(struct tasklet_struct *t)
{
	struct rg_re_state *st = container_of(t, struct rg_re_state, tasklet);
	bool ok;

	if (st->mode == RG_M_SOFTIRQ) {
		rg_re_try(st);
		return;
	}
	/* SOFTIRQ_IRQ: hold at level 1, let a hardirq try at level 2. */
	ok = st->g->enter();
	if (!ok)
		st->c.holder_refused++;
	WRITE_ONCE(st->held, 1);
	irq_work_queue(&st->work_b);
	/* irqsave holds with irqs off: the hardirq cannot run until exit. */
	if (!irqs_disabled())
		rg_wait_done(st);
	WRITE_ONCE(st->held, 0);
	st->g->exit(ok);
}

#ifdef CONFIG_X86_64
static int rg_nmi_handler(unsigned int type, struct pt_regs *regs)
{
	struct rg_re_state *st = &rg_re;

	if (!READ_ONCE(st->nmi_armed) || smp_processor_id() != st->cpu)
		return NMI_DONE;
	WRITE_ONCE(st->nmi_armed, 0);
	rg_re_try(st);
	return NMI_HANDLED;
}
static bool rg_nmi_registered;
#endif

/* Why mode cannot run here, or NULL. */
static const char *rg_mode_unavailable(int mode)
{
	if (mode != RG_M_NMI)
		return NULL;
#ifdef CONFIG_X86_64
	if (!nmi)
		return "nmi=0";
	if (!rg_nmi_registered)
		return "could not register an NMI handler";
	return NULL;
#elif defined(CONFIG_ARM64)
	return "no NMI a module can raise on this CPU (arm64: pseudo-NMI serves only the PMU here)";
#else
	return "no NMI test on this architecture";
#endif
}

/* One attempt where the task holds the guard (IRQ, SOFTIRQ, NMI). */
static void rg_re_task_holds(struct rg_re_state *st)
{
	bool ok = st->g->enter();

	if (!ok)
		st->c.holder_refused++;
	WRITE_ONCE(st->held, 1);
	if (st->mode == RG_M_NMI) {
#ifdef CONFIG_X86_64
		WRITE_ONCE(st->nmi_armed, 1);
		apic->send_IPI_mask(cpumask_of(st->cpu), NMI_VECTOR);
		rg_wait_done(st);	/* an NMI comes even with irqs off */
#endif
	} else {
		irq_work_queue(&st->work_a);
		if (!irqs_disabled())
			rg_wait_done(st);
	}
	WRITE_ONCE(st->held, 0);
	st->g->exit(ok);
}

static int rg_re_thread(void *arg)
{
	struct rg_re_state *st = &rg_re;
	unsigned int s, i;
	int m;

	(void)arg;
	for (s = 0; s < rg_nsel && !READ_ONCE(rg_abort); s++) {
		const struct rg_kguard *g = rg_sel[s].g;

		if (!g || rg_sel[s].skip)
			continue;
		for (m = 0; m < RG_M__COUNT && !READ_ONCE(rg_abort); m++) {
			struct rg_re_result *res = &rg_re_results[s * RG_M__COUNT + m];

			res->skip = rg_mode_unavailable(m);
			if (res->skip)
				continue;
			st->g = g;
			st->mode = m;
			st->cpu = smp_processor_id();
			memset(&st->c, 0, sizeof(st->c));
			for (i = 0; i < irq_iters && !READ_ONCE(rg_abort); i++) {
				WRITE_ONCE(st->done, 0);
				if (m == RG_M_SOFTIRQ_IRQ)
					irq_work_queue(&st->work_a);
				else
					rg_re_task_holds(st);
				if (!rg_wait_done(st)) {
					st->c.timeouts++;
					WRITE_ONCE(st->nmi_armed, 0);
					irq_work_sync(&st->work_a);
					irq_work_sync(&st->work_b);
					tasklet_unlock_wait(&st->tasklet);
					if (st->c.timeouts >= 3)
						break;	/* the context does not come; say so */
				}
				if ((i & 63) == 63)
					cond_resched();
			}
			irq_work_sync(&st->work_a);
			irq_work_sync(&st->work_b);
			tasklet_unlock_wait(&st->tasklet);
			*res = st->c;
			res->idle = rg_slots_idle(st->cpu) && !atomic_read(&rg_shared);
			res->cpu = st->cpu;
		}
	}
	complete(&rg_re_done);
	return rg_park_until_stopped();
}

static int rg_run_reentry(void)
{
	struct task_struct *task;
	int cpu = irq_cpu >= 0 ? irq_cpu : rg_cpu_of[0];
	int ret = 0;

	if (cpu >= nr_cpu_ids || !cpu_online(cpu)) {
		pr_err("irq_cpu=%d is not online\n", cpu);
		return -EINVAL;
	}
	memset(&rg_re, 0, sizeof(rg_re));
#ifdef IRQ_WORK_INIT_HARD
	/* Run in hardirq even on PREEMPT_RT. */
	rg_re.work_a = IRQ_WORK_INIT_HARD(rg_work_a);
	rg_re.work_b = IRQ_WORK_INIT_HARD(rg_work_b);
#else
	init_irq_work(&rg_re.work_a, rg_work_a);
	init_irq_work(&rg_re.work_b, rg_work_b);
#endif
	tasklet_setup(&rg_re.tasklet, rg_tasklet);
#ifdef CONFIG_X86_64
	rg_nmi_registered = nmi &&
		!register_nmi_handler(NMI_LOCAL, rg_nmi_handler, 0, "rgbench_kmod");
#endif
	init_completion(&rg_re_done);
	task = kthread_create(rg_re_thread, NULL, "rg_kmod_re/%d", cpu);
	if (IS_ERR(task)) {
		ret = PTR_ERR(task);
		goto out;
	}
	kthread_bind(task, cpu);
	wake_up_process(task);
	if (wait_for_completion_killable(&rg_re_done)) {
		WRITE_ONCE(rg_abort, true);
		wait_for_completion(&rg_re_done);
		ret = -EINTR;
	}
	kthread_stop(task);
out:
	tasklet_kill(&rg_re.tasklet);
#ifdef CONFIG_X86_64
	if (rg_nmi_registered)
		unregister_nmi_handler(NMI_LOCAL, "rgbench_kmod");
	rg_nmi_registered = false;
#endif
	return ret;
}

/* ------------------------------------------------------------------------ */
/* CSV                                                                       */

static const char rg_csv_header[] =
	"suite,guard,role,scenario,threads,cpus,cpu,run,batch,duty_ns,duty_units,duty_in_ns,duty_in_units,irqs_off,"
	"ns_total,ns_per_pair,cycles_total,ops,refusals,granted,while_held,at_level,"
	"disturbed,discarded,expect,status,reason\n";

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

/* What this mode should give for a guard of this kind. */
static const char *rg_expect(enum rg_kind kind, int mode)
{
	if (kind == RG_IRQOFF)
		return mode == RG_M_NMI ? "refuse" : "defer";
	return rg_kind_name[kind];
}

/* The re-entry row of guard s in mode m: scenario, checks, status. */
static void rg_format_reentry(unsigned int s, int m)
{
	const struct rg_re_result *x = &rg_re_results[s * RG_M__COUNT + m];
	const char *name = rg_sel[s].name, *ex = rg_expect(rg_sel[s].g->kind, m);
	bool defer = !strcmp(ex, "defer");
	char scen[40], why[200] = "";

	snprintf(scen, sizeof(scen), "%s-%s", rg_mode_name[m], defer ? "deferred" : "recursion");
	if (x->skip) {
		rg_out("kmod,%s,%s,%s,1,,,,%u,0,0,,,0,,,,0,0,,,,,,%s,skipped,\"%s\"\n", name,
		       rg_sel[s].g->role, scen, irq_iters, ex, x->skip);
		return;
	}
	if (x->timeouts)
		snprintf(why, sizeof(why), "%llu of %llu %s attempts never ran", x->timeouts,
			 x->attempts + x->timeouts, rg_mode_name[m]);
	else if (x->attempts != irq_iters || x->at_level != x->attempts)
		snprintf(why, sizeof(why), "%llu of %u attempts ran, %llu at context level %d",
			 x->attempts, irq_iters, x->at_level, rg_mode_level[m]);
	else if (x->holder_refused)
		snprintf(why, sizeof(why), "the holder was refused %llu times", x->holder_refused);
	else if (!x->idle)
		snprintf(why, sizeof(why), "guard state not back to 0 afterwards");
	else if (!strcmp(ex, "refuse") &&
		 (x->refused != x->attempts || x->while_held != x->attempts))
		snprintf(why, sizeof(why),
			 "expected every re-entry refused: %llu refused, %llu while held",
			 x->refused, x->while_held);
	else if (!strcmp(ex, "grant") &&
		 (x->granted != x->attempts || x->while_held != x->attempts))
		snprintf(why, sizeof(why),
			 "expected every re-entry granted: %llu granted, %llu while held",
			 x->granted, x->while_held);
	else if (defer && (x->while_held != 0 || x->granted != x->attempts))
		snprintf(why, sizeof(why),
			 "expected the %s deferred to exit: %llu while held, %llu granted",
			 rg_mode_name[m], x->while_held, x->granted);
	rg_out("kmod,%s,%s,%s,1,\"%d\",%d,0,%u,0,0,,,0,,,,%llu,%llu,%llu,%llu,%llu,,,%s,%s,\"%s\"\n",
	       name, rg_sel[s].g->role, scen, x->cpu, x->cpu, irq_iters, x->attempts,
	       x->refused, x->granted, x->while_held, x->at_level, ex,
	       why[0] ? "error" : "ok", why);
}

static int rg_format(void)
{
	const char *scen = irqs_on ? "loop" : "loop-irqsoff";
	size_t rows = (size_t)(rg_nsel + 1) * (runs * rg_ncpus + RG_M__COUNT + 1) + 4;
	unsigned int s, r, t;
	char din[12] = "", dinu[12] = "";	/* the duty split; empty: the pair loop ran */
	int m;

	if (duty_ns) {
		snprintf(din, sizeof(din), "%u", rg_duty_in());
		snprintf(dinu, sizeof(dinu), "%u", rg_units_in);
	}
	kvfree(rg_csv);
	rg_csv_len = 0;
	rg_csv_cap = rows * 360 + sizeof(rg_csv_header);
	rg_csv = kvmalloc(rg_csv_cap, GFP_KERNEL);
	if (!rg_csv)
		return -ENOMEM;
	rg_out("%s", rg_csv_header);
	for (s = 0; s < rg_nsel; s++) {
		const char *name = rg_sel[s].name;
		const char *role = rg_sel[s].g ? rg_sel[s].g->role : "n/a";

		if (!rg_sel[s].g || rg_timed_skip(s)) {
			rg_out("kmod,%s,%s,%s,%u,\"%*pbl\",,,%lu,%u,,%s,,%d,,,,0,0,,,,,,,skipped,\"%s\"\n",
			       name, role, scen, rg_ncpus, cpumask_pr_args(rg_cpus), loops,
			       duty_ns, din, !irqs_on, rg_timed_skip(s));
			for (m = 0; irq_iters && m < RG_M__COUNT; m++)
				if (rg_sel[s].g && !rg_sel[s].skip)
					rg_format_reentry(s, m);
				else
					rg_out("kmod,%s,%s,%s-recursion,1,,,,%u,0,0,,,0,,,,0,0,,,,,,,skipped,\"%s\"\n",
					       name, role, rg_mode_name[m], irq_iters, rg_sel[s].skip);
			continue;
		}
		for (r = 0; r < runs; r++) {
			for (t = 0; t < rg_ncpus; t++) {
				struct rg_sample *x = rg_sample_at(s, r, t);
				u64 milli = x->loops ? div64_u64(x->ns * 1000, x->loops) : 0;
				char cyc[24] = "";

				if (RG_HAVE_CYCLES)
					snprintf(cyc, sizeof(cyc), "%llu", x->cycles);
				rg_out("kmod,%s,%s,%s,%u,\"%*pbl\",%d,%u,%llu,%u,%u,%s,%s,%d,%llu,%llu.%03llu,%s,%llu,%llu,,,,%d,%u,,ok,\n",
				       name, role, scen, rg_ncpus, cpumask_pr_args(rg_cpus),
				       rg_cpu_of[t], r, x->loops, duty_ns, rg_units_in + rg_units_out,
				       din, dinu, !irqs_on,
				       x->ns, div_u64(milli, 1000), milli % 1000, cyc,
				       x->loops, x->refused, x->disturbed, rg_discarded[s]);
			}
		}
		if (irq_iters)
			for (m = 0; m < RG_M__COUNT; m++)
				rg_format_reentry(s, m);
	}
	/* The cycle reference: guard and scenario cycle-ref, batch and ops in adds, ns_per_pair per add. */
	for (r = 0; r < runs; r++) {
		for (t = 0; t < rg_ncpus; t++) {
			struct rg_sample *x = &rg_ref[r * rg_ncpus + t];
			u64 adds = x->loops * RG_REF_ADDS;
			u64 milli = adds ? div64_u64(x->ns * 1000, adds) : 0;

			rg_out("kmod,cycle-ref,n/a,cycle-ref,%u,\"%*pbl\",%d,%u,%llu,%u,,,,%d,%llu,%llu.%03llu,,%llu,0,,,,%d,%u,,ok,\n",
			       rg_ncpus, cpumask_pr_args(rg_cpus), rg_cpu_of[t], r, adds, duty_ns,
			       !irqs_on, x->ns, div_u64(milli, 1000), milli % 1000, adds,
			       x->disturbed, rg_ref_discarded);
		}
	}
	if (rg_csv_len >= rg_csv_cap) {
		pr_err("result buffer too small\n");
		return -ENOSPC;
	}
	return 0;
}

static void rg_free_run(void)
{
	kvfree(rg_samples);
	rg_samples = NULL;
	kfree(rg_order);
	rg_order = NULL;
	kfree(rg_loops_of);
	rg_loops_of = NULL;
	kfree(rg_discarded);
	rg_discarded = NULL;
	kfree(rg_dist);
	rg_dist = NULL;
	kvfree(rg_ref);
	rg_ref = NULL;
	kfree(rg_ref_pos);
	rg_ref_pos = NULL;
	kfree(rg_re_results);
	rg_re_results = NULL;
}

static int rg_run_all(void)
{
	int ret;

	rg_free_run();
	rg_samples = kvcalloc((size_t)rg_nsel * runs * rg_ncpus, sizeof(*rg_samples),
			      GFP_KERNEL);
	rg_order = kcalloc((size_t)rg_nsel * runs, sizeof(*rg_order), GFP_KERNEL);
	rg_loops_of = kcalloc(rg_nsel, sizeof(*rg_loops_of), GFP_KERNEL);
	rg_discarded = kcalloc(rg_nsel, sizeof(*rg_discarded), GFP_KERNEL);
	rg_dist = kcalloc(rg_ncpus, sizeof(*rg_dist), GFP_KERNEL);
	rg_ref = kvcalloc((size_t)runs * rg_ncpus, sizeof(*rg_ref), GFP_KERNEL);
	rg_ref_pos = kcalloc(runs, sizeof(*rg_ref_pos), GFP_KERNEL);
	rg_ref_discarded = 0;
	rg_re_results = kcalloc((size_t)rg_nsel * RG_M__COUNT, sizeof(*rg_re_results),
				GFP_KERNEL);
	if (!rg_samples || !rg_order || !rg_loops_of || !rg_discarded || !rg_dist ||
	    !rg_re_results || !rg_ref || !rg_ref_pos)
		return -ENOMEM;
	rg_have_results = false;
	rg_units_in = rg_units_out = 0;
	rg_shuffle();
	pr_info("run: %u guards, cpus %*pbl, loops=%lu run_ns=%lu runs=%u duty_ns=%u duty_in_ns=%u irqs_on=%d irq_iters=%u\n",
		rg_nsel, cpumask_pr_args(rg_cpus), loops, run_ns, runs, duty_ns, rg_duty_in(), irqs_on,
		irq_iters);
	ret = rg_run_timed();
	if (!ret && irq_iters)
		ret = rg_run_reentry();
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

	seq_puts(m, "guard,role,available,expect,reason\n");
	for (i = 0; i < RG_NGUARDS; i++) {
		const char *why = rg_kguards[i].unavailable ? rg_kguards[i].unavailable() : NULL;

		seq_printf(m, "%s,%s,%d,%s,%s\n", rg_kguards[i].name, rg_kguards[i].role, !why,
			   rg_kind_name[rg_kguards[i].kind], why ? why : "");
	}
	for (i = 0; i < ARRAY_SIZE(rg_other_arch); i++)
		seq_printf(m, "%s,n/a,0,,not this architecture\n", rg_other_arch[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rg_guards);

static int __init rg_init(void)
{
	int ret;

	if ((!loops && !run_ns) || !runs) {
		pr_err("loops (or run_ns) and runs must be at least 1\n");
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
	rg_free_run();
	free_cpumask_var(rg_cpus);
}

module_init(rg_init);
module_exit(rg_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rgbench: per-CPU recursion guards measured in kernel context");
