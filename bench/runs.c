// SPDX-License-Identifier: MIT
/* --runs: each run a fresh process (this binary re-executed, a new address layout), handed the groups one at a time by the parent; its rounds come back through a pipe. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rg/cmdline.h"
#include "rg/env.h"
#include "rg/loops.h"
#include "rg/platform.h"
#include "rg/stats.h"
#include "cases.h"
#include "rounds.h"
#include "rows.h"
#include "runs.h"

/*
 * The wire between a parent and its runs: both ends are the same binary and
 * build the same cases in the same order (suite_build() from the same plan),
 * so a case is its index and the records are plain structs.
 *   parent -> run: struct wire_cmd, then ncases struct wire_preset (the
 *                  group's cases in index order);
 *   run -> parent: per case of the group, struct wire_case, then nrep ns,
 *                  nrep wall, nrep mops, nrep ratio (CPU/wall).
 */
struct wire_cmd {
	int32_t group;
	uint32_t ncases;
	uint8_t preset;		/* chunks and work units given: warm up, do not calibrate */
};

struct wire_preset {
	uint64_t chunk;
	uint32_t work, work_in;
};

struct wire_case {
	/*
	 * The run's whole case as it stands after the group (the same binary
	 * reads it: its pointers mean nothing to the parent and are not used).
	 */
	struct bcase c;
	char where[RG_RUN_WHERE_LEN];
};

struct run_proc {
	pid_t pid;
	int to, from;		/* the parent's ends */
	bool reaped;		/* waited for already (run_failed()) */
};

/*
 * Move n bytes through fd: write them (send) or read them. 0, or -1 on end of
 * file, an error, or *stop set by a signal (NULL: never). A read looks at
 * *stop every 50 ms: a signal that lands between two reads must not leave the
 * parent waiting for a run to finish its whole group.
 */
static int xfer(int fd, void *p, size_t n, bool send, volatile sig_atomic_t *stop)
{
	char *b = p;

	while (n) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (!send && stop && *stop)
			return -1;
		/* Nothing yet, or a signal (EINTR): look at *stop again before reading. */
		if (!send && poll(&pf, 1, 50) <= 0)
			continue;
		r = send ? write(fd, b, n) : read(fd, b, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		b += r;
		n -= (size_t)r;
	}
	return 0;
}

static int put(int fd, const void *p, size_t n)
{
	return xfer(fd, (void *)p, n, true, NULL);
}

static int get(int fd, void *p, size_t n, volatile sig_atomic_t *stop)
{
	return xfer(fd, p, n, false, stop);
}

bool suite_group_in_runs(const struct suite *s, int group)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->c[i].group == group && kind_of(&s->c[i])->distribution)
			return false;
	return true;
}

/* ---- the run process ----------------------------------------------------- */

/* The measured loop's entry of the case's kind, for the record of where it was. */
static uintptr_t loop_addr(const struct bcase *c)
{
	const struct rg_loops *L = &rg_loops[c->gi->id];

	switch (kind_of(c)->guard_loop) {
	case GUARD_LOOP_PAIR: return (uintptr_t)L->pair;
	case GUARD_LOOP_DUTY: return (uintptr_t)L->duty;
	case GUARD_LOOP_NESTED: return (uintptr_t)L->nested;
	case GUARD_LOOP_NONE: break;
	}
	return 0;
}

static int send_case(int fd, const struct bcase *c, bool s_forked)
{
	struct wire_case w;

	memset(&w, 0, sizeof(w));
	w.c = *c;
	/* Page offsets: what a fresh address layout may move (docs/bench.md, "Runs"). */
	if (loop_addr(c))
		snprintf(w.where, sizeof(w.where), "slots +0x%03lx stack +0x%03lx loop +0x%03lx cpu %d%s",
			 (unsigned long)((uintptr_t)c->g.pcpu & 4095),
			 (unsigned long)(c->stack_at & 4095),
			 (unsigned long)(loop_addr(c) & 4095), c->seen_cpu[0],
			 s_forked ? " forked" : "");
	if (put(fd, &w, sizeof(w)) ||
	    put(fd, c->ns, c->nrep * sizeof(double)) ||
	    put(fd, c->wall, c->nrep * sizeof(double)) ||
	    put(fd, c->mops, c->nrep * sizeof(double)) ||
	    put(fd, c->ratio, c->nrep * sizeof(double)))
		return -1;
	return 0;
}

