/* SPDX-License-Identifier: MIT */
/* Machine topology through hwloc: which CPUs to use, in what order, and pinning that is verified. */
#ifndef RG_PLATFORM_H
#define RG_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>

#include "rg/env.h"	/* RG_MAX_CPUS */

/* Load the topology and remember the process's CPU binding. 0 or -1 (err filled). */
int rg_topo_init(char *err, size_t errlen);
/*
 * Before rg_topo_init(): load another machine's topology instead, from an
 * hwloc XML file or a synthetic description (what HWLOC_XMLFILE and
 * HWLOC_SYNTHETIC name; the caller reads them). NULL or "": this machine.
 */
void rg_topo_set_source(const char *xml, const char *synthetic);
void rg_topo_fini(void);

/*
 * The CPUs this process may run on, in placement order: one PU per core
 * first, package after package (within a package split in NUMA nodes, node
 * after node), then the remaining SMT siblings in the same package and node
 * order. Returns how many were written.
 */
int rg_topo_order(int *cpus, int max);

/* Where a CPU sits: logical package, NUMA node and core, and whether it is a core's 2nd+ PU. */
struct rg_topo_where {
	int package, numa, core;
	bool smt;
};
int rg_topo_where(int cpu, struct rg_topo_where *w);	/* 0, or -1 for an unknown CPU */

/* Objects in the topology: 0 packages, 1 NUMA nodes, 2 cores, 3 PUs. */
int rg_topo_count(int what);

/*
 * True when the topology came from rg_topo_set_source() (another machine):
 * only --plan and --list may use it; rg_topo_init() refuses a source hwloc
 * cannot use (missing, malformed) instead of falling back to this machine.
 */
bool rg_topo_foreign(void);

/*
 * len bytes bound (strictly) to the first NUMA node of another package than
 * cpu's (any node when any_node: tests), *node its OS index. NULL when there
 * is none or binding is not supported. Free with rg_topo_free_mem().
 */
void *rg_topo_alloc_other_package(int cpu, size_t len, int *node, bool any_node);
void rg_topo_free_mem(void *p, size_t len);

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

#endif /* RG_PLATFORM_H */
