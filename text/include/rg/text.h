/* SPDX-License-Identifier: MIT */
/* Untrusted text (host, file, inventory and guard names) made safe for the medium it is printed in: one sanitizer per medium, libc only. */
#ifndef RG_TEXT_H
#define RG_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * The terminal, a message, a row's string value: src as one printable line
 * of valid UTF-8 in dst (size > 0; cut on a character boundary): tab, CR and
 * LF become ' '; other C0 controls (ESC included), DEL, the C1 controls
 * (U+0080-U+009F), the bidi and line format characters (U+202A-U+202E,
 * U+2066-U+2069, U+200E, U+200F, U+061C, U+2028, U+2029) and each byte that
 * is not part of a valid UTF-8 sequence (stray, truncated, overlong,
 * surrogate, beyond U+10FFFF) become '?'. What every string in a row or a
 * JSON file goes through, what the reader accepts, and what every message
 * prints of an option value or a file name. Returns the length written.
 */
size_t rg_str_printable(char *dst, size_t size, const char *src);
/* True when rg_str_printable() would leave s as it is (what the reader accepts in a string value). */
bool rg_str_is_printable(const char *s);
/*
 * Repair s in place, a whole page (line ends and other controls kept): each
 * byte that is not part of a valid UTF-8 sequence becomes '?'. For text
 * built from names cut to fixed buffers. Returns the number replaced.
 */
size_t rg_utf8_repair(char *s);

/* CSV: write one field, quoted (RFC 4180) when it holds , " CR or LF (a quote doubled). */
void rg_csv_put_field(FILE *f, const char *s);

/*
 * Markdown (a page's prose, headings and table cells): src made printable
 * (rg_str_printable()), then every character that Markdown or HTML would
 * read as markup backslash-escaped, so the name shows as written and is
 * never a link, a tag, an entity, emphasis, code, a table's cell border or
 * math: \ ` * _ [ ] < > & | ~ $ # ! and the ':' of "://" (an autolink);
 * a '_' between two letters or digits (x86_64), never emphasis, stays as it is.
 * Inline only: where the text may begin a line, the page checks its first
 * word with rg_md_word_starts_block().
 * Cut on a character boundary, never after a lone backslash. Returns the
 * length written.
 */
size_t rg_md_text(char *dst, size_t size, const char *src);
/*
 * True when a word of len bytes would start a Markdown block at the start of
 * a line (a list item "-", "+", "1." or "1)", a rule or a setext underline
 * of '-' or '='): a page that wraps its prose puts a backslash before it
 * (also after a bullet's "- ", where "1." would open a nested list).
 */
bool rg_md_word_starts_block(const char *word, size_t len);

#endif /* RG_TEXT_H */
