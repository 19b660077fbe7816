// SPDX-License-Identifier: MIT
/* Every guard: grant, nested refusal, exit, re-grant, counters back to 0, signal re-entry, availability. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdbool.h>
#include <stdint.h>

#include "rg/env.h"
#include "rg/guard.h"
#include "rg/loops.h"
#include "rg/preempt.h"
#include "rg/registry.h"
#include "rg/rseq.h"
#include "check.h"

/*
 * Refuses a nested enter on one thread: every guard with a scope (guards.def),
 * the negative control included (it fails only across threads); noop does not.
 */
static bool claims_protection(const struct rg_guard_info *gi)
{
	return rg_guard_scope(gi) != RG_SCOPE_NONE;
}

/* Every slot, the global counter and the guard's own state (its header's) are 0. */
static void check_all_zero(const struct rg_guard_info *gi, struct rg_guard *g, const char *when)
{
	for (unsigned int cpu = 0; cpu < g->ncpus; cpu++)
		CHECK(*rg_guard_slot(g, cpu) == 0, "%s %s: slot %u = 0x%x", gi->name, when, cpu,
		      *rg_guard_slot(g, cpu));
	CHECK(*g->global == 0, "%s %s: global = %u", gi->name, when, *g->global);
	if (gi->state)
		CHECK(gi->state() == 0, "%s %s: the guard's own state = %u", gi->name, when,
		      gi->state());
	/* the -kernel guards' preempt count is balanced (signal levels undone) and never asked to schedule */
	CHECK(rg_preempt_count_idle(), "%s %s: preempt count 0x%x, not idle", gi->name, when,
	      rg_preempt_count());
	CHECK(rg_preempt_schedule_calls == 0, "%s %s: preempt_schedule called %lu times", gi->name,
	      when, rg_preempt_schedule_calls);
}

/* What the signal handler saw: enter's result at top level and when nested in the handler. */
static const struct rg_guard_info *sig_gi;
static struct rg_guard *sig_g;
static volatile sig_atomic_t sig_runs, sig_granted, sig_nested_granted, sig_level;

static void on_signal(int signo)
{
	bool ok, nested;

	(void)signo;
	rg_rctx_enter_signal();
	sig_level = (sig_atomic_t)rg_interrupt_context_level();
	ok = sig_gi->enter(sig_g);
	nested = sig_gi->enter(sig_g);
	sig_gi->exit(sig_g, nested);
	sig_gi->exit(sig_g, ok);
	sig_granted = ok;
	sig_nested_granted = nested;
	sig_runs++;
	rg_rctx_exit_signal();
}

static void test_guard(const struct rg_guard_info *gi, size_t stride)
{
	struct rg_guard g;
	bool a, b;
	bool protects = claims_protection(gi);

	CHECK(rg_guard_init(&g, stride) == 0, "rg_guard_init");
	if (!g.pcpu)
		return;

	/* enter granted, nested refused, exit, granted again */
	a = gi->enter(&g);
	CHECK(a, "%s: first enter refused", gi->name);
	if (gi->state)	/* the state hook reads the guard's real state */
		CHECK(gi->state() != 0, "%s: held, but its own state reads 0", gi->name);
	b = gi->enter(&g);
	if (protects)
		CHECK(!b, "%s: nested enter granted", gi->name);
	else
		CHECK(b, "%s: noop refused a nested enter", gi->name);
	gi->exit(&g, b);
	gi->exit(&g, a);
	check_all_zero(gi, &g, "after nested pair");
	a = gi->enter(&g);
	CHECK(a, "%s: enter after exit refused", gi->name);
	gi->exit(&g, a);
	check_all_zero(gi, &g, "after pair");

	/* three deep: all inner refused, all undone */
	a = gi->enter(&g);
	b = gi->enter(&g);
	bool c = gi->enter(&g);
	CHECK(a && (protects ? !b && !c : b && c), "%s: 3-deep %d %d %d", gi->name, a, b, c);
	gi->exit(&g, c);
	gi->exit(&g, b);
	gi->exit(&g, a);
	check_all_zero(gi, &g, "after 3-deep");

	/* signal re-entry while held: refused; after exit: granted */
	sig_gi = gi;
	sig_g = &g;
	sig_runs = 0;
	a = gi->enter(&g);
	raise(SIGUSR1);
	CHECK(sig_runs == 1, "%s: handler did not run", gi->name);
	CHECK(sig_level == 2, "%s: the handler's context level from the count is %d, not 2 (hardirq)",
	      gi->name, (int)sig_level);
	if (protects)
		CHECK(!sig_granted, "%s: signal handler granted while the guard was held", gi->name);
	gi->exit(&g, a);
	raise(SIGUSR1);
	CHECK(sig_runs == 2, "%s: handler did not run", gi->name);
	CHECK(sig_granted, "%s: signal handler refused after exit", gi->name);
	if (protects)
		CHECK(!sig_nested_granted, "%s: nested enter inside the handler granted", gi->name);
	check_all_zero(gi, &g, "after signal re-entry");

	/* the measured loops agree */
	CHECK_EQ(rg_loops[gi->id].pair(&g, 10000), 0);
	CHECK_EQ(rg_loops[gi->id].duty(&g, 1000, 3, 4), 0);
	CHECK_EQ(rg_loops[gi->id].nested(&g, 10000), protects ? 10000 : 0);
	check_all_zero(gi, &g, "after the measured loops");

	rg_guard_fini(&g);
}

