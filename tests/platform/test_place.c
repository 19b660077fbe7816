// SPDX-License-Identifier: MIT
/* rg/place.h with and without hwloc: the placement order, --cpus lists kept in their order, refused CPUs, pinning each thread where it says. */
#define _GNU_SOURCE
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rg/place.h"
#if TEST_HWLOC
#include "rg/platform.h"
#endif

static int failures;

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
			failures++;					\
		}							\
	} while (0)

/* The order rg_place_init() must produce: hwloc's, or the affinity mask ascending. */
static int expected_order(int *cpus, const cpu_set_t *set)
{
#if TEST_HWLOC
	char err[256];

	(void)set;
	if (rg_topo_init(err, sizeof(err))) {
		fprintf(stderr, "rg_topo_init: %s\n", err);
		return -1;
	}
	return rg_topo_order(cpus, RG_MAX_CPUS);
#else
	int n = 0;

	for (int c = 0; c < CPU_SETSIZE && n < RG_MAX_CPUS; c++)
		if (CPU_ISSET(c, set))
			cpus[n++] = c;
	return n;
#endif
}

/* Every thread index pins where rg_place_cpu() says, wrapping around ncpus. */
static void check_pinning(const struct rg_place *p)
{
	char err[256];

	for (int i = 0; i < p->ncpus + 1; i++) {
		int cpu = rg_place_cpu(p, i);

		CHECK(cpu == p->cpu[i % p->ncpus], "idx %d -> CPU %d, not %d", i, cpu,
		      p->cpu[i % p->ncpus]);
		err[0] = '\0';
		CHECK(!rg_place_pin_self(p, i, err, sizeof(err)), "pin idx %d: %s", i, err);
		CHECK(sched_getcpu() == cpu, "pinned idx %d to CPU %d, running on %d", i, cpu,
		      sched_getcpu());
	}
}

/*
 * Restricted to one CPU before the first init, every thread of the process as
 * taskset does (hwloc reads the process's binding: under qemu-user that
 * includes the emulator's own threads): only that CPU is placed on.
 */
static int child_restricted(int cpu)
{
	static struct rg_place p;
	struct dirent *e;
	cpu_set_t one;
	char err[256];
	DIR *d;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		return 2;
	d = opendir("/proc/self/task");
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			sched_setaffinity(atoi(e->d_name), sizeof(one), &one);
	if (d)
		closedir(d);
	if (rg_place_init(&p, NULL, 0, err, sizeof(err)))
		return 3;
	if (p.ncpus != 1 || p.cpu[0] != cpu)
		return 4;
	return rg_place_pin_self(&p, 5, err, sizeof(err)) || sched_getcpu() != cpu ? 5 : 0;
}

int main(void)
{
	static struct rg_place p, q, none;
	static int order[RG_MAX_CPUS];
	char err[256], want_err[256];
	cpu_set_t set;
	int n, want[2], missing = -1, last = 0, st;
	pid_t pid;

	if (sched_getaffinity(0, sizeof(set), &set)) {
		perror("sched_getaffinity");
		return 1;
	}
	for (int c = RG_MAX_CPUS - 1; c >= 0 && missing < 0; c--)
		if (!CPU_ISSET(c, &set))
			missing = c;

	/* A child first: hwloc remembers the process's binding at its first init. */
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			last = c;
	pid = fork();
	if (pid == 0)
		_exit(child_restricted(last));
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st),
	      "restricted to one CPU: child status %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);

	n = expected_order(order, &set);
	CHECK(n == CPU_COUNT(&set), "expected order has %d CPUs, affinity mask %d", n,
	      CPU_COUNT(&set));
	CHECK(!rg_place_init(&p, NULL, 0, err, sizeof(err)), "init: %s", err);
	CHECK(p.ncpus == n, "%d CPUs placed, %d expected", p.ncpus, n);
	CHECK(!memcmp(p.cpu, order, sizeof(int) * (size_t)(n > 0 ? n : 0)), "order differs");
	CHECK(!strcmp(p.how, TEST_HWLOC ? "hwloc" : "affinity"), "how '%s'", p.how);
	if (p.ncpus > 0)
		check_pinning(&p);
	/* Back to every CPU: without hwloc the placement reads the calling thread's mask. */
	CHECK(!sched_setaffinity(0, sizeof(set), &set), "cannot restore the affinity mask");

	/* --cpus: exactly the listed CPUs, in the listed order (last first). */
	want[0] = order[n - 1];
	want[1] = order[0];
	CHECK(!rg_place_init(&q, want, n > 1 ? 2 : 1, err, sizeof(err)), "init with list: %s", err);
	CHECK(q.ncpus == (n > 1 ? 2 : 1) && q.cpu[0] == want[0] && (n < 2 || q.cpu[1] == want[1]),
	      "list kept: %d CPUs, %d first", q.ncpus, q.cpu[0]);
	check_pinning(&q);
	CHECK(!sched_setaffinity(0, sizeof(set), &set), "cannot restore the affinity mask");

	/* A CPU the process may not use: refused with the text rgbench bpf prints after "--cpus: ". */
	if (missing >= 0) {
		want[0] = order[0];
		want[1] = missing;
		snprintf(want_err, sizeof(want_err),
			 "CPU %d is not available (allowed: %d CPU(s), see rgbench --list)", missing, n);
		CHECK(rg_place_init(&q, want, 2, err, sizeof(err)) == -1, "CPU %d accepted", missing);
		CHECK(!strcmp(err, want_err), "message '%s', expected '%s'", err, want_err);
	}

	/* Nothing placed: no CPU for any index, and pinning says so. */
	memset(&none, 0, sizeof(none));
	none.how = "none";
	CHECK(rg_place_cpu(&none, 3) == -1, "empty placement gave a CPU");
	CHECK(rg_place_pin_self(&none, 0, err, sizeof(err)) == -1 && strstr(err, "no CPU"),
	      "empty placement pinned: '%s'", err);
	CHECK(rg_place_pin_self(&none, 0, NULL, 0) == -1, "NULL err");

	if (failures)
		return 1;
	printf("place (%s): %d CPUs in order, %d pinned and verified\n", p.how, p.ncpus, p.ncpus + 1);
	return 0;
}
