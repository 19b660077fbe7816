// SPDX-License-Identifier: MIT
/* `rgbench report`: one page (plain text / Markdown) answering which guard is cheapest here, by how much, and where; the command line. */
#define _GNU_SOURCE
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
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
	      "(they are marked, and left out by default).\n", f);
}

/* ---- input ---------------------------------------------------------------------- */

/*
 * The JSON's "timer" object (absent: "" in out) checked like every value
 * the reader takes: source one printable line of at most 64 bytes (the
 * writer's rg_str_printable() rule), hz a finite frequency above 0 and at
 * most 1e12, resolution_ns and overhead_ns finite and >= 0 or null. Then
 * as the page's text. 0, or -1 with why in err.
 */
static int timer_text(json_t *t, char *out, size_t len, char *err, size_t errlen)
{
	json_t *s = json_object_get(t, "source"), *hz = json_object_get(t, "hz");
	json_t *res = json_object_get(t, "resolution_ns"), *ov = json_object_get(t, "overhead_ns");
	double f = json_number_value(hz), r = json_is_number(res) ? json_number_value(res) : NAN;
	double o = json_is_number(ov) ? json_number_value(ov) : NAN;

	out[0] = 0;
	if (!t)
		return 0;
	if (!json_is_object(t))
		return snprintf(err, errlen, "\"timer\" is not an object"), -1;
	if (!json_is_string(s) || !json_string_length(s) || json_string_length(s) > 64 ||
	    strlen(json_string_value(s)) != json_string_length(s) ||
	    !rg_str_is_printable(json_string_value(s)))
		return snprintf(err, errlen, "\"timer\".source: not a name of 1 to 64 printable "
				"characters"), -1;
	if (!json_is_number(hz) || !isfinite(f) || f <= 0 || f > 1e12)
		return snprintf(err, errlen, "\"timer\".hz: not a frequency in (0, 1e12] Hz"), -1;
	if ((res && !json_is_null(res) && !(isfinite(r) && r >= 0)) ||
	    (ov && !json_is_null(ov) && !(isfinite(o) && o >= 0)))
		return snprintf(err, errlen, "\"timer\": resolution_ns and overhead_ns must be "
				"numbers >= 0 or null"), -1;
	snprintf(out, len, "%s at %.4g MHz, resolution %.3g ns, overhead %.3g ns subtracted per batch",
		 json_string_value(s), f / 1e6, r, o);
	return 0;
}

static int read_timer(struct input *in, char *err, size_t errlen)
{
	json_error_t je;
	json_t *root = json_load_file(in->path, 0, &je);
	char why[160];
	int ret = 0;

	in->timer[0] = 0;
	if (!root)
		return 0;
	if (timer_text(json_object_get(root, "timer"), in->timer, sizeof(in->timer), why, sizeof(why))) {
		char line[PATH_MAX + 200];

		snprintf(line, sizeof(line), "%s: %s", in->path, why);
		rg_str_printable(err, errlen, line);
		ret = -1;
	}
	json_decref(root);
	return ret;
}

/* What the command line asked for. */
struct opts {
	const char *out;	/* --out FILE, else NULL (stdout) */
	bool across, allow_emulated;
	const char *unit;	/* --unit ns|cycles, else NULL (ns) */
	bool include_noisy;	/* --include-noisy */
	long width;
	int first;		/* argv index of the first FILE|DIR */
};

int rp_opt_width(const char *arg, long *width)
{
	return rg_cl_long("--width", arg, RG_REPORT_MIN_WIDTH, 400, width) ? RG_EXIT_USAGE : 0;
}

int rp_opt_unit(const char *arg, const char **unit)
{
	if (strcmp(arg, "ns") && strcmp(arg, "cycles"))
		return rg_cl_usage_error("--unit takes ns or cycles, not '%s'", arg);
	*unit = arg;
	return 0;
}

/* The options into o: -1 to go on, else the exit status (help, usage). */
static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option opts[] = {
		RG_CL_OPT_OUT('o'),
		RP_OPTS_PAGE,
		{ "include-noisy", no_argument, NULL, 'n' },
		RG_CL_OPT_HELP('h'),
		{ 0 },
	};
	struct stat st;
	int opt;

	rg_cl_getopt_reset();
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":o:w:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'o': o->out = optarg; break;
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
	if (o->out && (!*o->out || (!stat(o->out, &st) && S_ISDIR(st.st_mode))))
		return rg_cl_usage_error("--out needs a file name, not a directory");
	o->first = optind;
	return -1;
}

/*
 * Read every FILE and every run of every DIR into in[] (at most MAX_FILES):
 * a bad file is one line on stderr and nothing written. 0, or -1 with err set.
 */
void rp_inputs_free(struct input *in, size_t nin)
{
	for (size_t i = 0; i < nin; i++) {
		rg_rows_free(&in[i].rows);
		free((char *)in[i].path);
	}
}

/* Where rp_read_inputs() puts the runs. */
struct inputs {
	struct input *in;
	size_t *nin;
};

/* One run into the next input. 0, or -1 with err set. */
static int read_input(struct rg_dir_run *run, bool listed, void *arg, char *err, size_t errlen)
{
	struct inputs *to = arg;
	struct input *in = &to->in[*to->nin];

	(void)listed;
	if (*to->nin == MAX_FILES) {
		snprintf(err, errlen, "more than %d files", MAX_FILES);
		return -1;
	}
	/* x.csv beside x.json: validated, same run id, but the JSON is the source. */
	in->path = strdup(run->path);
	(*to->nin)++;
	if (!in->path || rg_read_run(run, &in->rows, err, errlen))
		return -1;
	in->version = in->rows.n ? rg_row_i(&in->rows.v[0], RG_COL_schema_version) : 0;
	return read_timer(in, err, errlen);
}

