// SPDX-License-Identifier: GPL-2.0
/* Timed runs: one bound kthread per core, guards interleaved round by round, the cycle reference among them. */
#include "kmod.h"

static struct rg_sample *rg_samples;	/* [sel][run][thread] */
static u16 *rg_order;			/* [run][k]: guard index, shuffled per round */
static unsigned int rg_nrun_sel;	/* guards that run */
static u64 *rg_loops_of;		/* [sel]: pairs per timed run */
u32 *rg_discarded;		/* [sel]: runs discarded as disturbed */
static bool *rg_dist;			/* [thread]: this attempt was disturbed */
struct rg_sample *rg_ref;	/* [run][thread]: the cycle reference */
static u16 *rg_ref_pos;			/* [run]: its place among the round's guards */
static u64 rg_ref_loops;		/* its iterations (RG_REF_ADDS adds each) per run */
u32 rg_ref_discarded;
u32 rg_units_in, rg_units_out;	/* duty work units per call: inside, after exit */
static atomic_long_t rg_arrive;
bool rg_abort;
static struct completion rg_done;
static atomic_t rg_nrunning;

struct rg_sample *rg_sample_at(unsigned int s, unsigned int r, unsigned int t)
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
#if defined(CONFIG_X86) && LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0)
	{
		/* irq_stat became one array indexed by enum irq_stat_counts (seen in 7.2, 7.3) */
		const irq_cpustat_t *st = &per_cpu(irq_stat, cpu);

		for (i = 0; i < IRQ_COUNT_MAX; i++)
			n += st->counts[i];
	}
#elif defined(CONFIG_X86)
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
int rg_park_until_stopped(void)
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
	u64 t0, t1, e0, e1, refused, h0 = 0, h1 = 0;
	cycles_t c0 = 0, c1 = 0;

	if (!irqs_on)
		local_irq_save(flags);
	e0 = rg_cpu_events(cpu);
	if (g->prog)
		h0 = rg_tramp_hits(cpu);
	if (RG_HAVE_CYCLES)
		c0 = get_cycles();
	t0 = ktime_get_mono_fast_ns();
	refused = duty_ns ? g->duty(n, rg_units_in, rg_units_out, carry) : g->pair(n);
	t1 = ktime_get_mono_fast_ns();
	if (RG_HAVE_CYCLES)
		c1 = get_cycles();
	if (g->prog)
		h1 = rg_tramp_hits(cpu);
	e1 = rg_cpu_events(cpu);
	if (!irqs_on)
		local_irq_restore(flags);
	out->ns = t1 - t0;
	out->cycles = c1 - c0;
	out->refused = refused;
	out->prog_runs = h1 - h0;
	out->loops = n;
	out->disturbed = e1 != e0;
}

/* ns of duty_ns inside the guarded region: duty_in_ns, or half of duty_ns (rg_cl_duty_list's default). */
u32 rg_inside_ns(void)
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
	u32 in_ns = rg_inside_ns();
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
	if (run_ns) {
		/*
		 * Once more at that size: the rate once warm. The faster of the
		 * two sizes the runs: a warm-up run slowed by something else
		 * (a guest's vCPU off the host's CPU) made every timed run too
		 * short (28 times, in a Debian 13 guest on a busy host).
		 */
		u64 ns = w.ns;

		rg_timed_run(g, n, cpu, carry, &w);
		w.ns = min(w.ns, ns);
	}
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

int rg_run_timed(void)
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

void rg_timing_free(void)
{
	/* kvfree() takes kmalloc()'s memory as well as kvmalloc()'s. */
	void **all[] = { (void **)&rg_samples, (void **)&rg_order, (void **)&rg_loops_of,
			 (void **)&rg_discarded, (void **)&rg_dist, (void **)&rg_ref,
			 (void **)&rg_ref_pos };

	for (size_t i = 0; i < ARRAY_SIZE(all); i++) {
		kvfree(*all[i]);
		*all[i] = NULL;
	}
}

/* The timed runs' arrays for the selection, and their order (rg_shuffle()). */
int rg_timing_alloc(void)
{
	rg_samples = kvcalloc((size_t)rg_nsel * runs * rg_ncpus, sizeof(*rg_samples),
			      GFP_KERNEL);
	rg_order = kcalloc((size_t)rg_nsel * runs, sizeof(*rg_order), GFP_KERNEL);
	rg_loops_of = kcalloc(rg_nsel, sizeof(*rg_loops_of), GFP_KERNEL);
	rg_discarded = kcalloc(rg_nsel, sizeof(*rg_discarded), GFP_KERNEL);
	rg_dist = kcalloc(rg_ncpus, sizeof(*rg_dist), GFP_KERNEL);
	rg_ref = kvcalloc((size_t)runs * rg_ncpus, sizeof(*rg_ref), GFP_KERNEL);
	rg_ref_pos = kcalloc(runs, sizeof(*rg_ref_pos), GFP_KERNEL);
	rg_ref_discarded = 0;
	if (!rg_samples || !rg_order || !rg_loops_of || !rg_discarded || !rg_dist ||
	    !rg_ref || !rg_ref_pos)
		return -ENOMEM;
	rg_units_in = rg_units_out = 0;
	rg_shuffle();
	return 0;
}
