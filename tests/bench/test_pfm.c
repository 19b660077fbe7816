// SPDX-License-Identifier: MIT
/* The libpfm4 event lists without hardware: LIBPFM_FORCE_PMU (set by the test) names the table; every listed event resolves to the config the vendor documents, and an unknown name is one line naming the table and the closest names. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmu_pfm.h"
#include "check.h"

/*
 * The perf config (PERF_TYPE_RAW) of each listed event, from the vendors'
 * documentation as libpfm4's tables restate it: Intel event | umask << 8
 * (SDM vol. 3B: LD_BLOCKS.STORE_FORWARD 03H/02H, MACHINE_CLEARS.MEMORY_ORDERING
 * C3H/02H, MEM_INST_RETIRED.LOCK_LOADS D0H/21H); AMD PMCx | umask << 8 (PPR
 * family 19h: PMCx035 LsSTLF, PMCx024 LsBadStatus2 StliOther 0x02, PMCx029
 * LsDispatch LdStDispatch 0x04, PMCx025 LsLocks BusLock 0x01); Arm the common
 * event numbers (Arm ARM D17: STALL_BACKEND_MEM 0x4005, L1D_CACHE 0x04,
 * BUS_ACCESS 0x19, LDREX_SPEC 0x6C).
 */
static const struct { const char *table, *name; unsigned long long config; } want[] = {
	{ "icl", "LD_BLOCKS:STORE_FORWARD", 0x0203 },
	{ "icl", "MACHINE_CLEARS:MEMORY_ORDERING", 0x02c3 },
	{ "icl", "MEM_INST_RETIRED:LOCK_LOADS", 0x21d0 },
	{ "amd64_fam19h_zen3", "STORE_TO_LOAD_FORWARD", 0x035 },
	{ "amd64_fam19h_zen3", "BAD_STATUS_2:STLI_OTHER", 0x224 },
	{ "amd64_fam19h_zen3", "LS_DISPATCH:LD_ST_DISPATCH", 0x429 },
	{ "amd64_fam19h_zen3", "RETIRED_LOCK_INSTRUCTIONS:BUS_LOCK", 0x125 },
	{ "arm_v2", "STALL_BACKEND_MEM", 0x4005 },
	{ "arm_v2", "L1D_CACHE", 0x04 },
	{ "arm_v2", "BUS_ACCESS", 0x19 },
	{ "arm_v2", "LDREX_SPEC", 0x6c },
};

int main(void)
{
	const char *table = getenv("LIBPFM_FORCE_PMU");
	struct rg_pmu_events ev;
	char why[600], head[128];
	size_t checked = 0;
	int rc;

	if (!RG_HAVE_LIBPFM) {
		printf("skipped: libpfm4 not built in\n");
		return 77;
	}
	if (!table || !rg_pfm_list_of(table)) {
		fprintf(stderr, "test_pfm: LIBPFM_FORCE_PMU must name a table with a list (%s)\n",
			table ? table : "unset");
		return 1;
	}
	/* the table's own list, for the CPU libpfm4 was told it runs on */
	rc = rg_pfm_resolve(NULL, &ev, why, sizeof(why));
	CHECK(rc == 0, "%s: resolve: %d %s", table, rc, why);
	snprintf(head, sizeof(head), "libpfm4 %s", table);
	CHECK(!strcmp(ev.pmu, head), "pmu '%s', want '%s'", ev.pmu, head);
	for (size_t i = 0; rc == 0 && i < ev.n; i++) {
		bool found = false;

		CHECK(ev.ev[i].type == 4, "%s: type %u, want PERF_TYPE_RAW", ev.ev[i].name, ev.ev[i].type);
		for (size_t k = 0; k < ARRAY_SIZE(want); k++) {
			if (strcmp(want[k].table, table) || strcmp(want[k].name, ev.ev[i].name))
				continue;
			found = true;
			CHECK(ev.ev[i].config == want[k].config, "%s %s: config 0x%llx, documented 0x%llx",
			      table, ev.ev[i].name, (unsigned long long)ev.ev[i].config, want[k].config);
			checked++;
		}
		CHECK(found, "%s: %s has no documented config in this test", table, ev.ev[i].name);
		printf("%s %s: config 0x%llx\n", table, ev.ev[i].name, (unsigned long long)ev.ev[i].config);
	}
	for (size_t k = 0; k < ARRAY_SIZE(want); k++)
		if (!strcmp(want[k].table, table))
			CHECK(strstr(rg_pfm_list_of(table), want[k].name), "%s: %s left the list", table,
			      want[k].name);
	/* --events names: one of the list alone, then a misspelt one */
	snprintf(head, sizeof(head), "%s", ev.n ? ev.ev[0].name : "x");
	rc = rg_pfm_resolve(head, &ev, why, sizeof(why));
	CHECK(rc == 0 && ev.n == 1, "%s: one named event: %d %s", table, rc, why);
	rc = rg_pfm_resolve("L1D_CACHE_RFILL,NO_SUCH_EVENT_XYZ", &ev, why, sizeof(why));
	snprintf(head, sizeof(head), "--events: 'L1D_CACHE_RFILL' is not an event of PMU table %s (", table);
	CHECK(rc == -1 && strstr(why, head) == why, "%s", why);
	CHECK(strstr(why, "; closest: ") && !strchr(why, '\n'), "one line with the closest names: %s", why);
	printf("unknown name: %s\n", why);
	/* a misspelt umask: the closest names are EVENT:UMASK */
	if (!strcmp(table, "icl")) {
		rg_pfm_resolve("LD_BLOCKS:STORE_FORWRD", &ev, why, sizeof(why));
		CHECK(strstr(why, "closest: LD_BLOCKS:STORE_FORWARD"), "%s", why);
	}
	if (!strcmp(table, "arm_v2")) {
		rg_pfm_resolve("L1D_CACHE_RFILL", &ev, why, sizeof(why));
		CHECK(strstr(why, "closest: L1D_CACHE_REFILL"), "%s", why);
	}
	printf("%zu events of %s at their documented config\n", checked, table);
	return rg_test_done("test_pfm");
}
