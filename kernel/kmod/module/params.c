// SPDX-License-Identifier: GPL-2.0
/* The module's parameters, and the guards and CPUs they select. */
#include "kmod.h"
#include "rg_kguards.h"

char *guards = "all";
module_param(guards, charp, 0444);
MODULE_PARM_DESC(guards, "comma-separated guard names, or \"all\" (default)");

char *cpus = "all";
module_param(cpus, charp, 0444);
MODULE_PARM_DESC(cpus, "CPU list for the timed kthreads, e.g. 0-3,8 (default: all online)");

uint threads;
module_param(threads, uint, 0444);
MODULE_PARM_DESC(threads, "kthreads: the first N of the chosen CPUs (default 0: all of them)");

bool siblings;
module_param(siblings, bool, 0444);
MODULE_PARM_DESC(siblings, "also run on SMT siblings (default N: one kthread per physical core)");

ulong loops = 100000;
module_param(loops, ulong, 0444);
MODULE_PARM_DESC(loops, "enter/exit pairs per timed run (default 100000)");

ulong run_ns;
module_param(run_ns, ulong, 0444);
MODULE_PARM_DESC(run_ns, "if set: size each guard's runs to about this many ns (overrides loops)");

uint runs = 5;
module_param(runs, uint, 0444);
MODULE_PARM_DESC(runs, "rounds: timed runs per guard (default 5), after one untimed warm-up round");

uint duty_ns;
module_param(duty_ns, uint, 0444);
MODULE_PARM_DESC(duty_ns, "work per traced call, ns, calibrated to work units (default 0: back to back)");

int duty_in_ns = -1;
module_param(duty_in_ns, int, 0444);
MODULE_PARM_DESC(duty_in_ns, "ns of duty_ns inside the guarded region (default -1: duty_ns / 2)");

bool irqs_on;
module_param(irqs_on, bool, 0444);
MODULE_PARM_DESC(irqs_on, "leave interrupts on in the timed runs (default N: off)");

uint retries = 3;
module_param(retries, uint, 0444);
MODULE_PARM_DESC(retries, "times a disturbed run is discarded and re-run (default 3)");

uint irq_iters = 1000;
module_param(irq_iters, uint, 0444);
MODULE_PARM_DESC(irq_iters, "re-entry attempts per guard and context (0: skip those tests; default 1000)");

int irq_cpu = -1;
module_param(irq_cpu, int, 0444);
MODULE_PARM_DESC(irq_cpu, "CPU for the re-entry tests (default: first selected CPU)");

bool nmi = true;
module_param(nmi, bool, 0444);
MODULE_PARM_DESC(nmi, "x86: also re-enter from a self-NMI (default Y)");

static char *scenarios = "loop";
module_param(scenarios, charp, 0444);
MODULE_PARM_DESC(scenarios, "loop (the guards' own loops, default), tramp (a BPF program through the trampoline's path: write its fd to debugfs prog first), or loop,tramp");
bool rg_want_loop, rg_want_tramp;

/*
 * Room for every guard the module builds and every name it accepts as skipped,
 * then the tramp scenario's rows (two shapes per design and the call alone) and
 * the ladder's steps.
 */
#define RG_ONE(...) + 1
enum {
	RG_MAX_NAMED = 0 RG_KGUARDS(RG_ONE) RG_KGUARDS_OTHER(RG_ONE),
	RG_MAX_SEL = RG_MAX_NAMED RG_KTRAMP(RG_ONE) RG_KTRAMP(RG_ONE) + 1 RG_KLADDER(RG_ONE)
};

struct rg_sel rg_sel[RG_MAX_SEL];
unsigned int rg_nsel;

/*
 * Why guard s has no timed rows, or NULL. Besides a skipped guard: irqsave in
 * the default loop-irqsoff scenario, where interrupts are already off, so
 * local_irq_restore() restores "off" and never executes the irq-enable (x86
 * sti, arm64 msr daifclr): the loop would time half the guard under its name.
 * Its re-entry rows still run (they hold it with interrupts on).
 */