/* The stop signals: a run holds them back from before its exec until it handles them itself. */
static void stop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGQUIT);
}

/*
 * A group this run measured before (the parent asks again: ref_rerun()):
 * its cases start over, so what the run sends is this measurement alone.
 */
static void forget_group(struct suite *s, int group)
{
	for (size_t i = 0; i < s->n; i++) {
		struct bcase *c = &s->c[i];

		if (c->group != group)
			continue;
		c->nrep = 0;
		c->nnoisy = 0;
		c->discarded = 0;
		c->worst_ratio = INFINITY;
		c->worst_iv = 0;
		c->ops = c->refusals = 0;
		c->cycles = c->instructions = 0;
		memset(c->ev, 0, sizeof(c->ev));
		c->counted_all = c->ev_all = true;
		c->active = false;
	}
}

int rg_suite_run_child(const struct rg_suite_cfg *cfg)
{
	struct suite s = { .cfg = cfg };
	struct bcase **set = NULL;
	struct wire_cmd cmd;
	bool *seen = NULL;	/* the groups this run measured */
	int rc = RG_EXIT_FAIL, in = cfg->run_fd[0], out = cfg->run_fd[1];

	/* The parent stops us by closing the pipe; its Ctrl-C reaches us too and stops the batch. */
	signal(SIGPIPE, SIG_IGN);
	rg_cl_catch_stop_signals(cfg->stop);
	/* Held back since before the exec (spawn()): one sent while we started is acted on now, quietly. */
	{
		sigset_t stops;

		stop_signals(&stops);
		sigprocmask(SIG_UNBLOCK, &stops, NULL);
	}
	s.rng = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull | 1;
	if (suite_build(&s, cfg) || suite_setup(&s))
		goto out;
	set = calloc(s.n ? s.n : 1, sizeof(*set));
	seen = calloc((size_t)(s.ngroups ? s.ngroups : 1), sizeof(*seen));
	if (!set || !seen)
		goto out;
	while (!get(in, &cmd, sizeof(cmd), cfg->stop)) {
		size_t k = 0;

		if (cmd.group < 0 || cmd.group >= s.ngroups)
			goto out;
		for (size_t i = 0; i < s.n; i++) {
			struct wire_preset p;

			if (s.c[i].group != cmd.group)
				continue;
			if (k++ >= cmd.ncases || get(in, &p, sizeof(p), cfg->stop))
				goto out;
			if (cmd.preset) {
				s.c[i].chunk = p.chunk;
				s.c[i].work = p.work;
				s.c[i].work_in = p.work_in;
			}
		}
		s.preset = cmd.preset;
		s.again = seen[cmd.group];
		seen[cmd.group] = true;
		if (s.again)
			forget_group(&s, cmd.group);
		if (suite_run_group(&s, cmd.group, set))
			goto out;
		for (size_t i = 0; i < s.n; i++)
			if (s.c[i].group == cmd.group && send_case(out, &s.c[i], cfg->run_forked))
				goto out;
	}
	rc = RG_EXIT_OK;
out:
	free(set);
	free(seen);
	suite_free(&s);
	close(out);
	return rc;
}

/* ---- the parent ---------------------------------------------------------- */

