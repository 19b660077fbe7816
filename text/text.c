// SPDX-License-Identifier: MIT
/* One sanitizer per medium for untrusted names: the terminal (one printable line), CSV, Markdown. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rg/text.h"

void rg_csv_put_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* The length of the valid UTF-8 sequence at p (2 to 4 bytes), or 0. */
static size_t utf8_seq(const unsigned char *p)
{
	size_t need;
	unsigned int cp;

	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		need = 1;
		cp = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		need = 2;
		cp = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		need = 3;
		cp = p[0] & 0x07;
	} else {
		return 0;
	}
	for (size_t k = 1; k <= need; k++) {
		if ((p[k] & 0xc0) != 0x80)	/* also stops at the terminating NUL */
			return 0;
		cp = (cp << 6) | (p[k] & 0x3f);
	}
	if ((need == 2 && cp < 0x800) || (need == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return need + 1;
}

size_t rg_utf8_repair(char *s)
{
	size_t bad = 0;

	for (unsigned char *p = (unsigned char *)s; *p;) {
		size_t n = *p >= 0x80 ? utf8_seq(p) : 1;

		if (!n) {
			*p = '?';
			n = 1;
			bad++;
		}
		p += n;
	}
	return bad;
}

/*
 * A format character that reorders or breaks the text it sits in: the bidi
 * embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069), the
 * marks U+200E, U+200F and U+061C, and the line and paragraph separators
 * U+2028, U+2029. A name holding one would reverse a table's cells or break
 * the one-line promise; p is a valid sequence of n bytes.
 */
static bool is_format_char(const unsigned char *p, size_t n)
{
	if (n == 2)
		return p[0] == 0xd8 && p[1] == 0x9c;
	if (n != 3 || p[0] != 0xe2)
		return false;
	return (p[1] == 0x80 && ((p[2] >= 0xa8 && p[2] <= 0xae) || p[2] == 0x8e || p[2] == 0x8f)) ||
	       (p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9);
}

bool rg_str_is_printable(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = *p >= 0x80 ? utf8_seq(p) : 1;

		if (*p < 0x20 || *p == 0x7f || !n || (n == 2 && p[0] == 0xc2 && p[1] <= 0x9f) ||
		    is_format_char(p, n))
			return false;
		p += n;
	}
	return true;
}

size_t rg_str_printable(char *dst, size_t size, const char *src)
{
	const unsigned char *p = (const unsigned char *)src;
	size_t o = 0;

	while (*p && o + 1 < size) {
		size_t n = *p >= 0x80 ? utf8_seq(p) : 1;

		if (*p == '\t' || *p == '\r' || *p == '\n') {
			dst[o++] = ' ';
		} else if (*p < 0x20 || *p == 0x7f || !n || (n == 2 && p[0] == 0xc2 && p[1] <= 0x9f) ||
			   is_format_char(p, n)) {
			dst[o++] = '?';		/* a control, a bidi/line format character or a byte outside valid UTF-8 */
			n = n ? n : 1;
		} else if (o + n < size) {
			memcpy(dst + o, p, n);
			o += n;
		} else {
			break;			/* never half a character */
		}
		p += n;
	}
	dst[o] = '\0';
	return o;
}

size_t rg_md_text(char *dst, size_t size, const char *src)
{
	char clean[4096];
	size_t o = 0;

	rg_str_printable(clean, sizeof(clean), src);
	for (const char *p = clean; *p && o + 1 < size; p++) {
		bool esc = strchr("\\`*_[]<>&|~$#!", *p) || (*p == ':' && !strncmp(p + 1, "//", 2));

		/* '_' between two letters or digits (x86_64) is never emphasis: left as it is */
		if (*p == '_' && p > clean && isalnum((unsigned char)p[-1]) && isalnum((unsigned char)p[1]))
			esc = false;
		size_t n = 1;

		while (((unsigned char)p[n] & 0xc0) == 0x80)	/* the rest of a UTF-8 character */
			n++;
		if (o + n + esc >= size)
			break;
		if (esc)
			dst[o++] = '\\';
		memcpy(dst + o, p, n);
		o += n;
		p += n - 1;
	}
	dst[o] = '\0';
	return o;
}

bool rg_md_word_starts_block(const char *w, size_t len)
{
	size_t d = 0;

	if (!len)
		return false;
	if (strspn(w, "-") >= len || strspn(w, "=") >= len || (len == 1 && *w == '+'))
		return true;
	while (d < len && d < 9 && w[d] >= '0' && w[d] <= '9')
		d++;
	return d && d + 1 == len && (w[d] == '.' || w[d] == ')');
}
