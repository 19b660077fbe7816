/* SPDX-License-Identifier: MIT */
/* Named PMU events through libpfm4: the events that explain guard cost, per PMU table, resolved for the CPU found at run time. */
#ifndef RG_BENCH_PMU_PFM_H
#define RG_BENCH_PMU_PFM_H

#include <stddef.h>
#include "pmu_events.h"

/*
 * The events of the `events` column per libpfm4 PMU table (names as the
 * table spells them, EVENT or EVENT:UMASK): store-to-load forwarding,
 * locked instructions and memory-ordering clears on x86; backend memory
 * stalls, L1D and bus accesses on Neoverse. NULL for a table without a
 * list (the sysfs reader is used there).
 */
const char *rg_pfm_list_of(const char *table);

/* The table lists as "table: events" lines (tests, docs). */
extern const char *const rg_pfm_lists[][2];
extern const size_t rg_pfm_nlists;

/*
 * Resolve the comma-separated names (NULL: the list of the CPU's table) in
 * the core PMU table libpfm4 finds for this CPU (LIBPFM_FORCE_PMU names
 * another, as libpfm4 documents) into out: each event's perf type and
 * config, out->pmu "libpfm4 <table>". Returns
 *    0  resolved (out->n events),
 *    1  libpfm4 absent, or its tables lack this CPU, or the table has no
 *       list and names is NULL: why says so (the sysfs reader is next),
 *   -1  a name the table lacks: why is the one line, naming the table and
 *       the closest names.
 */
int rg_pfm_resolve(const char *names, struct rg_pmu_events *out, char *why, size_t size);

#endif /* RG_BENCH_PMU_PFM_H */
