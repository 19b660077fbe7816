/* SPDX-License-Identifier: MIT */
/* What the files of rg_schema share with each other and with no one else. */
#ifndef RG_SCHEMA_INT_H
#define RG_SCHEMA_INT_H

#include <stdio.h>
#include "rg/schema.h"

static inline void copy_str(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src ? src : "");
}

/* The two formats of a result set (formats.c), written by the atomic writer (writer.c). */
enum rg_fmt { FMT_CSV, FMT_JSON };

void rg_fmt_write_csv(FILE *f, const struct rg_resultset *rs);
/* 0, or -ENOMEM / -EIO (jansson could not build or dump a value): the file is then not published. */
int rg_fmt_write_json(FILE *f, const struct rg_resultset *rs);

/*
 * Close the descriptor the output check kept (output_check.c), so that the first
 * write has one; rg_output_release() closes it too.
 */
void rg_output_use_spare_fd(void);

/*
 * The output check's side of the writer (output_check.c): the directory it
 * opened and holds for path (-1 when path was not checked by this process),
 * the temporary name template for base in dirfd (".BASE.XXXXXX.tmp", 0 or
 * -ENAMETOOLONG), and the record of temporary files in progress that the
 * start-up signal handler removes (rg_output_cleanup_signal()): add returns
 * a slot (or -1), drop forgets it. Stop signals are held back around each
 * create/record and rename/forget pair.
 */
#include <signal.h>
int rg_output_dirfd(const char *path);
int rg_output_tmp_base(char *buf, size_t len, int dirfd, const char *base);
int rg_output_tmp_add(int dirfd, const char *name);
void rg_output_tmp_drop(int slot);
void rg_output_block_signals(sigset_t *old);
void rg_output_restore_signals(const sigset_t *old);

#endif /* RG_SCHEMA_INT_H */
