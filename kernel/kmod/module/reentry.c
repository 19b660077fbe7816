// SPDX-License-Identifier: GPL-2.0
/* Re-entry from softirq, hardirq and (x86) NMI on the holder's CPU, with exact counts. */
#include "kmod.h"

/*
 * Modes (what holds the guard, what tries to re-enter it, at which level):
 *   IRQ          task (0) holds; a hard irq_work handler (2) tries
 *   SOFTIRQ      task (0) holds; a hard irq_work schedules a HI tasklet, which
 *                runs at that interrupt's exit, in softirq (1), and tries
 *   SOFTIRQ_IRQ  that tasklet (1) holds and raises a second irq_work (2),
 *                which tries: two levels besides task context, nested
 *   NMI          task (0) holds; a self-NMI (3) tries (x86: APIC NMI IPI)
 */
const char *const rg_mode_name[RG_M__COUNT] = { "irq", "softirq", "softirq-irq", "nmi" };
const int rg_mode_level[RG_M__COUNT] = { 2, 1, 2, 3 };

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

struct rg_re_result *rg_re_results;	/* [sel][mode] */
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

		if (!rg_reenters(s))
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
			res->idle = rg_guards_idle(st->cpu);
			res->cpu = st->cpu;
		}
	}
	complete(&rg_re_done);
	return rg_park_until_stopped();
}

int rg_run_reentry(void)
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

/* Whether selection s has re-entry rows that run: a guard (or a tramp design, either shape) that runs here. */
bool rg_reenters(unsigned int s)
{
	const struct rg_kguard *g = rg_sel[s].g;

	return g && g->enter && !rg_sel[s].skip && !(g->prog && rg_tramp_unavailable());
}

void rg_reentry_free(void)
{
	kfree(rg_re_results);
	rg_re_results = NULL;
}

int rg_reentry_alloc(void)
{
	rg_re_results = kcalloc((size_t)rg_nsel * RG_M__COUNT, sizeof(*rg_re_results),
				GFP_KERNEL);
	return rg_re_results ? 0 : -ENOMEM;
}
