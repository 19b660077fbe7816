// SPDX-License-Identifier: MIT
/* `rgbench plot`'s private interface (pl_*): the stop flag and the staging directory the pictures are published from. */
#ifndef RG_PLOTS_PLOT_H
#define RG_PLOTS_PLOT_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "rg/results.h"

/*
 * plot in files, one concern each:
 *   plot.c          the command line: options, reading the files, labels, what cannot be drawn
 *   plot_draw.c     the one JSON document for rgplot.py, running it (stop signals passed on)
 *   plot_publish.c  the staging directory, publishing its pictures into DIR, undoing that
 */

/* What parse_args() read: the options and the two environment variables, once. */
struct plot_opts {
	const char *out;	/* --out DIR */
	char formats[16];	/* --format: "png,svg" by default, any of png, svg, pdf */
	const char *py;		/* $RG_PYTHON, else RG_PYTHON_DEFAULT */
	const char *script;	/* $RG_PLOT_SCRIPT, else NULL: looked for */
	int first;		/* the first FILE|DIR operand */
	int quiet;		/* -q: 1 (the 'wrote' lines stay on stderr); -qq, --silent: 2 (they go) */
};

/* One FILE or run of the command line, its label and its rows. */
struct source {
	const char *path;
	char *owned;		/* path, when it came from listing a directory */
	char label[96];
	struct rg_rows rows;
};

/*
 * Draw into stage: the rows, guards, heat map and decision as one JSON document, then rgplot.py
 * (plot_draw.c). 0, or -1 with err set.
 */
int pl_draw(const struct plot_opts *o, const char *script, const char *stage,
	    struct source *src, size_t nsrc, char *err, size_t errlen);

/* Set by the stop signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT): forwarded to the script. */
extern volatile sig_atomic_t pl_stop;

/*
 * Where the pictures are drawn: a directory created exclusively with a
 * random name (mkdtemp) beside DIR, so DIR is not touched until they are
 * all drawn; inside DIR when nothing can be made beside it (no write
 * permission there, DIR a mount point, DIR "/").
 */
struct stage {
	char out[PATH_MAX];	/* DIR without trailing slashes */
	char dir[PATH_MAX];	/* the staging directory */
	char tag[32];		/* ".rgplot-HASH-": this DIR's staging names (stale ones removed) */
	bool fresh;		/* DIR did not exist: the stage becomes DIR by one rename */
	bool made;
	int outfd;		/* an existing DIR, opened at the check: pictures go into it, never
				   through a link that replaced DIR since (-1: fresh) */
};

/* The staging directory for DIR (out). 0, or -1 with err set. */
int pl_make_stage(struct stage *sg, const char *out, char *err, size_t errlen);
/*
 * Publish the drawn pictures from the stage into DIR and name each on
 * wrote (stderr; NULL: silent). The number of pictures, or -1 (err set
 * unless stopped).
 */
int pl_publish(struct stage *sg, FILE *wrote, char *err, size_t errlen);
/* Remove the staging directory and everything in it (one level). */
void pl_remove_dir(const char *dir);

#endif /* RG_PLOTS_PLOT_H */
