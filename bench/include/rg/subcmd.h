/* SPDX-License-Identifier: MIT */
/* Subcommands of the rgbench command, each provided by its component's library. */
#ifndef RG_SUBCMD_H
#define RG_SUBCMD_H

#include <signal.h>
#include <stdio.h>

struct rg_resultset;

/* rgbench bpf ...   (kernel/bpf, target rg_bpf; RG_WITH_BPF=1 when built) */
int rg_bpf_main(int argc, char **argv);
/*
 * Append the default BPF rows to rs (the default suite calls this as root):
 * quick: 3 samples of 0.15 s per row. Stops between samples once *stop is
 * set (then returns 0 and the caller, seeing *stop, writes nothing); result
 * and progress lines go to progress (NULL: quiet). 0 ok, 1 error, 2 no privilege.
 */
int rg_bpf_run_default(struct rg_resultset *rs, int quick, volatile sig_atomic_t *stop,
		       FILE *progress);

/* rgbench kmod ...  (kernel/kmod, target rg_kmod; RG_WITH_KMOD=1 when built) */
int rg_kmod_main(int argc, char **argv);

/* rgbench compare BASE NEW / rgbench plot FILES... (plots/, target rg_report) */
int rg_compare_main(int argc, char **argv);
int rg_plot_main(int argc, char **argv);
/* rgbench report FILES... [--out report.md] [--width 72] [--across-hosts] (plots/report.c) */
int rg_report_main(int argc, char **argv);

#endif /* RG_SUBCMD_H */