/* Run k: this binary again with the plan's command line and --run-child=k,IN,OUT (stdout quiet). */
static int spawn(struct suite *s, int k, struct run_proc *p)
{
	const struct rg_suite_cfg *cfg = s->cfg;
	int down[2], up[2];
	char arg[64];
	char **argv;
	pid_t parent;

	if (pipe2(down, O_CLOEXEC) || pipe2(up, O_CLOEXEC))
		return -1;
	argv = calloc((size_t)cfg->argc + 4, sizeof(*argv));
	if (!argv)
		return -1;
	memcpy(argv, cfg->argv, (size_t)cfg->argc * sizeof(*argv));
	snprintf(arg, sizeof(arg), "--run-child=%d,%d,%d", k, down[0], up[1]);
	argv[cfg->argc] = arg;
	/*
	 * The CPUs the plan chose by their interrupts (rg_place_quiet()): given
	 * as --cpus (the last one counts), so that a run does not choose anew
	 * from counts that moved since.
	 */
	if (cfg->cpus_quiet) {
		static char cpus[16 + RG_MAX_CPUS * 6];
		size_t off = (size_t)snprintf(cpus, sizeof(cpus), "--cpus=");

		for (int i = 0; i < cfg->ncpus && off < sizeof(cpus); i++)
			off += (size_t)snprintf(cpus + off, sizeof(cpus) - off, i ? ",%d" : "%d",
						cfg->cpus[i]);
		argv[cfg->argc + 1] = cpus;
	}
	fflush(NULL);
	parent = getpid();
	p->pid = fork();
	if (p->pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		/* A parent killed outright takes its runs with it (kept across the exec). */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(1);
		/* On the CPUs the plan was made with, whatever moved the parent since. */
		if (cfg->have_allowed) {
			cpu_set_t set;

			memcpy(&set, cfg->allowed, sizeof(set));
			sched_setaffinity(0, sizeof(set), &set);
		}
		/* The two ends the run keeps survive the exec; the parent's do not. */
		fcntl(down[0], F_SETFD, 0);
		fcntl(up[1], F_SETFD, 0);
		if (null >= 0)
			dup2(null, STDOUT_FILENO);
		/*
		 * The parent stops its runs with SIGTERM, maybe while this one is
		 * still starting: held back across the exec (the mask is kept), so
		 * the run's own handling takes it, not the start-up handler's line
		 * (which is the parent's to say).
		 */
		{
			sigset_t stops;

			stop_signals(&stops);
			sigprocmask(SIG_BLOCK, &stops, NULL);
		}
		execv("/proc/self/exe", argv);
		{
			/*
			 * No re-exec (user-mode emulation without binfmt_misc): this
			 * forked copy is the run, in the parent's address layout;
			 * its records say so.
			 */
			struct rg_suite_cfg c = *cfg;

			/*
			 * The parent's ends of this run's pipes and the earlier runs'
			 * pipes: held here, no run would ever see its end of commands.
			 */
			close(down[1]);
			close(up[0]);
			for (int j = 0; j < k; j++) {
				close(s->proc[j].to);
				close(s->proc[j].from);
			}
			c.run_child = k;
			c.run_fd[0] = down[0];
			c.run_fd[1] = up[1];
			c.progress = NULL;
			c.run_forked = true;
			_exit(rg_suite_run_child(&c));
		}
	}
	free(argv);
	close(down[0]);
	close(up[1]);
	if (p->pid < 0) {
		close(down[1]);
		close(up[0]);
		return -1;
	}
	p->to = down[1];
	p->from = up[0];
	return 0;
}

int suite_runs_start(struct suite *s)
{
	int n = s->cfg->runs;

	s->proc = calloc((size_t)n, sizeof(*s->proc));
	if (!s->proc)
		return -1;
	for (int k = 0; k < n; k++)
		s->proc[k].pid = -1;
	for (size_t i = 0; i < s->n; i++) {
		s->c[i].run = calloc((size_t)n, sizeof(*s->c[i].run));
		if (!s->c[i].run)
			return -1;
	}
	for (int k = 0; k < n; k++)
		if (spawn(s, k, &s->proc[k])) {
			int e = errno;

			fprintf(stderr, "rgbench: cannot start run %d (a process of --runs %d): %s%s\n", k, n,
				strerror(e), e == EAGAIN ? " (ulimit -u?)" : "");
			return -1;
		}
	return 0;
}

void suite_runs_stop(struct suite *s)
{
	if (!s->proc)
		return;
	for (int k = 0; k < s->cfg->runs; k++) {
		struct run_proc *p = &s->proc[k];
		int st;

		if (p->pid <= 0)
			continue;
		if (*s->cfg->stop && !p->reaped)
			kill(p->pid, SIGTERM);	/* interrupted: stop its batch now */
		close(p->to);	/* end of commands: the run exits */
		close(p->from);
		while (!p->reaped && waitpid(p->pid, &st, 0) < 0 && errno == EINTR)
			;
	}
	free(s->proc);
	s->proc = NULL;
}

/*
 * Run k measured c again (ref_rerun()): its earlier rounds are thrown away
 * and what they added to the case's totals taken back; the thrown-away rounds
 * count as discarded, like a disturbed round's run. Its lowest CPU/wall and
 * most switches stay among the case's worst (they are maxima).
 */