static void test_availability(const struct rg_guard_info *gi, bool avail, const char *why,
			      int expect_lse, int expect_rseq)
{
	bool arch_ok = (RG_ARCH_X86_64 && (gi->arch & RG_ON_X86_64)) ||
		       (RG_ARCH_AARCH64 && (gi->arch & RG_ON_AARCH64));
	bool lse_ok = !RG_ARCH_AARCH64 || !(gi->needs & RG_NEEDS_LSE) || rg_cpu_has_lse();
	bool rseq_ok = !(gi->needs & RG_NEEDS_RSEQ) || rg_rseq_available();

	CHECK(avail == (arch_ok && lse_ok && rseq_ok), "%s: available=%d", gi->name, avail);
	CHECK(avail == (why == NULL), "%s: available=%d but why=%s", gi->name, avail, why ? why : "NULL");
	if (!arch_ok)
		CHECK(why && !strcmp(why, RG_ARCH_X86_64 ? "arm64 only" : "x86-64 only"),
		      "%s: why=%s", gi->name, why ? why : "NULL");
	else if (!lse_ok)
		CHECK(why && !strcmp(why, "no LSE"), "%s: why=%s", gi->name, why ? why : "NULL");
	else if (!rseq_ok)
		CHECK(why && !strcmp(why, "rseq not registered"), "%s: why=%s", gi->name,
		      why ? why : "NULL");
	if (RG_ARCH_AARCH64 && (gi->needs & RG_NEEDS_LSE) && arch_ok && expect_lse >= 0 && rseq_ok)
		CHECK(avail == (expect_lse == 1), "%s: available=%d with RG_EXPECT_LSE=%d", gi->name,
		      avail, expect_lse);
	if ((gi->needs & RG_NEEDS_RSEQ) && expect_rseq >= 0)
		CHECK(avail == (expect_rseq == 1), "%s: available=%d with RG_EXPECT_RSEQ=%d", gi->name,
		      avail, expect_rseq);
}

/*
 * Layouts: a signal handler whose guard has another slot layout than the
 * code it interrupted must leave the interrupted code's per-CPU base as it
 * was (the wrappers put it back).
 */
static struct rg_guard *layout_g;
static const struct rg_guard_info *layout_gi;

static void on_layout_signal(int signo)
{
	bool ok;

	(void)signo;
	ok = layout_gi->enter(layout_g);
	layout_gi->exit(layout_g, ok);
}

