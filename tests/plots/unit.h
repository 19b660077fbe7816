/* SPDX-License-Identifier: MIT */
/* plots.unit in two files: unit.c's main() runs the cases of unit_mwu_utf8.c too. */
#ifndef RG_TESTS_PLOTS_UNIT_H
#define RG_TESTS_PLOTS_UNIT_H

/* The U test and UTF-8 cases (unit_mwu_utf8.c): the number of checks that failed. */
int unit_mwu_utf8(void);

#endif /* RG_TESTS_PLOTS_UNIT_H */
