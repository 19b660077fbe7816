// SPDX-License-Identifier: MIT
/* `rgbench plot`: validate result files, hand normalized rows to rgplot.py (matplotlib: plot_draw.c), publish the pictures. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rg/cmdline.h"
#include "rg/env.h"
#include "rg/across.h"
#include "rg/input.h"
#include "rg/paths.h"
#include "rg/plots.h"
#include "rg/registry.h"
#include "rg/results.h"
#include "plot.h"

#define RG_PYTHON_DEFAULT "/usr/bin/python3"

volatile sig_atomic_t pl_stop;

static void usage(FILE *f)
{
	fputs("usage: rgbench plot FILE|DIR... --out DIR [--format png,svg,pdf] [-q|-qq]\n"
	      "Writes pair-ns, threads, duty, latency-cdf, bpf, fleet, decision and kmod-ns plots\n"
	      "for the kinds of rows present, in each format (default png,svg); one bar series\n"
	      "or marker fill per FILE or DIR, one colour and line style per guard.\n"
	      "Environment: RG_PYTHON (default " RG_PYTHON_DEFAULT "),\n"
	      "RG_PLOT_SCRIPT (path of rgplot.py).\n"
	      "Nothing goes to stdout: one 'rgbench plot: wrote DIR/NAME' line per picture and the\n"
	      "notes go to stderr; -q, --quiet keeps those lines; -qq, --silent drops the 'wrote' ones.\n"
	      "-V, --version: the release and commit of this build; -h, --help: this text.\n"
	      "Examples:\n"
	      "  rgbench plot results/host-20260101T000000Z.json --out plots\n"
	      "  rgbench plot before.json after.json --out ab --format svg\n", f);
}

static bool is_file(const char *p)
{
	struct stat st;

	return p && *p && !stat(p, &st) && S_ISREG(st.st_mode);
}

/* rgplot.py: $RG_PLOT_SCRIPT (o->script), else this rgbench's own (rg/paths.h: installed or build tree). */
static const char *find_script(const struct plot_opts *o, char *buf, size_t size)
{
	if (o->script)
		return o->script;
	return !rg_path("plot", buf, size) && is_file(buf) ? buf : NULL;
}

/*
 * Values beyond this cannot be drawn (matplotlib's axis limits overflow) and
 * are no measurement of a guard: 1e15 ns per pair is eleven days.
 */
#define RG_PLOT_MAX_VALUE 1e15
/*
 * Refuse a row value the plots cannot draw, naming where it is. 0 or -1.
 * Names are never refused: rgplot.py draws a long one shortened, control
 * characters and '$' escaped.
 */
static int check_drawable(const struct source *src, size_t nsrc, char *err, size_t errlen)
{
	static const enum rg_col c[] = { RG_COL_ns_median, RG_COL_ns_stddev, RG_COL_ns_min,
					 RG_COL_ns_max, RG_COL_mops_median, RG_COL_mops_stddev };
	static const char *const name[] = { "ns_median", "ns_stddev", "ns_min", "ns_max",
					    "mops_median", "mops_stddev" };

	for (size_t s = 0; s < nsrc; s++)
		for (size_t i = 0; i < src[s].rows.n; i++) {
			const struct rg_row *r = &src[s].rows.v[i];

			for (size_t k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
				double v = rg_row_d(r, c[k]);

				if (v > RG_PLOT_MAX_VALUE) {
					snprintf(err, errlen, "%s:%d: %s %g is too large to draw "
						 "(over %g)", r->file, r->line, name[k], v,
						 RG_PLOT_MAX_VALUE);
					return -1;
				}
			}
		}
	return 0;
}

/* The one host of a source, or NULL when it has several. */
static const char *only_host(const struct source *s)
{
	const char *h = s->rows.n ? rg_row_s(&s->rows.v[0], RG_COL_host) : NULL;

	for (size_t i = 1; h && i < s->rows.n; i++)
		if (strcmp(h, rg_row_s(&s->rows.v[i], RG_COL_host)))
			return NULL;
	return h && *h ? h : NULL;
}

