// SPDX-License-Identifier: MIT
/* Named PMU events through libpfm4: per-table lists of the events that explain guard cost, resolved by name for the CPU found at run time, closest names for a name the table lacks. */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmu_pfm.h"

/*
 * Per core PMU table (libpfm4 4.13 names), at most 4 events: with cycles and
 * instructions they fit the general counters of every listed core without
 * multiplexing (Zen 3/4: 6, Intel: 4 plus the fixed ones, Neoverse: 6).
 *   AMD Zen 2-4  STORE_TO_LOAD_FORWARD (PMCx035), BAD_STATUS_2:STLI_OTHER
 *                (PMCx024: a load that could not be forwarded from an older
 *                store, the byte-store/word-reload shape), LS_DISPATCH:LD_ST_DISPATCH
 *                (PMCx029: load-op-store read-modify-writes), RETIRED_LOCK_INSTRUCTIONS:BUS_LOCK
 *                (PMCx025: locked ops that lock the bus).
 *   Intel cores  LD_BLOCKS:STORE_FORWARD (03H/02H), MACHINE_CLEARS:MEMORY_ORDERING
 *                (C3H/02H), MEM_INST_RETIRED:LOCK_LOADS (D0H/21H).
 *   Neoverse     STALL_BACKEND_MEM (0x4005, N1 lacks it: STALL_BACKEND 0x24),
 *                L1D_CACHE (0x04), BUS_ACCESS (0x19), LDREX_SPEC (0x6C: the LL/SC ops).
 */
#define RG_PFM_AMD "STORE_TO_LOAD_FORWARD,BAD_STATUS_2:STLI_OTHER,LS_DISPATCH:LD_ST_DISPATCH,RETIRED_LOCK_INSTRUCTIONS:BUS_LOCK"
#define RG_PFM_INTEL "LD_BLOCKS:STORE_FORWARD,MACHINE_CLEARS:MEMORY_ORDERING,MEM_INST_RETIRED:LOCK_LOADS"
#define RG_PFM_NEOVERSE "STALL_BACKEND_MEM,L1D_CACHE,BUS_ACCESS,LDREX_SPEC"

const char *const rg_pfm_lists[][2] = {
	{ "amd64_fam17h_zen2", RG_PFM_AMD },
	{ "amd64_fam19h_zen3", RG_PFM_AMD },
	{ "amd64_fam19h_zen4", RG_PFM_AMD },
	{ "skl", RG_PFM_INTEL },
	{ "skx", RG_PFM_INTEL },
	{ "icl", RG_PFM_INTEL },
	{ "icx", RG_PFM_INTEL },
	{ "spr", RG_PFM_INTEL },
	{ "arm_n1", "STALL_BACKEND,L1D_CACHE,BUS_ACCESS,LDREX_SPEC" },
	{ "arm_n2", RG_PFM_NEOVERSE },
	{ "arm_v1", RG_PFM_NEOVERSE },
	{ "arm_v2", RG_PFM_NEOVERSE },
};
const size_t rg_pfm_nlists = sizeof(rg_pfm_lists) / sizeof(rg_pfm_lists[0]);

const char *rg_pfm_list_of(const char *table)
{
	for (size_t i = 0; i < rg_pfm_nlists; i++)
		if (!strcmp(rg_pfm_lists[i][0], table))
			return rg_pfm_lists[i][1];
	return NULL;
}

#if RG_HAVE_LIBPFM
#include <perfmon/pfmlib_perf_event.h>

/* The core PMU table libpfm4 found for this CPU (the default one first), or -1. */
static int core_pmu(pfm_pmu_info_t *info)
{
	int found = -1;

	for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++) {
		pfm_pmu_info_t pi = { .size = sizeof(pi) };

		if (pfm_get_pmu_info((pfm_pmu_t)p, &pi) != PFM_SUCCESS || !pi.is_present ||
		    pi.type != PFM_PMU_TYPE_CORE)
			continue;
		if (found < 0 || pi.is_dfl) {
			*info = pi;
			found = p;
		}
	}
	return found;
}

/* Levenshtein distance, case-insensitive, capped at 64 characters. */
static int distance(const char *a, const char *b)
{
	int row[65], n = (int)strlen(b), m = (int)strlen(a);

	n = n > 64 ? 64 : n;
	m = m > 64 ? 64 : m;
	for (int j = 0; j <= n; j++)
		row[j] = j;
	for (int i = 1; i <= m; i++) {
		int diag = row[0], t;

		row[0] = i;
		for (int j = 1; j <= n; j++) {
			t = row[j];
			row[j] = toupper((unsigned char)a[i - 1]) == toupper((unsigned char)b[j - 1]) ? diag :
				 1 + (diag < row[j] ? (diag < row[j - 1] ? diag : row[j - 1]) :
				      (row[j] < row[j - 1] ? row[j] : row[j - 1]));
			diag = t;
		}
	}
	return row[n];
}

