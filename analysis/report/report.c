// SPDX-License-Identifier: MIT
/* `rgbench report`: one page (plain text / Markdown) answering which guard is cheapest here, by how much, and where; the command line. */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rg/cmdline.h"
#include "rg/schema.h"
#include "report.h"

static void usage(FILE *f)
{
	fputs("usage: rgbench report FILE|DIR... [--out report.md] [--width N] [--across-hosts]\n"
	      "                     [--allow-emulated] [--unit ns|cycles] [--include-noisy]\n"
	      "                     [--force] [-q|-qq]\n"
	      "One page for a mail or a commit message: the machine, guards ranked by their\n"
	      "difference against noop, the headline ratios, duty, threads, latency tail,\n"
	      "BPF and module costs, plots beside it; for every host (a machine: name, arch,\n"
	      "CPU) the role matrix, the decision table and the per-event prediction.\n"
	      "--across-hosts: two machines side by side, guards paired by role.\n"
	      "--allow-emulated: show hosts measured under qemu in those sections too.\n"
	      "--width: wrap prose and fit tables (default 72).\n"
	      "--unit cycles: ns figures in reference cycles (each row's ns / its\n"
	      "ref_ns_per_cycle); duty levels stay in ns. Default: ns.\n"
	      "--include-noisy: keep rows whose status is noisy in the headline ratios\n"
	      "(they are marked, and left out by default).\n"
	      "--force: let --out replace a file that holds measured results (a run's\n"
	      "CSV or JSON, a module file); without it that is refused (exit 2).\n"
	      "-q, --quiet: no progress (report prints none; the line naming the --out file\n"
	      "stays on stderr); -qq, --silent: not that line either.\n"
	      "-V, --version: the release and commit of this build; -h, --help: this text.\n"
	      "Examples:\n"
	      "  rgbench report results/host-20260101T000000Z.json --out report.md\n"
	      "  rgbench report --across-hosts results/fleet-1/\n", f);
}

/* What the command line asked for. */
struct opts {
	const char *out;	/* --out FILE, else NULL (stdout) */
	bool across, allow_emulated;
	const char *unit;	/* --unit ns|cycles, else NULL (ns) */
	bool include_noisy;	/* --include-noisy */
	bool force;		/* --force: --out may replace a file of measured results */
	int quiet;		/* -q: kept for symmetry (report prints no progress); -qq, --silent: no 'wrote' line */
	long width;
	int first;		/* argv index of the first FILE|DIR */
};

/* The options into o: -1 to go on, else the exit status (help, usage). */
static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option opts[] = {
		RG_CL_OPT_OUT('o'),
		RP_OPTS_PAGE,
		{ "include-noisy", no_argument, NULL, 'n' },
		{ "force", no_argument, NULL, 'F' },
		RG_CL_OPT_QUIET('q'),
		RG_CL_OPT_SILENT(RG_CL_O_SILENT),
		RG_CL_OPT_HELP('h'),
		{ 0 },
	};
	struct stat st;
	int opt;

	rg_cl_getopt_reset();
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":o:w:qh", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			if (rg_cl_file("--out", optarg, &o->out))
				return RG_EXIT_USAGE;
			break;
		case 'F': o->force = true; break;
		case 'q': o->quiet++; break;
		case RG_CL_O_SILENT: o->quiet = 2; break;
		case 'w':
			if (rp_opt_width(optarg, &o->width))
				return RG_EXIT_USAGE;
			break;
		case 'a': o->across = true; break;
		case 'u':
			if (rp_opt_unit(optarg, &o->unit))
				return RG_EXIT_USAGE;
			break;
		case 'n': o->include_noisy = true; break;
		case 'e': o->allow_emulated = true; break;
		case 'h': usage(stdout); return RG_EXIT_OK;
		default: return rg_cl_option_error(opt, argv);
		}
	}
	if (optind >= argc)
		return rg_cl_usage_error("needs at least one result FILE or DIR");
	if (o->out && !stat(o->out, &st) && S_ISDIR(st.st_mode))
		return rg_cl_usage_error("--out needs a file name, not a directory");
	o->first = optind;
	return -1;
}

/* --unit given: which unit the page's figures are in, and once the rows without a cycle reference. */
static void unit_para(struct ctx *c, const struct opts *o, size_t nocycle)
{
	if (!o->unit)
		return;
	if (!c->cycles) {
		rp_para(c, "Unit: ns.");
		return;
	}
	rp_para(c, "Unit: reference cycles (cyc): every per-pair and per-event figure and every difference over noop is the row's ns divided by its ref_ns_per_cycle (the cycle-reference case measured in the same rounds); duty levels stay in ns.");
	if (nocycle)
		rp_para(c, "%zu measured row%s no cycle reference (ref_ns_per_cycle n/a): %s figures show n/a.",
			nocycle, nocycle == 1 ? " has" : "s have", nocycle == 1 ? "its" : "their");
}

