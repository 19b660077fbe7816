// SPDX-License-Identifier: MIT
/* `rgbench report`'s page: paragraphs wrapped at the width, bullets, headings, left-out notes, tables that fit. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/page.h"
#include "rg/text.h"


/* A paragraph wrapped at ctx->width, prefix on the first line, indent on the others. */
static void wrap(struct ctx *c, const char *prefix, const char *indent, const char *text)
{
	size_t col = strlen(prefix), w = (size_t)c->width;
	bool first = true;

	fputs(prefix, c->f);
	for (const char *p = text; *p; ) {
		const char *e = p;
		size_t len;

		while (*e && *e != ' ')
			e++;
		len = (size_t)(e - p);
		if (!first) {
			if (col + 1 + len > w) {
				fprintf(c->f, "\n%s", indent);
				col = strlen(indent);
				/* a word that would start a list item or a rule at a line's start stays text */
				if (rg_md_word_starts_block(p, len)) {
					fputc('\\', c->f);
					col++;
				}
			} else {
				fputc(' ', c->f);
				col++;
			}
		} else if ((!*prefix || !strcmp(prefix, "- ")) && rg_md_word_starts_block(p, len)) {
			fputc('\\', c->f);
			col++;
		}
		fwrite(p, 1, len, c->f);
		col += len;
		first = false;
		while (*e == ' ')
			e++;
		p = e;
	}
	fputc('\n', c->f);
}

/* Replace the first `from` at or after *p in buf (size bytes) by `to`; advance *p past it. */
static bool replace_at(char *buf, size_t size, char **p, const char *from, const char *to)
{
	char *q = strstr(*p, from);
	size_t lf = strlen(from), lt = strlen(to), tail;

	if (!q)
		return false;
	tail = strlen(q + lf) + 1;
	if ((size_t)(q - buf) + lt + tail > size)
		return false;
	memmove(q + lt, q + lf, tail);
	memcpy(q, to, lt);
	*p = q + lt;
	return true;
}

/*
 * --unit cycles: the prose's words for the converted figures. A measured
 * value is "x.yy ns)"; a duty level ("at 200 ns", "200 ns of work") is a
 * row's key and stays in ns.
 */
static void unit_words(const struct ctx *c, char *buf, size_t size)
{
	static const char *const words[][2] = {
		{ "ns per enter/exit pair", "reference cycles per enter/exit pair" },
		{ "ns per guard pair", "reference cycles per guard pair" },
		{ "ns per pair", "reference cycles per pair" },
		{ "ns/event:", "cyc/event:" },
	};
	char *p;

	if (!c->cycles)
		return;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		for (p = buf; replace_at(buf, size, &p, words[i][0], words[i][1]); )
			;
	for (p = buf; (p = strstr(p, " ns)")); p++) {
		char *d = p;

		while (d > buf && (isdigit((unsigned char)d[-1]) || d[-1] == '.'))
			d--;
		if (memchr(d, '.', (size_t)(p - d)) && replace_at(buf, size, &p, " ns)", " cyc)"))
			p--;
	}
}

/* A table header cell that names the unit of converted figures. */
static void unit_header(const struct ctx *c, struct rg_table *t)
{
	static const char *const heads[][2] = {
		{ "ns/pair", "cyc/pair" }, { "ns", "cyc" }, { "A ns", "A cyc" }, { "B ns", "B cyc" },
		{ "ns/event", "cyc/event" },
	};

	for (size_t col = 0; c->cycles && col < t->ncols; col++)
		for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]); i++) {
			char *n;

			if (strcmp(t->cells[col], heads[i][0]) || !(n = strdup(heads[i][1])))
				continue;
			free(t->cells[col]);
			t->cells[col] = n;
			break;
		}
}

/* A formatted text in the page's unit, wrapped after the prefix of its first and of every other line. */
static void vwrap(struct ctx *c, const char *first, const char *rest, const char *fmt, va_list ap)
{
	char buf[4096];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	unit_words(c, buf, sizeof(buf));
	wrap(c, first, rest, buf);
}

const char *rp_md(const char *s)
{
	static char ring[16][2048];
	static unsigned int next;
	char *out = ring[next++ % 16];

	rg_md_text(out, sizeof(ring[0]), s ? s : "");
	return out;
}

void rp_para(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwrap(c, "", "", fmt, ap);
	va_end(ap);
	fputc('\n', c->f);
}

void rp_bullet(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwrap(c, "- ", "  ", fmt, ap);
	va_end(ap);
}

void rp_subbullet(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwrap(c, "  - ", "    ", fmt, ap);
	va_end(ap);
}

static void clip_cell(char *s, size_t w);

/*
 * "## text" (its names escaped for Markdown: pass them raw): a Markdown heading is one line, so one longer than --width
 * moves its closing parenthesis (the host it is about) into a line of its
 * own under it ("For HOST."), wrapped like prose; a heading still too long
 * is clipped, its last character a '~'.
 */