static void test_layout_switch(const struct rg_guard_info *gi)
{
	struct rg_guard padded, packed;
	struct sigaction sa = { .sa_handler = on_layout_signal }, old;

	if (rg_guard_init(&padded, 0) || rg_guard_init(&packed, 4))
		return;
	layout_g = &packed;
	layout_gi = gi;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR2, &sa, &old);
	rg_guard_prepare(&padded);
	CHECK_EQ(rg_pcpu_layout, (size_t)RG_CACHELINE);
	raise(SIGUSR2);				/* the handler uses the packed guard */
	CHECK_EQ(rg_pcpu_layout, (size_t)RG_CACHELINE);
	CHECK_EQ(rg_pcpu_base, (uintptr_t)rg_pcpu_cpu * RG_CACHELINE);
	CHECK_EQ(rg_loops[gi->id].pair(&padded, 1000), 0);
	CHECK_EQ(*rg_guard_slot(&packed, (unsigned int)rg_pcpu_cpu), 0);
	CHECK_EQ(*rg_guard_slot(&padded, (unsigned int)rg_pcpu_cpu), 0);
	sigaction(SIGUSR2, &old, NULL);
	rg_guard_fini(&padded);
	rg_guard_fini(&packed);
	printf("%-16s layout switch in a signal handler: interrupted base restored\n", gi->name);
}

/*
 * A thread that is not pinned must never use a stale slot: it faults. Each
 * case runs in a child process, which must die of SIGSEGV.
 */
static const struct rg_guard_info *fault_gi;
static struct rg_guard *fault_g;

static void *unpinned_thread(void *arg)
{
	(void)arg;
	/* never called rg_percpu_thread_init(); on x86 it inherited its creator's %gs base */
	fault_gi->enter(fault_g);
	return NULL;
}

static int child_status(int how)
{
	pid_t pid = fork();
	int st = 0;

	if (pid == 0) {
		/*
		 * The fault is the expected outcome: die of it as a plain
		 * program would, also where a sanitizer runtime installed its
		 * own SIGSEGV handler (it would turn the fault into an abort).
		 */
		signal(SIGSEGV, SIG_DFL);
		if (how == 0) {		/* the process unpinned: init refuses, the guard faults */
			cpu_set_t all;

			CPU_ZERO(&all);
			for (int c = 0; c < CPU_SETSIZE; c++)
				CPU_SET(c, &all);
			sched_setaffinity(0, sizeof(all), &all);
			sched_getaffinity(0, sizeof(all), &all);
			if (CPU_COUNT(&all) < 2)
				_exit(4);	/* cannot unpin: one CPU allowed */
			if (rg_percpu_thread_init() != -1)
				_exit(3);	/* init must say "not pinned" */
			fault_gi->enter(fault_g);
		} else {		/* a new thread that never initialised */
			pthread_t t;

			pthread_create(&t, NULL, unpinned_thread, NULL);
			pthread_join(t, NULL);
		}
		_exit(0);
	}
	waitpid(pid, &st, 0);
	return st;
}

static void test_unpinned_faults(const struct rg_guard_info *gi, struct rg_guard *g)
{
	int st;

	fault_gi = gi;
	fault_g = g;
	fflush(stdout);
	st = child_status(1);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV,
	      "%s: a thread that never called rg_percpu_thread_init() was not stopped (status 0x%x)",
	      gi->name, st);
	st = child_status(0);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 4)
		printf("%-16s unpinned-thread case skipped: one CPU allowed\n", gi->name);
	else
		CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV,
		      "%s: an unpinned thread was not stopped (status 0x%x)", gi->name, st);
	printf("%-16s threads not pinned (or never initialised) fault instead of using a stale slot\n",
	       gi->name);
}