/* The 3 names of the table closest to name ("EVENT" or "EVENT:UMASK"), as "a, b, c". */
static void closest(int pmu, const pfm_pmu_info_t *pi, const char *name, char *buf, size_t size)
{
	char best[3][128] = { "", "", "" };
	int bd[3] = { 1 << 30, 1 << 30, 1 << 30 };
	char want[128];
	const char *colon = strchr(name, ':');

	(void)pmu;
	snprintf(want, sizeof(want), "%s", name);
	for (int i = pi->first_event; i != -1; i = pfm_get_event_next(i)) {
		pfm_event_info_t e = { .size = sizeof(e) };
		char cand[128];
		int d;

		if (pfm_get_event_info(i, PFM_OS_NONE, &e) != PFM_SUCCESS)
			continue;
		for (int a = -1; a < e.nattrs; a++) {
			pfm_event_attr_info_t at = { .size = sizeof(at) };

			if (a < 0) {
				snprintf(cand, sizeof(cand), "%s", e.name);
			} else {
				if (!colon || pfm_get_event_attr_info(i, a, PFM_OS_NONE, &at) != PFM_SUCCESS ||
				    at.type != PFM_ATTR_UMASK)
					continue;
				snprintf(cand, sizeof(cand), "%s:%s", e.name, at.name);
			}
			d = distance(want, cand);
			for (int k = 0; k < 3; k++) {
				if (d < bd[k]) {
					for (int m = 2; m > k; m--) {
						bd[m] = bd[m - 1];
						memcpy(best[m], best[m - 1], sizeof(best[m]));
					}
					bd[k] = d;
					snprintf(best[k], sizeof(best[k]), "%s", cand);
					break;
				}
			}
		}
	}
	snprintf(buf, size, "%s%s%s%s%s", best[0], best[1][0] ? ", " : "", best[1],
		 best[2][0] ? ", " : "", best[2]);
}

int rg_pfm_resolve(const char *names, struct rg_pmu_events *out, char *why, size_t size)
{
	pfm_pmu_info_t pi = { .size = sizeof(pi) };
	char list[512], *save = NULL;
	const char *use;
	int pmu, rc;

	memset(out, 0, sizeof(*out));
	rc = pfm_initialize();
	if (rc != PFM_SUCCESS) {
		snprintf(why, size, "libpfm4 could not start: %s", pfm_strerror(rc));
		return 1;
	}
	pmu = core_pmu(&pi);
	if (pmu < 0) {
		snprintf(why, size, "libpfm4 has no table for this CPU");
		return 1;
	}
	use = names && names[0] ? names : rg_pfm_list_of(pi.name);
	if (!use) {
		snprintf(why, size, "libpfm4 table %s has no rgbench event list", pi.name);
		return 1;
	}
	snprintf(out->pmu, sizeof(out->pmu), "libpfm4 %s", pi.name);
	snprintf(list, sizeof(list), "%s", use);
	for (char *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		struct perf_event_attr attr;
		pfm_perf_encode_arg_t arg;
		char full[192];
		struct rg_pmu_event *ev;

		if (out->n == RG_PMU_MAX_EVENTS) {
			snprintf(why, size, "--events: more than %d events", RG_PMU_MAX_EVENTS);
			return -1;
		}
		memset(&attr, 0, sizeof(attr));
		memset(&arg, 0, sizeof(arg));
		arg.size = sizeof(arg);
		arg.attr = &attr;
		/* qualified by the table, so that another present PMU's event of the same name is not taken */
		snprintf(full, sizeof(full), "%s::%s", pi.name, name);
		rc = pfm_get_os_event_encoding(full, PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
		if (rc != PFM_SUCCESS) {
			char near[400];

			closest(pmu, &pi, name, near, sizeof(near));
			snprintf(why, size, "--events: '%s' is not an event of PMU table %s (%s); closest: %s",
				 name, pi.name, pfm_strerror(rc), near);
			return -1;
		}
		ev = &out->ev[out->n++];
		snprintf(ev->name, sizeof(ev->name), "%s", name);
		ev->type = attr.type;
		ev->config = attr.config;
		ev->config1 = attr.config1;
		ev->config2 = attr.config2;
	}
	why[0] = '\0';
	return 0;
}
#else
int rg_pfm_resolve(const char *names, struct rg_pmu_events *out, char *why, size_t size)
{
	(void)names;
	memset(out, 0, sizeof(*out));
	snprintf(why, size, "libpfm4 not built in (Debian: libpfm4-dev)");
	return 1;
}
#endif
