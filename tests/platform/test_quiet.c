// SPDX-License-Identifier: MIT
/* rg_place_quiet() on fake sysfs/procfs trees: isolated, nohz_full, interrupt counts, CPU 0 last, one CPU, the exact order and why. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rg/place.h"
#include "../check.h"

static char root[256];

static void put(const char *rel, const char *text)
{
	char path[512], dir[512];
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/sys", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/sys/devices", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/sys/devices/system", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/sys/devices/system/cpu", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/proc", root);
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

static void drop(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	unlink(path);
}

/* A /proc/interrupts of 4 CPUs: device lines, per-CPU lines, and ERR/MIS with one count. */
static const char irq4[] =
	"           CPU0       CPU1       CPU2       CPU3       \n"
	"  0:         40          0          0          0   IO-APIC   2-edge      timer\n"
	" 24:       1000          5        300         10   PCI-MSIX  virtio0-req.0\n"
	"LOC:       5000        100        200         50   Local timer interrupts\n"
	"RES:         10          0          0          0   Rescheduling interrupts\n"
	"ERR:          7\n"
	"MIS:          0\n";
/* CPU totals: 0: 6050, 1: 105, 2: 500, 3: 60. */

static void expect(const char *what, const int *in, int n, const bool *smt, const int *pkg,
		   const int *want, const char *want_why)
{
	int cpus[RG_MAX_CPUS];
	char why[128];

	memcpy(cpus, in, (size_t)n * sizeof(int));
	memset(why, 'x', sizeof(why));
	rg_place_quiet(cpus, n, smt, pkg, root, why, sizeof(why));
	for (int i = 0; i < n; i++)
		CHECK(cpus[i] == want[i], "%s: position %d is CPU %d, want %d", what, i, cpus[i], want[i]);
	CHECK(!strcmp(why, want_why), "%s: why \"%s\", want \"%s\"", what, why, want_why);
}

int main(void)
{
	const int four[] = { 0, 1, 2, 3 };

	snprintf(root, sizeof(root), "/tmp/rg-quiet-XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	/* Interrupts only: fewest first, CPU 0 (the busiest here) last. */
	put("proc/interrupts", irq4);
	expect("interrupts only", four, 4, NULL, NULL, (const int[]){ 3, 1, 2, 0 },
	       "none isolated or nohz_full; CPU 0 last, the others by fewest interrupts (CPU 3: 60, CPU 1: 105, ...)");
	/* CPU 0 the quietest: still last when another CPU is free. */
	put("proc/interrupts",
	    "           CPU0       CPU1       CPU2\n"
	    "LOC:          1       2000        800   Local timer interrupts\n");
	expect("CPU 0 quietest", (const int[]){ 0, 1, 2 }, 3, NULL, NULL, (const int[]){ 2, 1, 0 },
	       "none isolated or nohz_full; CPU 0 last, the others by fewest interrupts (CPU 2: 800, CPU 1: 2000, ...)");
	/* Empty isolated and "(null)" nohz_full (what kernels without them show): none. */
	put("proc/interrupts", irq4);
	put("sys/devices/system/cpu/isolated", "\n");
	put("sys/devices/system/cpu/nohz_full", "(null)\n");
	expect("empty files", four, 4, NULL, NULL, (const int[]){ 3, 1, 2, 0 },
	       "none isolated or nohz_full; CPU 0 last, the others by fewest interrupts (CPU 3: 60, CPU 1: 105, ...)");
	/* Isolated CPUs first (in the topology's order), then the others by interrupts. */
	put("sys/devices/system/cpu/isolated", "1-2\n");
	expect("isolated", four, 4, NULL, NULL, (const int[]){ 1, 2, 3, 0 },
	       "isolated first (1-2); then CPU 0 last, the others by fewest interrupts (CPU 3: 60, CPU 0: 6050)");
	/* nohz_full alone. */
	drop("sys/devices/system/cpu/isolated");
	put("sys/devices/system/cpu/nohz_full", "2\n");
	expect("nohz_full", four, 4, NULL, NULL, (const int[]){ 2, 3, 1, 0 },
	       "nohz_full first (2); then CPU 0 last, the others by fewest interrupts (CPU 3: 60, CPU 1: 105, ...)");
	/* Both: isolated, then nohz_full, then the rest. */
	put("sys/devices/system/cpu/isolated", "3\n");
	put("sys/devices/system/cpu/nohz_full", "1-3\n");
	expect("isolated and nohz_full", four, 4, NULL, NULL, (const int[]){ 3, 1, 2, 0 },
	       "isolated first (3), then nohz_full (1-3); then CPU 0 last, the others by fewest interrupts (CPU 0: 6050)");
	/* Every CPU isolated: no "then", CPU 0 still last. */
	put("sys/devices/system/cpu/isolated", "0-3\n");
	expect("all isolated", four, 4, NULL, NULL, (const int[]){ 1, 2, 3, 0 },
	       "isolated first (0-3), then nohz_full (1-3)");
	drop("sys/devices/system/cpu/isolated");
	drop("sys/devices/system/cpu/nohz_full");
	/* Topology: cores before SMT siblings (2 and 3 are 0's and 1's), whatever the interrupts. */
	expect("smt", four, 4, (const bool[]){ false, false, true, true }, NULL,
	       (const int[]){ 1, 0, 3, 2 },
	       "none isolated or nohz_full; CPU 0 last, the others by fewest interrupts (CPU 1: 105, CPU 0: 6050, ...)");
	/* Package by package (0-1, 2-3), CPU 0 last of its package. */
	expect("packages", four, 4, NULL, (const int[]){ 0, 0, 1, 1 }, (const int[]){ 1, 0, 3, 2 },
	       "none isolated or nohz_full; CPU 0 last, the others by fewest interrupts (CPU 1: 105, CPU 0: 6050, ...)");
	/* Counts within one power of two (300 and 500: 256-511) keep the topology's order. */
	put("proc/interrupts",
	    "           CPU0       CPU1       CPU2       CPU3\n"
	    "LOC:       6000       2000        500        300   Local timer interrupts\n");
	expect("same power of two", four, 4, NULL, NULL, (const int[]){ 2, 3, 1, 0 },
	       "none isolated or nohz_full; CPU 0 last, the others by fewest interrupts (CPU 2: 500, CPU 3: 300, ...)");
	put("proc/interrupts", irq4);
	/* One CPU: CPU 0 then. */
	expect("one CPU", (const int[]){ 0 }, 1, NULL, NULL, (const int[]){ 0 }, "the only CPU allowed");
	/* No /proc/interrupts: the topology order, CPU 0 last. */
	drop("proc/interrupts");
	expect("no interrupts file", four, 4, NULL, NULL, (const int[]){ 1, 2, 3, 0 },
	       "none isolated or nohz_full; CPU 0 last, the others in topology order (no /proc/interrupts)");
	/* Offline CPUs have no column: the header numbers the columns. */
	put("proc/interrupts",
	    "           CPU0       CPU2\n"
	    "LOC:        500         20   Local timer interrupts\n");
	expect("column numbers", (const int[]){ 0, 2 }, 2, NULL, NULL, (const int[]){ 2, 0 },
	       "none isolated or nohz_full; CPU 0 last, the others by fewest interrupts (CPU 2: 20, CPU 0: 500)");
	drop("proc/interrupts");
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd))
			fprintf(stderr, "could not remove %s\n", root);
	}
	printf("test_quiet: %s\n", rg_test_failures ? "FAILED" : "ok");
	fflush(stdout);
	return rg_test_failures ? 1 : 0;
}
