// SPDX-License-Identifier: MIT
/* The one strict reader of rgbench result files (CSV and JSON, schema versions 1 to 3). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "rg/plots.h"

enum kind { K_S, K_I, K_U, K_D, K_B };

static const struct {
	const char *name;
	enum kind kind;
} cols[RG_NCOLS] = {
#define X(name, kind, doc) { #name, K_##kind },
	RG_RESULT_COLUMNS(X)
#undef X
};

/*
 * The schema version that added a column: files of an older version lack it
 * (read as empty), files of this version or newer must have it.
 * Version 2 added `events`; version 3 the run id, virt, role, the paired
 * difference against a baseline, the time bases and the latency percentiles.
 */
static long long col_since(int col)
{
	switch (col) {
	case RG_COL_events:
		return 2;
	case RG_COL_run_id: case RG_COL_virt: case RG_COL_role:
	case RG_COL_baseline: case RG_COL_interleave:
	case RG_COL_delta_ns: case RG_COL_delta_ci_lo: case RG_COL_delta_ci_hi:
	case RG_COL_cpu_ns_median: case RG_COL_wall_ns_median: case RG_COL_discarded:
	case RG_COL_lat_p50_ns: case RG_COL_lat_p90_ns: case RG_COL_lat_p99_ns:
	case RG_COL_lat_p999_ns: case RG_COL_lat_max_ns:
		return 3;
	default:
		return 1;
	}
}

/* ---- errors ----------------------------------------------------------- */

struct ctx {
	const char *name;	/* file name for messages */
	char *err;
	size_t errlen;
	struct rg_rows *out;
	const char *file;	/* stored copy of name, for rows */
};

__attribute__((format(printf, 3, 4)))
static int fail(struct ctx *c, int line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* The message is one line whatever the input held. */
	for (char *p = msg; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	if (line > 0)
		snprintf(c->err, c->errlen, "%s:%d: %s", c->name, line, msg);
	else
		snprintf(c->err, c->errlen, "%s: %s", c->name, msg);
	return -1;
}

/* Quote an input fragment for a message: at most 24 bytes, printable only. */
static const char *frag(const char *s, size_t len, char *buf, size_t size)
{
	size_t o = 0, max = len < 24 ? len : 24;

	for (size_t i = 0; i < max && o + 2 < size; i++) {
		unsigned char ch = (unsigned char)s[i];

		buf[o++] = (ch >= 0x20 && ch < 0x7f) ? (char)ch : '?';
	}
	if (len > max && o + 4 < size) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = 0;
	return buf;
}

/* ---- rows --------------------------------------------------------------- */

static void row_free(struct rg_row *r)
{
	for (int c = 0; c < RG_NCOLS; c++)
		if (cols[c].kind == K_S)
			free(r->v[c].s);
	free(r->samples_ns);
	free(r->samples_mops);
	free(r->samples_wall_ns);
	free(r->samples_delta_ns);
	free(r->lat_lo);
	free(r->lat_hi);
	free(r->lat_count);
}

void rg_rows_free(struct rg_rows *rows)
{
	for (size_t i = 0; i < rows->n; i++)
		row_free(&rows->v[i]);
	for (size_t i = 0; i < rows->nfiles; i++)
		free(rows->files[i]);
	free(rows->v);
	free(rows->files);
	memset(rows, 0, sizeof(*rows));
}

static struct rg_row *row_new(struct ctx *c, int line)
{
	struct rg_rows *o = c->out;
	struct rg_row *r;

	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 64;
		struct rg_row *v = realloc(o->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		o->v = v;
		o->cap = cap;
	}
	r = &o->v[o->n];
	memset(r, 0, sizeof(*r));
	for (int i = 0; i < RG_NCOLS; i++) {
		if (cols[i].kind == K_S) {
			r->v[i].s = strdup("");
			if (!r->v[i].s) {
				row_free(r);
				return NULL;
			}
		} else if (cols[i].kind == K_D) {
			r->v[i].d = NAN;
		}
	}
	r->file = c->file;
	r->line = line;
	o->n++;
	return r;
}

static int add_file(struct rg_rows *o, const char *name, const char **stored)
{
	char **v = realloc(o->files, (o->nfiles + 1) * sizeof(*v));

	if (!v)
		return -1;
	o->files = v;
	v[o->nfiles] = strdup(name);
	if (!v[o->nfiles])
		return -1;
	*stored = v[o->nfiles++];
	return 0;
}

void rg_row_key_text(const struct rg_row *r, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s/%s threads=%lld duty_ns=%lld batch=%lld",
		 r->v[RG_COL_suite].s, r->v[RG_COL_guard].s, r->v[RG_COL_scenario].s,
		 r->v[RG_COL_threads].i, r->v[RG_COL_duty_ns].i, r->v[RG_COL_batch].i);
}

static int cmp_ll(long long a, long long b)
{
	return (a > b) - (a < b);
}

