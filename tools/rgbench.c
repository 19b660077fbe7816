// SPDX-License-Identifier: MIT
/* The rgbench command: `rgbench [options]` runs the userspace suite, `rgbench NAME ...` a subcommand. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rg/bench.h"
#include "rg/cmdline.h"
#include "rg/fleet_run.h"
#include "rg/safe_name.h"

/* Always 0 or 1 (CMake generator expressions), so -Wundef catches a typo. */
#if !defined(RG_HAVE_BPF) || !defined(RG_HAVE_KMOD) || !defined(RG_HAVE_PLOTS)
#error "RG_HAVE_BPF, RG_HAVE_KMOD and RG_HAVE_PLOTS must be defined to 0 or 1"
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
#if RG_HAVE_PLOTS
#include "rg/compare.h"
#include "rg/plot.h"
#include "rg/report.h"
#define PLOTS_MAIN(fn) fn
#else
#define PLOTS_MAIN(fn) NULL
#endif

struct subcmd {
	const char *name;
	int (*main)(int argc, char **argv);	/* NULL: not part of this build */
	const char *summary;
	const char *missing;			/* why it would not be built */
};

#define NO_PLOTS "the rg_plots target is not part of this build (analysis/)"

static const struct subcmd subcmds[] = {
	{ "bpf", BPF_MAIN, "BPF trigger bench (trig-fentry style): guard cost per BPF program call",
	  "the rg_bpf target is not part of this build (kernel/bpf: clang, bpftool, libbpf, kernel BTF)" },
	{ "kmod", KMOD_MAIN, "in-kernel guard loops: build, load and run the module",
	  "the rg_kmod target is not part of this build (kernel/kmod)" },
	{ "compare", PLOTS_MAIN(rg_compare_main),
	  "A/B tables of result files (text, markdown, commit log, CSV)", NO_PLOTS },
	{ "plot", PLOTS_MAIN(rg_plot_main), "plots of result files (matplotlib)", NO_PLOTS },
	{ "report", PLOTS_MAIN(rg_report_main), "the one-page answer: cheapest guard, by how much, why",
	  NO_PLOTS },
	{ "fleet", rg_fleet_main, "run.sh on every host of an Ansible inventory, fetch, report",
	  NULL },
};

#define NSUBCMDS (sizeof(subcmds) / sizeof(subcmds[0]))

static void print_subcommands(FILE *f, bool help)
{
	if (help) {
		for (size_t i = 0; i < NSUBCMDS; i++)
			fprintf(f, "       rgbench %-8s [args]  %s%s\n", subcmds[i].name, subcmds[i].summary,
				subcmds[i].main ? "" : " (not built)");
		return;
	}
	fprintf(f, "subcommands:");
	for (size_t i = 0; i < NSUBCMDS; i++)
		fprintf(f, " %s%s", subcmds[i].name, subcmds[i].main ? "" : " (not built)");
	fprintf(f, "\n");
}

static const struct rg_bench_hooks hooks = {
#if RG_HAVE_BPF
	.bpf_default = rg_bpf_run_default,
#endif
	.subcommands = print_subcommands,
};

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
	if (argc > 1 && argv[1][0] != '-') {
		for (size_t i = 0; i < NSUBCMDS; i++) {
			const struct subcmd *c = &subcmds[i];

			if (strcmp(argv[1], c->name))
				continue;
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
