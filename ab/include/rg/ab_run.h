/* SPDX-License-Identifier: MIT */
/* `rgbench ab`'s entry point (ab/ab_run.c): base and patched kernels booted in turn, one table. */
#ifndef RG_AB_RUN_H
#define RG_AB_RUN_H

int rg_ab_main(int argc, char **argv);

#endif /* RG_AB_RUN_H */
