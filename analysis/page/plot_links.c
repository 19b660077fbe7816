// SPDX-License-Identifier: MIT
/* The page's links to `rgbench plot`'s pictures: where they are, and each under the section it illustrates with its caption. */
#define _GNU_SOURCE
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rg/page.h"

/* Each picture rgbench plot draws, and what to look at in it. */
static const struct {
	const char *kind, *caption;
} captions[] = {
	{ "fleet", "each role's cost against the host's own design; green is cheaper, red dearer, `now` the design it runs" },
	{ "decision", "each candidate design against the host's current one with its interval; left of the zero line is cheaper, an interval across it decides nothing" },
	{ "pair-ns", "ns per pair per guard, back to back; the dashed and dotted lines are the noop and tls floors" },
	{ "duty", "ns per pair as work is added between pairs; where the lines meet, the guard no longer matters" },
	{ "threads", "million pairs/s against threads; a guard that scales climbs in proportion, a shared one falls flat" },
	{ "latency-cdf", "per guard the distribution of batch times and its tail; further right is slower, a higher tail is interrupted more often" },
	{ "ladder", "each design built up one part at a time, host by host; a hatched step's interval holds 0, the grey bar is the sum of the steps beside the whole design" },
	{ "tramp", "per attach path, the module's trampoline path under each design beside the real attach measured on the same host (hatched)" },
	{ "bpf", "events/s per attach type and trigger mode, one bar per file" },
	{ "kmod-ns", "in-kernel ns per pair per guard (kthread loop); the dashed line is noop" },
};

/* A link target in Markdown into out: bytes outside [A-Za-z0-9._/~-] percent-encoded (a name may hold any byte); cut at a whole byte's code when out is full. */
const char *rp_url(char *out, size_t size, const char *s)
{
	size_t o = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p && o + 4 <= size; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("._/~-", *p))
			out[o++] = (char)*p;
		else
			o += (size_t)snprintf(out + o, size - o, "%%%02X", *p);
	}
	if (size)
		out[o < size ? o : size - 1] = '\0';
	return out;
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

/* One more picture folder and its link (both copied). false when out of memory (the folder is not linked). */
static bool add_plotdir(struct ctx *c, const char *dir, const char *rel)
{
	char *d = strdup(dir), *r = strdup(rel);

	if (!d || !r) {
		free(d);
		free(r);
		return false;
	}
	c->plotdir[c->nplotdir] = d;
	c->plotrel[c->nplotdir++] = r;
	return true;
}

void rp_plots_find(struct ctx *c, const char *out, const char *const *paths, size_t n)
{
	char tmp[4096];

	c->nplotdir = 0;
	c->plotdir = calloc(n + 1, sizeof(*c->plotdir));
	c->plotrel = calloc(n + 1, sizeof(*c->plotrel));
	if (!c->plotdir || !c->plotrel)
		return;		/* no memory: the page links no pictures */
	snprintf(tmp, sizeof(tmp), "%s", out ? out : n ? paths[0] : ".");
	if (!add_plotdir(c, dirname(tmp), ""))
		return;
	for (size_t i = 0; i < n; i++) {
		bool seen = false;
		char stem[4096], dir[8300], rel[PATH_MAX], *b, *dot;

		snprintf(tmp, sizeof(tmp), "%s", paths[i]);
		b = basename(tmp);
		snprintf(stem, sizeof(stem), "%s", b);
		dot = strrchr(stem, '.');
		if (dot && (!strcmp(dot, ".json") || !strcmp(dot, ".csv")))
			*dot = 0;
		snprintf(tmp, sizeof(tmp), "%s", paths[i]);
		snprintf(dir, sizeof(dir), "%s/%s-plots", dirname(tmp), stem);
		for (int d = 0; d < c->nplotdir; d++)
			seen |= !strcmp(dir, c->plotdir[d]);
		if (seen || strlen(dir) >= sizeof(tmp))
			continue;
		/* Linked relative to the page's folder (--out's), not to the input's. */
		if (rel_to(c->plotdir[0], dir, rel, sizeof(rel)) || !*rel)
			continue;
		add_plotdir(c, dir, rel);
	}
}

void rp_plot_link(struct ctx *c, const char *kind)
{
	for (size_t k = 0; k < sizeof(captions) / sizeof(captions[0]); k++) {
		if (strcmp(captions[k].kind, kind) || (c->plots_shown & (1u << k)))
			continue;
		for (int d = 0; d < c->nplotdir; d++) {
			char path[8400], url[3 * sizeof(path)];
			struct stat st;

			snprintf(path, sizeof(path), "%s/%s.png", c->plotdir[d], kind);
			if (stat(path, &st) || !S_ISREG(st.st_mode))
				continue;
			snprintf(path, sizeof(path), "%s%s%s.png", c->plotrel[d], *c->plotrel[d] ? "/" : "",
				 kind);
			rp_para(c, "Plot: [%s.png](%s): %s.", kind, rp_url(url, sizeof(url), path),
				captions[k].caption);
			c->plots_shown |= 1u << k;
			return;
		}
	}
}
