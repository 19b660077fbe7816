// SPDX-License-Identifier: MIT
/* PMU event discovery on fake sysfs trees: exact {type, config} encodings and the n/a reasons. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmu_events.h"

#include "check.h"

#define CHECK_STR(a, b) CHECK(!strcmp((a), (b)), "%s = '%s', expected '%s'", #a, (a), (b))

static char root[256];

/* Write root/sys/bus/event_source/devices/<rel> holding text (dirs created). */
static void put(const char *rel, const char *text)
{
	char path[512];

	snprintf(path, sizeof(path), "sys/bus/event_source/devices/%s", rel);
	rg_test_put_file(root, path, text, strlen(text));
}

static void fresh_root(void)
{
	rg_test_fresh_dir(root, sizeof(root), "/tmp/rg-pmu-test.XXXXXX");
}

static const struct rg_pmu_event *find(const struct rg_pmu_events *e, const char *name)
{
	for (size_t i = 0; i < e->n; i++)
		if (!strcmp(e->ev[i].name, name))
			return &e->ev[i];
	return NULL;
}

static void test_format(void)
{
	uint64_t cfg[3] = { 0, 0, 0 };
	char why[128];

	CHECK(rg_pmu_apply_format("config:0-15", 0x13, cfg, why, sizeof(why)) == 0, "%s", why);
	CHECK_EQ(cfg[0], 0x13);
	/* A split range: the low 8 value bits go to 0-7, the next 4 to 32-35. */
	memset(cfg, 0, sizeof(cfg));
	CHECK(rg_pmu_apply_format("config:0-7,32-35", 0xabc, cfg, why, sizeof(why)) == 0, "%s", why);
	CHECK_EQ(cfg[0], 0xbc | (0xaull << 32));
	memset(cfg, 0, sizeof(cfg));
	CHECK(rg_pmu_apply_format("config1:9", 1, cfg, why, sizeof(why)) == 0, "%s", why);
	CHECK_EQ(cfg[1], 1u << 9);
	CHECK_EQ(cfg[0], 0);
	CHECK(rg_pmu_apply_format("config2:0-63", ~0ull, cfg, why, sizeof(why)) == 0, "%s", why);
	CHECK_EQ(cfg[2], ~0ull);
	/* Too big for the field, and garbled formats. */
	CHECK(rg_pmu_apply_format("config:0-7", 0x100, cfg, why, sizeof(why)) == -1, "fits?");
	CHECK_STR(why, "value 0x100 does not fit in 8 bits (config:0-7)");
	static const char *const bad[] = { "config", "config:", "config:7-0", "config:0-64",
		"configx:0-7", "config:a-b", "config:0-7,", "config:0-7,4", "config:0-7 junk",
		"period:0-7", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(rg_pmu_apply_format(bad[i], 1, cfg, why, sizeof(why)) == -1, "'%s' accepted", bad[i]);
		CHECK(strstr(why, "is not <config|config1|config2>:<bits>"), "'%s': %s", bad[i], why);
	}
}

static void test_arm64(void)
{
	struct rg_pmu_events e;

	fresh_root();
	/* Other PMUs beside the core one must be ignored. */
	put("software/type", "1\n");
	put("armv8_pmuv3_0/type", "8\n");
	put("armv8_pmuv3_0/format/event", "config:0-15\n");
	put("armv8_pmuv3_0/format/long", "config1:0\n");
	put("armv8_pmuv3_0/events/mem_access", "event=0x13\n");
	put("armv8_pmuv3_0/events/ll_cache_miss_rd", "event=0x37\n");
	put("armv8_pmuv3_0/events/l1d_cache_refill", "event=0x03\n");
	put("armv8_pmuv3_0/events/cpu_cycles", "event=0x11\n");
	CHECK(rg_pmu_discover(root, RG_PMU_WANTED, &e) == 3, "n = %zu (%s)", e.n, e.why);
	CHECK_STR(e.pmu, "armv8_pmuv3_0");
	CHECK_STR(e.why, "");
	/* In the wanted order; bus_access is not offered, cpu_cycles not wanted. */
	CHECK_STR(e.ev[0].name, "mem_access");
	CHECK_STR(e.ev[1].name, "ll_cache_miss_rd");
	CHECK_STR(e.ev[2].name, "l1d_cache_refill");
	for (size_t i = 0; i < e.n; i++) {
		CHECK_EQ(e.ev[i].type, 8);
		CHECK_EQ(e.ev[i].config1, 0);
		CHECK_EQ(e.ev[i].config2, 0);
	}
	CHECK_EQ(e.ev[0].config, 0x13);
	CHECK_EQ(e.ev[1].config, 0x37);
	CHECK_EQ(e.ev[2].config, 0x03);

	double v[3] = { 2.0104, 0.0001, 1.5 };
	char buf[256];

	rg_pmu_format_values(&e, v, buf, sizeof(buf));
	CHECK_STR(buf, "mem_access=2.010;ll_cache_miss_rd=0.000;l1d_cache_refill=1.500");

	/* Several fields, a bare flag, config1; one event that cannot be encoded. */
	put("armv8_pmuv3_0/format/umask", "config:16-23\n");
	put("armv8_pmuv3_0/events/bus_access", "event=0x19,umask=0x2,long\n");
	put("armv8_pmuv3_0/events/l1d_cache_refill", "event=0x03,edge=1\n");
	CHECK(rg_pmu_discover(root, RG_PMU_WANTED, &e) == 3, "n = %zu (%s)", e.n, e.why);
	CHECK(find(&e, "l1d_cache_refill") == NULL, "unencodable event kept");
	CHECK(find(&e, "bus_access") != NULL, "bus_access missing");
	if (find(&e, "bus_access")) {
		CHECK_EQ(find(&e, "bus_access")->config, 0x20019);
		CHECK_EQ(find(&e, "bus_access")->config1, 1);
	}
	CHECK_STR(e.why, "l1d_cache_refill: field edge: no format/edge (ENOENT)");

	/* Garbled event texts: every one is skipped with its reason. */
	put("armv8_pmuv3_0/events/mem_access", "event=zz\n");
	put("armv8_pmuv3_0/events/ll_cache_miss_rd", "event=?\n");
	put("armv8_pmuv3_0/events/bus_access", "event=0x1ffff\n");
	put("armv8_pmuv3_0/events/l1d_cache_refill", "event=0x3,,umask=1\n");
	CHECK(rg_pmu_discover(root, RG_PMU_WANTED, &e) == 0, "n = %zu", e.n);
	CHECK_STR(e.why, "n/a: PMU armv8_pmuv3_0: mem_access: field event: value 'zz' is not a number; "
		  "ll_cache_miss_rd: field event: value '?' is not a number (event takes a parameter); "
		  "l1d_cache_refill: event text 'event=0x3,,umask=1' has an empty term; "
		  "bus_access: value 0x1ffff does not fit in 16 bits (config:0-15)");

	/* A garbled or missing type file. */
	put("armv8_pmuv3_0/type", "eight\n");
	CHECK(rg_pmu_discover(root, RG_PMU_WANTED, &e) == 0, "n = %zu", e.n);
	CHECK_STR(e.why, "n/a: PMU armv8_pmuv3_0: type 'eight' is not a number");
	put("armv8_pmuv3_0/type", "");
	CHECK(rg_pmu_discover(root, RG_PMU_WANTED, &e) == 0, "n = %zu", e.n);
	CHECK_STR(e.why, "n/a: PMU armv8_pmuv3_0: type '' is not a number");
	char path[512];

	snprintf(path, sizeof(path), "%s/sys/bus/event_source/devices/armv8_pmuv3_0/type", root);
	CHECK(unlink(path) == 0, "unlink");
	CHECK(rg_pmu_discover(root, RG_PMU_WANTED, &e) == 0, "n = %zu", e.n);
	CHECK_STR(e.why, "n/a: PMU armv8_pmuv3_0: cannot read type (ENOENT)");
}

