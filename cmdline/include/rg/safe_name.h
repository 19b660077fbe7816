/* SPDX-License-Identifier: MIT */
/* The one mapping from an untrusted name (a host name, an inventory name) to a name that is safe as one file name. */
#ifndef RG_SAFE_NAME_H
#define RG_SAFE_NAME_H

#include <stddef.h>

/* The longest safe name, in bytes (without the NUL). */
#define RG_SAFE_NAME_MAX 64

/*
 * The rule (scripts/run.sh and rgbench fleet use it through `rgbench --safe-name NAME...`):
 *   1. every byte that is not A-Z, a-z, 0-9, '.', '_' or '-' becomes '_' (a '/', a
 *      blank, a control character, each byte of a non-ASCII character);
 *   2. a leading '.' becomes '_' (never hidden, never "." or "..");
 *   3. at most RG_SAFE_NAME_MAX bytes: the rest is cut;
 *   4. an empty name becomes fallback (itself safe; "_" when NULL).
 * The result is one path component: no '/', no control character, not "." or "..",
 * not hidden, never empty. Distinct names may map to one (a/b and a_b): a caller that
 * names several files so keeps them apart itself (rgbench fleet adds -2, -3, ...).
 * out holds RG_SAFE_NAME_MAX + 1 bytes. Returns out.
 */
char *rg_safe_name(char out[RG_SAFE_NAME_MAX + 1], const char *name, const char *fallback);

#endif /* RG_SAFE_NAME_H */
