/* SPDX-License-Identifier: MIT */
/* The results room's plot (analysis/plot/, library rg_plot): `rgbench plot`, the pictures rgplot.py draws from the rows. */
#ifndef RG_PLOT_H
#define RG_PLOT_H

/* rgbench plot FILES|DIRS... --out DIR (argv[0]: the name). */
int rg_plot_main(int argc, char **argv);

#endif /* RG_PLOT_H */
