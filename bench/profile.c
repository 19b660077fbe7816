// SPDX-License-Identifier: MIT
/* The plan step: the environment, the profiles (--quick, default, --full), CPU placement, the BPF part and the outputs turned into the suite's struct rg_suite_cfg. */
#define _GNU_SOURCE
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <unistd.h>

#include "command.h"
#include "counters.h"
#include "plan.h"
#include "rg/writer.h"
#include "rg/gbench.h"
#include "rg/parts.h"
#include "rg/place.h"
#include "rg/platform.h"
#include "rg/schema.h"

/* Rounds of every benchmark and the chunk time per round (docs/bench.md), per profile. */
static const double prof_min_time[3] = { 0.005, 0.01, 0.05 };
static const int prof_reps[3] = { 5, 1, 2 };
/*
 * Processes (runs) per group: the default's and --full's rounds were cut to
 * afford them, at the same chunks per benchmark as 11 and 21 rounds in one
 * process (docs/bench.md, "The default number of runs").
 */
static const int prof_runs[3] = { 1, 6, 8 };
/* As --duty spells them: each level with the default split (rg_cl_duty_list). */
static const char *const prof_duty[3] = { "0,50", "0,10,50,200", "0,10,50,200,1000" };

/* An environment variable, "" when unset. */
static const char *env_str(const char *name)
{
	const char *v = getenv(name);

	return v ? v : "";
}

/* The first line of a small text file, "" when unreadable. */
static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/*
 * What the kernel varies between runs (docs/bench.md, "Runs"): address
 * randomization (the sysctl, and this process's personality, which the runs
 * inherit: setarch -R turns it off) and the transparent huge page mode.
 */
static void plan_layout(struct rg_suite_cfg *cfg)
{
	char va[16], thp[128], *b, *e;
	int pers = personality(0xffffffff);

	read_line("/proc/sys/kernel/randomize_va_space", va, sizeof(va));
	if (pers != -1 && (pers & ADDR_NO_RANDOMIZE))
		snprintf(cfg->aslr, sizeof(cfg->aslr), "off (setarch -R)");
	else if (!strcmp(va, "0"))
		snprintf(cfg->aslr, sizeof(cfg->aslr), "off (randomize_va_space=0)");
	else
		snprintf(cfg->aslr, sizeof(cfg->aslr), "on (randomize_va_space=%s)", va[0] ? va : "?");
	read_line("/sys/kernel/mm/transparent_hugepage/enabled", thp, sizeof(thp));
	b = strchr(thp, '[');
	e = b ? strchr(b, ']') : NULL;
	if (b && e)
		snprintf(cfg->thp, sizeof(cfg->thp), "%.*s", (int)(e - b - 1), b + 1);
	else
		snprintf(cfg->thp, sizeof(cfg->thp), "n/a");
}

/*
 * Everything the run takes from the environment, read here once into the
 * plan (docs/bench.md, "Test switches"): the topology source (hwloc's own
 * names) and the RG_TEST_* switches. Nothing below the plan calls getenv().
 */
/*
 * A test switch that takes one of words[] (or is unset/empty: index 0 is
 * "" and means off): its index, or a usage error naming what it takes.
 */
