// SPDX-License-Identifier: MIT
/* The command-line kit's lists: integers with ranges, CPU lists, names against a table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/cmdline.h"
#include "cmdline_int.h"

/* No empty list and no empty element: "", ",1", "1,", "1,,2". */
static int cl_check_list(const char *flag, const char *s)
{
	if (!*s)
		return rg_cl_bad_value(flag, s, "malformed list: nothing listed");
	if (s[0] == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,"))
		return rg_cl_bad_value(flag, s, "malformed list: an empty element");
	return 0;
}

/* One end of an element, text, as an integer in [lo, hi]. */
static int cl_bound(const char *flag, const char *s, const char *text, long lo, long hi,
		    long *v)
{
	int rc = rg_cl_scan_long(text, v);

	if (rc || *v < lo || *v > hi)
		return rg_cl_bad_value(flag, s, "expected an integer in [%ld, %ld], not '%s'", lo,
				       hi, text);
	return 0;
}

/* One element, "a" or (with ranges) "a-b", into [*a, *b]; text is modified. */
static int cl_span(const char *flag, const char *s, char *text, long lo, long hi,
		   unsigned int flags, long *a, long *b)
{
	char *dash = (flags & RG_CL_LIST_RANGES) && text[0] ? strchr(text + 1, '-') : NULL;

	if (!dash) {
		if (cl_bound(flag, s, text, lo, hi, a))
			return -1;
		*b = *a;
		return 0;
	}
	*dash = '\0';
	if (!dash[1])
		return rg_cl_bad_value(flag, s, "range '%s-' has no end", text);
	if (cl_bound(flag, s, text, lo, hi, a) || cl_bound(flag, s, dash + 1, lo, hi, b))
		return -1;
	if (*b < *a)
		return rg_cl_bad_value(flag, s, "range %ld-%ld is backwards", *a, *b);
	return 0;
}

/* Append v unless it is a duplicate that flags forbid or out is full. */
static int cl_add(const char *flag, const char *s, int *out, int *n, int max, long v,
		  unsigned int flags)
{
	if (!(flags & RG_CL_LIST_DUPS))
		for (int i = 0; i < *n; i++)
			if (out[i] == v)
				return rg_cl_bad_value(flag, s, "%ld is listed twice", v);
	if (*n >= max)
		return rg_cl_bad_value(flag, s, "more than %d entries", max);
	out[(*n)++] = (int)v;
	return 0;
}

#define CL_ELEMENT_MAX 64	/* the longest list element, its NUL included */

/*
 * The comma-separated element of s at *p into text; *p moves to the next
 * one, or to NULL after the last. 0, or -1 after the kit's message.
 */
static int cl_element(const char *flag, const char *s, const char **p, char *text)
{
	size_t len = strcspn(*p, ",");

	if (len >= CL_ELEMENT_MAX)
		return rg_cl_bad_value(flag, s, "element '%.20s...' is too long", *p);
	memcpy(text, *p, len);
	text[len] = '\0';
	*p = (*p)[len] ? *p + len + 1 : NULL;
	return 0;
}

int rg_cl_int_list(const char *flag, const char *s, int *out, int max, long lo, long hi,
		   unsigned int flags)
{
	const char *p = s;
	int n = 0;

	if (cl_check_list(flag, s))
		return -1;
	while (p) {
		char text[CL_ELEMENT_MAX];
		long a, b;

		if (cl_element(flag, s, &p, text) ||
		    cl_span(flag, s, text, lo, hi, flags, &a, &b))
			return -1;
		for (long v = a; v <= b; v++)
			if (cl_add(flag, s, out, &n, max, v, flags))
				return -1;
	}
	return n;
}

/* One duty element, "IN+OUT" or "T" (in = T / 2); text is modified. */
static int cl_duty(const char *flag, const char *s, char *text, long hi, long *t, long *in)
{
	char *plus = strchr(text, '+');
	long out;

	if (!plus) {
		if (cl_bound(flag, s, text, 0, hi, t))
			return -1;
		*in = *t / 2;
		return 0;
	}
	*plus = '\0';
	if (!text[0] || !plus[1] || strchr(plus + 1, '+'))
		return rg_cl_bad_value(flag, s, "expected NS or IN+OUT ns, e.g. 50 or 20+30, not '%s+%s'",
				       text, plus + 1);
	if (cl_bound(flag, s, text, 0, hi, in) || cl_bound(flag, s, plus + 1, 0, hi, &out))
		return -1;
	*t = *in + out;
	if (*t > hi)
		return rg_cl_bad_value(flag, s, "%ld+%ld is more than %ld ns in all", *in, out, hi);
	return 0;
}

/* rg_cl_duty_list() into tt[] and ti[] (max each), copied out on success only. */
static int cl_duty_list(const char *flag, const char *s, int *total, int *in, int max, long hi,
			int *tt, int *ti)
{
	const char *p = s;
	int n = 0;

	while (p) {
		char text[CL_ELEMENT_MAX];
		long t, i;

		if (cl_element(flag, s, &p, text) || cl_duty(flag, s, text, hi, &t, &i))
			return -1;
		for (int k = 0; k < n; k++)
			if (tt[k] == t)
				return rg_cl_bad_value(flag, s, "%ld ns in all is listed twice", t);
		if (n >= max)
			return rg_cl_bad_value(flag, s, "more than %d entries", max);
		tt[n] = (int)t;
		ti[n++] = (int)i;
	}
	memcpy(total, tt, (size_t)n * sizeof(int));
	memcpy(in, ti, (size_t)n * sizeof(int));
	return n;
}

int rg_cl_duty_list(const char *flag, const char *s, int *total, int *in, int max, long hi)
{
	/* On the heap, not a VLA (the build refuses them): max is the caller's. */
	int *buf = calloc((size_t)(max > 0 ? max : 1) * 2, sizeof(int)), n;

	if (!buf)
		return rg_cl_bad_value(flag, s, "out of memory");
	if (cl_check_list(flag, s))
		n = -1;
	else
		n = cl_duty_list(flag, s, total, in, max, hi, buf, buf + (max > 0 ? max : 1));
	free(buf);
	return n;
}

int rg_cl_cpu_list(const char *flag, const char *s, int *out, int max)
{
	return rg_cl_int_list(flag, s, out, max, 0, RG_MAX_CPUS - 1, RG_CL_LIST_RANGES);
}

static int cl_find(const char *const *names, int count, const char *p, size_t len)
{
	for (int i = 0; i < count; i++)
		if (strlen(names[i]) == len && !strncmp(names[i], p, len))
			return i;
	return -1;
}

static int cl_unknown_name(const char *flag, const char *s, const char *p, size_t len,
			   const char *const *names, int count)
{
	char valid[768] = "all";
	size_t used = strlen(valid);

	for (int i = 0; i < count && used < sizeof(valid); i++)
		used += (size_t)snprintf(valid + used, sizeof(valid) - used, ", %s", names[i]);
	return rg_cl_bad_value(flag, s, "unknown name '%.*s'; valid: %s", (int)len, p, valid);
}

int rg_cl_names(const char *flag, const char *s, const char *const *names, int count,
		bool *sel)
{
	const char *p = s;
	int nsel = 0;

	if (cl_check_list(flag, s))
		return -1;
	memset(sel, 0, (size_t)count * sizeof(*sel));
	for (;;) {
		size_t len = strcspn(p, ",");
		int i = cl_find(names, count, p, len);

		if (len == 3 && !strncmp(p, "all", 3))
			for (int j = 0; j < count; j++)
				sel[j] = true;
		else if (i < 0)
			return cl_unknown_name(flag, s, p, len, names, count);
		else
			sel[i] = true;
		if (!p[len])
			break;
		p += len + 1;
	}
	for (int j = 0; j < count; j++)
		nsel += sel[j];
	return nsel;
}