const char *rg_timed_skip(unsigned int s)
{
	if (rg_sel[s].skip)
		return rg_sel[s].skip;
	if (rg_sel[s].g && rg_sel[s].g->kind == RG_IRQOFF && !irqs_on)
		return "interrupts already off in loop-irqsoff: local_irq_restore() would never "
		       "execute the irq-enable; timed only with --irqs-on";
	if (rg_sel[s].g && rg_sel[s].g->prog && duty_ns)
		return "the tramp scenario runs back to back only (no duty_ns)";
	if (rg_sel[s].g && rg_sel[s].g->prog)
		return rg_tramp_unavailable();
	return NULL;
}

/* scenarios= into rg_want_loop / rg_want_tramp. 0 or -EINVAL. */
static int rg_select_scenarios(void)
{
	char *buf = kstrdup(scenarios, GFP_KERNEL), *cur = buf, *tok;
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	rg_want_loop = rg_want_tramp = false;
	while ((tok = strsep(&cur, ",")) != NULL && !ret) {
		if (!strcmp(tok, "loop"))
			rg_want_loop = true;
		else if (!strcmp(tok, "tramp"))
			rg_want_tramp = true;
		else if (*tok)
			ret = -EINVAL;
	}
	kfree(buf);
	if (ret || (!rg_want_loop && !rg_want_tramp)) {
		pr_err("scenarios=\"%s\": a list of loop and tramp\n", scenarios);
		return -EINVAL;
	}
	return 0;
}

/*
 * With tramp: the tramp rows of the trampoline designs among the selected
 * guards, and the call alone; without loop, only those.
 */
static void rg_select_tramp(void)
{
	unsigned int named = rg_nsel, i, k, n = 0;

	for (i = 0; rg_want_tramp && i < rg_nktramp; i++) {
		const struct rg_kguard *g = &rg_ktramp[i];
		bool chosen = !strcmp(g->scenario, "tramp-call");

		for (k = 0; k < named && !chosen; k++)
			chosen = rg_sel[k].g && !strcmp(rg_sel[k].name, g->name);
		if (!chosen)
			continue;
		rg_sel[rg_nsel].g = g;
		rg_sel[rg_nsel].name = g->name;
		rg_sel[rg_nsel].skip = g->unavailable ? g->unavailable() : NULL;
		rg_nsel++;
		n++;
	}
	if (!rg_want_loop) {
		memmove(rg_sel, rg_sel + named, n * sizeof(rg_sel[0]));
		rg_nsel = n;
	}
}
cpumask_var_t rg_cpus;
unsigned int rg_ncpus;
int rg_cpu_of[NR_CPUS > 4096 ? 4096 : NR_CPUS];	/* thread index -> CPU */

static int rg_select_named(void)
{
	char *buf, *cur, *tok;
	unsigned int i;
	int ret = 0;

	rg_nsel = 0;
	if (!strcmp(guards, "all") || !*guards) {
		for (i = 0; i < rg_nguards; i++) {
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
		if (rg_nsel == RG_MAX_NAMED) {
			pr_err("too many guards in \"%s\"\n", guards);
			ret = -EINVAL;
			break;
		}
		for (i = 0; i < rg_nguards && !found; i++) {
			if (strcmp(tok, rg_kguards[i].name))
				continue;
			rg_sel[rg_nsel].g = &rg_kguards[i];
			rg_sel[rg_nsel].name = rg_kguards[i].name;
			rg_sel[rg_nsel].skip = rg_kguards[i].unavailable ?
					       rg_kguards[i].unavailable() : NULL;
			found = true;
		}
		for (i = 0; i < rg_nother_arch && !found; i++) {
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

int rg_select_guards(void)
{
	int ret = rg_select_scenarios();

	if (!ret)
		ret = rg_select_named();
	if (!ret)
		rg_select_tramp();
	if (!ret)
		ret = rg_ladder_select(RG_MAX_SEL);
	return ret;
}

/*
 * The kthreads' CPUs: the selected online CPUs, one per physical core unless
 * siblings=Y (the first selected CPU of each topology_sibling_cpumask()),
 * then the first `threads` of them.
 */
int rg_select_cpus(void)
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

