// SPDX-License-Identifier: MIT
/* The one output writer: fsync'ed temporary files, atomic renames (output_check.c: the paths checked and locked first). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "schema_int.h"

/* 0 when path does not exist or is a regular file; else why not to replace it. */
static int replaceable(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (S_ISREG(st.st_mode))
		return 0;
	return S_ISDIR(st.st_mode) ? -EISDIR : -EEXIST;
}

/* A fresh temporary file beside path, its name in tmp; NULL with -errno in *err. */
static FILE *open_tmp(const char *path, char *tmp, size_t tmplen, int *err)
{
	mode_t mask;
	FILE *f;
	int fd;

	*err = rg_output_tmp_name(tmp, tmplen, path);
	if (*err)
		return NULL;
	rg_output_use_spare_fd();
	fd = mkostemps(tmp, 4, O_CLOEXEC);	/* O_EXCL, mode 0600 */
	if (fd < 0) {
		*err = -errno;
		return NULL;
	}
	mask = umask(022);
	umask(mask);
	if (fchmod(fd, 0644 & ~mask)) {	/* what open(..., 0644) gave before */
		*err = -errno;
		close(fd);
		unlink(tmp);
		return NULL;
	}
	f = fdopen(fd, "w");
	if (!f) {
		*err = -errno;
		close(fd);
		unlink(tmp);
	}
	return f;
}

/* Flush, fsync and close a temporary file; removed again on error. 0 or -errno. */
static int close_tmp(FILE *f, const char *tmp)
{
	int err = 0;

	if (fflush(f) || ferror(f) || fsync(fileno(f)))
		err = -(errno ? errno : EIO);
	if (fclose(f) && !err)
		err = -(errno ? errno : EIO);
	if (err)
		unlink(tmp);
	return err;
}

/* Write one file to a fresh temporary name, fsync'ed; the caller renames it. */
static int write_tmp(const struct rg_resultset *rs, const char *path, enum rg_fmt fmt,
		     char *tmp, size_t tmplen)
{
	int err;
	FILE *f = open_tmp(path, tmp, tmplen, &err);

	if (!f)
		return err;
	if (fmt == FMT_CSV)
		rg_fmt_write_csv(f, rs);
	else
		rg_fmt_write_json(f, rs);
	return close_tmp(f, tmp);
}

/* Rename tmp over path unless path became something other than a regular file. */
static int publish(const char *tmp, const char *path)
{
	int err = replaceable(path);

	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

static int write_atomic(const struct rg_resultset *rs, const char *path, enum rg_fmt fmt)
{
	char tmp[PATH_MAX + 64];
	int err = replaceable(path);

	if (!err)
		err = write_tmp(rs, path, fmt, tmp, sizeof(tmp));
	if (!err)
		err = publish(tmp, path);
	return err;
}

int rg_results_write_csv(const struct rg_resultset *rs, const char *path)
{
	return write_atomic(rs, path, FMT_CSV);
}

int rg_results_write_json(const struct rg_resultset *rs, const char *path)
{
	return write_atomic(rs, path, FMT_JSON);
}

/* data (len bytes) into a fresh temporary file beside path, named in tmp. 0 or -errno. */
static int write_tmp_data(const char *path, const char *data, size_t len, char *tmp, size_t tmplen)
{
	int rc = 0;
	FILE *f = open_tmp(path, tmp, tmplen, &rc);

	if (!f)
		return rc;
	fwrite(data, 1, len, f);	/* a short write sets ferror(), which close_tmp() reports */
	return close_tmp(f, tmp);
}

int rg_results_write_with(const struct rg_resultset *rs, const char *csv, const char *json,
			  const char *extra, const char *data, size_t len, char *err, size_t errlen)
{
	const char *path[3] = { csv, json, extra };
	char tmp[3][PATH_MAX + 64];
	bool made[3] = { false, false, false };
	int rc = 0, i;

	for (i = 0; i < 3 && !rc; i++) {
		if (!path[i])
			continue;
		rc = replaceable(path[i]);
		if (!rc)
			rc = i == 2 ? write_tmp_data(path[i], data, len, tmp[i], sizeof(tmp[i])) :
			     write_tmp(rs, path[i], i ? FMT_JSON : FMT_CSV, tmp[i], sizeof(tmp[i]));
		made[i] = !rc;
	}
	if (rc) {
		snprintf(err, errlen, "cannot write %s: %s", path[i - 1], strerror(-rc));
		for (i = 0; i < 3; i++)
			if (made[i])
				unlink(tmp[i]);
		return rc;
	}
	/* All complete on disk: the renames follow each other immediately. */
	for (i = 0; i < 3; i++) {
		if (!path[i])
			continue;
		rc = publish(tmp[i], path[i]);
		if (rc) {
			snprintf(err, errlen, "cannot write %s: %s", path[i], strerror(-rc));
			for (int k = i + 1; k < 3; k++)
				if (made[k])
					unlink(tmp[k]);
			return rc;
		}
	}
	return 0;
}

int rg_results_write(const struct rg_resultset *rs, const char *csv, const char *json,
		     char *err, size_t errlen)
{
	return rg_results_write_with(rs, csv, json, NULL, NULL, 0, err, errlen);
}

int rg_output_write(const char *path, const char *data, size_t len, char *err, size_t errlen)
{
	char tmp[PATH_MAX + 64];
	int rc = replaceable(path);

	if (!rc)
		rc = write_tmp_data(path, data, len, tmp, sizeof(tmp));
	if (!rc)
		rc = publish(tmp, path);
	if (rc)
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(-rc));
	return rc;
}