int rg_row_key_cmp(const struct rg_row *a, const struct rg_row *b)
{
	static const enum rg_col s[] = { RG_COL_suite, RG_COL_guard, RG_COL_scenario };
	static const enum rg_col n[] = { RG_COL_threads, RG_COL_duty_ns, RG_COL_batch };
	int d;

	for (size_t i = 0; i < 3; i++)
		if ((d = strcmp(a->v[s[i]].s, b->v[s[i]].s)))
			return d;
	for (size_t i = 0; i < 3; i++)
		if ((d = cmp_ll(a->v[n[i]].i, b->v[n[i]].i)))
			return d;
	return 0;
}

static const struct rg_row *sort_base;

static int cmp_idx(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	int d = rg_row_key_cmp(&sort_base[a], &sort_base[b]);

	return d ? d : (a > b) - (a < b);
}

int rg_rows_check_unique(const struct rg_rows *rows, size_t from, char *err, size_t errlen)
{
	size_t n = rows->n - from, *idx;
	int ret = 0;

	if (n < 2)
		return 0;
	idx = malloc(n * sizeof(*idx));
	if (!idx) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		idx[i] = from + i;
	sort_base = rows->v;
	qsort(idx, n, sizeof(*idx), cmp_idx);
	/* Of all duplicates, report the one that comes first in reading order. */
	size_t best = SIZE_MAX, first = 0;

	for (size_t i = 1; i < n; i++) {
		if (rg_row_key_cmp(&rows->v[idx[i - 1]], &rows->v[idx[i]]))
			continue;
		if (idx[i] < best) {
			best = idx[i];
			first = idx[i - 1];
		}
	}
	if (best != SIZE_MAX) {
		const struct rg_row *a = &rows->v[first], *b = &rows->v[best];
		char key[256];

		/* a is the earliest row of the run of equal keys before b. */
		for (size_t i = from; i < best; i++)
			if (!rg_row_key_cmp(&rows->v[i], b)) {
				a = &rows->v[i];
				break;
			}
		rg_row_key_text(b, key, sizeof(key));
		if (a->file == b->file)
			snprintf(err, errlen, "%s:%d: duplicate row %s (first at line %d)",
				 b->file, b->line, key, a->line);
		else
			snprintf(err, errlen, "%s:%d: duplicate row %s (also in %s:%d; "
				 "one side holds one run)", b->file, b->line, key, a->file, a->line);
		ret = -1;
	}
	free(idx);
	return ret;
}

/* ---- values --------------------------------------------------------------- */

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

static bool parse_ull(const char *s, unsigned long long *v)
{
	char *end;

	if (!*s || !(*s >= '0' && *s <= '9'))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
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
	return !*end && end != s && errno != ERANGE;
}

/*
 * C0 controls (tab, CR and LF included), DEL and the C1 controls U+0080-U+009F
 * (UTF-8 C2 80 to C2 9F): they would break every table and message the
 * reports print, so a string value may hold none of them.
 */
static bool has_control(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
			return true;
	return false;
}

/* Column-specific rules shared by both formats; text is what the file said. */
static int check_value(struct ctx *c, int line, int col, const union rg_val *v,
		       const char *text)
{
	char b[40];

	switch (cols[col].kind) {
	case K_I:
		if (col == RG_COL_schema_version && (v->i < 1 || v->i > RG_SCHEMA_VERSION))
			return fail(c, line, "schema version %lld is not supported (this rgbench reads versions 1 to %d)",
				    v->i, RG_SCHEMA_VERSION);
		if (v->i < 0)
			return fail(c, line, "column '%s': negative value %lld", cols[col].name, v->i);
		if (col == RG_COL_threads && v->i < 1)
			return fail(c, line, "column 'threads': must be at least 1, not %lld", v->i);
		break;
	case K_B:
		if (v->i != 0 && v->i != 1)
			return fail(c, line, "column '%s': '%s' is not 0 or 1", cols[col].name,
				    frag(text, strlen(text), b, sizeof(b)));
		break;
	case K_D:
		if (isnan(v->d))
			break;	/* n/a: not measured */
		if (!isfinite(v->d))
			return fail(c, line, "column '%s': '%s' is not a finite number", cols[col].name,
				    frag(text, strlen(text), b, sizeof(b)));
		if (v->d < 0 && col != RG_COL_delta_ns && col != RG_COL_delta_ci_lo &&
		    col != RG_COL_delta_ci_hi)	/* a difference may be negative */
			return fail(c, line, "column '%s': negative value %s", cols[col].name,
				    frag(text, strlen(text), b, sizeof(b)));
		break;
	case K_S:
		if (col == RG_COL_suite && strcmp(v->s, "user") && strcmp(v->s, "bpf") &&
		    strcmp(v->s, "kmod"))
			return fail(c, line, "column 'suite': '%s' is not user, bpf or kmod",
				    frag(v->s, strlen(v->s), b, sizeof(b)));
		if (col == RG_COL_status && strcmp(v->s, "ok") && strcmp(v->s, "skipped") &&
		    strcmp(v->s, "error") && strcmp(v->s, "noisy"))
			return fail(c, line, "column 'status': '%s' is not ok, noisy, skipped or error",
				    frag(v->s, strlen(v->s), b, sizeof(b)));
		if ((col == RG_COL_guard || col == RG_COL_scenario) && !*v->s)
			return fail(c, line, "column '%s' is empty", cols[col].name);
		if (has_control(v->s))
			return fail(c, line, "column '%s': '%s' holds a control character "
				    "(names and texts are one printable line)", cols[col].name,
				    frag(v->s, strlen(v->s), b, sizeof(b)));
		break;
	case K_U:
		break;
	}
	return 0;
}

