// SPDX-License-Identifier: MIT
/* `rgbench report`'s plot links: the PNGs beside the report and in each file's <stem>-plots/ folder. */
#define _GNU_SOURCE
#include <dirent.h>
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
		char link[PATH_MAX + 512], url[3 * sizeof(link)];

		/* Markdown's sanitizer for the text, percent-encoding for the target. */
		snprintf(link, sizeof(link), "%s%s%s", rel, *rel ? "/" : "", names[i]);
		fprintf(c->f, "- [%s](%s)\n", rp_md(names[i]), rp_url(url, sizeof(url), link));
		free(names[i]);
	}
	return n;
}

void rp_sec_plots(struct ctx *c)
{
	size_t n = 0;

	rp_heading(c, "Plots");
	for (int d = 0; d < c->nplotdir; d++)
		n += list_pngs(c, c->plotdir[d], c->plotrel[d]);
	if (n)
		fputc('\n', c->f);
	else
		rp_left_out(c, "plots", "no PNG beside the report or in <file>-plots/ (`rgbench plot FILES --out DIR` draws them; scripts/run.sh does)");
}