static void drop_run(struct bcase *c, struct case_run *r)
{
	c->discarded += (long)r->nrep;
	c->nnoisy -= r->nnoisy;
	c->refusals -= r->refusals;
	c->ops -= r->ops;
	c->cycles -= r->cycles;
	c->instructions -= r->instructions;
	for (size_t i = 0; i < RG_PMU_MAX_EVENTS; i++)
		c->ev[i] -= r->ev[i];
	free(r->ns);
	free(r->wall);
	free(r->mops);
	free(r->ratio);
	memset(r, 0, sizeof(*r));
}

/* Run k's record of case c added to the parent's case: its rounds kept apart, its totals summed. */
static int take_case(struct run_proc *p, struct bcase *c, size_t k, volatile sig_atomic_t *stop)
{
	struct case_run *r = &c->run[k];
	struct wire_case w;
	size_t bytes;

	if (get(p->from, &w, sizeof(w), stop) || w.c.nrep > (1u << 20))
		return -1;
	if (r->ns)
		drop_run(c, r);
	bytes = w.c.nrep * sizeof(double);
	r->nrep = w.c.nrep;
	r->ns = malloc(bytes ? bytes : 1);
	r->wall = malloc(bytes ? bytes : 1);
	r->mops = malloc(bytes ? bytes : 1);
	r->ratio = malloc(bytes ? bytes : 1);
	if (!r->ns || !r->wall || !r->mops || !r->ratio || get(p->from, r->ns, bytes, stop) ||
	    get(p->from, r->wall, bytes, stop) || get(p->from, r->mops, bytes, stop) ||
	    get(p->from, r->ratio, bytes, stop))
		return -1;
	snprintf(r->where, sizeof(r->where), "%s", w.where);
	c->nruns = k + 1 > c->nruns ? k + 1 : c->nruns;
	c->reported |= w.c.reported;
	if (w.c.error && !c->error) {
		char msg[300];

		snprintf(msg, sizeof(msg), "run %zu: %s", k, w.c.errmsg);
		suite_case_fail(c, msg);
	}
	c->chunk = w.c.chunk;
	c->work = w.c.work;
	c->work_in = w.c.work_in;
	c->discarded += w.c.discarded;
	c->worst_ratio = fmin(c->worst_ratio, w.c.worst_ratio);
	c->worst_iv = w.c.worst_iv > c->worst_iv ? w.c.worst_iv : c->worst_iv;
	r->nnoisy = w.c.nnoisy;
	r->refusals = w.c.refusals;
	r->ops = w.c.ops;
	r->cycles = w.c.cycles;
	r->instructions = w.c.instructions;
	c->nnoisy += r->nnoisy;
	c->refusals += r->refusals;
	c->ops += r->ops;
	c->cycles += r->cycles;
	c->instructions += r->instructions;
	c->counted_all &= w.c.counted_all;
	c->ev_all &= w.c.ev_all;
	for (size_t i = 0; i < RG_PMU_MAX_EVENTS; i++) {
		r->ev[i] = w.c.ev[i];
		c->ev[i] += r->ev[i];
	}
	for (int t = 0; t < c->threads && t < RG_MAX_CPUS; t++)
		c->seen_cpu[t] = w.c.seen_cpu[t];
	return 0;
}

/* Every run's rounds of c, run after run, as the case's samples (the row's rounds). */
static int concat_rounds(struct bcase *c)
{
	size_t n = 0, o = 0;

	for (size_t k = 0; k < c->nruns; k++)
		n += c->run[k].nrep;
	free(c->ns);
	free(c->wall);
	free(c->mops);
	free(c->ratio);
	c->ns = malloc((n ? n : 1) * sizeof(double));
	c->wall = malloc((n ? n : 1) * sizeof(double));
	c->mops = malloc((n ? n : 1) * sizeof(double));
	c->ratio = malloc((n ? n : 1) * sizeof(double));
	if (!c->ns || !c->wall || !c->mops || !c->ratio)
		return -1;
	for (size_t k = 0; k < c->nruns; k++) {
		const struct case_run *r = &c->run[k];

		memcpy(c->ns + o, r->ns, r->nrep * sizeof(double));
		memcpy(c->wall + o, r->wall, r->nrep * sizeof(double));
		memcpy(c->mops + o, r->mops, r->nrep * sizeof(double));
		memcpy(c->ratio + o, r->ratio, r->nrep * sizeof(double));
		o += r->nrep;
	}
	c->nrep = n;
	return 0;
}

