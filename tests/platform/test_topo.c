// SPDX-License-Identifier: MIT
/* hwloc placement order covers exactly the allowed CPUs once each, and pinning is verified on each. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "rg/platform.h"

int main(void)
{
	static int order[RG_MAX_CPUS];
	cpu_set_t set;
	char err[256];
	int n, failures = 0, allowed;

	if (sched_getaffinity(0, sizeof(set), &set)) {
		perror("sched_getaffinity");
		return 1;
	}
	allowed = CPU_COUNT(&set);
	if (rg_topo_init(err, sizeof(err))) {
		fprintf(stderr, "rg_topo_init: %s\n", err);
		return 1;
	}
	n = rg_topo_order(order, RG_MAX_CPUS);
	if (n != allowed) {
		fprintf(stderr, "order has %d CPUs, affinity mask %d\n", n, allowed);
		failures++;
	}
	for (int i = 0; i < n; i++) {
		if (!CPU_ISSET(order[i], &set)) {
			fprintf(stderr, "CPU %d in the order is not allowed\n", order[i]);
			failures++;
		}
		for (int j = 0; j < i; j++)
			if (order[j] == order[i]) {
				fprintf(stderr, "CPU %d listed twice\n", order[i]);
				failures++;
			}
		if (rg_topo_pin_self(order[i], err, sizeof(err))) {
			fprintf(stderr, "pin %d: %s\n", order[i], err);
			failures++;
		} else if (sched_getcpu() != order[i]) {
			fprintf(stderr, "pinned to %d, running on %d\n", order[i], sched_getcpu());
			failures++;
		}
	}
	if (rg_topo_pin_self(RG_MAX_CPUS + 5, err, sizeof(err)) == 0 || !strstr(err, "not available")) {
		fprintf(stderr, "pinning to a missing CPU did not fail cleanly: %s\n", err);
		failures++;
	}
	rg_topo_unpin_self();
	if (sched_getaffinity(0, sizeof(set), &set) || CPU_COUNT(&set) != allowed) {
		fprintf(stderr, "unpin did not restore %d CPUs\n", allowed);
		failures++;
	}
	rg_topo_fini();
	if (failures)
		return 1;
	printf("test_topo: %d CPUs in placement order, each pinned and verified\n", n);
	return 0;
}
