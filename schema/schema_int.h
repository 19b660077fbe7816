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
void rg_fmt_write_json(FILE *f, const struct rg_resultset *rs);

/*
 * Close the descriptor the output check kept (output_check.c), so that the first
 * write has one; rg_output_release() closes it too.
 */
void rg_output_use_spare_fd(void);

#endif /* RG_SCHEMA_INT_H */
