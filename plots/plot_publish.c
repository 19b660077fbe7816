// SPDX-License-Identifier: MIT
/* `rgbench plot`'s staging directory: made beside DIR, its pictures published into DIR all or none, then removed. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plot.h"
#include "rg/text.h"

/* Remove the staging directory and everything in it (one level). */
void pl_remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char p[4096];

	if (d) {
		while ((de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
			unlink(p);
		}
		closedir(d);
	}
	rmdir(dir);
}

static bool has_suffix(const char *s, const char *sfx)
{
	size_t a = strlen(s), b = strlen(sfx);

	return a > b && !strcmp(s + a - b, sfx);
}

/* The directory part of path ("." when it has none) into buf. */
static void parent_of(const char *path, char *buf, size_t size)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", path);
	snprintf(buf, size, "%s", dirname(tmp));	/* dirname() may return a static "." */
}

/*
 * The staging names of DIR: ".rgplot-TAG-XXXXXX", TAG a hash of DIR's
 * absolute path. rgbench plot holds DIR's lock (rg_output_check_dir()), so a
 * folder of that name left beside or in DIR is a killed plot's (SIGKILL, a
 * crash): removed before drawing.
 */
static void stage_tag(struct stage *sg)
{
	char parent[PATH_MAX], real[PATH_MAX], abs[2 * PATH_MAX];
	const char *base = strrchr(sg->out, '/');
	unsigned long long h = 0xcbf29ce484222325ull;

	parent_of(sg->out, parent, sizeof(parent));
	snprintf(abs, sizeof(abs), "%s/%s", realpath(parent, real) ? real : parent,
		 base ? base + 1 : sg->out);
	for (const char *p = abs; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	snprintf(sg->tag, sizeof(sg->tag), ".rgplot-%016llx-", h);
}

static void remove_stale(const char *dir, const char *tag)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char p[PATH_MAX + 300];

	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, tag, strlen(tag)) &&
		    snprintf(p, sizeof(p), "%s/%s", dir, de->d_name) < (int)sizeof(p))
			pl_remove_dir(p);
	if (d)
		closedir(d);
}