/* Set one column from CSV text. */
static int set_from_text(struct ctx *c, int line, struct rg_row *r, int col, const char *text)
{
	union rg_val v;
	char b[40];

	switch (cols[col].kind) {
	case K_S:
		v.s = strdup(text);
		if (!v.s)
			return fail(c, line, "out of memory");
		free(r->v[col].s);
		r->v[col].s = v.s;
		break;
	case K_I:
	case K_B:
		if (!parse_ll(text, &v.i))
			return fail(c, line, "column '%s': '%s' is not an integer", cols[col].name,
				    frag(text, strlen(text), b, sizeof(b)));
		r->v[col] = v;
		break;
	case K_U:
		if (!parse_ull(text, &v.u))
			return fail(c, line, "column '%s': '%s' is not an unsigned integer",
				    cols[col].name, frag(text, strlen(text), b, sizeof(b)));
		r->v[col] = v;
		break;
	case K_D:
		if (!strcmp(text, "n/a")) {
			v.d = NAN;
		} else if (!parse_double(text, &v.d)) {
			return fail(c, line, "column '%s': '%s' is not a number or n/a", cols[col].name,
				    frag(text, strlen(text), b, sizeof(b)));
		}
		r->v[col] = v;
		break;
	}
	return check_value(c, line, col, &r->v[col], text);
}

/* ---- content checks ------------------------------------------------------- */

