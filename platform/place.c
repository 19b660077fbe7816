// SPDX-License-Identifier: MIT
/* CPU placement (rg/place.h): hwloc's placement order and verified pinning, or the affinity mask without hwloc. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rg/place.h"
#if RG_HAVE_HWLOC
#include "rg/platform.h"
#endif

/* The CPUs this process may use, in hwloc's placement order; 0 without hwloc or when it fails. */
static int hwloc_order(struct rg_place *p)
{
#if RG_HAVE_HWLOC
	char terr[256];
	int n;

	if (rg_topo_init(terr, sizeof(terr)))
		return 0;
	n = rg_topo_order(p->cpu, RG_MAX_CPUS);
	if (n > 0)
		p->how = "hwloc";
	return n > 0 ? n : 0;
#else
	(void)p;
	return 0;
#endif
}

/* The affinity mask in CPU order: the fallback, and the only order without hwloc. */
static int affinity_order(struct rg_place *p)
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set)) {
		p->how = "none";
		return 0;
	}
	p->how = "affinity";
	for (int c = 0; c < CPU_SETSIZE && n < RG_MAX_CPUS; c++)
		if (CPU_ISSET(c, &set))
			p->cpu[n++] = c;
	return n;
}

int rg_place_init(struct rg_place *p, const int *want, int nwant, char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	p->ncpus = hwloc_order(p);
	if (!p->ncpus)
		p->ncpus = affinity_order(p);
	if (nwant <= 0)
		return 0;
	for (int i = 0; i < nwant; i++) {
		bool ok = false;

		for (int j = 0; j < p->ncpus && !ok; j++)
			ok = p->cpu[j] == want[i];
		if (!ok) {
			snprintf(err, errlen, "CPU %d is not available (allowed: %d CPU(s), "
				 "see rgbench --list)", want[i], p->ncpus);
			return -1;
		}
	}
	memcpy(p->cpu, want, (size_t)nwant * sizeof(int));
	p->ncpus = nwant;
	return 0;
}

int rg_place_cpu(const struct rg_place *p, int idx)
{
	return p->ncpus ? p->cpu[idx % p->ncpus] : -1;
}

int rg_place_pin_self(const struct rg_place *p, int idx, char *err, size_t errlen)
{
	char local[256];
	cpu_set_t set;
	int cpu = rg_place_cpu(p, idx), rc;

	if (!err) {
		err = local;
		errlen = sizeof(local);
	}
	if (cpu < 0) {
		snprintf(err, errlen, "no CPU to pin to");
		return -1;
	}
#if RG_HAVE_HWLOC
	if (!strcmp(p->how, "hwloc"))
		return rg_topo_pin_self(cpu, err, errlen);
#endif
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (rc) {
		snprintf(err, errlen, "pthread_setaffinity_np(CPU %d): %s", cpu, strerror(rc));
		return -1;
	}
	return 0;
}
