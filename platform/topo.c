// SPDX-License-Identifier: MIT
/* hwloc topology discovery, placement order and verified thread pinning. */
#define _GNU_SOURCE
#include <errno.h>
#include <hwloc.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rg/cpu_limit.h"
#include "rg/input.h"
#include "rg/platform.h"

static hwloc_topology_t topo;
static hwloc_bitmap_t allowed;	/* process binding at start, within the topology, below RG_MAX_CPUS */
/* Each PU by OS index (one lookup, not hwloc's linear search per CPU); PUs left out as >= RG_MAX_CPUS. */
static hwloc_obj_t pu_by_os[RG_MAX_CPUS];
static int pus_over_limit;

/* Another machine's topology, set by the caller's plan (rg_topo_set_source()); "" for this machine. */
static char src_xml[4096], src_syn[1024];

void rg_topo_set_source(const char *xml, const char *synthetic)
{
	snprintf(src_xml, sizeof(src_xml), "%s", xml ? xml : "");
	snprintf(src_syn, sizeof(src_syn), "%s", synthetic ? synthetic : "");
}

/*
 * A foreign topology must be the one asked for: hwloc silently falls back to
 * this machine when a string does not parse, and may also load one named in
 * its own environment variables when the caller asked for none; refuse both.
 */
static int check_foreign(char *err, size_t errlen)
{
	const char *src = src_xml[0] ? "HWLOC_XMLFILE" : src_syn[0] ? "HWLOC_SYNTHETIC" : NULL;
	const char *val = src_xml[0] ? src_xml : src_syn;

	if (!src) {
		if (hwloc_topology_is_thissystem(topo))
			return 0;
		snprintf(err, errlen, "hwloc loaded another machine's topology (from its own environment variables); this program uses this machine's");
		return -1;
	}
	if (hwloc_topology_is_thissystem(topo)) {
		snprintf(err, errlen, "%s=%.200s: hwloc could not use it (malformed or inconsistent topology)",
			 src, val);
		return -1;
	}
	if (hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU) < 1 ||
	    hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) < 1) {
		snprintf(err, errlen, "%s=%.200s: inconsistent topology (no core or no PU)", src, val);
		return -1;
	}
	return 0;
}

bool rg_topo_foreign(void)
{
	return topo && !hwloc_topology_is_thissystem(topo);
}

int rg_topo_init(char *err, size_t errlen)
{
	int rc;

	if (topo)
		return 0;
	if (src_xml[0]) {
		/*
		 * The input policy before hwloc opens it: a FIFO would block
		 * hwloc's read and /dev/zero would never end.
		 */
		char why[256];
		int fd = rg_input_open(src_xml, RG_INPUT_MAX_BYTES, 0, why, sizeof(why));

		if (fd < 0) {
			snprintf(err, errlen, "HWLOC_XMLFILE=%.200s: %s", src_xml, why);
			return -1;
		}
		close(fd);
	}
	rc = hwloc_topology_init(&topo);
	if (!rc && src_xml[0])
		rc = hwloc_topology_set_xml(topo, src_xml);
	else if (!rc && src_syn[0])
		rc = hwloc_topology_set_synthetic(topo, src_syn);
	if (rc || hwloc_topology_load(topo)) {
		if (src_xml[0])
			snprintf(err, errlen, "HWLOC_XMLFILE=%s: hwloc cannot load it: %s", src_xml,
				 strerror(errno));
		else if (src_syn[0])
			snprintf(err, errlen, "HWLOC_SYNTHETIC=%.200s: hwloc cannot load it: %s", src_syn,
				 strerror(errno));
		else
			snprintf(err, errlen, "hwloc: cannot load the topology: %s", strerror(errno));
		if (topo)
			hwloc_topology_destroy(topo);
		topo = NULL;
		return -1;
	}
	if (check_foreign(err, errlen)) {
		hwloc_topology_destroy(topo);
		topo = NULL;
		return -1;
	}
	allowed = hwloc_bitmap_alloc();
	if (!allowed || hwloc_get_cpubind(topo, allowed, HWLOC_CPUBIND_PROCESS))
		hwloc_bitmap_copy(allowed, hwloc_topology_get_allowed_cpuset(topo));
	hwloc_bitmap_and(allowed, allowed, hwloc_topology_get_allowed_cpuset(topo));
	/*
	 * The same limit as --cpus (RG_MAX_CPUS): a PU numbered above it is
	 * neither planned nor placed, and --plan says how many were left out.
	 */
	pus_over_limit = 0;
	memset(pu_by_os, 0, sizeof(pu_by_os));
	for (hwloc_obj_t pu = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PU, NULL); pu;
	     pu = pu->next_cousin) {
		if (pu->os_index < RG_MAX_CPUS) {
			pu_by_os[pu->os_index] = pu;
		} else if (hwloc_bitmap_isset(allowed, pu->os_index)) {
			hwloc_bitmap_clr(allowed, pu->os_index);
			pus_over_limit++;
		}
	}
	if (hwloc_bitmap_iszero(allowed)) {
		if (pus_over_limit)
			snprintf(err, errlen, "no CPU of this topology is numbered below %d (the --cpus limit): %d left out",
				 RG_MAX_CPUS, pus_over_limit);
		else
			snprintf(err, errlen, "hwloc: no CPU is allowed to this process");
		rg_topo_fini();
		return -1;
	}
	return 0;
}

