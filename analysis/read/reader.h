// SPDX-License-Identifier: MIT
/* The reader's private interface (rd_*): the column table, the error context and the steps its files share. */
#ifndef RG_ANALYSIS_READER_H
#define RG_ANALYSIS_READER_H

#include <stdbool.h>
#include <stddef.h>

#include "rg/results.h"

/*
 * The reader in files, one concern each:
 *   validate.c   column table, schema versions, errors, value and text rules
 *   read_rows.c  row allocation, the files read, keys, duplicate rows
 *   read_csv.c   the CSV header and rows (records from rg/csv.h's splitter)
 *   read_json.c  the JSON document and rows
 *   read_file.c  a buffer, a regular file, a path (the entry points)
 *   read_dir.c   a directory: its runs, JSON/CSV twins
 */

/* How a column's text is read: string, signed, unsigned, double (missing = NAN: empty, or n/a before schema 6), boolean 0/1. */
enum kind { K_S, K_I, K_U, K_D, K_B };

struct rd_col {
	const char *name;
	enum kind kind;
	int since;		/* the schema version that added it */
};

/* Every schema column, in RG_RESULT_COLUMNS order. */
extern const struct rd_col rd_cols[RG_NCOLS];

/* The schema version that added a column (1 .. RG_SCHEMA_VERSION). */
long long rd_col_since(int col);

/* One file being read: where its messages and rows go. */
struct rd_ctx {
	const char *name;	/* file name for messages */
	char *err;
	size_t errlen;
	struct rg_rows *out;
	const char *file;	/* stored copy of name, for rows */
};

/* "NAME:LINE: message" (or "NAME: message" when line <= 0) into c->err, one line; returns -1. */
__attribute__((format(printf, 3, 4)))
int rd_fail(struct rd_ctx *c, int line, const char *fmt, ...);
/* Quote an input fragment for a message: at most 24 bytes, printable only. */
const char *rd_frag(const char *s, size_t len, char *buf, size_t size);

/* A string with a C0 or C1 control character or DEL. */
bool rd_has_control(const char *s);
/* Column-specific rules shared by both formats; text is what the file said. 0 or -1. */
int rd_check_value(struct rd_ctx *c, int line, int col, const union rg_val *v, const char *text);
/* Control bytes (other than tab, CR, LF) or invalid UTF-8: not a text file. 0 or -1. */
int rd_check_text(struct rd_ctx *c, const char *buf, size_t len);

/* A new row in c->out, every string "" and every double NAN; NULL when out of memory. */
struct rg_row *rd_row_new(struct rd_ctx *c, int line);
/*
 * Before each row: 0, or -1 with c->err set once a stop signal has come
 * (rg_cl_catch_stop_signals: report, compare, export, plot). A long read
 * (a file of 40000 rows takes seconds) then stops at the next row instead
 * of at its end; the command says "interrupted by ..." and exits 128+signal.
 */
int rd_check_stop(struct rd_ctx *c, int line);
void rd_row_free(struct rg_row *r);
/* Keep a copy of name in o->files (and an empty timer in o->timers); *stored points to it. 0 or -1 (out of memory). */
int rd_add_file(struct rg_rows *o, const char *name, const char **stored);

/* The whole buffer as CSV or JSON into c->out. 0 or -1 with the message set. */
int rd_read_csv(struct rd_ctx *c, const char *buf, size_t len);
int rd_read_json(struct rd_ctx *c, const char *buf, size_t len);

/* A regular file (never a FIFO or a device) / every run in a directory. 0 or -1. */
int rd_read_file(const char *path, struct rg_rows *out, char *err, size_t errlen);
int rd_read_dir(const char *path, struct rg_rows *out, char *err, size_t errlen);

#endif /* RG_ANALYSIS_READER_H */
