/* SPDX-License-Identifier: MIT */
/* The results room's page kit (analysis/page/, library rg_page): tables, numbers, the page report, compare and the fleet sections write (text wrapped and fitted to a width), its options, and writing it all or nothing. */
#ifndef RG_PAGE_H
#define RG_PAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* A table built cell by cell, then printed aligned, as Markdown or as CSV. */
struct rg_table {
	size_t ncols, nrows, cap;
	char **cells;		/* nrows * ncols, row 0 is the header */
	bool *right;		/* right-align column */
};
void rg_table_init(struct rg_table *t, size_t ncols);
void rg_table_free(struct rg_table *t);
/* Append a row of ncols strings (copied; NULL becomes ""). */
int rg_table_add(struct rg_table *t, const char *const *cells);
void rg_table_print_text(const struct rg_table *t, FILE *f);
void rg_table_print_markdown(const struct rg_table *t, FILE *f);
void rg_table_print_csv(const struct rg_table *t, FILE *f);
/* Display width of a UTF-8 string (code points). */
size_t rg_utf8_width(const char *s);
/*
 * A number for a table cell or a sentence: v with dec decimals while that
 * keeps its magnitude, else in %g form, so the cell stays short and never
 * misleads: 1e7 and beyond with 3 significant digits ("1.23e+12", not 13
 * digits or a cut string), a value that dec decimals would show as 0 with 2
 * ("1e-09", not "0.00"). NaN is "n/a", infinities "inf" and "-inf".
 */
void rg_fmt_fixed(char *buf, size_t size, double v, int dec);

/*
 * The narrowest page whose tables fit (--width of report and of compare over
 * several hosts): the widest fixed table (the ranking) takes 60 columns, so a
 * narrower --width is refused rather than printed wider than asked.
 */
#define RG_REPORT_MIN_WIDTH 60
#define MAX_LEFT 64
/* The page being written, its width and the sections left out (listed at the end). */
struct ctx {
	FILE *f;		/* the page, in memory (rp_page_open()) */
	char *buf;		/* what f holds, once rp_page_emit() closed it */
	size_t blen;
	int width;
	const char *cmd;	/* the command, for the line naming the file written ("report") */
	int quiet;		/* -q 1, -qq/--silent 2: no line naming the file written */
	bool cycles;		/* --unit cycles: ns figures are reference cycles */
	char left[MAX_LEFT][240];
	int nleft;
	bool include_noisy;	/* --include-noisy: noisy rows in the headline ratios too */
	/*
	 * Where the pictures are (rp_plots_find()): folders (beside the page,
	 * then one <stem>-plots/ per input, any number) and how the page links
	 * into each; allocated, freed by rp_page_end().
	 */
	char **plotdir, **plotrel;
	int nplotdir;
	unsigned int plots_shown;	/* kinds already linked under a section */
};

/*
 * plot_links.c: the pictures of `rgbench plot` beside the page (out: the --out file, else
 * the first input's folder) and in each input's <stem>-plots/; a link to KIND.png with its
 * one-line caption under the section it illustrates, once per page.
 */
void rp_plots_find(struct ctx *c, const char *out, const char *const *paths, size_t n);
/* A link target in Markdown: bytes outside [A-Za-z0-9._/~-] percent-encoded into out. */
const char *rp_url(char *out, size_t size, const char *s);
void rp_plot_link(struct ctx *c, const char *kind);

/*
 * text.c: the page's paragraphs, bullets, headings, tables and numbers.
 * A name from a file, a host or the filesystem printed in a paragraph or a
 * bullet goes through rp_md() (rg_md_text(): its Markdown and HTML escaped,
 * so it shows as written and is never a link or a tag); rp_heading()
 * escapes its whole text itself; a table is a fenced block, its cells
 * printed as they are, the fence longer than any run of backticks in them.
 * rp_md() returns one of 16 buffers it reuses in turn: enough for the
 * arguments of one call.
 */
const char *rp_md(const char *s);
void rp_para(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rp_bullet(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A bullet under the one before ("  - ", wrapped with four spaces). */
void rp_subbullet(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rp_heading(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "Left out: why", in place and in the summary at the end. */
void rp_left_out(struct ctx *c, const char *section, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* t in a fenced block, its widest columns clipped until it fits c->width. */
void rp_table_out(struct ctx *c, struct rg_table *t);
/*
 * One line of plain text wrapped at width columns (UTF-8 code points): broken
 * at spaces only, so a word longer than the width stands whole on a line of
 * its own (never cut: a kernel release or a path keeps every character);
 * indent starts every line after the first, eol ends the last one.
 */
void rp_wrap_line(FILE *f, const char *text, size_t width, const char *indent, const char *eol);
void rp_fmt_ns(char *buf, size_t size, double v);
void rp_fmt_signed(char *buf, size_t size, double v);
/* "a/b" with two decimals and an x ("1.50x"; rg_fmt_fixed beyond), "n/a" when either is NaN. */
void rp_fmt_ratio(char *buf, size_t size, double a, double b);

/*
 * page.c: the words report and compare share, same letters: --width N,
 * --across-hosts, --unit ns|cycles, --allow-emulated. rp_opt_width() and
 * rp_opt_unit() check a value into *width or *unit: 0, or RG_EXIT_USAGE
 * after the one line.
 */
#define RP_OPTS_PAGE							\
	{ "width", required_argument, NULL, 'w' },			\
	{ "across-hosts", no_argument, NULL, 'a' },			\
	{ "unit", required_argument, NULL, 'u' },			\
	{ "allow-emulated", no_argument, NULL, 'e' }
int rp_opt_width(const char *arg, long *width);
int rp_opt_unit(const char *arg, const char **unit);

/*
 * page.c: a page built in memory, so that a failure writes nothing.
 * rp_page_open(): c->f to write it. 0, or -1 with err set.
 * rp_page_emit(): close it and write it to out ("wrote OUT" on stdout) or,
 * out NULL, to stdout; the exit status (err set on a failure before stdout).
 * Nothing is written after a stop signal (rg_cl_catch_stop_signals()).
 * rp_page_end(): err (when set) as the one line on stderr, or after a stop
 * signal, unless ret is 0, rg_cl_interrupted()'s line and status; the page and its
 * picture folders freed; ret.
 */
int rp_page_open(struct ctx *c, char *err, size_t errlen);
int rp_page_emit(struct ctx *c, const char *out, char *err, size_t errlen);
int rp_page_end(struct ctx *c, int ret, const char *err);

#endif /* RG_PAGE_H */
