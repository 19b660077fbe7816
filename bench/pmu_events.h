/* SPDX-License-Identifier: MIT */
/* Discovery of named core-PMU events from sysfs ({type, config} from the PMU's own event list). */
#ifndef RG_BENCH_PMU_EVENTS_H
#define RG_BENCH_PMU_EVENTS_H

#include <stddef.h>
#include <stdint.h>

/* The events the `events` column asks for, in this order (arm64 names). */
#define RG_PMU_WANTED "mem_access,ll_cache_miss_rd,l1d_cache_refill,bus_access"
#define RG_PMU_MAX_EVENTS 8

struct rg_pmu_event {
	char name[48];
	uint32_t type;				/* .../devices/<pmu>/type */
	uint64_t config, config1, config2;	/* encoded through .../format/<field> */
};

struct rg_pmu_events {
	char pmu[64];			/* the core PMU chosen; "" when none */
	size_t n;
	struct rg_pmu_event ev[RG_PMU_MAX_EVENTS];
	char why[480];			/* n == 0: "n/a: ..."; n > 0: events skipped, or "" */
};

/*
 * Find the core PMU under root + "/sys/bus/event_source/devices" ("cpu",
 * "cpu_core", or the first "armv8_*" in name order) and encode every event of
 * the comma-separated wanted list that it offers in events/<name>, with the
 * bit ranges of format/<field>. Events the PMU lacks are left out; events it
 * offers but that cannot be encoded are left out and named in why.
 * Returns out->n (0: why says "n/a: <reason>").
 */
size_t rg_pmu_discover(const char *root, const char *wanted, struct rg_pmu_events *out);

/*
 * Parse one format file's text ("config:0-7", "config1:0-15,32-35", "config:9")
 * and place value into the matching config word. 0, or -1 with why set
 * (garbled, or value does not fit the bits).
 */
int rg_pmu_apply_format(const char *format, uint64_t value, uint64_t cfg[3],
			char *why, size_t whylen);

/* "name=1.234;name2=0.000" (values per pair, %.3f) into buf. */
void rg_pmu_format_values(const struct rg_pmu_events *e, const double *per_pair,
			  char *buf, size_t size);

#endif /* RG_BENCH_PMU_EVENTS_H */