/* The whole page into c->f: title, question, the sections of each host, plots, what was left out. */
static void write_page(struct ctx *c, const struct opts *o, const struct input *in, size_t nin,
		       const struct host *hosts, size_t nh, size_t nocycle)
{
	const char *cpu = rg_row_s(hosts[0].rows[0], RG_COL_cpu_model);
	char what[600];

	if (nh == 2 && o->across)
		/* a label that names the arch already (a shared host name) is not given it twice */
		fprintf(c->f, "# rgbench report: %s%s%s%s vs %s%s%s%s\n\n", rp_md(hosts[0].name),
			strcmp(hosts[0].name, hosts[0].hostname) ? "" : " (",
			strcmp(hosts[0].name, hosts[0].hostname) ? "" : rp_md(hosts[0].arch),
			strcmp(hosts[0].name, hosts[0].hostname) ? "" : ")", rp_md(hosts[1].name),
			strcmp(hosts[1].name, hosts[1].hostname) ? "" : " (",
			strcmp(hosts[1].name, hosts[1].hostname) ? "" : rp_md(hosts[1].arch),
			strcmp(hosts[1].name, hosts[1].hostname) ? "" : ")");
	else
		fprintf(c->f, "# rgbench report: %s\n\n", nh == 1 ? rp_md(hosts[0].name) : "several hosts");
	snprintf(what, sizeof(what),
		 "Which per-CPU recursion guard is cheapest on %s, by how much, under which load? %zu file%s, %zu host%s%s.",
		 nh == 1 ? rp_md(cpu) : "these machines", nin, nin == 1 ? "" : "s", nh, nh == 1 ? "" : "s",
		 o->across && nh == 1 ? "; --across-hosts needs a second host" : "");
	rp_para(c, "%s", what);
	unit_para(c, o, nocycle);
	{
		const char **paths = calloc(nin ? nin : 1, sizeof(*paths));

		for (size_t i = 0; paths && i < nin; i++)
			paths[i] = in[i].path;
		rp_plots_find(c, o->out, paths, paths ? nin : 0);
		free(paths);
	}
	rp_sec_answer(c, hosts, nh, o->allow_emulated);
	rp_sec_fleet(c, hosts, nh, o->allow_emulated);
	rp_sec_why_fleet(c, hosts, nh, o->allow_emulated);
	if (o->across && nh == 2) {
		rp_sec_machine(c, &hosts[0], in, nin);
		rp_sec_machine(c, &hosts[1], in, nin);
		rp_sec_across(c, &hosts[0], &hosts[1]);
	} else if (o->across && nh == 1) {
		rp_heading(c, "Side by side by role");
		rp_left_out(c, "side by side", "--across-hosts needs files from two hosts; all rows come from %s",
			    rp_md(hosts[0].name));
	}
	for (size_t h = 0; h < nh; h++) {
		if (!(o->across && nh == 2))
			rp_sec_machine(c, &hosts[h], in, nin);
		rp_sec_ranking(c, &hosts[h]);
		rp_plot_link(c, "pair-ns");
		rp_sec_headline(c, &hosts[h]);
		rp_sec_why(c, &hosts[h]);
		rp_plot_link(c, "ladder");
		rp_sec_duty(c, &hosts[h]);
		rp_plot_link(c, "duty");
		rp_sec_threads(c, &hosts[h]);
		rp_plot_link(c, "threads");
		rp_sec_latency(c, &hosts[h]);
		rp_plot_link(c, "latency-cdf");
		rp_sec_reentry(c, &hosts[h], "user");
		rp_sec_suite(c, &hosts[h], "bpf");
		rp_plot_link(c, "bpf");
		rp_sec_suite(c, &hosts[h], "kmod");
		rp_plot_link(c, "kmod-ns");
		rp_sec_calib(c, &hosts[h]);
		rp_plot_link(c, "tramp");
	}
	rp_sec_boots(c, in, nin);
	rp_sec_plots(c);
	if (c->nleft) {
		rp_heading(c, "Left out");
		for (int i = 0; i < c->nleft; i++)
			rp_bullet(c, "%s", c->left[i]);
		fputc('\n', c->f);
	}
	rp_para(c, "Generated by `rgbench report`; values are medians of the runs in the files.");
}

int rg_report_main(int argc, char **argv)
{
	struct input *in = NULL;
	struct host *hosts = NULL;
	struct opts o = { .width = 72 };
	size_t nin = 0, nh = 0, nocycle = 0;
	char err[1200] = "";
	struct ctx c = { .cmd = "report" };
	int ret;

	rg_cl_set_prog("rgbench report");
	ret = parse_args(argc, argv, &o);
	if (ret >= 0)
		return ret;
	c.quiet = o.quiet;
	/*
	 * SIGINT, SIGTERM, SIGHUP, SIGQUIT: checked between the steps; then one
	 * line, 128+signal, nothing written (the --out lock goes at exit).
	 */
	rg_cl_catch_stop_signals(NULL);
	/*
	 * The output policy before any work: --out is no device, FIFO or link,
	 * and none of the inputs (nor an input's CSV/JSON twin, nor a result file
	 * in an input directory), nor a file of measured results without --force
	 * (a page costs milliseconds): exit 2; its lock held by another run: exit 1.
	 */
	if (o.out && (ret = rg_output_checkv_flags((const char *const *)&o.out, 1,
						   (const char *const *)argv + o.first,
						   (size_t)(argc - o.first),
						   RG_OUT_DERIVED | (o.force ? RG_OUT_FORCE : 0),
						   err, sizeof(err)))) {
		rg_cl_error("%s", err);
		return ret;
	}
	ret = RG_EXIT_FAIL;
	if (rp_read_inputs(argc, argv, o.first, &in, &nin, err, sizeof(err)) ||
	    rg_cl_signal_status())
		goto out;
	c.cycles = o.unit && !strcmp(o.unit, "cycles");
	for (size_t i = 0; c.cycles && i < nin; i++)
		nocycle += rg_rows_to_cycles(&in[i].rows);
	if (rp_group_hosts(in, nin, &hosts, &nh, err, sizeof(err)))
		goto out;
	c.width = (int)o.width;
	c.include_noisy = o.include_noisy;
	if (rp_page_open(&c, err, sizeof(err)))
		goto out;
	write_page(&c, &o, in, nin, hosts, nh, nocycle);
	ret = rp_page_emit(&c, o.out, err, sizeof(err));
out:
	rp_hosts_free(hosts, nh);
	rp_inputs_free(in, nin);
	return rp_page_end(&c, ret, err);
}