static int env_word(const char *name, const char *const *words, int n)
{
	const char *v = env_str(name);
	char shown[64], list[128] = "";
	size_t off = 0;

	for (int i = 0; i < n; i++)
		if (!strcmp(v, words[i]))
			return i;
	rg_str_printable(shown, sizeof(shown), v);
	for (int i = 1; i < n && off < sizeof(list); i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", i > 1 ? "|" : "", words[i]);
	rg_bench_die_usage("%s=%s: expected %s (or unset)", name, shown, list);
}

static void plan_env(struct rg_suite_cfg *cfg)
{
	static const char *const disturb[] = { "", "first", "every", "ref", "refrun" };
	static const char *const one[] = { "", "1" };
	int d = env_word("RG_TEST_DISTURB", disturb, 5);

	snprintf(cfg->topo_xml, sizeof(cfg->topo_xml), "%s", env_str("HWLOC_XMLFILE"));
	if (!cfg->topo_xml[0])
		snprintf(cfg->topo_synthetic, sizeof(cfg->topo_synthetic), "%s",
			 env_str("HWLOC_SYNTHETIC"));
	cfg->test_disturb = d == 1 ? RG_DISTURB_FIRST : d == 2 ? RG_DISTURB_EVERY :
			    d == 3 ? RG_DISTURB_REF : d == 4 ? RG_DISTURB_REFRUN : RG_DISTURB_NONE;
	cfg->test_xpkg = env_word("RG_TEST_XPKG", one, 2);
	snprintf(cfg->test_lat_unusable, sizeof(cfg->test_lat_unusable), "%s",
		 env_str("RG_TEST_LATENCY_UNUSABLE"));
	cfg->test_counters_software = env_word("RG_TEST_COUNTERS_SOFTWARE", one, 2);
	snprintf(cfg->test_sysfs_root, sizeof(cfg->test_sysfs_root), "%s",
		 env_str("RG_TEST_SYSFS_ROOT"));
	cfg->test_stack_free = !strcmp(env_str("RG_TEST_LAYOUT"), "kernel");
	rg_topo_set_source(cfg->topo_xml, cfg->topo_synthetic);
	plan_layout(cfg);
	rg_counters_configure(cfg->test_counters_software, cfg->test_sysfs_root);
}

int rg_bench_place(const struct rg_bench_opts *o, struct rg_suite_cfg *cfg)
{
	static int order[RG_MAX_CPUS];
	char err[PATH_MAX + 256];
	int norder;

	plan_env(cfg);
	/* --events: every name in this CPU's libpfm4 table, before anything runs (--list shows the names) */
	snprintf(cfg->events, sizeof(cfg->events), "%s", o->events);
	if (rg_events_configure(cfg->events, err, sizeof(err))) {
		fprintf(stderr, "rgbench: %s\n", err);
		return RG_EXIT_USAGE;
	}
	if (rg_topo_init(err, sizeof(err))) {
		fprintf(stderr, "rgbench: %s\n", err);
		return o->plan ? RG_EXIT_USAGE : RG_EXIT_FAIL;	/* --plan: a bad topology file */
	}
	if (rg_topo_foreign() && !o->plan && !o->list) {
		rg_topo_fini();
		rg_bench_die_usage("the topology comes from HWLOC_XMLFILE/HWLOC_SYNTHETIC (another machine): only --plan and --list use it");
	}
	norder = rg_topo_order(order, RG_MAX_CPUS);
	if (o->ncpus) {
		for (int i = 0; i < o->ncpus; i++)
			if (!rg_topo_allowed(o->cpus[i])) {
				char s[32];

				snprintf(s, sizeof(s), "%d", o->cpus[i]);
				rg_bench_die_usage("--cpus: CPU %s is not available (allowed: %d CPUs, see --list)",
						   s, norder);
			}
		memcpy(cfg->cpus, o->cpus, (size_t)o->ncpus * sizeof(int));
		cfg->ncpus = o->ncpus;
		snprintf(cfg->cpus_why, sizeof(cfg->cpus_why), "--cpus, in its order");
	} else if (rg_topo_foreign()) {
		/* another machine's topology (--plan, --list): this machine's interrupts say nothing of it */
		memcpy(cfg->cpus, order, (size_t)norder * sizeof(int));
		cfg->ncpus = norder;
		snprintf(cfg->cpus_why, sizeof(cfg->cpus_why),
			 "the topology's placement order (not this machine's: its interrupts not read)");
	} else {
		static bool smt[RG_MAX_CPUS];
		static int pkg[RG_MAX_CPUS];

		for (int i = 0; i < norder; i++) {
			struct rg_topo_where w;

			smt[i] = !rg_topo_where(order[i], &w) && w.smt;
			pkg[i] = rg_topo_where(order[i], &w) ? 0 : w.package;
		}
		/* isolated, nohz_full, then fewest interrupts, CPU 0 last (docs/bench.md, "Which CPUs") */
		rg_place_quiet(order, norder, smt, pkg, cfg->test_sysfs_root, cfg->cpus_why,
			       sizeof(cfg->cpus_why));
		memcpy(cfg->cpus, order, (size_t)norder * sizeof(int));
		cfg->ncpus = norder;
		cfg->cpus_quiet = true;
	}
	return -1;
}

/* The default run's BPF part: run it, or why not (NULL: not a default run). */
static void plan_bpf(const struct rg_bench_opts *o, struct rg_suite_cfg *cfg,
		     const struct rg_bench_hooks *hooks)
{
	static volatile sig_atomic_t stop;

	cfg->stop = &stop;
	if (!rg_bench_default_run(o))
		return;
	if (!hooks || !hooks->bpf_default)
		cfg->bpf_why = "rg_bpf not built";
	else if (geteuid() != 0)
		cfg->bpf_why = "needs root";
	else
		cfg->bpf_run = hooks->bpf_default;
	/* Short BPF durations except in --full: the default suite has to finish within a minute on a 2-core machine. */
	cfg->bpf_quick = o->profile != 2;
}

int rg_bench_profile(const struct rg_bench_opts *o, struct rg_suite_cfg *cfg,
		     const struct rg_bench_hooks *hooks, bool lock)
{
	const int p = o->profile;

	/* The selection, resolved once: --guards' choice and the harness floor, always measured. */
	for (int id = 0; id < RG_GUARD__COUNT; id++)
		cfg->guard[id] = o->guard[id] || rg_guards[id].floor;
	/* Ladders: the RG_LADDER_DEFAULT designs in every profile, the others with --full. */
	for (int id = 0; id < RG_GUARD__COUNT; id++)
		cfg->ladder[id] = o->guard[id] && rg_ladder_profile((unsigned int)id) &&
				  (p == 2 || rg_ladder_profile((unsigned int)id) == RG_LADDER_DEFAULT);
	memcpy(cfg->scenario, o->scenario, sizeof(cfg->scenario));
	if (o->nthreads) {
		for (int i = 0; i < o->nthreads; i++)
			if (o->threads[i] > cfg->ncpus)
				rg_bench_die_usage("--threads %d: only %d CPU(s) selected (one thread per CPU)",
						   o->threads[i], cfg->ncpus);
		memcpy(cfg->thread_counts, o->threads, (size_t)o->nthreads * sizeof(int));
		cfg->nthread_counts = o->nthreads;
	} else {
		/* 1, 2, 4, ... and N (full: every count). */
		for (int t = 1; t <= cfg->ncpus && cfg->nthread_counts < RG_MAX_THREAD_COUNTS;
		     t = p == 2 ? t + 1 : t * 2)
			cfg->thread_counts[cfg->nthread_counts++] = t;
		if (cfg->thread_counts[cfg->nthread_counts - 1] != cfg->ncpus &&
		    cfg->nthread_counts < RG_MAX_THREAD_COUNTS)
			cfg->thread_counts[cfg->nthread_counts++] = cfg->ncpus;
	}
	if (o->nduty) {
		memcpy(cfg->duty_ns, o->duty, (size_t)o->nduty * sizeof(int));
		memcpy(cfg->duty_in_ns, o->duty_in, (size_t)o->nduty * sizeof(int));
		cfg->nduty = o->nduty;
	} else {
		cfg->nduty = rg_cl_duty_list("profile", prof_duty[p], cfg->duty_ns, cfg->duty_in_ns,
					     RG_MAX_DUTY, 100000);
	}
	cfg->repetitions = o->reps > 0 ? (int)o->reps : o->gb_reps ? (int)o->gb_reps : prof_reps[p];
	cfg->runs = o->runs > 0 ? (int)o->runs : prof_runs[p];
	/* Google Benchmark's own report is of the library runs of this process: one process then. */
	if (o->gb_out && o->runs > 1)
		rg_bench_die_usage("--benchmark_out reports the library's runs of one process: use --runs 1 (or leave --runs out)");
	if (o->gb_out)
		cfg->runs = 1;
	{
		cpu_set_t set;

		_Static_assert(sizeof(set) <= sizeof(cfg->allowed), "cpu_set_t larger than cfg->allowed");
		cfg->have_allowed = !sched_getaffinity(0, sizeof(set), &set);
		if (cfg->have_allowed)
			memcpy(cfg->allowed, &set, sizeof(set));
	}
	cfg->run_child = o->child[0];
	cfg->run_fd[0] = o->child[1];
	cfg->run_fd[1] = o->child[2];
	cfg->min_time = o->min_time > 0 ? o->min_time
			: o->gb_min_time > 0 ? o->gb_min_time : prof_min_time[p];
	cfg->batch = (uint64_t)o->batch;
	cfg->native_noop = true;
	/* stdout is the data's (--out -, --plan, --list): progress and notes go to stderr. */
	cfg->progress = o->quiet || cfg->run_child >= 0 ? NULL : stderr;
	cfg->wrote = o->quiet >= 2 || cfg->run_child >= 0 ? NULL : stderr;
	if (rg_gb_library_display() && (rg_output_is_stdout(o->out_csv) ||
					rg_output_is_stdout(o->out_json)))
		rg_bench_die_usage("--benchmark_format prints Google Benchmark's table on stdout, "
				   "where --out - or --json - writes the results: give a file name");
	cfg->filter = o->gb_filter;
	plan_bpf(o, cfg, hooks);
	if (cfg->filter && rg_suite_count(cfg) == 0)
		rg_bench_die_usage("--benchmark_filter=%s matches no benchmark that runs here "
				   "(names: user/<guard>/<scenario>..., see --benchmark_list_tests=true)",
				   cfg->filter);
	return rg_bench_outputs(o, cfg, lock) ?: -1;
}

