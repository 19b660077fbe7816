/* SPDX-License-Identifier: MIT */
/* The BPF trigger bench's entry points: `rgbench bpf` and the default run's BPF rows. */
#ifndef RG_BPF_H
#define RG_BPF_H

#include <signal.h>
#include <stdio.h>

struct rg_resultset;

/*
 * Passes over all rows when --passes is not given (at most --repetitions),
 * also in the default run: each row's samples spread over the bench's whole
 * time, one run-level value per pass. 3, by measurement (docs/bench.md, "The
 * BPF rows: passes and CPU time"): 5 called more rows in A/A pairs and took
 * 5 s more of the default run.
 */
#define RG_BPF_DEFAULT_PASSES 3

/* rgbench bpf [options]; argv[0] is the subcommand's name. */
int rg_bpf_main(int argc, char **argv);

/*
 * Append the default BPF rows to rs (the default suite calls this as root):
 * quick: 5 samples of 0.1 s per row, in 3 passes over all rows. Stops
 * between samples once *stop is set (then returns 0 and the caller, seeing
 * *stop, writes nothing); result and progress lines go to progress (NULL:
 * quiet). 0 ok, 1 error, 2 no privilege.
 */
int rg_bpf_run_default(struct rg_resultset *rs, int quick, volatile sig_atomic_t *stop,
		       FILE *progress);

#endif /* RG_BPF_H */