int main(void)
{
	int expect_lse = rg_test_env_int("RG_EXPECT_LSE");
	int expect_rseq = rg_test_env_int("RG_EXPECT_RSEQ");
	struct sigaction sa = { .sa_handler = on_signal };
	cpu_set_t set;
	int cpu, ran = 0;

	if (RG_ARCH_AARCH64 && expect_lse >= 0)
		CHECK(rg_cpu_has_lse() == (expect_lse == 1), "LSE %d, RG_EXPECT_LSE=%d",
		      rg_cpu_has_lse(), expect_lse);
	if (expect_rseq >= 0)
		CHECK(rg_rseq_available() == (expect_rseq == 1), "rseq %d, RG_EXPECT_RSEQ=%d",
		      rg_rseq_available(), expect_rseq);

	/* The harness floor is a property of one guard's entry (scope none: noop), which
	 * bench/ reads instead of its id. */
	{
		int floors = 0;

		for (int i = 0; i < RG_GUARD__COUNT; i++)
			floors += rg_guards[i].floor;
		CHECK(floors == 1 && rg_guard_floor() == &rg_guards[RG_GUARD_noop] &&
		      rg_guard_floor()->scope == RG_SCOPE_NONE,
		      "%d guard(s) with .floor; rg_guard_floor() is %s, not noop", floors,
		      rg_guard_floor() ? rg_guard_floor()->name : "none");
	}

	/* per-CPU guards need a pinned thread */
	cpu = sched_getcpu();
	CPU_ZERO(&set);
	CPU_SET(cpu < 0 ? 0 : cpu, &set);
	CHECK(sched_setaffinity(0, sizeof(set), &set) == 0, "pinning to cpu %d", cpu);
	CHECK_EQ(rg_percpu_thread_init(), cpu);
	CHECK_EQ(rg_this_cpu(), (unsigned int)sched_getcpu());
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0, "sigaction");

	for (int i = 0; i < RG_GUARD__COUNT; i++) {
		const struct rg_guard_info *gi = &rg_guards[i];
		const char *why = NULL;
		bool avail = rg_guard_available(gi, &why);

		CHECK(gi->id == (enum rg_guard_id)i, "registry order");
		CHECK(rg_guard_find(gi->name) == gi, "rg_guard_find(%s)", gi->name);
		test_availability(gi, avail, why, expect_lse, expect_rseq);
		if (!avail) {
			printf("%-16s unavailable: %s\n", gi->name, why);
			continue;
		}
		test_guard(gi, 0);	/* padded slots */
		test_guard(gi, 4);	/* packed slots */
		printf("%-16s ok (padded and packed slots), scope %s, role %s\n", gi->name,
		       rg_guard_scope_name(rg_guard_scope(gi)), rg_guard_role(gi));
		CHECK(rg_guard_role(gi)[0] != '\0', "%s: empty role", gi->name);
		CHECK((gi->needs & RG_NEEDS_BASE) ? rg_guard_scope(gi) == RG_SCOPE_CPU : 1,
		      "%s: uses the per-CPU base but its scope is not cpu", gi->name);
		ran++;
	}
	/* the per-CPU base: layout switches in signal handlers, and no stale slot when not pinned */
	for (int i = 0; i < RG_GUARD__COUNT; i++) {
		const struct rg_guard_info *gi = &rg_guards[i];
		struct rg_guard g;

		if (!(gi->needs & RG_NEEDS_BASE) || (gi->needs & RG_NO_PROTECTION) ||
		    !rg_guard_available(gi, NULL) || rg_guard_init(&g, 0))
			continue;
		test_layout_switch(gi);
		test_unpinned_faults(gi, &g);
		rg_guard_fini(&g);
		/* the child unpinned only itself; this thread is still pinned */
		CHECK_EQ(rg_percpu_thread_init(), cpu);
		break;		/* one base-using guard is enough: they share rg_pcpu_ptr / %gs */
	}
	/* the modelled count's context levels: task 0, a signal 2 (hardirq), a nested one 3 (NMI) */
	CHECK_EQ(rg_interrupt_context_level(), 0u);
	rg_rctx_enter_signal();
	CHECK_EQ(rg_interrupt_context_level(), 2u);
	rg_rctx_enter_signal();
	CHECK_EQ(rg_interrupt_context_level(), 3u);
	rg_rctx_exit_signal();
	CHECK_EQ(rg_interrupt_context_level(), 2u);
	rg_rctx_exit_signal();
	CHECK(rg_interrupt_context_level() == 0 && rg_preempt_count_idle(), "count not idle after the signal levels");
	CHECK(rg_guard_find("no-such-guard") == NULL, "unknown name found");
	CHECK(ran >= 3, "only %d guards ran", ran);
	return rg_test_done("test_guards");
}