void rg_topo_fini(void)
{
	if (allowed)
		hwloc_bitmap_free(allowed);
	if (topo)
		hwloc_topology_destroy(topo);
	allowed = NULL;
	topo = NULL;
}

bool rg_topo_allowed(int cpu)
{
	return topo && cpu >= 0 && hwloc_bitmap_isset(allowed, (unsigned)cpu);
}

static int add_cpu(int *cpus, int n, int max, hwloc_bitmap_t done, unsigned os)
{
	if (n >= max || !hwloc_bitmap_isset(allowed, os) || hwloc_bitmap_isset(done, os))
		return n;
	hwloc_bitmap_set(done, os);
	cpus[n] = (int)os;
	return n + 1;
}

/*
 * pass 0: the first allowed PU of every core under `top`; pass 1: every other
 * PU under it. Linear in the topology: each walk goes once along the level's
 * cousin list, and a core's first allowed PU is a bitmap intersection.
 */
static int order_under(hwloc_obj_t top, int pass, int *cpus, int n, int max, hwloc_bitmap_t done,
		       hwloc_bitmap_t tmp)
{
	hwloc_obj_type_t t = pass == 1 ? HWLOC_OBJ_PU : HWLOC_OBJ_CORE;

	for (hwloc_obj_t o = hwloc_get_next_obj_inside_cpuset_by_type(topo, top->cpuset, t, NULL);
	     o && n < max; o = hwloc_get_next_obj_inside_cpuset_by_type(topo, top->cpuset, t, o)) {
		int first;

		if (pass == 1) {
			n = add_cpu(cpus, n, max, done, o->os_index);
			continue;
		}
		hwloc_bitmap_and(tmp, o->cpuset, allowed);
		first = hwloc_bitmap_first(tmp);
		if (first >= 0)
			n = add_cpu(cpus, n, max, done, (unsigned)first);
	}
	return n;
}

int rg_topo_order(int *cpus, int max)
{
	hwloc_bitmap_t done = hwloc_bitmap_alloc(), tmp = hwloc_bitmap_alloc();
	int n = 0, npkg;
	unsigned os;

	if (!topo || !done || !tmp) {
		hwloc_bitmap_free(done);
		hwloc_bitmap_free(tmp);
		return 0;
	}
	npkg = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
	/* Pass 0: one PU per core, package by package; pass 1: the SMT siblings, same order. */
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < npkg; i++) {
			hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, (unsigned)i);
			int nnuma = hwloc_bitmap_weight(pkg->nodeset) > 1 ?
				hwloc_get_nbobjs_inside_cpuset_by_type(topo, pkg->cpuset, HWLOC_OBJ_NUMANODE) : 0;

			/* A package split in NUMA nodes: fill one node before the next. */
			for (int j = 0; j < nnuma; j++) {
				hwloc_obj_t node = hwloc_get_obj_inside_cpuset_by_type(topo, pkg->cpuset,
										       HWLOC_OBJ_NUMANODE, (unsigned)j);
				if (node && node->cpuset)
					n = order_under(node, pass, cpus, n, max, done, tmp);
			}
			n = order_under(pkg, pass, cpus, n, max, done, tmp);
		}
	}
	/* PUs outside any package (unusual topologies): in OS order. */
	hwloc_bitmap_foreach_begin(os, allowed)
		n = add_cpu(cpus, n, max, done, os);
	hwloc_bitmap_foreach_end();
	hwloc_bitmap_free(done);
	hwloc_bitmap_free(tmp);
	return n;
}

int rg_topo_where(int cpu, struct rg_topo_where *w)
{
	hwloc_obj_t pu, o;

	memset(w, 0, sizeof(*w));
	w->package = w->numa = w->core = -1;
	if (!topo || cpu < 0 || cpu >= RG_MAX_CPUS)
		return -1;
	pu = pu_by_os[cpu];
	if (!pu)
		return -1;
	o = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu);
	w->package = o ? (int)o->logical_index : -1;
	o = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
	w->core = o ? (int)o->logical_index : -1;
	if (o)
		w->smt = hwloc_bitmap_weight(o->cpuset) > 1 &&	/* a core's PUs are its cpuset */
			 hwloc_bitmap_first(o->cpuset) != cpu;
	for (o = pu->parent; o; o = o->parent) {
		if (o->memory_arity) {
			w->numa = (int)o->memory_first_child->logical_index;
			break;
		}
	}
	return 0;
}

