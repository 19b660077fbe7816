/* SPDX-License-Identifier: MIT */
/* The results room's answer across hosts (analysis/across/, library rg_across): every host at once, for report, compare --across-hosts and plot's heat map: the role matrix, the decision table, the prediction. */
#ifndef RG_ACROSS_H
#define RG_ACROSS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "rg/page.h"
#include "rg/results.h"

/*
 * across_answer.c: the answer first, a few lines per host: the design its kernel runs
 * against the candidate, the change per event, the part that makes most of it, limits.
 */
void rp_sec_answer(struct ctx *c, const struct host *hosts, size_t nh, bool allow_emulated);
/* across_sections.c: every host at once. Emulated hosts only with allow_emulated. */
void rp_sec_fleet(struct ctx *c, const struct host *hosts, size_t nh, bool allow_emulated);
/* The matrix, one line per role and host, as CSV (compare --across-hosts --csv). */
void rp_across_csv(FILE *f, const struct host *hosts, size_t nh, bool allow_emulated);
/*
 * For rgbench plot's one document, from the rows of n sources: "heat" (per host and
 * role: label, emulated, current_role, role, relative_ns to the current design, now)
 * and "decision" (per host and candidate: label, emulated, current_role,
 * current_guard, suite, role, guard, change_ns, lo_ns, hi_ns) set in doc. 0 or -1.
 */
int rp_across_plot_json(json_t *doc, const struct rg_rows *const *rows, size_t n);
/* A name as JSON text (invalid UTF-8 as U+FFFD); a value as a number rounded to digits, null if none. */
json_t *rp_json_text(const char *s);
json_t *rp_json_num(double v, int digits);
/*
 * across_decide.c: the role of the guard the host's kernel runs in the BPF
 * trampoline (from its arch and h->kernel), or NULL with why set; the
 * report's calibration reads each kernel's design with it.
 */
const char *rp_across_current_role(const struct host *h, char *why, size_t size);
/*
 * across_why.c: the decision's two designs taken apart by their ladder rows
 * (the ladder scenario): one host's why section; every host's ladders side by
 * side (only when a host has them; emulated hosts only with allow_emulated).
 */
void rp_sec_why(struct ctx *c, const struct host *h);
void rp_sec_why_fleet(struct ctx *c, const struct host *hosts, size_t nh, bool allow_emulated);
#endif /* RG_ACROSS_H */