void rp_heading(struct ctx *c, const char *fmt, ...)
{
	char raw[512], buf[1024], *open = NULL;
	size_t len, w = c->width > 5 ? (size_t)c->width - 3 : SIZE_MAX;
	int depth = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	rg_md_text(buf, sizeof(buf), raw);	/* the heading's names stay text */
	len = strlen(buf);
	if (rg_utf8_width(buf) > w && len > 2 && buf[len - 1] == ')') {
		for (size_t i = len; i-- > 0;) {	/* the " (" that the last ')' closes */
			depth += buf[i] == ')' ? 1 : buf[i] == '(' ? -1 : 0;
			if (!depth) {
				open = i > 0 && buf[i - 1] == ' ' ? buf + i : NULL;
				break;
			}
		}
	}
	if (open) {
		open[-1] = 0;
		open[strlen(open) - 1] = 0;
		clip_cell(buf, w);
		fprintf(c->f, "## %s\n\n", buf);
		rp_para(c, "For %s.", open + 1);
		return;
	}
	clip_cell(buf, w);
	fprintf(c->f, "## %s\n\n", buf);
}

/* "Left out: why", in place and in the summary at the end. */
void rp_left_out(struct ctx *c, const char *section, const char *fmt, ...)
{
	char why[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	rp_para(c, "Left out: %s.", why);
	if (c->nleft < MAX_LEFT)
		snprintf(c->left[c->nleft++], sizeof(c->left[0]), "%s: %s", section, why);
}

/* Clip s to w characters (display width, w >= 2), the last a '~'; never half a UTF-8 character. */
static void clip_cell(char *s, size_t w)
{
	size_t i = 0, chars = 0;

	if (rg_utf8_width(s) <= w || w < 2)
		return;
	for (; s[i] && chars < w - 1; i++)
		chars += ((unsigned char)s[i] & 0xc0) != 0x80;
	while (((unsigned char)s[i] & 0xc0) == 0x80)	/* the rest of the last character */
		i++;
	s[i] = '~';
	s[i + 1] = '\0';
}

/*
 * Print t in a fenced block. While it is wider than the page, clip the widest
 * left-aligned column other than the first (the row's name), down to 8
 * characters; the first only when nothing else is left to clip.
 */
void rp_table_out(struct ctx *c, struct rg_table *t)
{
	size_t w[16], run, fence = 3;

	unit_header(c, t);
	for (int guard = 0; guard < 400 && t->ncols <= 16; guard++) {
		size_t total = 0, wc = SIZE_MAX;

		for (size_t col = 0; col < t->ncols; col++) {
			w[col] = 0;
			for (size_t r = 0; r < t->nrows; r++) {
				size_t l = rg_utf8_width(t->cells[r * t->ncols + col]);

				w[col] = l > w[col] ? l : w[col];
			}
			total += w[col] + (col ? 2 : 0);
		}
		if (total <= (size_t)c->width)
			break;
		for (size_t col = 1; col < t->ncols; col++)
			if (!t->right[col] && w[col] > 8 && (wc == SIZE_MAX || w[col] > w[wc]))
				wc = col;
		if (wc == SIZE_MAX && !t->right[0] && w[0] > 8)
			wc = 0;
		if (wc == SIZE_MAX)
			break;
		for (size_t r = 0; r < t->nrows; r++)
			clip_cell(t->cells[r * t->ncols + wc], w[wc] - 1);
	}
	/* A fence longer than any run of backticks in a cell: no name can close it. */
	run = 0;
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		for (const char *p = t->cells[i]; *p; p++) {
			run = *p == '`' ? run + 1 : 0;
			fence = run >= fence ? run + 1 : fence;
		}
	for (size_t i = 0; i < fence; i++)
		fputc('`', c->f);
	fputc('\n', c->f);
	rg_table_print_text(t, c->f);
	for (size_t i = 0; i < fence; i++)
		fputc('`', c->f);
	fputs("\n\n", c->f);
}

void rp_wrap_line(FILE *f, const char *text, size_t width, const char *indent, const char *eol)
{
	size_t col = 0, iw = rg_utf8_width(indent), gap = 0;
	bool first = true;

	for (const char *p = text; *p; ) {
		const char *e = p, *q;
		size_t len, w;
		char word[4096];

		while (*e && *e != ' ')
			e++;
		len = (size_t)(e - p);
		snprintf(word, sizeof(word), "%.*s", (int)(len < sizeof(word) ? len : sizeof(word) - 1), p);
		w = rg_utf8_width(word);
		if (!first) {
			/* the spaces between two words on one line as written ("new:  x" keeps its two) */
			if (col + gap + w > width) {
				fprintf(f, "\n%s", indent);
				col = iw;
			} else {
				fprintf(f, "%*s", (int)gap, "");
				col += gap;
			}
		}
		fwrite(p, 1, len, f);
		col += w;
		first = false;
		for (q = e; *q == ' '; q++)
			;
		gap = (size_t)(q - e);
		p = q;
	}
	fprintf(f, "%s\n", eol);
}

void rp_fmt_ns(char *buf, size_t size, double v)
{
	rg_fmt_fixed(buf, size, v, fabs(v) >= 100 ? 0 : fabs(v) >= 10 ? 1 : 2);
}

void rp_fmt_ratio(char *buf, size_t size, double a, double b)
{
	char n[32];

	if (isnan(a) || isnan(b)) {
		snprintf(buf, size, "n/a");
		return;
	}
	rg_fmt_fixed(n, sizeof(n), a / b, 2);
	snprintf(buf, size, "%sx", n);
}

void rp_fmt_signed(char *buf, size_t size, double v)
{
	char t[32];

	rp_fmt_ns(t, sizeof(t), v);
	snprintf(buf, size, "%s%s", !isnan(v) && v >= 0 ? "+" : "", t);
}
