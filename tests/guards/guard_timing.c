// SPDX-License-Identifier: MIT
/* Quick, unasserted ns per enter/exit pair of every available guard (a sanity figure, not the benchmark). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "rg/loops.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	const uint64_t batch = 65536;	/* same loop shape and trip count for every guard */
	int reps = argc > 1 ? atoi(argv[1]) : 200;
	cpu_set_t set;
	int cpu = sched_getcpu();

	if (reps < 1) {
		fprintf(stderr, "usage: guard_timing [repetitions]\n");
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu < 0 ? 0 : cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	rg_percpu_thread_init();
	printf("%-16s %10s %10s  (batch %" PRIu64 ", best of %d, cpu %d)\n", "guard", "ns/pair",
	       "median", batch, reps, cpu);
	for (int i = 0; i < RG_GUARD__COUNT; i++) {
		const char *why;
		struct rg_guard g;
		double *s = calloc((size_t)reps, sizeof(*s)), best = 1e30;

		if (!rg_guard_available(&rg_guards[i], &why)) {
			printf("%-16s unavailable: %s\n", rg_guards[i].name, why);
			free(s);
			continue;
		}
		if (!s || rg_guard_init(&g, 0)) {
			fprintf(stderr, "guard_timing: out of memory\n");
			return 1;
		}
		rg_loops[i].pair(&g, batch);	/* warm up */
		for (int r = 0; r < reps; r++) {
			double t0 = now_ns();

			rg_loops[i].pair(&g, batch);
			s[r] = (now_ns() - t0) / (double)batch;
			if (s[r] < best)
				best = s[r];
		}
		for (int a = 1; a < reps; a++)	/* insertion sort: reps is small */
			for (int b = a; b > 0 && s[b - 1] > s[b]; b--) {
				double t = s[b];

				s[b] = s[b - 1];
				s[b - 1] = t;
			}
		printf("%-16s %10.2f %10.2f\n", rg_guards[i].name, best, s[reps / 2]);
		rg_guard_fini(&g);
		free(s);
	}
	return 0;
}