/* One run measures the group: the command (with the first run's chunks and work when preset), then its records. */
static int run_one(struct suite *s, int group, int k, bool preset)
{
	struct run_proc *p = &s->proc[k];
	struct wire_cmd cmd = { .group = group, .preset = preset };

	for (size_t i = 0; i < s->n; i++)
		cmd.ncases += s->c[i].group == group;
	if (put(p->to, &cmd, sizeof(cmd)))
		return -1;
	for (size_t i = 0; i < s->n; i++) {
		struct wire_preset w = { s->c[i].chunk, s->c[i].work, s->c[i].work_in };

		if (s->c[i].group == group && put(p->to, &w, sizeof(w)))
			return -1;
	}
	for (size_t i = 0; i < s->n; i++)
		if (s->c[i].group == group && take_case(p, &s->c[i], (size_t)k, s->cfg->stop))
			return -1;
	return 0;
}

/*
 * Run k stopped answering. A run that ended with a failure status printed
 * its own one line (every rgbench error does): say nothing more. One killed
 * by a signal, or still there after 2 s, is named here in one line.
 */
static void run_failed(struct run_proc *p, int k)
{
	int st = 0;
	pid_t got = 0;

	for (int ms = 0; p->pid > 0 && !p->reaped && ms < 2000; ms += 10) {
		got = waitpid(p->pid, &st, WNOHANG);
		if (got == p->pid || (got < 0 && errno != EINTR))
			break;
		usleep(10000);
	}
	if (got == p->pid) {
		p->reaped = true;	/* the cleanup must not wait for it */
		if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
			return;
		if (WIFSIGNALED(st)) {
			fprintf(stderr, "rgbench: run %d was killed by signal %d (%s)\n", k, WTERMSIG(st),
				strsignal(WTERMSIG(st)));
			return;
		}
	}
	fprintf(stderr, "rgbench: run %d stopped answering\n", k);
}

/* The group's benchmarks (the cycle reference is not one of its own), or 0. */
static size_t group_benchmarks(const struct suite *s, int group, const struct bcase **c0)
{
	size_t nb = 0;

	*c0 = NULL;
	for (size_t i = 0; i < s->n; i++) {
		const struct bcase *c = &s->c[i];

		if (c->group != group || c->skipped)
			continue;
		if (!*c0)
			*c0 = c;
		nb += !kind_of(c)->reference;
	}
	return nb;
}

/* A fresh random order of the runs 0..n-1 (Fisher-Yates on the suite's generator). */
static void shuffle_runs(struct suite *s, int *order, int n)
{
	for (int k = 0; k < n; k++)
		order[k] = k;
	for (int k = n; k > 1; k--) {
		int j = (int)(s->rng % (uint64_t)k), t = order[k - 1];

		s->rng = s->rng * 6364136223846793005ull + 1442695040888963407ull;
		order[k - 1] = order[j];
		order[j] = t;
	}
}

/*
 * A run whose cycle reference ran more than RG_REF_MAX_MOVE away from the
 * median of the group's runs (the median of each run's rounds) measured the
 * core at another speed for that whole run: a host's load on the vCPU's
 * sibling, a frequency step. Seen here at rest: one run of six of a group
 * with everything in it 55% slower, its reference too, which left every row
 * of the group `noisy` by the reference's rule. Like a disturbed round, such
 * a run is measured again (the same process, the same chunks), at most
 * RG_SUITE_RETRIES times per group, the farthest run first; its earlier
 * rounds count as discarded. With fewer than 3 runs no run is the odd one.
 * A reference still off after that leaves the rows `noisy` (schema/fill.c).
 */
