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
#include <signal.h>
#include <stdint.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "schema_int.h"

/* A fallback seed when getrandom() has nothing (an early-boot entropy pool). */
static uint64_t rg_now_ns_for_tmp(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Where an output goes: the directory the output check opened and holds (so
 * a folder moved or swapped for a link since is never written through), or,
 * for a path that was not checked, its directory opened now. 0 or -errno.
 */
struct out_at {
	int dirfd;
	bool owned;		/* opened here: closed by out_at_done() */
	const char *base;
	const char *path;
	char tmp[NAME_MAX + 1];	/* the temporary file's name in dirfd */
	int slot;		/* its record for the start-up signal handler */
};

static int out_at_open(struct out_at *o, const char *path)
{
	const char *slash = strrchr(path, '/');

	o->path = path;
	o->base = slash ? slash + 1 : path;
	o->tmp[0] = '\0';
	o->slot = -1;
	o->owned = false;
	if (!*o->base)
		return -EISDIR;
	o->dirfd = rg_output_dirfd(path);
	if (o->dirfd >= 0)
		return 0;
	if (!slash) {
		o->dirfd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	} else {
		char dir[PATH_MAX];

		if (snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path) >=
		    (int)sizeof(dir))
			return -ENAMETOOLONG;
		o->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (o->dirfd < 0)
		return -errno;
	o->owned = true;
	return 0;
}

static void out_at_done(struct out_at *o)
{
	if (o->owned && o->dirfd >= 0)
		close(o->dirfd);
	o->dirfd = -1;
	o->owned = false;
}

/* Remove the temporary file (if any) and forget it. */
static void drop_tmp(struct out_at *o)
{
	sigset_t old;

	if (!o->tmp[0])
		return;
	rg_output_block_signals(&old);
	unlinkat(o->dirfd, o->tmp, 0);
	rg_output_tmp_drop(o->slot);
	o->slot = -1;
	o->tmp[0] = '\0';
	rg_output_restore_signals(&old);
}

/* 0 when the output does not exist or is a regular file; else why not to replace it. */
static int replaceable(const struct out_at *o)
{
	struct stat st;

	if (fstatat(o->dirfd, o->base, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	if (S_ISREG(st.st_mode))
		return 0;
	return S_ISDIR(st.st_mode) ? -EISDIR : -EEXIST;
}

/* A fresh temporary file beside the output, its name in o->tmp; NULL with -errno in *err. */
static FILE *open_tmp(struct out_at *o, int *err)
{
	static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	char name[NAME_MAX + 64];
	size_t len;
	sigset_t old;
	FILE *f;
	int fd = -1;

	*err = rg_output_tmp_base(name, sizeof(name), o->dirfd, o->base);
	if (*err)
		return NULL;
	len = strlen(name);
	rg_output_use_spare_fd();
	/*
	 * Random and created exclusively, so a leftover of a killed run can never
	 * fail a run; recorded with the stop signals held back, so that a signal
	 * at any moment finds it to remove.
	 */
	for (int tries = 0; tries < 100 && fd < 0; tries++) {
		unsigned char rnd[6];

		if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) {
			uint64_t x = (uint64_t)rg_now_ns_for_tmp() ^ ((uint64_t)getpid() << 32) ^
				     (uint64_t)tries * 0x9e3779b97f4a7c15ull;

			for (int i = 0; i < 6; i++, x >>= 8)
				rnd[i] = (unsigned char)x;
		}
		for (int i = 0; i < 6; i++)
			name[len - 10 + i] = set[rnd[i] % (sizeof(set) - 1)];
		rg_output_block_signals(&old);
		fd = openat(o->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0) {
			snprintf(o->tmp, sizeof(o->tmp), "%s", name);
			o->slot = rg_output_tmp_add(o->dirfd, name);
		}
		*err = fd < 0 ? -errno : 0;
		rg_output_restore_signals(&old);
		if (fd < 0 && *err != -EEXIST)
			return NULL;
	}
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f) {
		*err = -errno;
		close(fd);
		drop_tmp(o);
	}
	return f;
}

/* Flush, fsync and close a temporary file; removed again on error. 0 or -errno. */
static int close_tmp(FILE *f, struct out_at *o)
{
	int err = 0;

	if (fflush(f) || ferror(f) || fsync(fileno(f)))
		err = -(errno ? errno : EIO);
	if (fclose(f) && !err)
		err = -(errno ? errno : EIO);
	if (err)
		drop_tmp(o);
	return err;
}

/* Write one file to a fresh temporary name, fsync'ed; the caller renames it. */
static int write_tmp(const struct rg_resultset *rs, struct out_at *o, enum rg_fmt fmt)
{
	int err;
	FILE *f = open_tmp(o, &err);

	if (!f)
		return err;
	if (fmt == FMT_CSV) {
		rg_fmt_write_csv(f, rs);
	} else if ((err = rg_fmt_write_json(f, rs))) {
		fclose(f);
		drop_tmp(o);
		return err;
	}
	return close_tmp(f, o);
}

/* Rename the temporary file over the output unless that became something other than a regular file. */
static int publish(struct out_at *o)
{
	int err = replaceable(o);
	sigset_t old;

	if (!err) {
		rg_output_block_signals(&old);
		if (renameat(o->dirfd, o->tmp, o->dirfd, o->base))
			err = -errno;
		else {
			rg_output_tmp_drop(o->slot);
			o->slot = -1;
			o->tmp[0] = '\0';
		}
		rg_output_restore_signals(&old);
	}
	if (err)
		drop_tmp(o);
	return err;
}

/* data (len bytes) into a fresh temporary file beside the output. 0 or -errno. */
static int write_tmp_data(struct out_at *o, const char *data, size_t len)
{
	int rc = 0;
	FILE *f = open_tmp(o, &rc);

	if (!f)
		return rc;
	/* A short write sets ferror(), which close_tmp() reports with this errno. */
	if (fwrite(data, 1, len, f) != len) {
		int e = errno;

		fflush(f);
		errno = e;
	}
	return close_tmp(f, o);
}

/*
 * Standard output ("-"): the set in fmt, or len bytes of data when rs is NULL,
 * flushed. 0 or -errno (EPIPE for a closed pipe: SIGPIPE is ignored by the
 * commands that write here).
 */
static int write_stdout(const struct rg_resultset *rs, enum rg_fmt fmt, const char *data, size_t len)
{
	errno = 0;
	if (!rs) {
		if (len && fwrite(data, 1, len, stdout) != len && !ferror(stdout))
			return -EIO;
	} else if (fmt == FMT_CSV) {
		rg_fmt_write_csv(stdout, rs);
	} else {
		rg_fmt_write_json(stdout, rs);
	}
	if (fflush(stdout) || ferror(stdout)) {
		int e = errno ? errno : EIO;

		clearerr(stdout);
		return -e;
	}
	return 0;
}

static int write_atomic(const struct rg_resultset *rs, const char *path, enum rg_fmt fmt)
{
	struct out_at o;
	int err;

	if (rg_output_is_stdout(path))
		return write_stdout(rs, fmt, NULL, 0);
	err = out_at_open(&o, path);

	if (!err)
		err = replaceable(&o);
	if (!err)
		err = write_tmp(rs, &o, fmt);
	if (!err)
		err = publish(&o);
	out_at_done(&o);
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

int rg_results_write_with(const struct rg_resultset *rs, const char *csv, const char *json,
			  const char *extra, const char *data, size_t len, char *err, size_t errlen)
{
	const char *path[3] = { csv, json, extra };
	struct out_at o[3];
	int rc = 0, i, bad = -1;

	for (i = 0; i < 3; i++)
		o[i].dirfd = -1, o[i].owned = false, o[i].tmp[0] = '\0', o[i].slot = -1;
	/* A command that produced nothing replaces nothing: no rows, no file. */
	if (rs && !rs->n && (csv || json)) {
		snprintf(err, errlen, "nothing measured: %s not written (a file of that name is left "
			 "as it was)", csv ? csv : json);
		return -ENODATA;
	}
	for (i = 0; i < 3 && !rc; i++) {
		if (!path[i] || rg_output_is_stdout(path[i]))
			continue;
		rc = out_at_open(&o[i], path[i]);
		if (!rc)
			rc = replaceable(&o[i]);
		if (!rc)
			rc = i == 2 ? write_tmp_data(&o[i], data, len) :
			     write_tmp(rs, &o[i], i ? FMT_JSON : FMT_CSV);
		if (rc)
			bad = i;
	}
	/* All complete on disk: the renames follow each other immediately. */
	for (i = 0; i < 3 && !rc; i++) {
		if (!path[i] || rg_output_is_stdout(path[i]))
			continue;
		rc = publish(&o[i]);
		if (rc)
			bad = i;
	}
	/* Then standard output ("-"), once every file is in place: a closed pipe loses no file. */
	for (i = 0; i < 3 && !rc; i++) {
		if (!rg_output_is_stdout(path[i]))
			continue;
		rc = i == 2 ? write_stdout(NULL, FMT_CSV, data, len) :
		     write_stdout(rs, i ? FMT_JSON : FMT_CSV, NULL, 0);
		if (rc)
			bad = i;
	}
	if (rc && rg_output_is_stdout(path[bad]))
		snprintf(err, errlen, "cannot write the standard output: %s", strerror(-rc));
	else if (rc)
		snprintf(err, errlen, "cannot write %s: %s", path[bad], strerror(-rc));
	for (i = 0; i < 3; i++) {
		drop_tmp(&o[i]);	/* those not renamed, after a failure */
		out_at_done(&o[i]);
	}
	return rc;
}

int rg_results_write(const struct rg_resultset *rs, const char *csv, const char *json,
		     char *err, size_t errlen)
{
	return rg_results_write_with(rs, csv, json, NULL, NULL, 0, err, errlen);
}

int rg_output_write(const char *path, const char *data, size_t len, char *err, size_t errlen)
{
	struct out_at o;
	int rc;

	if (rg_output_is_stdout(path)) {
		rc = write_stdout(NULL, FMT_CSV, data, len);
		if (rc)
			snprintf(err, errlen, "cannot write the standard output: %s", strerror(-rc));
		return rc;
	}
	rc = out_at_open(&o, path);

	if (!rc)
		rc = replaceable(&o);
	if (!rc)
		rc = write_tmp_data(&o, data, len);
	if (!rc)
		rc = publish(&o);
	out_at_done(&o);
	if (rc)
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(-rc));
	return rc;
}

void rg_output_say_wrote(FILE *f, const char *prog, size_t nrows, const char *csv, const char *json)
{
	char shown[PATH_MAX + 64];
	const char *first = csv ? csv : json;

	if (!f || !first)
		return;
	/* The terminal's sanitizer: a name is one line whatever it holds. */
	rg_str_printable(shown, sizeof(shown), first);
	fprintf(f, "%s: wrote %zu rows to %s\n", prog, nrows,
		rg_output_is_stdout(first) ? "standard output" : shown);
	if (csv && json) {
		rg_str_printable(shown, sizeof(shown), json);
		fprintf(f, "%s: wrote %s\n", prog, rg_output_is_stdout(json) ? "the JSON to standard output"
			: shown);
	}
	fflush(f);
}
