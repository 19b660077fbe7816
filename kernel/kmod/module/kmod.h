/* SPDX-License-Identifier: GPL-2.0 */
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
 * The module's files (Kbuild lists them; every one includes this header first):
 *   params.c   module parameters, and the guard and CPU lists they select
 *   guards.h   the guard bodies (inline asm included) and their per-CPU state
 *   loops.c    the timed loops, one instance per guard, and the guard table
 *              (rg_kguards.h: generated from guards.def and kmod.def)
 *   timing.c   the timed kthreads: warm-up, rounds, retries, duty calibration
 *   tramp.h    the tramp scenario's loops: a BPF program through the trampoline's path
 *   tramp.c    that program: resolved from the fd written to debugfs prog, released
 *   ladder.h   the ladder scenario's step loops (included by loops.c)
 *   ladder.c   ladder=1: the steps in the selection, and their rows
 *   reentry.c  re-entry from softirq, hardirq and NMI on the holder's CPU
 *   output.c   the CSV rows
 *   main.c     one run, debugfs, init and exit
 * This header is what they share and nothing else.
 */
#ifndef RG_KMOD_H
#define RG_KMOD_H

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

/* ---- params.c: the module parameters (names as insmod takes them) ---- */
extern char *guards, *cpus;
extern uint threads, runs, duty_ns, retries, irq_iters;
extern bool siblings, irqs_on, nmi;
extern bool rg_want_loop, rg_want_tramp;	/* from the scenarios parameter */
extern ulong loops, run_ns;
extern int duty_in_ns, irq_cpu;

/* ---- loops.c: the guards ---- */

/*
 * What a re-entry on the same CPU gets while the guard is held:
 *   CHECK   refused at every level (a counter with a check)
 *   COUNTER granted at every level (no check: noop and the plain counters)
 *   IRQOFF  softirq and hardirq wait until exit (then granted); NMI refused
 */
enum rg_kind { RG_CHECK, RG_COUNTER, RG_IRQOFF };
extern const char *const rg_kind_name[];

struct rg_kguard {
	const char *name, *role;
	u64 (*pair)(u64 n);
	u64 (*duty)(u64 n, u32 in, u32 out, u64 *carry);
	/* Out of line, for the re-entry tests only (never in a timed loop). */
	bool (*enter)(void);
	void (*exit)(bool ok);
	enum rg_kind kind;
	const char *(*unavailable)(void);
	const char *scenario;	/* NULL: the guard's own loop; else tramp-fentry, tramp-rawtp, tramp-call */
	bool prog;		/* runs the BPF program (tramp.c): counts its runs, needs it resolved */
};

extern const struct rg_kguard rg_kguards[];
extern const unsigned int rg_nguards;
extern const char *const rg_other_arch[];	/* accepted by name, reported as skipped */
extern const unsigned int rg_nother_arch;
extern const struct rg_kguard rg_ref_kguard;	/* the cycle reference */
extern const struct rg_kguard rg_ktramp[];	/* the tramp scenario's rows (loops.c, tramp.h) */
extern const unsigned int rg_nktramp;
#define RG_REF_ADDS 16				/* its adds per iteration */
/* Every guard's state back at 0 on cpu (a balanced sequence leaves nothing held). */
bool rg_guards_idle(int cpu);

/* Same levels as interrupt_context_level(): 0 task, 1 softirq, 2 hardirq, 3 NMI. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 19, 0)
#define rg_ctx_level() interrupt_context_level()
#else
static __always_inline unsigned char rg_ctx_level(void)
{
	unsigned long pc = preempt_count();

	return !!(pc & NMI_MASK) + !!(pc & (NMI_MASK | HARDIRQ_MASK)) +
	       !!(pc & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET));
}
#endif

/* ---- params.c: what the parameters selected ---- */
struct rg_sel {
	const struct rg_kguard *g;	/* NULL: skipped, see skip */
	const char *name;
	const char *skip;
};

extern struct rg_sel rg_sel[];
extern unsigned int rg_nsel;
extern cpumask_var_t rg_cpus;
extern unsigned int rg_ncpus;
extern int rg_cpu_of[];			/* thread index -> CPU */
int rg_select_guards(void);
int rg_select_cpus(void);
const char *rg_timed_skip(unsigned int s);

