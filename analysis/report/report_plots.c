// SPDX-License-Identifier: MIT
/* `rgbench report`'s plot links: the PNGs beside the report and in each file's <stem>-plots/ folder. */
#define _GNU_SOURCE
#include <dirent.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/schema.h"
#include "report.h"

static bool has_sfx(const char *s, const char *sfx)
{
	size_t a = strlen(s), b = strlen(sfx);

	return a > b && !strcmp(s + a - b, sfx);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A link target in Markdown: bytes outside [A-Za-z0-9._/~-] percent-encoded (a name may hold any byte). */
static void put_url(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("._/~-", *p))
			fputc(*p, f);
		else
			fprintf(f, "%%%02X", *p);
	}
}

/*
 * dir relative to the page's folder base (both existing folders): "" when
 * the same, else "../../x/y-plots". 0, or -1 when either cannot be resolved.
 */
static int rel_to(const char *base, const char *dir, char *out, size_t size)
{
	char a[PATH_MAX], b[PATH_MAX];
	const char *up, *rest;
	size_t i, common = 0, o = 0;

	if (!realpath(base, a) || !realpath(dir, b))
		return -1;
	if (!strcmp(a, "/")) {
		snprintf(out, size, "%s", b + 1);
		return 0;
	}
	/* The longest run of whole leading components the two share. */
	for (i = 0; a[i] && a[i] == b[i]; i++)
		if (a[i] == '/')
			common = i;
	if ((!a[i] && (!b[i] || b[i] == '/')) || (!b[i] && a[i] == '/'))
		common = i;
	up = a + common;	/* "" or "/x/y": one "../" per component */
	rest = b + common;	/* "" or "/p/q" */
	out[0] = 0;
	for (const char *p = up; *p; p++)
		if (*p == '/' && o + 4 < size) {
			memcpy(out + o, "../", 4);
			o += 3;
		}
	snprintf(out + o, size - o, "%s", *rest == '/' ? rest + 1 : rest);
	o = strlen(out);
	if (o && out[o - 1] == '/')
		out[o - 1] = 0;
	return 0;
}

/* PNGs in dir, linked as rel/name. */
static size_t list_pngs(struct ctx *c, const char *dir, const char *rel)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char *names[128];
	size_t n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < 128)
		if (has_sfx(de->d_name, ".png") && de->d_name[0] != '.')
			names[n++] = strdup(de->d_name);
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (!names[i])
			continue;
		char shown[512], link[PATH_MAX + 512];

		/* The one sanitizer for the text, percent-encoding for the target. */
		rg_str_printable(shown, sizeof(shown), names[i]);
		for (char *p = shown; *p; p++)
			if (strchr("[]`", *p))
				*p = '?';
		snprintf(link, sizeof(link), "%s%s%s", rel, *rel ? "/" : "", names[i]);
		fprintf(c->f, "- [%s](", shown);
		put_url(c->f, link);
		fputs(")\n", c->f);
		free(names[i]);
	}
	return n;
}

void rp_sec_plots(struct ctx *c, const char *out, const struct input *in, size_t nin)
{
	char odir[4096], tmp[4096];
	size_t n = 0;

	rp_heading(c, "Plots");
	snprintf(tmp, sizeof(tmp), "%s", out ? out : in[0].path);
	snprintf(odir, sizeof(odir), "%s", dirname(tmp));
	n += list_pngs(c, odir, "");
	for (size_t i = 0; i < nin; i++) {
		char stem[4096], dir[8300], *b, *dot;

		snprintf(tmp, sizeof(tmp), "%s", in[i].path);
		b = basename(tmp);
		snprintf(stem, sizeof(stem), "%s", b);
		dot = strrchr(stem, '.');
		if (dot && (!strcmp(dot, ".json") || !strcmp(dot, ".csv")))
			*dot = 0;
		snprintf(tmp, sizeof(tmp), "%s", in[i].path);
		snprintf(dir, sizeof(dir), "%s/%s-plots", dirname(tmp), stem);
		if (strcmp(dir, odir)) {
			char rel[PATH_MAX];

			/* Relative to the page's folder (--out's), not to the input's. */
			if (!rel_to(odir, dir, rel, sizeof(rel)) && *rel)
				n += list_pngs(c, dir, rel);
		}
	}
	if (n)
		fputc('\n', c->f);
	else
		rp_left_out(c, "plots", "no PNG beside the report or in <file>-plots/ (`rgbench plot FILES --out DIR` draws them; scripts/run.sh does)");
}