/* Control bytes (other than tab, CR, LF) or invalid UTF-8: not a text file. */
static int check_text(struct ctx *c, const char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)buf;
	int line = 1;

	for (size_t i = 0; i < len; i++) {
		unsigned char ch = p[i];
		size_t need = 0;
		unsigned int cp;

		if (ch == '\n') {
			line++;
			continue;
		}
		if (ch < 0x20 && ch != '\t' && ch != '\r')
			return fail(c, line, "binary data (byte 0x%02x at offset %zu), not a result file", ch, i);
		if (ch == 0x7f)
			return fail(c, line, "binary data (byte 0x7f at offset %zu), not a result file", i);
		if (ch < 0x80)
			continue;
		if (ch >= 0xc2 && ch <= 0xdf) {
			need = 1;
			cp = ch & 0x1f;
		} else if (ch >= 0xe0 && ch <= 0xef) {
			need = 2;
			cp = ch & 0x0f;
		} else if (ch >= 0xf0 && ch <= 0xf4) {
			need = 3;
			cp = ch & 0x07;
		} else {
			return fail(c, line, "binary data (invalid UTF-8 byte 0x%02x at offset %zu)", ch, i);
		}
		if (i + need >= len)
			return fail(c, line, "binary data (truncated UTF-8 sequence at offset %zu)", i);
		for (size_t k = 1; k <= need; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				return fail(c, line, "binary data (invalid UTF-8 at offset %zu)", i);
			cp = (cp << 6) | (p[i + k] & 0x3f);
		}
		if ((need == 2 && cp < 0x800) || (need == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return fail(c, line, "binary data (invalid UTF-8 at offset %zu)", i);
		i += need;
	}
	return 0;
}

/* ---- CSV ------------------------------------------------------------------ */

struct csv {
	const char *p, *end;
	int line;
	char **f;		/* fields of the current record */
	size_t nf, capf;
	char *tmp;		/* unescape buffer */
	size_t tmpcap;
};

static void csv_clear(struct csv *s)
{
	for (size_t i = 0; i < s->nf; i++)
		free(s->f[i]);
	s->nf = 0;
}

static int csv_push(struct ctx *c, struct csv *s, const char *b, size_t len)
{
	char *v;

	if (s->nf == s->capf) {
		size_t cap = s->capf ? s->capf * 2 : 64;
		char **f = realloc(s->f, cap * sizeof(*f));

		if (!f)
			return fail(c, s->line, "out of memory");
		s->f = f;
		s->capf = cap;
	}
	v = strndup(b, len);
	if (!v)
		return fail(c, s->line, "out of memory");
	s->f[s->nf++] = v;
	return 0;
}

static int tmp_put(struct ctx *c, struct csv *s, size_t *o, char ch)
{
	if (*o + 1 >= s->tmpcap) {
		size_t cap = s->tmpcap ? s->tmpcap * 2 : 256;
		char *t = realloc(s->tmp, cap);

		if (!t)
			return fail(c, s->line, "out of memory");
		s->tmp = t;
		s->tmpcap = cap;
	}
	s->tmp[(*o)++] = ch;
	return 0;
}

/*
 * Read one record into s->f. Returns 1 for a record, 0 at end of input, -1 on
 * error. *start gets the line the record starts on.
 */
static int csv_record(struct ctx *c, struct csv *s, int *start)
{
	csv_clear(s);
	*start = s->line;
	if (s->p == s->end)
		return 0;
	for (;;) {
		size_t o = 0;

		if (s->p < s->end && *s->p == '"') {
			int qline = s->line;

			s->p++;
			for (;;) {
				if (s->p == s->end)
					return fail(c, qline, "quoted field never closed (truncated file?)");
				if (*s->p == '"') {
					if (s->p + 1 < s->end && s->p[1] == '"') {
						if (tmp_put(c, s, &o, '"'))
							return -1;
						s->p += 2;
						continue;
					}
					s->p++;
					break;
				}
				if (*s->p == '\n')
					s->line++;
				if (tmp_put(c, s, &o, *s->p++))
					return -1;
			}
			if (s->p < s->end && *s->p != ',' && *s->p != '\n' && *s->p != '\r')
				return fail(c, s->line, "character after a closing quote");
		} else {
			while (s->p < s->end && *s->p != ',' && *s->p != '\n' && *s->p != '\r') {
				if (*s->p == '"')
					return fail(c, s->line, "quote inside an unquoted field");
				if (tmp_put(c, s, &o, *s->p++))
					return -1;
			}
		}
		if (csv_push(c, s, s->tmp ? s->tmp : "", o))
			return -1;
		if (s->p == s->end)
			return fail(c, s->line, "last line has no line end (truncated file?)");
		if (*s->p == ',') {
			s->p++;
			continue;
		}
		if (*s->p == '\r') {
			if (s->p + 1 == s->end || s->p[1] != '\n')
				return fail(c, s->line, "carriage return not followed by a line feed");
			s->p++;
		}
		s->p++;		/* '\n' */
		s->line++;
		return 1;
	}
}

static int read_csv(struct ctx *c, const char *buf, size_t len)
{
	struct csv s = { .p = buf, .end = buf + len, .line = 1 };
	int map[RG_NCOLS], *hdr = NULL, ret = -1, start, r;
	size_t nhdr = 0, from = c->out->n;

	for (int i = 0; i < RG_NCOLS; i++)
		map[i] = -1;
	/* Header. */
	r = csv_record(c, &s, &start);
	if (r <= 0) {
		if (r == 0)
			fail(c, 1, "empty file");
		goto out;
	}
	nhdr = s.nf;
	hdr = calloc(nhdr, sizeof(*hdr));
	if (!hdr) {
		fail(c, 1, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < nhdr; k++) {
		hdr[k] = -1;
		for (int i = 0; i < RG_NCOLS; i++) {
			if (strcmp(s.f[k], cols[i].name))
				continue;
			if (map[i] >= 0) {
				fail(c, 1, "column '%s' appears twice in the header", cols[i].name);
				goto out;
			}
			map[i] = (int)k;
			hdr[k] = i;
		}
	}
	for (int i = 0; i < RG_NCOLS; i++) {
		if (map[i] >= 0 || col_since(i) > 1)
			continue;	/* newer columns: checked per row, by its version */
		if (nhdr == 1 && strpbrk(s.f[0], ";\t|")) {
			char d = *strpbrk(s.f[0], ";\t|");

			fail(c, 1, "header is not comma-separated (found '%s' as delimiter)",
			     d == '\t' ? "\\t" : d == ';' ? ";" : "|");
		} else {
			fail(c, 1, "required column '%s' is missing from the header", cols[i].name);
		}
		goto out;
	}
	/* Rows. */
	while ((r = csv_record(c, &s, &start)) > 0) {
		struct rg_row *row;

		if (s.nf == 1 && !s.f[0][0])
			continue;	/* blank line */
		if (s.nf != nhdr) {
			fail(c, start, "row has %zu fields, the header has %zu%s", s.nf, nhdr,
			     s.nf < nhdr ? " (truncated row?)" : "");
			goto out;
		}
		row = row_new(c, start);
		if (!row) {
			fail(c, start, "out of memory");
			goto out;
		}
		for (size_t k = 0; k < nhdr; k++)
			if (hdr[k] >= 0 && set_from_text(c, start, row, hdr[k], s.f[k]))
				goto out;
		for (int i = 0; i < RG_NCOLS; i++) {
			long long v = row->v[RG_COL_schema_version].i;

			if (map[i] < 0 && col_since(i) <= v) {
				fail(c, start, "required column '%s' is missing from the header "
				     "(schema version %lld)", cols[i].name, v);
				goto out;
			}
			if (map[i] >= 0 && col_since(i) > v) {
				fail(c, start, "column '%s' is not in schema version %lld",
				     cols[i].name, v);
				goto out;
			}
		}
	}
	if (r == 0 && c->out->n == from)
		fail(c, s.line > 1 ? s.line - 1 : 1, "no rows (a header and nothing else)");
	else if (r == 0)
		ret = 0;
out:
	csv_clear(&s);
	free(s.f);
	free(s.tmp);
	free(hdr);
	return ret;
}

/* ---- JSON ----------------------------------------------------------------- */

/*
 * jansson does not say where a value is, so find the line on which each element
 * of the top-level "results" array starts with a small scan of the (already
 * validated) text. Elements beyond the array get the array's line.
 */
static int *json_result_lines(const char *buf, size_t len, size_t n)
{
	int *lines = calloc(n ? n : 1, sizeof(*lines));
	int depth = 0, line = 1, arr_line = 1;
	bool in_str = false, esc = false, want_value = false, in_results = false;
	size_t k = 0, key_start = 0, key_len = 0, str_start = 0;
	bool last_is_key = false;

	if (!lines)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		char ch = buf[i];

		if (ch == '\n')
			line++;
		if (in_str) {
			if (esc)
				esc = false;
			else if (ch == '\\')
				esc = true;
			else if (ch == '"') {
				in_str = false;
				key_start = str_start;
				key_len = i - str_start;
			}
			continue;
		}
		if (in_results && depth == 2 && want_value && ch != ' ' && ch != '\n' &&
		    ch != '\t' && ch != '\r' && ch != ']') {
			if (k < n)
				lines[k++] = line;
			want_value = false;
		}
		switch (ch) {
		case '"':
			in_str = true;
			str_start = i + 1;
			break;
		case ':':
			last_is_key = depth == 1 && key_len == 7 &&
				      !memcmp(buf + key_start, "results", 7);
			break;
		case '{':
			depth++;
			break;
		case '[':
			depth++;
			if (depth == 2 && last_is_key) {
				in_results = true;
				want_value = true;
				arr_line = line;
			}
			break;
		case '}':
		case ']':
			if (depth == 2 && in_results)
				in_results = false;
			depth--;
			break;
		case ',':
			if (in_results && depth == 2)
				want_value = true;
			break;
		}
	}
	for (; k < n; k++)
		lines[k] = arr_line;
	return lines;
}

/* A per-repetition array; only differences (allow_negative) may be below 0. */
static int json_samples(struct ctx *c, int line, json_t *o, const char *key,
			double **out, size_t *n, bool allow_negative)
{
	json_t *a = json_object_get(o, key), *e;
	size_t i;

	if (!a || json_is_null(a))
		return 0;
	if (!json_is_array(a))
		return fail(c, line, "'%s' is not an array", key);
	if (!json_array_size(a))
		return 0;
	*out = malloc(json_array_size(a) * sizeof(**out));
	if (!*out)
		return fail(c, line, "out of memory");
	*n = 0;
	json_array_foreach(a, i, e) {
		double v;

		if (json_is_null(e))
			continue;	/* a repetition that measured nothing */
		if (!json_is_number(e))
			return fail(c, line, "'%s'[%zu] is not a number", key, i);
		v = json_number_value(e);
		if (!isfinite(v) || (v < 0 && !allow_negative))
			return fail(c, line, "'%s'[%zu] is %s", key, i,
				    isfinite(v) ? "negative" : "not finite");
		(*out)[(*n)++] = v;
	}
	return 0;
}

/* "lat_hist": [[lo_ns, hi_ns or null, count], ...], lo ascending, counts >= 0. */
static int json_lat_hist(struct ctx *c, int line, struct rg_row *r, json_t *o)
{
	json_t *a = json_object_get(o, "lat_hist"), *e;
	size_t i, n;

	if (!a || json_is_null(a))
		return 0;
	if (!json_is_array(a))
		return fail(c, line, "'lat_hist' is not an array");
	n = json_array_size(a);
	r->lat_lo = malloc((n ? n : 1) * sizeof(double));
	r->lat_hi = malloc((n ? n : 1) * sizeof(double));
	r->lat_count = malloc((n ? n : 1) * sizeof(unsigned long long));
	if (!r->lat_lo || !r->lat_hi || !r->lat_count)
		return fail(c, line, "out of memory");
	json_array_foreach(a, i, e) {
		json_t *lo = json_array_get(e, 0), *hi = json_array_get(e, 1), *k = json_array_get(e, 2);

		if (!json_is_array(e) || json_array_size(e) != 3 || !json_is_number(lo) ||
		    !(json_is_number(hi) || json_is_null(hi)) || !json_is_integer(k) ||
		    json_integer_value(k) < 0)
			return fail(c, line, "'lat_hist'[%zu] is not [lo_ns, hi_ns|null, count]", i);
		r->lat_lo[i] = json_number_value(lo);
		r->lat_hi[i] = json_is_null(hi) ? NAN : json_number_value(hi);
		r->lat_count[i] = (unsigned long long)json_integer_value(k);
		if (!isfinite(r->lat_lo[i]) || r->lat_lo[i] < 0 || (i && r->lat_lo[i] <= r->lat_lo[i - 1]) ||
		    (!isnan(r->lat_hi[i]) && r->lat_hi[i] <= r->lat_lo[i]))
			return fail(c, line, "'lat_hist'[%zu]: bins must be ascending with lo < hi", i);
		r->n_lat = i + 1;
	}
	return 0;
}

static int json_column(struct ctx *c, int line, struct rg_row *r, int col, json_t *v)
{
	char text[64];

	switch (cols[col].kind) {
	case K_S:
		if (!json_is_string(v))
			return fail(c, line, "'%s' is not a string", cols[col].name);
		if (memchr(json_string_value(v), 0, json_string_length(v)))
			return fail(c, line, "'%s' holds a NUL character", cols[col].name);
		free(r->v[col].s);
		r->v[col].s = strdup(json_string_value(v));
		if (!r->v[col].s)
			return fail(c, line, "out of memory");
		snprintf(text, sizeof(text), "string");
		break;
	case K_B:
		if (json_is_boolean(v)) {
			r->v[col].i = json_is_true(v);
			break;
		}
		__attribute__((fallthrough));	/* 0/1 */
	case K_I:
		if (!json_is_integer(v))
			return fail(c, line, "'%s' is not an integer", cols[col].name);
		r->v[col].i = json_integer_value(v);
		snprintf(text, sizeof(text), "%lld", r->v[col].i);
		break;
	case K_U:
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return fail(c, line, "'%s' is not an unsigned integer", cols[col].name);
		r->v[col].u = (unsigned long long)json_integer_value(v);
		snprintf(text, sizeof(text), "%llu", r->v[col].u);
		break;
	case K_D:
		if (json_is_null(v)) {
			r->v[col].d = NAN;
			snprintf(text, sizeof(text), "null");
			break;
		}
		if (!json_is_number(v))
			return fail(c, line, "'%s' is not a number or null", cols[col].name);
		r->v[col].d = json_number_value(v);
		snprintf(text, sizeof(text), "%g", r->v[col].d);
		break;
	}
	return check_value(c, line, col, &r->v[col], text);
}

static int read_json(struct ctx *c, const char *buf, size_t len)
{
	json_error_t je;
	json_t *root, *sv, *res, *e, *rid = NULL;
	int *lines = NULL, ret = -1;
	long long version;
	size_t i;

	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return fail(c, je.line > 0 ? je.line : 1, "invalid JSON: %s", je.text);
	if (!json_is_object(root)) {
		fail(c, 1, "top level is not an object");
		goto out;
	}
	sv = json_object_get(root, "schema_version");
	if (!sv) {
		fail(c, 1, "no 'schema_version' (not an rgbench result file?)");
		goto out;
	}
	if (!json_is_integer(sv)) {
		fail(c, 1, "'schema_version' is not an integer");
		goto out;
	}
	version = json_integer_value(sv);
	if (version < 1 || version > RG_SCHEMA_VERSION) {
		fail(c, 1, "schema version %lld is not supported (this rgbench reads versions 1 to %d)",
		     version, RG_SCHEMA_VERSION);
		goto out;
	}
	res = json_object_get(root, "results");
	if (!res || !json_is_array(res)) {
		fail(c, 1, "no 'results' array");
		goto out;
	}
	if (!json_array_size(res)) {
		fail(c, 1, "no rows ('results' is empty)");
		goto out;
	}
	if (version >= 3) {
		rid = json_object_get(root, "run_id");
		if (!rid || !json_is_string(rid) || !json_string_length(rid) ||
		    has_control(json_string_value(rid))) {
			fail(c, 1, "no 'run_id' string at the top level (schema version %lld)", version);
			goto out;
		}
	}
	lines = json_result_lines(buf, len, json_array_size(res));
	if (!lines) {
		fail(c, 1, "out of memory");
		goto out;
	}
	json_array_foreach(res, i, e) {
		int line = lines[i];
		struct rg_row *r;

		if (!json_is_object(e)) {
			fail(c, line, "results[%zu] is not an object", i);
			goto out;
		}
		r = row_new(c, line);
		if (!r) {
			fail(c, line, "out of memory");
			goto out;
		}
		for (int col = 0; col < RG_NCOLS; col++) {
			json_t *v = json_object_get(e, cols[col].name);

			if (col_since(col) > version) {
				if (v) {
					fail(c, line, "results[%zu]: field '%s' is not in schema version %lld",
					     i, cols[col].name, version);
					goto out;
				}
				continue;	/* an older file: read as empty */
			}
			if (!v) {
				fail(c, line, "results[%zu]: required field '%s' is missing", i,
				     cols[col].name);
				goto out;
			}
			if (json_column(c, line, r, col, v))
				goto out;
		}
		if (rid && strcmp(r->v[RG_COL_run_id].s, json_string_value(rid))) {
			char b1[40], b2[40];
			const char *a = r->v[RG_COL_run_id].s, *t = json_string_value(rid);

			fail(c, line, "results[%zu]: run_id '%s', the file says '%s'", i,
			     frag(a, strlen(a), b1, sizeof(b1)), frag(t, strlen(t), b2, sizeof(b2)));
			goto out;
		}
		if (r->v[RG_COL_schema_version].i != version) {
			fail(c, line, "results[%zu]: schema_version %lld, the file says %lld", i,
			     r->v[RG_COL_schema_version].i, version);
			goto out;
		}
		if (json_samples(c, line, e, "samples_ns", &r->samples_ns, &r->n_ns, false) ||
		    json_samples(c, line, e, "samples_mops", &r->samples_mops, &r->n_mops, false) ||
		    json_samples(c, line, e, "samples_wall_ns", &r->samples_wall_ns, &r->n_wall,
				 false) ||
		    json_samples(c, line, e, "samples_delta_ns", &r->samples_delta_ns,
				 &r->n_delta, true) ||
		    json_lat_hist(c, line, r, e))
			goto out;
	}
	ret = 0;
out:
	free(lines);
	json_decref(root);
	return ret;
}

/* ---- entry points ---------------------------------------------------------- */

int rg_read_buffer(const char *name, const char *buf, size_t len,
		   struct rg_rows *out, char *err, size_t errlen)
{
	struct ctx c = { .name = name, .err = err, .errlen = errlen, .out = out };
	size_t from = out->n, i = 0;

	if (add_file(out, name, &c.file))
		return fail(&c, 1, "out of memory");
	if (len > RG_READ_MAX_BYTES)
		return fail(&c, 1, "file is %zu bytes, over the %u MiB limit", len,
			    RG_READ_MAX_BYTES >> 20);
	if (check_text(&c, buf, len))
		return -1;
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3)) {
		buf += 3;	/* UTF-8 byte order mark */
		len -= 3;
	}
	while (i < len && strchr(" \t\r\n", buf[i]))
		i++;
	if (i == len)
		return fail(&c, 1, "empty file");
	if (buf[i] == '{' || buf[i] == '[') {
		if (read_json(&c, buf, len))
			return -1;
	} else if (read_csv(&c, buf, len)) {
		return -1;
	}
	return rg_rows_check_unique(out, from, err, errlen);
}

