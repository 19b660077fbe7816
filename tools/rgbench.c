// SPDX-License-Identifier: MIT
/* The rgbench command: `rgbench [options]` runs the userspace suite, `rgbench NAME ...` a subcommand. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rg/bench.h"
#include "rg/cmdline.h"
#include "rg/writer.h"
#include "rg/version.h"
#include "rg/fleet_run.h"
#include "rg/ab_run.h"
#include "rg/safe_name.h"

/* Always 0 or 1 (CMake generator expressions), so -Wundef catches a typo. */
#if !defined(RG_HAVE_BPF) || !defined(RG_HAVE_KMOD) || !defined(RG_HAVE_ANALYSIS) || \
	!defined(RG_HAVE_PLOTS)
#error "RG_HAVE_BPF, RG_HAVE_KMOD, RG_HAVE_ANALYSIS and RG_HAVE_PLOTS must be defined to 0 or 1"
#endif
/* Each suite's entry point, or NULL when its target is not part of the build. */
#if RG_HAVE_BPF
#include "rg/bpf.h"
#define BPF_MAIN rg_bpf_main
#else
#define BPF_MAIN NULL
#endif
#if RG_HAVE_KMOD
#include "rg/kmod.h"
#define KMOD_MAIN rg_kmod_main
#else
#define KMOD_MAIN NULL
#endif
#if RG_HAVE_ANALYSIS
#include "rg/compare.h"
#include "rg/export.h"
#include "rg/report.h"
#define ANALYSIS_MAIN(fn) fn
#else
#define ANALYSIS_MAIN(fn) NULL
#endif
#if RG_HAVE_PLOTS
#include "rg/plots.h"
#define PLOTS_MAIN rg_plot_main
#else
#define PLOTS_MAIN NULL
#endif

struct subcmd {
	const char *name;
	int (*main)(int argc, char **argv);	/* NULL: not part of this build */
	const char *summary;
	const char *missing;			/* why it would not be built */
};

#define NO_ANALYSIS "the rg_analysis target is not part of this build (analysis/)"

static const struct subcmd subcmds[] = {
	{ "bpf", BPF_MAIN, "BPF trigger bench (trig-fentry style): guard cost per BPF program call",
	  "the rg_bpf target is not part of this build (kernel/bpf: clang, bpftool, libbpf, kernel BTF)" },
	{ "kmod", KMOD_MAIN, "in-kernel guard loops: build, load and run the module",
	  "the rg_kmod target is not part of this build (kernel/kmod)" },
	{ "compare", ANALYSIS_MAIN(rg_compare_main),
	  "A/B tables of result files (text, markdown, commit log, CSV)", NO_ANALYSIS },
	{ "plot", PLOTS_MAIN, "plots of result files (matplotlib)",
	  "the rg_plots target is not part of this build (plots/)" },
	{ "report", ANALYSIS_MAIN(rg_report_main), "the one-page answer: cheapest guard, by how much, why",
	  NO_ANALYSIS },
	{ "export", ANALYSIS_MAIN(rg_export_main),
	  "a result file in Google Benchmark's JSON, for its compare.py", NO_ANALYSIS },
	{ "fleet", rg_fleet_main, "install and run one package on every Ansible host, fetch, report",
	  NULL },
	{ "ab", rg_ab_main, "base against patched kernel: each booted in turn, one table", NULL },
	{ "help", NULL, "this text, or a subcommand's (rgbench help compare)", NULL },
};

#define NSUBCMDS (sizeof(subcmds) / sizeof(subcmds[0]))

/* help is the dispatcher's own (main() below), never "not built". */
static bool is_built(const struct subcmd *c)
{
	return c->main || !strcmp(c->name, "help");
}

