/* SPDX-License-Identifier: MIT */
/* The rows only a machine with more than one package can show: per-CPU slots in another package's memory, false sharing across packages. */
#ifndef RG_BENCH_XPKG_H
#define RG_BENCH_XPKG_H

struct rg_suite_cfg;
struct rg_resultset;

/*
 * For every selected per-CPU guard, when the topology has more than one
 * package: "local-slots" and "remote-slots" (one thread on cfg->cpus[0], the
 * guard's slots in local memory vs bound to a NUMA node of another package,
 * alternating per repetition; the remote row's delta is against the local
 * one), and "falseshare-xpkg-packed"/"-padded" (two threads, on cfg->cpus[0]
 * and the first core of another package, slots 4 bytes vs 128 apart). On one
 * package it adds no row. RGBENCH_XPKG_TEST=1 runs them on one package
 * (another core, any node) to test the mechanics. Returns rows added, or -1.
 */
int rg_xpkg_run(const struct rg_suite_cfg *cfg, struct rg_resultset *rs);

#endif /* RG_BENCH_XPKG_H */
