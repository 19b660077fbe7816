/* SPDX-License-Identifier: MIT */
/* What the kit's own files share and nobody else sees. */
#ifndef RG_CMDLINE_INT_H
#define RG_CMDLINE_INT_H

/* "<prog>: <flag>: <msg> (got '<s>')" on stderr; returns -1. */
int rg_cl_bad_value(const char *flag, const char *s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A whole decimal long: 0; -1 not an integer; -2 overflow (no message). */
int rg_cl_scan_long(const char *s, long *v);

#endif /* RG_CMDLINE_INT_H */