/* ---- tramp.c: the BPF program the tramp scenario runs ---- */
struct bpf_prog;
struct bpf_prog_stats;
extern struct bpf_prog *rg_tprog;		/* held (a reference), or NULL */
DECLARE_PER_CPU(struct bpf_prog_stats, rg_tramp_pstats);	/* the misses tramp.h counts */
extern u64 rg_tramp_cookie;			/* the raw_tp shape's link cookie (6.12 on): 0 */
/*
 * The kernel version whose trampoline.c and bpf_trace.c tramp.h's shapes follow:
 * 702, 618, 612 or 61, the headers' version rounded down to one of those.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0)
#define RG_TRAMP_SHAPES 702
#define RG_TRAMP_SHAPES_NAME "7.2"
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 18, 0)
#define RG_TRAMP_SHAPES 618
#define RG_TRAMP_SHAPES_NAME "6.18"
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define RG_TRAMP_SHAPES 612
#define RG_TRAMP_SHAPES_NAME "6.12"
#else
#define RG_TRAMP_SHAPES 61
#define RG_TRAMP_SHAPES_NAME "6.1"
#endif
const char *rg_tramp_unavailable(void);	/* why the program cannot run, or NULL */
u64 rg_tramp_hits(int cpu);			/* its hits counted in cpu's slot */
int rg_tramp_set(const char *req);		/* "FD OFF STRIDE N", in the writer's process */
void rg_tramp_release(void);

/* ---- timing.c: the timed runs ---- */
struct rg_sample {
	u64 ns;
	u64 cycles;	/* get_cycles() delta: x86 TSC reference cycles; 0 elsewhere */
	u64 refused;
	u64 prog_runs;	/* the program's runs counted in the run (tramp rows) */
	u64 loops;
	bool disturbed;	/* kept after `retries` disturbed attempts */
};

/* get_cycles() is the TSC on x86; on arm64 it is CNTVCT (a fixed-rate timer), not worth a column. */
#ifdef CONFIG_X86
#define RG_HAVE_CYCLES 1
#else
#define RG_HAVE_CYCLES 0
#endif

extern struct rg_sample *rg_ref;	/* [run][thread]: the cycle reference */
extern u32 *rg_discarded;		/* [sel]: runs discarded as disturbed */
extern u32 rg_ref_discarded;
extern u32 rg_units_in, rg_units_out;	/* duty work units per call: inside, after exit */
extern bool rg_abort;			/* a fatal signal: leave the loops */
struct rg_sample *rg_sample_at(unsigned int s, unsigned int r, unsigned int t);
u32 rg_inside_ns(void);
int rg_timing_alloc(void);
void rg_timing_free(void);
int rg_run_timed(void);
int rg_park_until_stopped(void);

/* ---- reentry.c: re-entry from softirq, hardirq and NMI ---- */
enum { RG_M_IRQ, RG_M_SOFTIRQ, RG_M_SOFTIRQ_IRQ, RG_M_NMI, RG_M__COUNT };
extern const char *const rg_mode_name[RG_M__COUNT];
extern const int rg_mode_level[RG_M__COUNT];

struct rg_re_result {
	u64 attempts, granted, refused, while_held, at_level, timeouts, holder_refused;
	bool idle;		/* every slot back at 0 afterwards */
	const char *skip;
	int cpu;
};

extern struct rg_re_result *rg_re_results;	/* [sel][mode] */
bool rg_reenters(unsigned int s);
int rg_reentry_alloc(void);
void rg_reentry_free(void);
int rg_run_reentry(void);

/* ---- output.c: the CSV ---- */
extern char *rg_csv;
extern size_t rg_csv_len;
int rg_format(void);
void rg_format_free(void);
__printf(1, 2) void rg_out(const char *fmt, ...);
void rg_format_timed(unsigned int s, const char *scen);	/* s's timed rows, or its skipped row */

/* ---- ladder.h, ladder.c: the ladder scenario (ladder=1) ---- */
extern bool ladder;
extern const struct rg_kguard rg_kladder[];	/* one per step, rg_kguards.h's RG_KLADDER */
extern const unsigned int rg_nkladder;
bool rg_ladder_step(unsigned int s);		/* selection s is a ladder step */
int rg_ladder_select(unsigned int max);		/* the selected designs' steps into rg_sel */
void rg_ladder_format(void);			/* the ladder rows */

#endif /* RG_KMOD_H */
