/* SPDX-License-Identifier: MIT */
/* The plotting program (plots/, library rg_plots): `rgbench plot`, the pictures rgplot.py draws from the rows. */
#ifndef RG_PLOTS_H
#define RG_PLOTS_H

/* rgbench plot FILES|DIRS... --out DIR (argv[0]: the name). */
int rg_plot_main(int argc, char **argv);

#endif /* RG_PLOTS_H */