/* Label each source by host when every source is one distinct host, else by file name. */
static void make_labels(struct source *src, size_t n)
{
	bool by_host = true;

	for (size_t i = 0; i < n && by_host; i++) {
		const char *h = only_host(&src[i]);

		by_host = h != NULL;
		for (size_t k = 0; k < i && by_host; k++)
			by_host = strcmp(h, only_host(&src[k])) != 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (by_host) {
			snprintf(src[i].label, sizeof(src[i].label), "%s", only_host(&src[i]));
		} else {
			char tmp[4096], *b, *dot;

			snprintf(tmp, sizeof(tmp), "%s", src[i].path);
			while (strlen(tmp) > 1 && tmp[strlen(tmp) - 1] == '/')
				tmp[strlen(tmp) - 1] = 0;
			b = basename(tmp);
			dot = strrchr(b, '.');
			if (dot && dot != b && (!strcmp(dot, ".csv") || !strcmp(dot, ".json")))
				*dot = 0;
			snprintf(src[i].label, sizeof(src[i].label), "%s", b);
		}
	}
	/* Same file name in different folders: the paths as given tell them apart. */
	for (size_t i = 0; i < n && !by_host; i++) {
		for (size_t k = 0; k < n; k++) {
			if (k != i && !strcmp(src[i].label, src[k].label)) {
				for (size_t j = 0; j < n; j++)
					snprintf(src[j].label, sizeof(src[j].label), "%s", src[j].path);
				break;
			}
		}
	}
	for (size_t i = 0; i < n; i++) {
		char clean[sizeof(src[i].label)], sfx[24];

		/* A file name may hold any byte, and the cut above may split a character. */
		rg_str_printable(clean, sizeof(clean), src[i].label);
		memcpy(src[i].label, clean, sizeof(clean));
		/*
		 * Two labels still alike (names cut to the label's size, or alike
		 * once sanitized): " #N", with room made for it, so every legend
		 * entry is its own.
		 */
		for (size_t k = 0; k < i; k++) {
			if (!strcmp(src[i].label, src[k].label)) {
				size_t l = strlen(src[i].label), room;

				snprintf(sfx, sizeof(sfx), " #%zu", i + 1);
				room = sizeof(src[i].label) - 1 - strlen(sfx);
				if (l > room)
					l = room;
				while (l && ((unsigned char)src[i].label[l] & 0xc0) == 0x80)
					l--;	/* never half a character */
				snprintf(src[i].label + l, sizeof(src[i].label) - l, "%s", sfx);
				break;
			}
		}
	}
}

/* --format LIST: png, svg and pdf, each at most once, into out in a fixed order. 0 or -1. */
static int parse_formats(const char *list, char *out, size_t size)
{
	static const char *const known[] = { "png", "svg", "pdf" };
	bool want[3] = { false };
	const char *p = list;
	size_t l = 0;

	for (;;) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		size_t k = 0;

		while (k < 3 && (strlen(known[k]) != n || strncmp(p, known[k], n)))
			k++;
		if (k == 3 || want[k])
			return -1;
		want[k] = true;
		if (!e)
			break;
		p = e + 1;
	}
	out[0] = '\0';
	for (size_t k = 0; k < 3; k++)
		if (want[k])
			l += (size_t)snprintf(out + l, size - l, "%s%s", l ? "," : "", known[k]);
	return 0;
}

/*
 * The environment, read here with the options and nowhere else in plot:
 * RG_PYTHON (default RG_PYTHON_DEFAULT) and RG_PLOT_SCRIPT, each one that
 * is set checked now (an executable; a regular file by the input policy):
 * a usage error in one line, exit 2, before any file is read. -1 to go on.
 */
static int plot_env(struct plot_opts *o)
{
	const char *py = getenv("RG_PYTHON"), *script = getenv("RG_PLOT_SCRIPT");
	char shown[256], why[256];
	int fd;

	o->py = py && *py ? py : RG_PYTHON_DEFAULT;
	o->script = script && *script ? script : NULL;
	if (py && *py && access(py, X_OK)) {
		rg_str_printable(shown, sizeof(shown), py);
		return rg_cl_usage_error("RG_PYTHON=%s: %s", shown, strerror(errno));
	}
	if (!o->script)
		return -1;
	fd = rg_input_open(o->script, RG_INPUT_MAX_BYTES, 0, why, sizeof(why));
	if (fd < 0) {
		rg_str_printable(shown, sizeof(shown), o->script);
		return rg_cl_usage_error("RG_PLOT_SCRIPT=%s: %s", shown, why);
	}
	close(fd);
	return -1;
}