/* dir/TAGXXXXXX into sg->dir, made with mkdtemp(). 0, or -1 (errno set). */
static int make_in(struct stage *sg, const char *dir)
{
	if (snprintf(sg->dir, sizeof(sg->dir), "%s/%sXXXXXX", dir, sg->tag) >= (int)sizeof(sg->dir)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return mkdtemp(sg->dir) ? 0 : -1;
}

/* The staging directory for DIR (out). 0, or -1 with err set. */
int pl_make_stage(struct stage *sg, const char *out, char *err, size_t errlen)
{
	char real[PATH_MAX], parent[PATH_MAX];
	struct stat st, pst;
	size_t l;

	sg->outfd = -1;
	if (snprintf(sg->out, sizeof(sg->out), "%s", out) >= (int)sizeof(sg->out)) {
		snprintf(err, errlen, "%s: %s", out, strerror(ENAMETOOLONG));
		return -1;
	}
	for (l = strlen(sg->out); l > 1 && sg->out[l - 1] == '/'; l--)
		sg->out[l - 1] = 0;
	stage_tag(sg);
	parent_of(sg->out, parent, sizeof(parent));
	remove_stale(parent, sg->tag);
	remove_stale(sg->out, sg->tag);
	if (stat(sg->out, &st)) {
		if (errno != ENOENT) {
			snprintf(err, errlen, "%s: %s", out, strerror(errno));
			return -1;
		}
		sg->fresh = true;
		if (make_in(sg, parent)) {
			snprintf(err, errlen, "cannot create %s: %s", out, strerror(errno));
			return -1;
		}
		sg->made = true;
		return 0;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s exists and is not a directory", out);
		return -1;
	}
	/* The folder checked is the folder written (the output policy): held from here on. */
	sg->outfd = open(sg->out, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sg->outfd < 0) {
		snprintf(err, errlen, "%s: %s", out, strerror(errno));
		return -1;
	}
	/* Beside DIR's real path ("--out ." has a parent too), on DIR's filesystem. */
	if (realpath(sg->out, real)) {
		parent_of(real, parent, sizeof(parent));
		if (!stat(parent, &pst) && pst.st_dev == st.st_dev && !make_in(sg, parent)) {
			sg->made = true;
			return 0;
		}
	}
	if (make_in(sg, sg->out)) {
		snprintf(err, errlen, "cannot create a directory in %s: %s", out, strerror(errno));
		return -1;
	}
	sg->made = true;
	return 0;
}

/* The pictures in the stage (*.png, *.svg, *.pdf), sorted; their count, or -1 with err set. */
static int list_pictures(const char *stage, struct dirent ***list, char *err, size_t errlen)
{
	int n = scandir(stage, list, NULL, alphasort), k = 0;

	if (n < 0) {
		snprintf(err, errlen, "%s: %s", stage, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		const char *nm = (*list)[i]->d_name;

		if (nm[0] != '.' && (has_suffix(nm, ".png") || has_suffix(nm, ".svg") ||
				    has_suffix(nm, ".pdf")))
			(*list)[k++] = (*list)[i];
		else
			free((*list)[i]);
	}
	return k;
}

/*
 * Move the n pictures from the stage into the existing DIR, each under its
 * final name, a picture it replaces kept in the stage (".old-NAME", a hard
 * link) until all are in. On a failure, or a stop signal meanwhile, every
 * move is undone: DIR is as it was. 0, or -1 (err set unless stopped).
 */
static int publish_into(const struct stage *sg, struct dirent **pic, int n, char *err,
			size_t errlen)
{
	char from[PATH_MAX + 300], to[PATH_MAX + 300], old[PATH_MAX + 300];
	bool *kept = calloc(n ? (size_t)n : 1, sizeof(*kept));
	struct stat st;
	int i, ret = 0;

	if (!kept) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* Every name in DIR relative to the folder opened at the check (sg->outfd). */
	for (i = 0; i < n && !ret; i++) {
		const char *name = pic[i]->d_name;

		snprintf(from, sizeof(from), "%s/%s", sg->dir, name);
		snprintf(to, sizeof(to), "%s/%s", sg->out, name);
		snprintf(old, sizeof(old), "%s/.old-%s", sg->dir, name);
		if (!fstatat(sg->outfd, name, &st, AT_SYMLINK_NOFOLLOW) && S_ISDIR(st.st_mode))
			errno = EISDIR;		/* link() would say EPERM */
		else
			kept[i] = !linkat(sg->outfd, name, AT_FDCWD, old, 0);
		if ((!kept[i] && errno != ENOENT) || renameat(AT_FDCWD, from, sg->outfd, name)) {
			snprintf(err, errlen, "cannot move %s to %s: %s", from, to, strerror(errno));
			ret = -1;
			if (kept[i])
				unlink(old);
			break;
		}
	}
	if (!ret && pl_stop)
		ret = -1;
	while (ret && i-- > 0) {	/* undo, newest first */
		snprintf(old, sizeof(old), "%s/.old-%s", sg->dir, pic[i]->d_name);
		if (kept[i])
			renameat(AT_FDCWD, old, sg->outfd, pic[i]->d_name);
		else
			unlinkat(sg->outfd, pic[i]->d_name, 0);
	}
	free(kept);
	return ret;
}

/*
 * Publish the drawn pictures: a new DIR appears with all of them by one
 * rename of the stage; an existing DIR gets them by publish_into(). The
 * number of pictures, or -1 (err set unless stopped).
 */
int pl_publish(struct stage *sg, FILE *wrote, char *err, size_t errlen)
{
	struct dirent **pic;
	mode_t mask;
	int n = list_pictures(sg->dir, &pic, err, errlen), ret = -1;

	if (n <= 0) {
		if (!n) {
			free(pic);
			snprintf(err, errlen, "the plot script wrote no pictures");
		}
		return -1;
	}
	if (pl_stop) {
		ret = -1;
	} else if (sg->fresh) {
		mask = umask(022);
		umask(mask);
		/* what mkdir(DIR, 0777) gives, then DIR appears complete (EEXIST/ENOTEMPTY: it appeared meanwhile) */
		if (chmod(sg->dir, 0777 & ~mask) || rename(sg->dir, sg->out))
			snprintf(err, errlen, "cannot create %s: %s", sg->out, strerror(errno));
		else
			ret = n, sg->made = false;
	} else if (!publish_into(sg, pic, n, err, errlen)) {
		ret = n;
	}
	for (int i = 0; i < n; i++) {
		if (ret > 0 && wrote) {
			char shown[4200];

			rg_str_printable(shown, sizeof(shown), sg->out);	/* the terminal's sanitizer */
			fprintf(wrote, "rgbench plot: wrote %s/%s\n", shown, pic[i]->d_name);
		}
		free(pic[i]);
	}
	free(pic);
	if (sg->outfd >= 0) {
		close(sg->outfd);
		sg->outfd = -1;
	}
	return ret;
}
