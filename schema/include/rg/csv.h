/* SPDX-License-Identifier: MIT */
/* The one CSV splitter: text to records of unquoted fields (RFC 4180), for every reader of CSV in rgbench. */
#ifndef RG_CSV_H
#define RG_CSV_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Records are read one at a time from a buffer (not NUL-terminated: len
 * counts). A record is fields separated by ',' and ended by "\n" or "\r\n".
 * A field is either
 *   - unquoted: any characters but ',', '"', CR and LF (may be empty), or
 *   - quoted: '"', any characters including ',', CR and LF, '""' for one '"',
 *     then '"', directly followed by ',', a line end or the end of input.
 * An empty line is a record of one empty field (callers that allow blank
 * lines skip nf == 1 && !*f[0]). Nothing is trimmed: blanks are part of a field.
 * Errors (rg_csv_next() returns -1; why and where in err and err_line):
 *   "quoted field never closed (truncated file?)"   (line the quote opened on)
 *   "character after a closing quote"
 *   "quote inside an unquoted field"
 *   "carriage return not followed by a line feed"
 *   "last line has no line end (truncated file?)"   (only with RG_CSV_NEED_EOL)
 *   "out of memory"
 */
struct rg_csv {
	/* The last record read, valid until the next call: fields without their quotes. */
	char **f;		/* nf NUL-terminated copies */
	size_t nf;
	int line;		/* line (1-based) where the next record starts */
	const char *err;	/* after -1: why (a string literal) */
	int err_line;		/* after -1: the line it was found on */
	/* Private. */
	const char *p, *end;
	unsigned int flags;
	size_t capf;
	char *tmp;
	size_t tmpcap;
};

enum rg_csv_flags {
	/*
	 * The last record must end with a line end (else the "no line end"
	 * error: a file cut off mid-write). Without it, the end of the input
	 * also ends the last record.
	 */
	RG_CSV_NEED_EOL = 1 << 0,
};

void rg_csv_init(struct rg_csv *s, const char *buf, size_t len, unsigned int flags);
/*
 * Read the next record into s->f / s->nf; *start (may be NULL) gets the line
 * it starts on (a quoted field may span lines). 1: a record; 0: end of
 * input (no record); -1: malformed or out of memory (s->err, s->err_line).
 */
int rg_csv_next(struct rg_csv *s, int *start);
/* Free the fields and buffers (s may then be initialised again). */
void rg_csv_free(struct rg_csv *s);

/*
 * A field holding an unsigned decimal integer: digits only (a leading digit:
 * no sign, no blank), the whole field, no overflow. false otherwise.
 */
bool rg_csv_u64(const char *field, unsigned long long *v);

#endif /* RG_CSV_H */
