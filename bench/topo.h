/* SPDX-License-Identifier: MIT */
/* Machine topology through hwloc: which CPUs to use, in what order, and pinning that is verified. */
#ifndef RG_BENCH_TOPO_H
#define RG_BENCH_TOPO_H

#include <stdbool.h>
#include <stddef.h>

#define RG_MAX_CPUS 1024

/* Load the topology and remember the process's CPU binding. 0 or -1 (err filled). */
int rg_topo_init(char *err, size_t errlen);
void rg_topo_fini(void);

/*
 * The CPUs this process may run on, in placement order: within each package,
 * one PU per core first (cores in order), then the remaining SMT siblings;
 * then the next package (NUMA node). Returns how many were written.
 */
int rg_topo_order(int *cpus, int max);

/* True when the OS CPU number is in the process's allowed set. */
bool rg_topo_allowed(int cpu);

/* One line: "1 package, 2 cores, 2 PUs, 1 NUMA node; L2 512KB, L3 32MB". */
void rg_topo_describe(char *buf, size_t len);

/*
 * Bind the calling thread to one CPU with hwloc_set_cpubind, then check the
 * binding with hwloc_get_cpubind and that sched_getcpu() reports that CPU.
 * 0, or -1 with err filled.
 */
int rg_topo_pin_self(int cpu, char *err, size_t errlen);

/* Give the calling thread back the binding the process started with. */
void rg_topo_unpin_self(void);

#endif /* RG_BENCH_TOPO_H */