static const char *kind_of(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" :
	       S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "not a file";
}

static int read_file(const char *path, struct rg_rows *out, char *err, size_t errlen)
{
	struct ctx c = { .name = path, .err = err, .errlen = errlen };
	struct stat st;
	char *buf;
	size_t len = 0;
	int fd, ret;

	/*
	 * Only regular files are read: look before opening (opening a FIFO for
	 * reading blocks until a writer comes; a device may act on open), and open
	 * without blocking in case it changed in between.
	 */
	if (stat(path, &st))
		return fail(&c, 0, "cannot open: %s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return fail(&c, 0, "not a regular file or directory (%s)", kind_of(st.st_mode));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return fail(&c, 0, "cannot open: %s", strerror(errno));
	if (fstat(fd, &st)) {
		ret = fail(&c, 0, "cannot stat: %s", strerror(errno));
		close(fd);
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return fail(&c, 0, "not a regular file or directory (%s)", kind_of(st.st_mode));
	}
	if ((unsigned long long)st.st_size > RG_READ_MAX_BYTES) {
		close(fd);
		return fail(&c, 1, "file is %lld bytes, over the %u MiB limit",
			    (long long)st.st_size, RG_READ_MAX_BYTES >> 20);
	}
	/* One byte more than the size, to notice a file that grows while we read. */
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return fail(&c, 0, "out of memory");
	}
	while (len < (size_t)st.st_size + 1) {
		ssize_t r = read(fd, buf + len, (size_t)st.st_size + 1 - len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = fail(&c, 0, "read error: %s", strerror(errno));
			free(buf);
			close(fd);
			return ret;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	if (len != (size_t)st.st_size) {
		free(buf);
		close(fd);
		return fail(&c, 0, "file changed size while being read");
	}
	close(fd);
	ret = rg_read_buffer(path, buf, len, out, err, errlen);
	free(buf);
	return ret;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_suffix(const char *s, const char *sfx)
{
	size_t a = strlen(s), b = strlen(sfx);

	return a > b && !strcmp(s + a - b, sfx);
}

void rg_list_free(struct rg_dir_run *runs, size_t n)
{
	for (size_t i = 0; runs && i < n; i++) {
		free(runs[i].path);
		free(runs[i].twin);
	}
	free(runs);
}

int rg_list_dir(const char *path, struct rg_dir_run **runs_out, size_t *n_out,
		char *err, size_t errlen)
{
	struct ctx c = { .name = path, .err = err, .errlen = errlen };
	char **names = NULL;
	struct rg_dir_run *runs = NULL;
	size_t n = 0, nruns = 0;
	struct dirent *de;
	int ret = 0;
	DIR *d = opendir(path);

	*runs_out = NULL;
	*n_out = 0;
	if (!d)
		return fail(&c, 0, "cannot open directory: %s", strerror(errno));
	while ((de = readdir(d))) {
		char **v;

		if (de->d_name[0] == '.' || strstr(de->d_name, ".tmp.") ||
		    !(has_suffix(de->d_name, ".csv") || has_suffix(de->d_name, ".json")))
			continue;
		v = realloc(names, (n + 1) * sizeof(*v));
		if (!v || !(v[n] = strdup(de->d_name))) {
			names = v ? v : names;
			ret = fail(&c, 0, "out of memory");
			break;
		}
		names = v;
		n++;
	}
	closedir(d);
	if (!ret && !n)
		ret = fail(&c, 0, "no .csv or .json result files in this directory");
	if (!ret) {
		qsort(names, n, sizeof(*names), cmp_str);
		runs = calloc(n, sizeof(*runs));
		if (!runs)
			ret = fail(&c, 0, "out of memory");
	}
	/* x.csv beside x.json: one run, read through the JSON (it has the samples too). */
	for (size_t i = 0; !ret && i < n; i++) {
		size_t stem = strlen(names[i]) - 4;
		const char *twin = NULL;
		bool shadowed = false;

		if (has_suffix(names[i], ".csv")) {
			for (size_t k = 0; k < n; k++)
				shadowed |= has_suffix(names[k], ".json") && strlen(names[k]) == stem + 5 &&
					    !strncmp(names[k], names[i], stem);
			if (shadowed)
				continue;
		} else {
			stem = strlen(names[i]) - 5;
			for (size_t k = 0; k < n; k++)
				if (has_suffix(names[k], ".csv") && strlen(names[k]) == stem + 4 &&
				    !strncmp(names[k], names[i], stem))
					twin = names[k];
		}
		if (asprintf(&runs[nruns].path, "%s/%s", path, names[i]) < 0 ||
		    (twin && asprintf(&runs[nruns].twin, "%s/%s", path, twin) < 0)) {
			ret = fail(&c, 0, "out of memory");
			nruns++;
			break;
		}
		nruns++;
	}
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
	if (ret) {
		rg_list_free(runs, nruns);
		return -1;
	}
	*runs_out = runs;
	*n_out = nruns;
	return 0;
}

/* The one run id of the rows from..n of a file ("" before schema 3); NULL when they differ. */
static const char *file_run_id(const struct rg_rows *rows, size_t from)
{
	const char *id = rows->v[from].v[RG_COL_run_id].s;

	for (size_t i = from + 1; i < rows->n; i++)
		if (strcmp(id, rows->v[i].v[RG_COL_run_id].s))
			return NULL;
	return id;
}

int rg_read_run(const struct rg_dir_run *run, struct rg_rows *out, char *err, size_t errlen)
{
	struct ctx c = { .name = run->twin, .err = err, .errlen = errlen };
	size_t from = out->n;
	char *csv_id, b1[40], b2[40];
	const char *id;
	int ret;

	if (!run->twin)
		return read_file(run->path, out, err, errlen);
	/* The CSV twin is validated, and must come from the same run as the JSON. */
	if (read_file(run->twin, out, err, errlen))
		return -1;
	id = file_run_id(out, from);
	if (!id)
		return fail(&c, out->v[from].line, "rows of more than one run (run_id differs)");
	csv_id = strdup(id);
	for (size_t r = from; r < out->n; r++)
		row_free(&out->v[r]);
	out->n = from;
	if (!csv_id)
		return fail(&c, 0, "out of memory");
	ret = read_file(run->path, out, err, errlen);
	if (!ret && strcmp(csv_id, (id = file_run_id(out, from)) ? id : "?")) {
		id = id ? id : "several";
		ret = fail(&c, 0, "not from the same run as %s (run_id '%s' and '%s': a run "
			   "stopped between writing the two, or two runs wrote these names); "
			   "remove or rename one", run->path,
			   *csv_id ? frag(csv_id, strlen(csv_id), b1, sizeof(b1)) : "none",
			   *id ? frag(id, strlen(id), b2, sizeof(b2)) : "none");
	}
	free(csv_id);
	return ret;
}

static int read_dir(const char *path, struct rg_rows *out, char *err, size_t errlen)
{
	struct rg_dir_run *runs;
	size_t n, from = out->n;
	int ret = 0;

	if (rg_list_dir(path, &runs, &n, err, errlen))
		return -1;
	for (size_t i = 0; i < n && !ret; i++)
		ret = rg_read_run(&runs[i], out, err, errlen);
	rg_list_free(runs, n);
	if (!ret)
		ret = rg_rows_check_unique(out, from, err, errlen);
	return ret;
}

int rg_read_path(const char *path, struct rg_rows *out, char *err, size_t errlen)
{
	struct stat st;

	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return read_dir(path, out, err, errlen);
	return read_file(path, out, err, errlen);
}
