/* SPDX-License-Identifier: MIT */
/* The results room's report (analysis/report/, library rg_report): `rgbench report`, one page per set of runs. */
#ifndef RG_REPORT_H
#define RG_REPORT_H

/* rgbench report FILES|DIRS... (argv[0]: the name). */
int rg_report_main(int argc, char **argv);

#endif /* RG_REPORT_H */