int rp_read_inputs(int argc, char **argv, int first, struct input *in, size_t *nin,
		   char *err, size_t errlen)
{
	struct inputs to = { in, nin };

	return rg_each_run(argv + first, (size_t)(argc - first), read_input, &to, err, errlen);
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
		fprintf(c->f, "# rgbench report: %s%s%s%s vs %s%s%s%s\n\n", hosts[0].name,
			strcmp(hosts[0].name, hosts[0].hostname) ? "" : " (",
			strcmp(hosts[0].name, hosts[0].hostname) ? "" : hosts[0].arch,
			strcmp(hosts[0].name, hosts[0].hostname) ? "" : ")", hosts[1].name,
			strcmp(hosts[1].name, hosts[1].hostname) ? "" : " (",
			strcmp(hosts[1].name, hosts[1].hostname) ? "" : hosts[1].arch,
			strcmp(hosts[1].name, hosts[1].hostname) ? "" : ")");
	else
		fprintf(c->f, "# rgbench report: %s\n\n", nh == 1 ? hosts[0].name : "several hosts");
	snprintf(what, sizeof(what),
		 "Which per-CPU recursion guard is cheapest on %s, by how much, under which load? %zu file%s, %zu host%s%s.",
		 nh == 1 ? cpu : "these machines", nin, nin == 1 ? "" : "s", nh, nh == 1 ? "" : "s",
		 o->across && nh == 1 ? "; --across-hosts needs a second host" : "");
	rp_para(c, "%s", what);
	unit_para(c, o, nocycle);
	rp_sec_fleet(c, hosts, nh, o->allow_emulated);
	if (o->across && nh == 2) {
		rp_sec_machine(c, &hosts[0], in, nin);
		rp_sec_machine(c, &hosts[1], in, nin);
		rp_sec_across(c, &hosts[0], &hosts[1]);
	} else if (o->across && nh == 1) {
		rp_heading(c, "Side by side by role");
		rp_left_out(c, "side by side", "--across-hosts needs files from two hosts; all rows come from %s",
			    hosts[0].name);
	}
	for (size_t h = 0; h < nh; h++) {
		if (!(o->across && nh == 2))
			rp_sec_machine(c, &hosts[h], in, nin);
		rp_sec_ranking(c, &hosts[h]);
		rp_sec_headline(c, &hosts[h]);
		rp_sec_duty(c, &hosts[h]);
		rp_sec_threads(c, &hosts[h]);
		rp_sec_latency(c, &hosts[h]);
		rp_sec_suite(c, &hosts[h], "bpf");
		rp_sec_suite(c, &hosts[h], "kmod");
	}
	rp_sec_plots(c, o->out, in, nin);
	if (c->nleft) {
		rp_heading(c, "Left out");
		for (int i = 0; i < c->nleft; i++)
			rp_bullet(c, "%s", c->left[i]);
		fputc('\n', c->f);
	}
	rp_para(c, "Generated by `rgbench report`; values are medians of the runs in the files.");
}

int rp_page_open(struct ctx *c, char *err, size_t errlen)
{
	c->f = open_memstream(&c->buf, &c->blen);
	if (!c->f) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

int rp_page_emit(struct ctx *c, const char *out, char *err, size_t errlen)
{
	if (fclose(c->f)) {
		snprintf(err, errlen, "out of memory");
		return RG_EXIT_FAIL;
	}
	if (rg_cl_signal_status())
		return RG_EXIT_FAIL;	/* nothing after a stop signal: rp_page_end() says so */
	rg_utf8_repair(c->buf);		/* a name cut to a table's buffer: no half character */
	if (!out)
		return rg_cl_stdout_write(c->buf, c->blen);
	if (rg_output_write(out, c->buf, c->blen, err, errlen))
		return RG_EXIT_FAIL;
	printf("wrote %s\n", out);
	return rg_cl_stdout_status(RG_EXIT_OK);	/* one line when stdout fails */
}

int rp_page_end(struct ctx *c, int ret, const char *err)
{
	if (rg_cl_signal_status() && ret != RG_EXIT_OK)
		ret = rg_cl_interrupted();	/* one line, 128+signal */
	else if (err[0])
		rg_cl_error("%s", err);
	free(c->buf);
	return ret;
}

int rg_report_main(int argc, char **argv)
{
	struct input in[MAX_FILES];
	struct host *hosts = NULL;
	struct opts o = { .width = 72 };
	size_t nin = 0, nh = 0, nocycle = 0;
	char err[1200] = "";
	struct ctx c = { 0 };
	int ret;

	rg_cl_set_prog("rgbench report");
	ret = parse_args(argc, argv, &o);
	if (ret >= 0)
		return ret;
	/*
	 * SIGINT, SIGTERM, SIGHUP, SIGQUIT: checked between the steps; then one
	 * line, 128+signal, nothing written (the --out lock goes at exit).
	 */
	rg_cl_catch_stop_signals(NULL);
	/*
	 * The output policy before any work: --out is no device, FIFO or link,
	 * and none of the inputs (nor an input's CSV/JSON twin, nor a result file
	 * in an input directory): exit 2; its lock held by another run: exit 1.
	 */
	if (o.out && (ret = rg_output_checkv_in((const char *const *)&o.out, 1,
						(const char *const *)argv + o.first,
						(size_t)(argc - o.first), err, sizeof(err)))) {
		rg_cl_error("%s", err);
		return ret;
	}
	ret = RG_EXIT_FAIL;
	memset(in, 0, sizeof(in));
	if (rp_read_inputs(argc, argv, o.first, in, &nin, err, sizeof(err)) ||
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