static void print_subcommands(FILE *f, bool help)
{
	if (help) {
		for (size_t i = 0; i < NSUBCMDS; i++)
			fprintf(f, "       rgbench %-8s [args]  %s%s\n", subcmds[i].name, subcmds[i].summary,
				is_built(&subcmds[i]) ? "" : " (not built)");
		fprintf(f, "       rgbench --version | -V     the release and the commit of this build\n"
			"\n"
			"rgbench measures what a per-CPU recursion guard (the counter a BPF trampoline\n"
			"bumps on entry and drops on exit) costs on this machine: every guard design in\n"
			"userspace loops (this command), in BPF programs (rgbench bpf) and in the kernel\n"
			"(rgbench kmod), each row with its statistics, written as CSV and JSON, then\n"
			"compared, reported and plotted (rgbench compare, report, plot), here or over a\n"
			"fleet of hosts (rgbench fleet). man rgbench has the whole reference.\n");
		return;
	}
	fprintf(f, "subcommands:");
	for (size_t i = 0; i < NSUBCMDS; i++)
		fprintf(f, " %s%s", subcmds[i].name, is_built(&subcmds[i]) ? "" : " (not built)");
	fprintf(f, "\n");
}

static const struct rg_bench_hooks hooks = {
#if RG_HAVE_BPF
	.bpf_default = rg_bpf_run_default,
#endif
	.subcommands = print_subcommands,
};

/*
 * Before anything is created (a constructor: before the libraries' own static
 * initialisers that run after it, and before main): a stop signal from here
 * until a command takes over (its run's own handling) removes the locks and
 * temporary files made so far and says so; ulimit -f fails a write, not the
 * process.
 */
RG_CL_STARTUP_SIGNALS(rg_output_cleanup_signal);
/* rgbench help [SUBCOMMAND]: rgbench --help, or SUBCOMMAND --help. */
static int help(int argc, char **argv)
{
	char *args[] = { argv[0], "--help", NULL };

	if (argc > 3)
		return rg_cl_usage_error("help takes at most one subcommand (got '%s')", argv[3]);
	if (argc == 2)
		return rg_bench_main(2, args, &hooks);
	for (size_t i = 0; i < NSUBCMDS; i++)
		if (!strcmp(argv[2], subcmds[i].name) && subcmds[i].main) {
			args[0] = argv[2];
			return subcmds[i].main(2, args);
		}
	if (!strcmp(argv[2], "help"))
		return rg_bench_main(2, args, &hooks);
	return rg_cl_usage_error("help: unknown or not built subcommand '%s'", argv[2]);
}

/*
 * rgbench --safe-name NAME...: each NAME's file-name form (rg/safe_name.h; "host" for an
 * empty one), one a line; every
 * word after --safe-name is a name. scripts/run.sh names its results with it and rgbench fleet
 * its hosts' folders: one rule, the C one, for the shell too.
 */
static int print_safe_names(int argc, char **argv)
{
	char safe[RG_SAFE_NAME_MAX + 1];

	rg_cl_set_prog("rgbench");
	if (argc < 1)
		return rg_cl_usage_error("--safe-name needs a name");
	for (int i = 0; i < argc; i++)
		printf("%s\n", rg_safe_name(safe, argv[i], "host"));
	return RG_EXIT_OK;
}

int main(int argc, char **argv)
{
	int rc = rg_cl_fd_budget();

	if (rc)
		return rc;
	if (argc > 1 && !strcmp(argv[1], "--safe-name"))
		return rg_cl_stdout_status(print_safe_names(argc - 2, argv + 2));
	if (rg_version_asked(argc, argv))
		return rg_cl_stdout_status(0);
	if (argc > 1 && !strcmp(argv[1], "help"))
		return rg_cl_stdout_status(help(argc, argv));
	if (argc > 1 && argv[1][0] != '-') {
		for (size_t i = 0; i < NSUBCMDS; i++) {
			const struct subcmd *c = &subcmds[i];

			if (strcmp(argv[1], c->name))
				continue;
			if (rg_version_asked(argc - 1, argv + 1))
				return rg_cl_stdout_status(0);
			if (!c->main) {
				fprintf(stderr, "rgbench: %s not built: %s\n", c->name, c->missing);
				return 1;
			}
			return rg_cl_stdout_status(c->main(argc - 1, argv + 1));
		}
		fprintf(stderr, "rgbench: unknown subcommand '%s' (", argv[1]);
		for (size_t i = 0; i < NSUBCMDS; i++)
			fprintf(stderr, "%s%s", i ? ", " : "", subcmds[i].name);
		fprintf(stderr, "; or see --help)\n");
		return 2;
	}
	return rg_cl_stdout_status(rg_bench_main(argc, argv, &hooks));
}
