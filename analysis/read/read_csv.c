// SPDX-License-Identifier: MIT
/* The reader's CSV half: records from the one splitter (rg/csv.h), the header map and each row's values. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rg/csv.h"

#include "reader.h"

/* ---- values --------------------------------------------------------------- */

/* The first schema version whose CSV writes a missing number as an empty field (1-5: "n/a"). */
#define RD_CSV_EMPTY_FROM 6

/* Parse a whole string as a decimal integer; no spaces, no '+'. */
static bool parse_ll(const char *s, long long *v)
{
	char *end;

	if (!*s || !(*s == '-' || (*s >= '0' && *s <= '9')))
		return false;
	errno = 0;
	*v = strtoll(s, &end, 10);
	return !errno && !*end;
}

/* Decimal floating point only: strtod would also take "nan", "inf" and hex. */
static bool parse_double(const char *s, double *v)
{
	char *end;

	if (!*s || strspn(s, "0123456789.eE+-") != strlen(s))
		return false;
	errno = 0;
	*v = strtod(s, &end);
	*v += 0.0;	/* -0 is 0: no "-0.000" or sign games downstream */
	return !*end && end != s && errno != ERANGE;
}

/* Set one column from CSV text. */
static int set_from_text(struct rd_ctx *c, int line, struct rg_row *r, int col, const char *text)
{
	union rg_val v;
	char b[40];

	switch (rd_cols[col].kind) {
	case K_S:
		v.s = strdup(text);
		if (!v.s)
			return rd_fail(c, line, "out of memory");
		free(r->v[col].s);
		r->v[col].s = v.s;
		break;
	case K_I:
	case K_B:
		if (col == RG_COL_ab_boot && !*text) {
			v.i = -1;	/* missing: not an ab boot */
			r->v[col] = v;
			return 0;
		}
		if (!parse_ll(text, &v.i))
			return rd_fail(c, line, "column '%s': '%s' is not an integer", rd_cols[col].name,
				    rd_frag(text, strlen(text), b, sizeof(b)));
		r->v[col] = v;
		break;
	case K_U:
		if (!rg_csv_u64(text, &v.u))
			return rd_fail(c, line, "column '%s': '%s' is not an unsigned integer",
				    rd_cols[col].name, rd_frag(text, strlen(text), b, sizeof(b)));
		r->v[col] = v;
		break;
	case K_D:
		/* A missing number: an empty field from schema 6 on, "n/a" before (csv_row() read the version first). */
		if (r->v[RG_COL_schema_version].i >= RD_CSV_EMPTY_FROM ? !*text : !strcmp(text, "n/a")) {
			v.d = NAN;
		} else if (!parse_double(text, &v.d)) {
			if (r->v[RG_COL_schema_version].i < RD_CSV_EMPTY_FROM)
				return rd_fail(c, line, "column '%s': '%s' is not a number or n/a",
					       rd_cols[col].name, rd_frag(text, strlen(text), b, sizeof(b)));
			return rd_fail(c, line, "column '%s': '%s' is not a number (schema version %lld "
				       "writes a missing number as an empty field)", rd_cols[col].name,
				       rd_frag(text, strlen(text), b, sizeof(b)),
				       r->v[RG_COL_schema_version].i);
		}
		r->v[col] = v;
		break;
	}
	return rd_check_value(c, line, col, &r->v[col], text);
}

/* ---- CSV ------------------------------------------------------------------ */

/*
 * The header: map[col] = field index (-1 when absent), hdr[field] = column
 * (-1 for a column this reader does not know). Every version-1 column must be
 * there; newer ones are checked per row, by its version.
 */
