// SPDX-License-Identifier: MIT
/* Cycle and instruction counters through libperf, or a clear "n/a" reason. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"

#if RG_HAVE_LIBPERF
#include <linux/perf_event.h>
#include <perf/core.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>

static int quiet(enum libperf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static const uint64_t config[2] = { PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_INSTRUCTIONS };

/*
 * RG_COUNTERS_SOFTWARE=1 (tests only): count the software events cpu-clock
 * and task-clock in the two slots instead, so the open/enable/read/sum path
 * can be exercised on machines without a PMU. Rows then say so in `counters`.
 */
static bool software_test(void)
{
	const char *e = getenv("RG_COUNTERS_SOFTWARE");

	return e && !strcmp(e, "1");
}

static const uint64_t sw_config[2] = { PERF_COUNT_SW_CPU_CLOCK, PERF_COUNT_SW_TASK_CLOCK };

const char *rg_counters_kind(void)
{
	return software_test() ? "perf-software-test: cpu-clock and task-clock ns" : "perf";
}

int rg_counters_open(struct rg_counters *c)
{
	struct perf_thread_map *t;
	bool sw = software_test();

	memset(c, 0, sizeof(*c));
	t = perf_thread_map__new_dummy();
	if (!t)
		return -1;
	perf_thread_map__set_pid(t, 0, 0);	/* this thread, any CPU */
	c->threads = t;
	for (int i = 0; i < 2; i++) {
		struct perf_event_attr attr = {
			.type = sw ? PERF_TYPE_SOFTWARE : PERF_TYPE_HARDWARE,
			.size = sizeof(attr),
			.config = sw ? sw_config[i] : config[i],
			.disabled = 1,
			.exclude_kernel = 1,	/* the loops run in user mode */
			.exclude_hv = 1,
			.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				       PERF_FORMAT_TOTAL_TIME_RUNNING,
		};
		struct perf_evsel *e = perf_evsel__new(&attr);
		int err;

		if (!e) {
			errno = ENOMEM;
			rg_counters_close(c);
			return -1;
		}
		c->ev[i] = e;
		err = perf_evsel__open(e, NULL, t);
		if (err) {
			errno = -err;
			rg_counters_close(c);
			return -1;
		}
	}
	c->open = true;
	return 0;
}

void rg_counters_start(struct rg_counters *c)
{
	if (!c->open)
		return;
	for (int i = 0; i < 2; i++)
		perf_evsel__enable(c->ev[i]);
}

void rg_counters_stop(struct rg_counters *c, double *cycles, double *instructions)
{
	double v[2] = { 0, 0 };

	if (c->open) {
		for (int i = 0; i < 2; i++)
			perf_evsel__disable(c->ev[i]);
		for (int i = 0; i < 2; i++) {
			struct perf_counts_values cv = { .val = 0 };

			if (perf_evsel__read(c->ev[i], 0, 0, &cv) == 0) {
				/* Scale when the PMU multiplexed the event. */
				v[i] = cv.run && cv.run < cv.ena ?
				       (double)cv.val * (double)cv.ena / (double)cv.run : (double)cv.val;
			}
		}
	}
	*cycles = v[0];
	*instructions = v[1];
}

void rg_counters_close(struct rg_counters *c)
{
	for (int i = 0; i < 2; i++) {
		if (c->ev[i]) {
			perf_evsel__close(c->ev[i]);
			perf_evsel__delete(c->ev[i]);
		}
		c->ev[i] = NULL;
	}
	if (c->threads)
		perf_thread_map__put(c->threads);
	c->threads = NULL;
	c->open = false;
}

static int paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = -100;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -100;
		fclose(f);
	}
	return v;
}

const char *rg_counters_probe(void)
{
	static char why[96];
	static int done;
	struct rg_counters c;
	int e;

	if (done)
		return why[0] ? why : NULL;
	done = 1;
	libperf_init(quiet);
	if (rg_counters_open(&c) == 0) {
		rg_counters_close(&c);
		return NULL;
	}
	e = errno;
	if (e == ENOSYS)
		snprintf(why, sizeof(why), "n/a: perf_event_open not implemented here (ENOSYS)");
	else if (e == ENOENT || e == EOPNOTSUPP || e == ENODEV)
		snprintf(why, sizeof(why), "n/a: no hardware PMU (cycles: %s)", strerrorname_np(e));
	else if (e == EACCES || e == EPERM)
		snprintf(why, sizeof(why), "n/a: perf_event_paranoid=%d denies (%s)", paranoid(),
			 strerrorname_np(e));
	else
		snprintf(why, sizeof(why), "n/a: perf_event_open: %s", strerror(e));
	return why;
}

#else /* !RG_HAVE_LIBPERF */

const char *rg_counters_kind(void)
{
	return "perf";
}

const char *rg_counters_probe(void)
{
	return "n/a: built without libperf";
}

int rg_counters_open(struct rg_counters *c)
{
	memset(c, 0, sizeof(*c));
	errno = ENOTSUP;
	return -1;
}

void rg_counters_start(struct rg_counters *c)
{
	(void)c;
}

void rg_counters_stop(struct rg_counters *c, double *cycles, double *instructions)
{
	(void)c;
	*cycles = 0;
	*instructions = 0;
}

void rg_counters_close(struct rg_counters *c)
{
	(void)c;
}

#endif
