// SPDX-License-Identifier: MIT
/* The page's links to `rgbench plot`'s pictures: where they are, and each under the section it illustrates with its caption. */
#define _GNU_SOURCE
#include <libgen.h>
#include <stdio.h>
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

void rp_plots_find(struct ctx *c, const char *out, const char *const *paths, size_t n)
{
	char tmp[4096];

	c->nplotdir = 0;
	snprintf(tmp, sizeof(tmp), "%s", out ? out : n ? paths[0] : ".");
	snprintf(c->plotdir[0], sizeof(c->plotdir[0]), "%s", dirname(tmp));
	c->plotrel[0][0] = '\0';
	c->nplotdir = 1;
	for (size_t i = 0; i < n && c->nplotdir < RP_MAX_PLOTDIRS; i++) {
		bool seen = false;
		char stem[4096], dir[8300], *b, *dot;

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
		if (seen || strlen(dir) >= sizeof(c->plotdir[0]))
			continue;
		snprintf(c->plotdir[c->nplotdir], sizeof(c->plotdir[0]), "%s", dir);
		snprintf(c->plotrel[c->nplotdir], sizeof(c->plotrel[0]), "%.4000s-plots", stem);
		c->nplotdir++;
	}
}

void rp_plot_link(struct ctx *c, const char *kind)
{
	for (size_t k = 0; k < sizeof(captions) / sizeof(captions[0]); k++) {
		if (strcmp(captions[k].kind, kind) || (c->plots_shown & (1u << k)))
			continue;
		for (int d = 0; d < c->nplotdir; d++) {
			char path[8400];
			struct stat st;

			snprintf(path, sizeof(path), "%s/%s.png", c->plotdir[d], kind);
			if (stat(path, &st) || !S_ISREG(st.st_mode))
				continue;
			rp_para(c, "Plot: [%s.png](%s%s%s.png): %s.", kind, c->plotrel[d],
				*c->plotrel[d] ? "/" : "", kind, captions[k].caption);
			c->plots_shown |= 1u << k;
			return;
		}
	}
}