static int csv_header(struct rd_ctx *c, struct rg_csv *s, int *map, int **hdr_out, size_t *nhdr)
{
	int r = rg_csv_next(s, NULL), *hdr;

	if (r < 0)
		return rd_fail(c, s->err_line, "%s", s->err);
	if (r == 0)
		return rd_fail(c, 1, "empty file");
	*nhdr = s->nf;
	hdr = *hdr_out = calloc(*nhdr, sizeof(*hdr));
	if (!hdr)
		return rd_fail(c, 1, "out of memory");
	for (size_t k = 0; k < *nhdr; k++) {
		hdr[k] = -1;
		for (int i = 0; i < RG_NCOLS; i++) {
			if (strcmp(s->f[k], rd_cols[i].name))
				continue;
			if (map[i] >= 0)
				return rd_fail(c, 1, "column '%s' appears twice in the header", rd_cols[i].name);
			map[i] = (int)k;
			hdr[k] = i;
		}
	}
	for (int i = 0; i < RG_NCOLS; i++) {
		if (map[i] >= 0 || rd_col_since(i) > 1)
			continue;
		if (*nhdr == 1 && strpbrk(s->f[0], ";\t|")) {
			char d = *strpbrk(s->f[0], ";\t|");

			return rd_fail(c, 1, "header is not comma-separated (found '%s' as delimiter)",
				       d == '\t' ? "\\t" : d == ';' ? ";" : "|");
		}
		return rd_fail(c, 1, "required column '%s' is missing from the header", rd_cols[i].name);
	}
	return 0;
}

/* One record (s->f) as a row starting on line start. */
static int csv_row(struct rd_ctx *c, const struct rg_csv *s, int start, const int *map,
		   const int *hdr, size_t nhdr)
{
	struct rg_row *row;
	long long v;

	if (s->nf != nhdr)
		return rd_fail(c, start, "row has %zu fields, the header has %zu%s", s->nf, nhdr,
			       s->nf < nhdr ? " (truncated row?)" : "");
	row = rd_row_new(c, start);
	if (!row)
		return rd_fail(c, start, "out of memory");
	/*
	 * The version first: the header's columns must be this row's version's, and
	 * it says how a missing number is written (RD_CSV_EMPTY_FROM).
	 */
	if (set_from_text(c, start, row, RG_COL_schema_version, s->f[map[RG_COL_schema_version]]))
		return -1;
	v = row->v[RG_COL_schema_version].i;
	for (int i = 0; i < RG_NCOLS; i++) {
		if (map[i] < 0 && rd_col_since(i) <= v)
			return rd_fail(c, start, "required column '%s' is missing from the header "
				       "(schema version %lld)", rd_cols[i].name, v);
		if (map[i] >= 0 && rd_col_since(i) > v)
			return rd_fail(c, start, "column '%s' is not in schema version %lld",
				       rd_cols[i].name, v);
	}
	for (size_t k = 0; k < nhdr; k++)
		if (hdr[k] >= 0 && hdr[k] != RG_COL_schema_version &&
		    set_from_text(c, start, row, hdr[k], s->f[k]))
			return -1;
	return 0;
}

int rd_read_csv(struct rd_ctx *c, const char *buf, size_t len)
{
	struct rg_csv s;
	int map[RG_NCOLS], *hdr = NULL, ret = -1, start, r;
	size_t nhdr = 0, from = c->out->n;

	rg_csv_init(&s, buf, len, RG_CSV_NEED_EOL);
	for (int i = 0; i < RG_NCOLS; i++)
		map[i] = -1;
	if (csv_header(c, &s, map, &hdr, &nhdr))
		goto out;
	while ((r = rg_csv_next(&s, &start)) > 0) {
		if (s.nf == 1 && !s.f[0][0])
			continue;	/* blank line */
		if (rd_check_stop(c, start) || csv_row(c, &s, start, map, hdr, nhdr))
			goto out;
	}
	if (r < 0)
		rd_fail(c, s.err_line, "%s", s.err);
	else if (r == 0 && c->out->n == from)
		rd_fail(c, s.line > 1 ? s.line - 1 : 1, "no rows (a header and nothing else)");
	else if (r == 0)
		ret = 0;
out:
	rg_csv_free(&s);
	free(hdr);
	return ret;
}