static int ref_rerun(struct suite *s, int g)
{
	const struct rg_suite_cfg *cfg = s->cfg;
	const struct bcase *ref = NULL, *c0;
	double med[RG_MAX_RUNS];
	int nr = cfg->runs;

	if (!group_benchmarks(s, g, &c0))
		return 0;

	for (size_t i = 0; i < s->n && !ref; i++)
		if (s->c[i].group == g && !s->c[i].skipped && !s->c[i].error &&
		    kind_of(&s->c[i])->reference)
			ref = &s->c[i];
	if (!ref || nr < 3 || nr > RG_MAX_RUNS || ref->nruns != (size_t)nr)
		return 0;
	for (int tries = 0; tries < RG_SUITE_RETRIES && !*cfg->stop; tries++) {
		double m, worst = 0;
		int k = -1;

		for (int j = 0; j < nr; j++) {
			if (!ref->run[j].nrep)
				return 0;
			med[j] = rg_stat_median(ref->run[j].ns, ref->run[j].nrep);
		}
		m = rg_stat_median(med, (size_t)nr);
		for (int j = 0; j < nr; j++)
			if (fabs(med[j] - m) / m > worst) {
				worst = fabs(med[j] - m) / m;
				k = j;
			}
		if (k < 0 || !(worst > RG_REF_MAX_MOVE))
			return 0;
		if (cfg->progress) {
			fprintf(cfg->progress, "rgbench: run %d of %s: its cycle reference %.0f%% %s than the "
				"runs' median (more than %.0f%%): measured again\n",
				k, case_progress_name(c0), worst * 100, med[k] > m ? "slower" : "faster",
				RG_REF_MAX_MOVE * 100);
			fflush(cfg->progress);
		}
		if (run_one(s, g, k, true)) {
			if (!*cfg->stop)
				run_failed(&s->proc[k], k);
			return -1;
		}
	}
	return 0;
}

/*
 * Every group in every run, in passes: pass p hands each group, in group
 * order, to one run (a fresh random order of runs per group), so that the N
 * runs of a row are spread over the whole command instead of following each
 * other within a second or two. A load that comes and goes on the machine
 * then lands in one or two of a row's runs, where the run-level interval and
 * compare's run test see it, instead of shifting all of them together.
 * Pass 0 calibrates each group (chunks, duty work units); the later passes
 * take its figures and only warm up, so that all runs measure the same work.
 * Groups the runs do not measure (latency) run here in pass 0.
 */
int suite_runs_all(struct suite *s, struct bcase **set)
{
	const struct rg_suite_cfg *cfg = s->cfg;
	int (*order)[RG_MAX_RUNS] = calloc((size_t)(s->ngroups ? s->ngroups : 1), sizeof(*order));

	if (!order) {
		fprintf(stderr, "rgbench: out of memory\n");
		return -1;
	}
	for (int g = 0; g < s->ngroups; g++)
		shuffle_runs(s, order[g], cfg->runs);
	for (int pass = 0; pass < cfg->runs && !*cfg->stop; pass++) {
		bool last = pass == cfg->runs - 1;

		if (cfg->progress && pass > 0) {
			char clock[64];

			suite_progress_clock(s, clock, sizeof(clock));
			fprintf(cfg->progress, "rgbench: pass %d of %d: every group again, each in another "
				"run%s\n", pass + 1, cfg->runs, clock);
			fflush(cfg->progress);
		}
		for (int g = 0; g < s->ngroups && !*cfg->stop; g++) {
			const struct bcase *c0;
			size_t nb = group_benchmarks(s, g, &c0);
			int k = order[g][pass];

			if (!suite_group_in_runs(s, g)) {
				if (pass == 0 && suite_run_group(s, g, set))
					goto fail;
				if (pass == 0)
					suite_progress_done(s, g, 0);
			} else if (nb) {
				if (cfg->progress && pass == 0) {
					fprintf(cfg->progress,
						"rgbench: %s: %zu benchmarks in %d runs of %d interleaved rounds",
						case_progress_name(c0), nb, cfg->runs,
						cfg->repetitions);
					if (c0->threads > 1)
						fprintf(cfg->progress, " (%d threads)", c0->threads);
					fputc('\n', cfg->progress);
					fflush(cfg->progress);
				}
				if (run_one(s, g, k, pass > 0)) {
					if (*cfg->stop)
						break;	/* interrupted: nothing is written */
					run_failed(&s->proc[k], k);
					goto fail;
				}
				suite_progress_done(s, g, pass);
			}
			if (!last || *cfg->stop)
				continue;
			if (suite_group_in_runs(s, g) && nb && ref_rerun(s, g)) {
				if (*cfg->stop)
					break;
				goto fail;
			}
			/* The group's last run is in: its rows now, each with its progress line. */
			for (size_t i = 0; i < s->n; i++)
				if (s->c[i].group == g && suite_group_in_runs(s, g) && !s->c[i].skipped &&
				    concat_rounds(&s->c[i])) {
					free(order);
					return -1;
				}
			if (suite_rows_upto(s, g))
				goto fail;
		}
	}
	free(order);
	return 0;
fail:
	free(order);
	return -1;
}
