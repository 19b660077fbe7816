/* SPDX-License-Identifier: MIT */
/* CPU placement: the CPUs to place threads on, in order, and pinning a thread to the n-th one; with or without hwloc. */
#ifndef RG_PLACE_H
#define RG_PLACE_H

#include <stdbool.h>
#include <stddef.h>

#include "rg/env.h"	/* RG_MAX_CPUS */

/*
 * Where threads go. rg_platform fills it in the topology's placement order
 * (rg_topo_order(): one PU per core first, then the SMT siblings, package
 * after package) and pins with hwloc, verified; rg_platform_nohwloc (the
 * fully static builds) takes the calling thread's affinity mask, in CPU
 * order, and pins with pthread_setaffinity_np(). Both keep only CPUs the
 * process may use, so taskset is respected; call rg_place_init() before
 * pinning the calling thread.
 */
struct rg_place {
	int ncpus;			/* CPUs in cpu[]; 0: nowhere to pin */
	int cpu[RG_MAX_CPUS];		/* OS index of the n-th CPU to use */
	const char *how;		/* "hwloc", "affinity" or "none": the pinning column */
};

/*
 * The CPUs in placement order, or with nwant > 0 exactly want[0..nwant) in
 * that order. A wanted CPU the process may not use is refused: -1 and err
 * says "CPU <n> is not available (allowed: <m> CPU(s), see rgbench --list)".
 * 0 otherwise (also when no CPU is known: ncpus 0, how "none").
 */
int rg_place_init(struct rg_place *p, const int *want, int nwant, char *err, size_t errlen);

/* The OS CPU of the idx-th thread (idx wraps around ncpus), or -1 when there is none. */
int rg_place_cpu(const struct rg_place *p, int idx);

/*
 * Pin the calling thread to rg_place_cpu(p, idx): with hwloc bound and
 * verified (rg_topo_pin_self()), otherwise by affinity. 0, or -1 with err
 * filled (err may be NULL).
 */
int rg_place_pin_self(const struct rg_place *p, int idx, char *err, size_t errlen);

/*
 * The quiet-CPU order, rgbench's default placement: cpus[0..n) (the
 * topology's placement order; smt[i] and pkg[i] say whether cpus[i] is an
 * SMT sibling and its package, either may be NULL) reordered, stably, so that
 * the CPUs in <root>/sys/devices/system/cpu/isolated come first, then those
 * in .../nohz_full, then the others by the fewest interrupts since boot
 * (<root>/proc/interrupts, each CPU's column summed; counts within the same
 * power of two are equal, the topology's order decides); within each class the
 * cores before the SMT siblings and package by package as the topology had
 * them, CPU 0 after the other CPUs of its package. root "" is this machine
 * (the tests give a tree of fake files). why gets one line that says what
 * decided the order, e.g. "none isolated or nohz_full; CPU 0 last, the
 * others by fewest interrupts (CPU 1: 120, CPU 0: 4000)"; with n 1, "the only CPU allowed".
 */
void rg_place_quiet(int *cpus, int n, const bool *smt, const int *pkg, const char *root,
		    char *why, size_t whylen);

#endif /* RG_PLACE_H */
