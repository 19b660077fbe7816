/* SPDX-License-Identifier: MIT */
/* The one limit on CPU numbers rgbench handles; no includes, so BPF programs can use it too. */
#ifndef RG_CPU_LIMIT_H
#define RG_CPU_LIMIT_H

/*
 * CPUs are numbered 0 .. RG_MAX_CPUS - 1 everywhere: --cpus lists, the
 * placement order, per-CPU counter arrays (a power of two, so a BPF program
 * may mask an index with RG_MAX_CPUS - 1).
 */
#define RG_MAX_CPUS 1024

#endif /* RG_CPU_LIMIT_H */
