// SPDX-License-Identifier: MIT
/* The one CSV splitter (rg/csv.h): records of unquoted fields, with the exact reason and line of a malformed one. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rg/csv.h"

void rg_csv_init(struct rg_csv *s, const char *buf, size_t len, unsigned int flags)
{
	memset(s, 0, sizeof(*s));
	s->p = buf;
	s->end = buf + len;
	s->line = 1;
	s->flags = flags;
}

static void csv_clear(struct rg_csv *s)
{
	for (size_t i = 0; i < s->nf; i++)
		free(s->f[i]);
	s->nf = 0;
}

void rg_csv_free(struct rg_csv *s)
{
	csv_clear(s);
	free(s->f);
	free(s->tmp);
	s->f = NULL;
	s->tmp = NULL;
	s->capf = s->tmpcap = 0;
}

static int csv_fail(struct rg_csv *s, int line, const char *why)
{
	s->err = why;
	s->err_line = line;
	return -1;
}

/* Append the len bytes of the unescape buffer as the record's next field. */
static int csv_push(struct rg_csv *s, size_t len)
{
	char *v;

	if (s->nf == s->capf) {
		size_t cap = s->capf ? s->capf * 2 : 64;
		char **f = realloc(s->f, cap * sizeof(*f));

		if (!f)
			return csv_fail(s, s->line, "out of memory");
		s->f = f;
		s->capf = cap;
	}
	v = strndup(s->tmp ? s->tmp : "", len);
	if (!v)
		return csv_fail(s, s->line, "out of memory");
	s->f[s->nf++] = v;
	return 0;
}

static int tmp_put(struct rg_csv *s, size_t *o, char ch)
{
	if (*o + 1 >= s->tmpcap) {
		size_t cap = s->tmpcap ? s->tmpcap * 2 : 256;
		char *t = realloc(s->tmp, cap);

		if (!t)
			return csv_fail(s, s->line, "out of memory");
		s->tmp = t;
		s->tmpcap = cap;
	}
	s->tmp[(*o)++] = ch;
	return 0;
}

/* A quoted field, from its opening quote: unescaped into s->tmp, *o bytes. */
static int quoted_field(struct rg_csv *s, size_t *o)
{
	int qline = s->line;

	s->p++;
	for (;;) {
		if (s->p == s->end)
			return csv_fail(s, qline, "quoted field never closed (truncated file?)");
		if (*s->p == '"') {
			if (s->p + 1 < s->end && s->p[1] == '"') {
				if (tmp_put(s, o, '"'))
					return -1;
				s->p += 2;
				continue;
			}
			s->p++;
			break;
		}
		if (*s->p == '\n')
			s->line++;
		if (tmp_put(s, o, *s->p++))
			return -1;
	}
	if (s->p < s->end && *s->p != ',' && *s->p != '\n' && *s->p != '\r')
		return csv_fail(s, s->line, "character after a closing quote");
	return 0;
}

static int plain_field(struct rg_csv *s, size_t *o)
{
	while (s->p < s->end && *s->p != ',' && *s->p != '\n' && *s->p != '\r') {
		if (*s->p == '"')
			return csv_fail(s, s->line, "quote inside an unquoted field");
		if (tmp_put(s, o, *s->p++))
			return -1;
	}
	return 0;
}

int rg_csv_next(struct rg_csv *s, int *start)
{
	csv_clear(s);
	if (start)
		*start = s->line;
	if (s->p == s->end)
		return 0;
	for (;;) {
		size_t o = 0;

		if (s->p < s->end && *s->p == '"' ? quoted_field(s, &o) : plain_field(s, &o))
			return -1;
		if (csv_push(s, o))
			return -1;
		if (s->p == s->end) {
			if (s->flags & RG_CSV_NEED_EOL)
				return csv_fail(s, s->line, "last line has no line end (truncated file?)");
			return 1;
		}
		if (*s->p == ',') {
			s->p++;
			continue;
		}
		if (*s->p == '\r') {
			if (s->p + 1 == s->end || s->p[1] != '\n')
				return csv_fail(s, s->line, "carriage return not followed by a line feed");
			s->p++;
		}
		s->p++;		/* '\n' */
		s->line++;
		return 1;
	}
}

bool rg_csv_u64(const char *field, unsigned long long *v)
{
	char *end;

	if (!(*field >= '0' && *field <= '9'))
		return false;
	errno = 0;
	*v = strtoull(field, &end, 10);
	return !errno && !*end;
}