static void test_x86_and_none(void)
{
	struct rg_pmu_events e;
	char want[600];

	/* x86's cpu PMU: none of the arm64 names, but its own names are found. */
	fresh_root();
	put("cpu/type", "4\n");
	put("cpu/format/event", "config:0-7\n");
	put("cpu/format/umask", "config:8-15\n");
	put("cpu/events/cache-misses", "event=0x2e,umask=0x41\n");
	put("armv8_pmuv3_0/type", "8\n");	/* cpu wins over armv8_* */
	CHECK(rg_pmu_discover(root, RG_PMU_WANTED, &e) == 0, "n = %zu", e.n);
	CHECK_STR(e.why, "n/a: PMU cpu offers none of " RG_PMU_WANTED);
	CHECK(rg_pmu_discover(root, "mem_access,cache-misses", &e) == 1, "n = %zu (%s)", e.n, e.why);
	CHECK_STR(e.ev[0].name, "cache-misses");
	CHECK_EQ(e.ev[0].type, 4);
	CHECK_EQ(e.ev[0].config, 0x412e);

	/* No core PMU at all (this VM: software, msr, tracepoint ...), and no tree. */
	fresh_root();
	put("software/type", "1\n");
	put("msr/type", "9\n");
	CHECK(rg_pmu_discover(root, RG_PMU_WANTED, &e) == 0, "n = %zu", e.n);
	snprintf(want, sizeof(want), "n/a: no hardware PMU (no cpu or armv8_* in %s/sys/bus/event_source/devices)", root);
	CHECK_STR(e.why, want);
	CHECK(rg_pmu_discover("/nonexistent-rg", RG_PMU_WANTED, &e) == 0, "n = %zu", e.n);
	CHECK(!strncmp(e.why, "n/a: no hardware PMU", 20), "%s", e.why);
}

/* The input policy: a FIFO where a sysfs file should be is refused at once, not read. */
static void test_fifo(void)
{
	struct rg_pmu_events e;
	char path[512];

	fresh_root();
	put("cpu/type", "4\n");
	put("cpu/format/event", "config:0-7\n");
	put("cpu/events/cycles", "event=0x3c\n");
	snprintf(path, sizeof(path), "%s/sys/bus/event_source/devices/cpu/events/cache-misses", root);
	CHECK(mkfifo(path, 0600) == 0, "mkfifo");
	alarm(20);	/* a blocking open or read fails the test instead of hanging it */
	CHECK(rg_pmu_discover(root, "cache-misses", &e) == 0, "n = %zu", e.n);
	CHECK_STR(e.why, "n/a: PMU cpu: cache-misses: EINVAL");
	CHECK(rg_pmu_discover(root, "cache-misses,cycles", &e) == 1, "n = %zu (%s)", e.n, e.why);
	CHECK_STR(e.why, "cache-misses: EINVAL");
	snprintf(path, sizeof(path), "%s/sys/bus/event_source/devices/cpu/type", root);
	CHECK(unlink(path) == 0 && mkfifo(path, 0600) == 0, "mkfifo type");
	CHECK(rg_pmu_discover(root, "cycles", &e) == 0, "n = %zu", e.n);
	CHECK_STR(e.why, "n/a: PMU cpu: cannot read type (EINVAL)");
	alarm(0);
}

int main(void)
{
	test_format();
	test_arm64();
	test_x86_and_none();
	test_fifo();
	if (rg_test_rm_tree(root))
		rg_test_failures++;
	return rg_test_done("test_pmu_events");
}
