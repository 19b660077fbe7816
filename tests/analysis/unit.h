/* SPDX-License-Identifier: MIT */
/* analysis.unit in three files: unit.c's main() runs the cases of unit_mwu_utf8.c and unit_headline.c too. */
#ifndef RG_TESTS_PLOTS_UNIT_H
#define RG_TESTS_PLOTS_UNIT_H

/* The U test and UTF-8 cases (unit_mwu_utf8.c): the number of checks that failed. */
int unit_mwu_utf8(void);
/* The headline tables' lines on fake hosts (unit_headline.c): the number of checks that failed. */
int unit_headline(void);

#endif /* RG_TESTS_PLOTS_UNIT_H */
