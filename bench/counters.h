/* SPDX-License-Identifier: MIT */
/* Per-thread cycle and instruction counters (libperf) around a measured region. */
#ifndef RG_BENCH_COUNTERS_H
#define RG_BENCH_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu_events.h"

/*
 * The plan's test switches, before any probe: software events in the two
 * counter slots, and a fake sysfs root for the PMU event discovery ("": /).
 */
void rg_counters_configure(bool software, const char *sysfs_root);

/*
 * Probe once whether this thread can count cycles and instructions in user
 * mode. NULL when it can; otherwise why not, in the words the `counters`
 * column uses ("n/a: no hardware PMU (cycles: ENOENT)", ...).
 */
const char *rg_counters_probe(void);

/* What the `counters` column says when counting worked ("perf"). */
const char *rg_counters_kind(void);

struct rg_counters {
	void *ev[2];		/* struct perf_evsel *: cycles, instructions */
	void *threads;		/* struct perf_thread_map * (this thread) */
	bool open;
};

/* Open disabled counters on the calling thread. 0, or -1 (nothing counted). */
int rg_counters_open(struct rg_counters *c);
void rg_counters_start(struct rg_counters *c);
/* Stop and read (scaled when multiplexed). Values are 0 when not open. */
void rg_counters_stop(struct rg_counters *c, double *cycles, double *instructions);
void rg_counters_close(struct rg_counters *c);

/*
 * The extra core-PMU events of the `events` column (RG_PMU_WANTED, found in
 * sysfs under the plan's RG_TEST_SYSFS_ROOT, see pmu_events.h), counted the same way.
 * rg_events_probe(): discover and trial-open once; NULL when they can be
 * counted (rg_events_list() names them), else "n/a: why".
 */
const char *rg_events_probe(void);
/*
 * The plan's --events (libpfm4 names, "" for the CPU table's list): checked
 * against the table before anything runs. 0, or -1 with the one line in why
 * (a name the table lacks: the table and the closest names). Without
 * libpfm4 (or a table for this CPU) the names are kept and the events
 * column says why it is n/a; with no names the sysfs reader is used.
 */
int rg_events_configure(const char *names, char *why, size_t size);
const struct rg_pmu_events *rg_events_list(void);

struct rg_events {
	void *ev[RG_PMU_MAX_EVENTS];	/* struct perf_evsel *, as rg_events_list() */
	void *threads;
	size_t n;
	bool open;
};

/* Open the probed events disabled on the calling thread. 0, or -1 (none open). */
int rg_events_open(struct rg_events *e);
void rg_events_start(struct rg_events *e);
/* Stop and read into vals[rg_events_list()->n] (scaled when multiplexed); 0 when not open. */
void rg_events_stop(struct rg_events *e, double *vals);
void rg_events_close(struct rg_events *e);

#endif /* RG_BENCH_COUNTERS_H */
