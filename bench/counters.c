// SPDX-License-Identifier: MIT
/* Cycle, instruction and extra PMU event counters through libperf, or a clear "n/a" reason. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "pmu_pfm.h"

/* The plan's --events: libpfm4 names, "" for the CPU table's own list. */
static char cfg_events[512];

int rg_events_configure(const char *names, char *why, size_t size)
{
	struct rg_pmu_events tmp;

	snprintf(cfg_events, sizeof(cfg_events), "%s", names ? names : "");
	return cfg_events[0] && rg_pfm_resolve(cfg_events, &tmp, why, size) < 0 ? -1 : 0;
}

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

static bool cfg_software;
static char cfg_sysfs_root[4096];

void rg_counters_configure(bool software, const char *sysfs_root)
{
	cfg_software = software;
	snprintf(cfg_sysfs_root, sizeof(cfg_sysfs_root), "%s", sysfs_root ? sysfs_root : "");
}

static const uint64_t config[2] = { PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_INSTRUCTIONS };

/*
 * Software (tests only: the plan's RG_TEST_COUNTERS_SOFTWARE=1): count the
 * software events cpu-clock and task-clock in the two slots instead, so the
 * open/enable/read/sum path can be exercised on machines without a PMU. Rows
 * then say so in `counters`.
 */
static bool software_test(void)
{
	return cfg_software;
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

/* ---- the extra events of the `events` column ------------------------------ */

static struct rg_pmu_events ev_list;

const struct rg_pmu_events *rg_events_list(void)
{
	return &ev_list;
}

int rg_events_open(struct rg_events *e)
{
	struct perf_thread_map *t;

	memset(e, 0, sizeof(*e));
	if (!ev_list.n) {
		errno = ENOENT;
		return -1;
	}
	t = perf_thread_map__new_dummy();
	if (!t)
		return -1;
	perf_thread_map__set_pid(t, 0, 0);
	e->threads = t;
	for (size_t i = 0; i < ev_list.n; i++) {
		const struct rg_pmu_event *pe = &ev_list.ev[i];
		struct perf_event_attr attr = {
			.type = pe->type,
			.size = sizeof(attr),
			.config = pe->config,
			.config1 = pe->config1,
			.config2 = pe->config2,
			.disabled = 1,
			.exclude_kernel = 1,
			.exclude_hv = 1,
			.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				       PERF_FORMAT_TOTAL_TIME_RUNNING,
		};
		struct perf_evsel *ev = perf_evsel__new(&attr);
		int err;

		if (!ev) {
			rg_events_close(e);
			errno = ENOMEM;
			return -1;
		}
		e->ev[i] = ev;
		e->n = i + 1;
		err = perf_evsel__open(ev, NULL, t);
		if (err) {
			perf_evsel__delete(ev);
			e->ev[i] = NULL;
			rg_events_close(e);
			errno = -err;
			return -1;
		}
	}
	e->open = true;
	return 0;
}

void rg_events_start(struct rg_events *e)
{
	for (size_t i = 0; e->open && i < e->n; i++)
		perf_evsel__enable(e->ev[i]);
}

void rg_events_stop(struct rg_events *e, double *vals)
{
	for (size_t i = 0; e->open && i < e->n; i++)
		perf_evsel__disable(e->ev[i]);
	for (size_t i = 0; i < ev_list.n; i++) {
		struct perf_counts_values cv = { .val = 0 };

		vals[i] = 0;
		if (e->open && i < e->n && perf_evsel__read(e->ev[i], 0, 0, &cv) == 0)
			vals[i] = cv.run && cv.run < cv.ena ?
				  (double)cv.val * (double)cv.ena / (double)cv.run : (double)cv.val;
	}
}

void rg_events_close(struct rg_events *e)
{
	for (size_t i = 0; i < e->n; i++) {
		if (e->ev[i]) {
			perf_evsel__close(e->ev[i]);
			perf_evsel__delete(e->ev[i]);
		}
		e->ev[i] = NULL;
	}
	if (e->threads)
		perf_thread_map__put(e->threads);
	e->threads = NULL;
	e->n = 0;
	e->open = false;
}

const char *rg_events_probe(void)
{
	static char why[480];
	static int done;
	const char *root = cfg_sysfs_root;
	char pfm_why[480] = "";
	struct rg_events e;
	int err, rc;

	if (done)
		return why[0] ? why : NULL;
	done = 1;
	libperf_init(quiet);
	/*
	 * libpfm4's table for this CPU first (not under a test sysfs tree), then
	 * the sysfs reader; --events names need libpfm4.
	 */
	rc = root[0] && !cfg_events[0] ? 1 :
	     rg_pfm_resolve(cfg_events[0] ? cfg_events : NULL, &ev_list, pfm_why, sizeof(pfm_why));
	if (rc && cfg_events[0]) {
		snprintf(why, sizeof(why), "n/a: --events: %s", pfm_why);
		ev_list.n = 0;
		return why;
	}
	if (rc && !rg_pmu_discover(root ? root : "", RG_PMU_WANTED, &ev_list)) {
		size_t l = (size_t)snprintf(why, sizeof(why), "%s", ev_list.why);

		if (!root[0] && l + 2 < sizeof(why))
			snprintf(why + l, sizeof(why) - l, "; %s", pfm_why);
		return why;
	}
	if (rc) {
		char pmu[sizeof(ev_list.pmu)];

		snprintf(pmu, sizeof(pmu), "%s", ev_list.pmu);
		snprintf(ev_list.pmu, sizeof(ev_list.pmu), "sysfs %.57s", pmu);
	}
	if (rg_events_open(&e) == 0) {
		rg_events_close(&e);
		return NULL;
	}
	err = errno;
	if (err == ENOENT)
		snprintf(why, sizeof(why), "n/a: no hardware PMU (perf_event_open of %s %s: ENOENT)",
			 ev_list.pmu, ev_list.ev[0].name);
	else if (err == ENOSYS)
		snprintf(why, sizeof(why), "n/a: perf_event_open not implemented here (ENOSYS)");
	else if (err == EACCES || err == EPERM)
		snprintf(why, sizeof(why), "n/a: perf_event_paranoid=%d denies (%s)", paranoid(),
			 strerrorname_np(err));
	else
		snprintf(why, sizeof(why), "n/a: perf_event_open(%s/%s): %s", ev_list.pmu,
			 ev_list.ev[0].name, strerrorname_np(err) ? strerrorname_np(err) : strerror(err));
	ev_list.n = 0;
	return why;
}

#else /* !RG_HAVE_LIBPERF */

/* Why libperf is missing, from cmake/libperf.cmake (also in the configure log). */
#define NO_LIBPERF "n/a: built without libperf (" RG_LIBPERF_WHY ")"

void rg_counters_configure(bool software, const char *sysfs_root)
{
	(void)software;
	(void)sysfs_root;
}

const char *rg_counters_kind(void)
{
	return "perf";
}

const char *rg_counters_probe(void)
{
	return NO_LIBPERF;
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

static struct rg_pmu_events ev_list;

const struct rg_pmu_events *rg_events_list(void)
{
	return &ev_list;
}

const char *rg_events_probe(void)
{
	return NO_LIBPERF;
}

int rg_events_open(struct rg_events *e)
{
	memset(e, 0, sizeof(*e));
	errno = ENOTSUP;
	return -1;
}

void rg_events_start(struct rg_events *e)
{
	(void)e;
}

void rg_events_stop(struct rg_events *e, double *vals)
{
	(void)e;
	(void)vals;
}

void rg_events_close(struct rg_events *e)
{
	(void)e;
}

#endif
