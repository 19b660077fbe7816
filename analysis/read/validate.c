// SPDX-License-Identifier: MIT
/* The reader's checks: the column table and its schema versions, one-line error messages, each value's rules, text that is UTF-8 and not binary. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "reader.h"

const struct rd_col rd_cols[RG_NCOLS] = {
#define X(name, kind, since, doc) { #name, K_##kind, since },
	RG_RESULT_COLUMNS(X)
#undef X
};

/*
 * The schema version that added a column (its `since` in RG_RESULT_COLUMNS):
 * files of an older version lack it (read as empty), files of this version or
 * newer must have it.
 */
long long rd_col_since(int col)
{
	return rd_cols[col].since;
}

__attribute__((format(printf, 3, 4)))
int rd_fail(struct rd_ctx *c, int line, const char *fmt, ...)
{
	char msg[512], full[PATH_MAX + 600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* One line whatever the input or its name held: the one sanitizer, file name included. */
	if (!*c->name)	/* an empty name: the message alone ("an empty file name") */
		snprintf(full, sizeof(full), "%s", msg);
	else if (line > 0)
		snprintf(full, sizeof(full), "%s:%d: %s", c->name, line, msg);
	else
		snprintf(full, sizeof(full), "%s: %s", c->name, msg);
	rg_str_printable(c->err, c->errlen, full);
	return -1;
}

/* Quote an input fragment for a message: at most 24 bytes, printable only. */
const char *rd_frag(const char *s, size_t len, char *buf, size_t size)
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

/* ---- values --------------------------------------------------------------- */

/*
 * C0 controls (tab, CR and LF included), DEL, the C1 controls U+0080-U+009F
 * and the bidi and line format characters: they would break or reorder every
 * table and message the reports print, so a string value may hold none of
 * them. The writer's own rule (rg_str_printable()), so rgbench reads back
 * whatever it wrote.
 */
static bool has_c0_c1(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
			return true;
	return false;
}

bool rd_has_control(const char *s)
{
	return !rg_str_is_printable(s);
}

/* Column-specific rules shared by both formats; text is what the file said. */
int rd_check_value(struct rd_ctx *c, int line, int col, const union rg_val *v, const char *text)
{
	char b[40];

	switch (rd_cols[col].kind) {
	case K_I:
		if (col == RG_COL_schema_version && (v->i < 1 || v->i > RG_SCHEMA_VERSION))
			return rd_fail(c, line, "schema version %lld is not supported (this rgbench reads versions 1 to %d)",
				    v->i, RG_SCHEMA_VERSION);
		if (v->i < 0)
			return rd_fail(c, line, "column '%s': negative value %lld", rd_cols[col].name, v->i);
		if (col == RG_COL_ab_boot && v->i < 1)
			return rd_fail(c, line, "column 'ab_boot': must be at least 1 (or missing), not %lld", v->i);
		if (col == RG_COL_threads && v->i < 1)
			return rd_fail(c, line, "column 'threads': must be at least 1, not %lld", v->i);
		break;
	case K_B:
		if (v->i != 0 && v->i != 1)
			return rd_fail(c, line, "column '%s': '%s' is not 0 or 1", rd_cols[col].name,
				    rd_frag(text, strlen(text), b, sizeof(b)));
		break;
	case K_D:
		if (isnan(v->d))
			break;	/* n/a: not measured */
		if (!isfinite(v->d))
			return rd_fail(c, line, "column '%s': '%s' is not a finite number", rd_cols[col].name,
				    rd_frag(text, strlen(text), b, sizeof(b)));
		if (v->d < 0 && col != RG_COL_delta_ns && col != RG_COL_delta_ci_lo &&
		    col != RG_COL_delta_ci_hi)	/* a difference may be negative */
			return rd_fail(c, line, "column '%s': negative value %s", rd_cols[col].name,
				    rd_frag(text, strlen(text), b, sizeof(b)));
		break;
	case K_S:
		if (col == RG_COL_suite && strcmp(v->s, "user") && strcmp(v->s, "bpf") && strcmp(v->s, "kbench") &&
		    strcmp(v->s, "kmod"))
			return rd_fail(c, line, "column 'suite': '%s' is not user, bpf, kmod or kbench",
				    rd_frag(v->s, strlen(v->s), b, sizeof(b)));
		if (col == RG_COL_status && strcmp(v->s, "ok") && strcmp(v->s, "skipped") &&
		    strcmp(v->s, "error") && strcmp(v->s, "noisy"))
			return rd_fail(c, line, "column 'status': '%s' is not ok, noisy, skipped or error",
				    rd_frag(v->s, strlen(v->s), b, sizeof(b)));
		if ((col == RG_COL_guard || col == RG_COL_scenario) && !*v->s)
			return rd_fail(c, line, "column '%s' is empty", rd_cols[col].name);
		if (rd_has_control(v->s))
			return rd_fail(c, line, "column '%s': '%s' holds a %s character "
				    "(names and texts are one printable line)", rd_cols[col].name,
				    rd_frag(v->s, strlen(v->s), b, sizeof(b)),
				    has_c0_c1(v->s) ? "control" : "bidi or line format");
		break;
	case K_U:
		break;
	}
	return 0;
}

/* ---- content checks ------------------------------------------------------- */

/* Control bytes (other than tab, CR, LF) or invalid UTF-8: not a text file. */
int rd_check_text(struct rd_ctx *c, const char *buf, size_t len)
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
			return rd_fail(c, line, "binary data (byte 0x%02x at offset %zu), not a result file", ch, i);
		if (ch == 0x7f)
			return rd_fail(c, line, "binary data (byte 0x7f at offset %zu), not a result file", i);
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
			return rd_fail(c, line, "binary data (invalid UTF-8 byte 0x%02x at offset %zu)", ch, i);
		}
		if (i + need >= len)
			return rd_fail(c, line, "binary data (truncated UTF-8 sequence at offset %zu)", i);
		for (size_t k = 1; k <= need; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				return rd_fail(c, line, "binary data (invalid UTF-8 at offset %zu)", i);
			cp = (cp << 6) | (p[i + k] & 0x3f);
		}
		if ((need == 2 && cp < 0x800) || (need == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return rd_fail(c, line, "binary data (invalid UTF-8 at offset %zu)", i);
		i += need;
	}
	return 0;
}
