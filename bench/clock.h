/* SPDX-License-Identifier: MIT */
/* A clock's time in ns (CLOCK_THREAD_CPUTIME_ID, CLOCK_MONOTONIC), for the suite's stamps and calibrations. */
#ifndef RG_BENCH_CLOCK_H
#define RG_BENCH_CLOCK_H

#include <time.h>

static inline double ts_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

#endif /* RG_BENCH_CLOCK_H */