int rg_topo_count(int what)
{
	hwloc_obj_type_t t = what == 0 ? HWLOC_OBJ_PACKAGE : what == 1 ? HWLOC_OBJ_NUMANODE :
			     what == 2 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
	int n = topo ? hwloc_get_nbobjs_by_type(topo, t) : 0;

	return n < 0 ? 0 : n;
}

static int count(hwloc_obj_type_t t)
{
	int n = hwloc_get_nbobjs_by_type(topo, t);

	return n < 0 ? 0 : n;
}

void rg_topo_describe(char *buf, size_t len)
{
	size_t off;

	if (!topo) {
		snprintf(buf, len, "topology unknown");
		return;
	}
	off = (size_t)snprintf(buf, len, "%d package(s), %d core(s), %d PU(s), %d NUMA node(s), %d allowed",
			       count(HWLOC_OBJ_PACKAGE), count(HWLOC_OBJ_CORE), count(HWLOC_OBJ_PU),
			       count(HWLOC_OBJ_NUMANODE), hwloc_bitmap_weight(allowed));
	if (pus_over_limit && off < len)
		off += (size_t)snprintf(buf + off, len - off,
					" (%d PU(s) numbered %d or more left out: the --cpus limit)",
					pus_over_limit, RG_MAX_CPUS);
	for (int lvl = 1; lvl <= 3 && off < len; lvl++) {
		hwloc_obj_type_t t = lvl == 1 ? HWLOC_OBJ_L1CACHE : lvl == 2 ? HWLOC_OBJ_L2CACHE
									   : HWLOC_OBJ_L3CACHE;
		hwloc_obj_t c = hwloc_get_obj_by_type(topo, t, 0);

		if (c && c->attr)
			off += (size_t)snprintf(buf + off, len - off, "%s L%d %lluKB",
						lvl == 1 ? ";" : ",", lvl,
						(unsigned long long)c->attr->cache.size / 1024);
	}
}

int rg_topo_pin_self(int cpu, char *err, size_t errlen)
{
	hwloc_bitmap_t want, got;
	int rc = -1, now;

	if (!rg_topo_allowed(cpu)) {
		snprintf(err, errlen, "CPU %d is not available to this process", cpu);
		return -1;
	}
	want = hwloc_bitmap_alloc();
	got = hwloc_bitmap_alloc();
	if (!want || !got) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	hwloc_bitmap_only(want, (unsigned)cpu);
	if (hwloc_set_cpubind(topo, want, HWLOC_CPUBIND_THREAD)) {
		snprintf(err, errlen, "hwloc_set_cpubind(CPU %d): %s", cpu, strerror(errno));
		goto out;
	}
	if (hwloc_get_cpubind(topo, got, HWLOC_CPUBIND_THREAD) || !hwloc_bitmap_isequal(want, got)) {
		snprintf(err, errlen, "hwloc_get_cpubind: binding to CPU %d did not stick", cpu);
		goto out;
	}
	now = sched_getcpu();
	if (now != cpu) {
		snprintf(err, errlen, "pinned to CPU %d but sched_getcpu() says %d", cpu, now);
		goto out;
	}
	rc = 0;
out:
	hwloc_bitmap_free(want);
	hwloc_bitmap_free(got);
	return rc;
}

void rg_topo_unpin_self(void)
{
	if (topo)
		hwloc_set_cpubind(topo, allowed, HWLOC_CPUBIND_THREAD);
}

void *rg_topo_alloc_other_package(int cpu, size_t len, int *node, bool any_node)
{
	struct rg_topo_where w;
	int nn = topo ? hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE) : 0;

	if (rg_topo_where(cpu, &w))
		return NULL;
	for (int i = 0; i < nn; i++) {
		hwloc_obj_t n = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)i);
		hwloc_obj_t pkg = n ? hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, n) : NULL;
		void *p;

		if (!n || (!any_node && (!pkg || (int)pkg->logical_index == w.package)))
			continue;
		p = hwloc_alloc_membind(topo, len, n->nodeset, HWLOC_MEMBIND_BIND,
					HWLOC_MEMBIND_BYNODESET | HWLOC_MEMBIND_STRICT);
		if (p) {
			*node = (int)n->os_index;
			return p;
		}
	}
	return NULL;
}

void rg_topo_free_mem(void *p, size_t len)
{
	if (topo && p)
		hwloc_free(topo, p, len);
}
