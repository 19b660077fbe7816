// SPDX-License-Identifier: MIT
/* `rgbench report`'s private interface (rp_sec_*): the sections of its page. */
#ifndef RG_PLOTS_REPORT_H
#define RG_PLOTS_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "rg/fleet.h"
#include "rg/page.h"
#include "rg/results.h"

/*
 * report in files, one concern each:
 *   report.c           the command line: options, reading the files, grouping by host, writing
 *   report_sections.c  the sections of one host
 *   report_across.c    --across-hosts: two hosts side by side by role
 *   report_plots.c     links to the PNGs
 *   report_calib.c     the calibration against the real trampoline, two kernels of one machine
 * and below it: the inputs, hosts and their rows (rg/results.h), the page (rg/page.h), every
 * host at once (rg/fleet.h).
 */

#define DUTY_SHARE 0.05		/* "guard differences under 5% of a pair's total" */

/* report_sections.c, report_across.c, report_plots.c */
void rp_sec_machine(struct ctx *c, const struct host *h, const struct input *in, size_t nin);
void rp_sec_ranking(struct ctx *c, const struct host *h);
void rp_sec_headline(struct ctx *c, const struct host *h);
void rp_sec_duty(struct ctx *c, const struct host *h);
void rp_sec_threads(struct ctx *c, const struct host *h);
void rp_sec_latency(struct ctx *c, const struct host *h);
/* suite: "bpf" or "kmod". */
void rp_sec_suite(struct ctx *c, const struct host *h, const char *suite);
void rp_sec_across(struct ctx *c, const struct host *A, const struct host *B);

/*
 * report_calib.c: the module's tramp rows beside the real trampoline of the
 * same boot (per host), and a base kernel's prediction beside a patched
 * kernel's measurement (files of two kernels of one machine).
 */
void rp_sec_calib(struct ctx *c, const struct host *h);
void rp_sec_boots(struct ctx *c, const struct input *in, size_t nin);

/* out: the --out file or NULL. */
void rp_sec_plots(struct ctx *c, const char *out, const struct input *in, size_t nin);

#endif /* RG_PLOTS_REPORT_H */