/* The options and environment into *o: -1 to go on, else the exit status (help, usage). */
static int parse_args(int argc, char **argv, struct plot_opts *o)
{
	static const struct option opts[] = {
		RG_CL_OPT_OUT('o'),
		{ "format", required_argument, NULL, 'f' },
		RG_CL_OPT_QUIET('q'),
		RG_CL_OPT_SILENT(RG_CL_O_SILENT),
		RG_CL_OPT_HELP('h'),
		{ 0 },
	};
	int opt;

	rg_cl_getopt_reset();
	opterr = 0;
	snprintf(o->formats, sizeof(o->formats), "png,svg");
	while ((opt = getopt_long(argc, argv, ":o:f:qh", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			if (rg_cl_file("--out", optarg, &o->out))
				return RG_EXIT_USAGE;
			break;
		case 'f':
			if (parse_formats(optarg, o->formats, sizeof(o->formats)))
				return rg_cl_usage_error("--format: expected a comma-separated list of "
							 "png, svg, pdf (got '%s')", optarg);
			break;
		case 'q': o->quiet++; break;
		case RG_CL_O_SILENT: o->quiet = 2; break;
		case 'h': usage(stdout); return RG_EXIT_OK;
		default: return rg_cl_option_error(opt, argv);
		}
	}
	if (!o->out)
		return rg_cl_usage_error("--out DIR is required");
	if (optind >= argc)
		return rg_cl_usage_error("needs at least one result FILE or DIR");
	o->first = optind;
	return plot_env(o);
}

/* Where read_sources() puts the runs. */
struct sources {
	struct source **srcp;
	size_t *nsrc;
};

/* One run into the next source (a listed run's path is kept). 0, or -1 with err set. */
static int read_source(struct rg_dir_run *run, bool listed, void *arg, char *err, size_t errlen)
{
	struct sources *to = arg;
	struct source *v = realloc(*to->srcp, (*to->nsrc + 1) * sizeof(*v)), *s;
	int ret;

	if (!v) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	*to->srcp = v;
	s = &v[(*to->nsrc)++];
	memset(s, 0, sizeof(*s));
	s->path = run->path;
	/* x.csv beside x.json: validated, same run id, but the JSON is the source. */
	ret = rg_read_run(run, &s->rows, err, errlen);
	if (listed) {
		s->owned = run->path;
		run->path = NULL;
	}
	return ret;
}

/* Every file is one source; a directory gives one source per run in it. 0, or -1 with err set. */
static int read_sources(int argc, char **argv, int first, struct source **srcp, size_t *nsrc,
			char *err, size_t errlen)
{
	struct sources to = { srcp, nsrc };

	return rg_each_run(argv + first, (size_t)(argc - first), read_source, &to, err, errlen);
}

/* A source measured on an emulated CPU says so in its label; rgplot.py marks the figure. */
static void mark_emulated(struct source *src, size_t nsrc)
{
	for (size_t i = 0; i < nsrc; i++)
		for (size_t k = 0; k < src[i].rows.n; k++) {
			const char *virt = rg_row_s(&src[i].rows.v[k], RG_COL_virt);
			size_t l = strlen(src[i].label);

			if (!rg_env_virt_emulated(virt))
				continue;
			snprintf(src[i].label + l, sizeof(src[i].label) - l, " [EMULATED%s]",
				 virt + strlen("emulated"));
			break;
		}
}

int rg_plot_main(int argc, char **argv)
{
	struct plot_opts o = { 0 };
	struct stage sg = { 0 };
	struct source *src = NULL;
	char err[PATH_MAX + 1024] = "", sbuf[4096];
	const char *script;
	size_t nsrc = 0;
	int ret;

	rg_cl_set_prog("rgbench plot");
	ret = parse_args(argc, argv, &o);
	if (ret >= 0)
		return ret;
	/*
	 * The output policy before any work: DIR a folder (or none yet) in a
	 * writable folder, no link, and locked against another plot on it.
	 */
	ret = rg_output_check_dir(o.out, err, sizeof(err));
	if (ret) {
		rg_cl_error("%s", err);
		return ret;
	}
	/* Stop signals are passed on to the script; then nothing is published. */
	rg_cl_catch_stop_signals(&pl_stop);
	ret = RG_EXIT_FAIL;
	if (read_sources(argc, argv, o.first, &src, &nsrc, err, sizeof(err)))
		goto fail;
	make_labels(src, nsrc);
	mark_emulated(src, nsrc);
	if (check_drawable(src, nsrc, err, sizeof(err)))
		goto fail;
	script = find_script(&o, sbuf, sizeof(sbuf));
	if (!script) {
		snprintf(err, sizeof(err), "rgplot.py not found (set RG_PLOT_SCRIPT)");
		goto fail;
	}
	if (access(o.py, X_OK)) {
		snprintf(err, sizeof(err), "%s: %s (install python3-matplotlib or set RG_PYTHON)",
			 o.py, strerror(errno));
		goto fail;
	}
	if (pl_stop || pl_make_stage(&sg, o.out, err, sizeof(err)))
		goto fail;
	if (pl_draw(&o, script, sg.dir, src, nsrc, err, sizeof(err)))
		goto fail;
	if (pl_publish(&sg, o.quiet >= 2 ? NULL : stderr, err, sizeof(err)) < 0)
		goto fail;
	ret = RG_EXIT_OK;
	goto out;
fail:
	if (pl_stop)
		ret = rg_cl_interrupted();
	else if (err[0])
		rg_cl_error("%s", err);
out:
	if (sg.made)
		pl_remove_dir(sg.dir);
	for (size_t i = 0; i < nsrc; i++) {
		rg_rows_free(&src[i].rows);
		free(src[i].owned);
	}
	free(src);
	return ret;
}
