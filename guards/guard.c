// SPDX-License-Identifier: MIT
/* Allocation of the per-CPU guard slots and the shared counter. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rg/guard.h"

#define RG_SLOT_PAGE 4096

/* A guard's own state (a TLS depth, a fixed word) lives in its header, not here. */

int rg_guard_init(struct rg_guard *g, size_t stride)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	size_t bytes;

	memset(g, 0, sizeof(*g));
	if (n < 1)
		n = 1;
	if (!stride)
		stride = RG_CACHELINE;
	if (stride < sizeof(uint32_t) || (stride & (stride - 1)))
		return -EINVAL;
	g->ncpus = (unsigned int)n;
	g->stride = stride;
	bytes = (size_t)n * stride;
	/*
	 * Page aligned and whole pages: the slots start at the same offset in
	 * their page in every process and for every guard, whatever was
	 * allocated before (docs/bench.md, "Runs": 4 KiB aliasing with the stack).
	 */
	bytes = (bytes + RG_SLOT_PAGE - 1) / RG_SLOT_PAGE * RG_SLOT_PAGE;
	g->pcpu = aligned_alloc(RG_SLOT_PAGE, bytes);
	g->global = aligned_alloc(RG_CACHELINE, RG_CACHELINE);
	if (!g->pcpu || !g->global) {
		rg_guard_fini(g);
		return -ENOMEM;
	}
	memset(g->pcpu, 0, bytes);
	g->off = (uintptr_t)g->pcpu;
	g->shift = (unsigned int)__builtin_ctzl(stride);
	memset(g->global, 0, RG_CACHELINE);
	return 0;
}

void rg_guard_fini(struct rg_guard *g)
{
	free(g->pcpu);
	free(g->global);
	g->pcpu = NULL;
	g->global = NULL;
}
