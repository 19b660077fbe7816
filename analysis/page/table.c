// SPDX-License-Identifier: MIT
/* A small table: rows of strings printed aligned for a terminal, as Markdown or as CSV. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/page.h"
#include "rg/schema.h"
#include "rg/writer.h"

void rg_table_init(struct rg_table *t, size_t ncols)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
	t->right = calloc(ncols, sizeof(*t->right));
}

void rg_table_free(struct rg_table *t)
{
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->right);
	memset(t, 0, sizeof(*t));
}

int rg_table_add(struct rg_table *t, const char *const *cells)
{
	char **c;

	if (!t->right)
		return -1;
	c = rg_grow(t->cells, &t->cap, t->nrows, t->ncols * sizeof(*c), 32);
	if (!c)
		return -1;
	t->cells = c;
	for (size_t i = 0; i < t->ncols; i++) {
		char *s = strdup(cells[i] ? cells[i] : "");

		if (!s) {
			for (size_t k = 0; k < i; k++)
				free(t->cells[t->nrows * t->ncols + k]);
			return -1;
		}
		t->cells[t->nrows * t->ncols + i] = s;
	}
	t->nrows++;
	return 0;
}

void rg_fmt_fixed(char *buf, size_t size, double v, int dec)
{
	double a = fabs(v);

	v += 0.0;	/* -0 prints as 0 */
	if (isnan(v))
		snprintf(buf, size, "n/a");
	else if (isinf(v))
		snprintf(buf, size, v > 0 ? "inf" : "-inf");
	else if (a >= 1e7)
		snprintf(buf, size, "%.3g", v);
	else if (a > 0 && a < 0.5 * pow(10, -dec))
		snprintf(buf, size, "%.2g", v);
	else
		snprintf(buf, size, "%.*f", dec, v);
}

size_t rg_utf8_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

static const char *cell(const struct rg_table *t, size_t r, size_t c)
{
	return t->cells[r * t->ncols + c];
}

static void pad(FILE *f, size_t n)
{
	while (n--)
		fputc(' ', f);
}

void rg_table_print_text(const struct rg_table *t, FILE *f)
{
	size_t *w = calloc(t->ncols, sizeof(*w));

	if (!w)
		return;
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < t->ncols; c++)
			if (rg_utf8_width(cell(t, r, c)) > w[c])
				w[c] = rg_utf8_width(cell(t, r, c));
	for (size_t r = 0; r < t->nrows; r++) {
		size_t end = t->ncols;

		/* No trailing blanks: stop after the last non-empty cell. */
		while (end > 1 && !*cell(t, r, end - 1))
			end--;
		for (size_t c = 0; c < end; c++) {
			const char *s = cell(t, r, c);
			size_t gap = w[c] - rg_utf8_width(s);
			bool last = c + 1 == end;

			if (c)
				fputs("  ", f);
			if (t->right[c])
				pad(f, gap);
			fputs(s, f);
			if (!t->right[c] && !last)
				pad(f, gap);
		}
		fputc('\n', f);
	}
	free(w);
}

/* A cell of a Markdown table: Markdown's one sanitizer (its '|' escaped with the rest). */
static void md_cell(FILE *f, const char *s)
{
	char buf[4096];

	rg_md_text(buf, sizeof(buf), s);
	fputs(buf, f);
}

void rg_table_print_markdown(const struct rg_table *t, FILE *f)
{
	for (size_t r = 0; r < t->nrows; r++) {
		fputc('|', f);
		for (size_t c = 0; c < t->ncols; c++) {
			fputc(' ', f);
			md_cell(f, cell(t, r, c));
			fputs(" |", f);
		}
		fputc('\n', f);
		if (r == 0) {
			fputc('|', f);
			for (size_t c = 0; c < t->ncols; c++)
				fputs(t->right[c] ? "---:|" : "---|", f);
			fputc('\n', f);
		}
	}
}

void rg_table_print_csv(const struct rg_table *t, FILE *f)
{
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t c = 0; c < t->ncols; c++) {
			const char *s = cell(t, r, c);

			if (c)
				fputc(',', f);
			rg_csv_put_field(f, s);
		}
		fputc('\n', f);
	}
}
