// SPDX-License-Identifier: MIT
/* The one row producer: what every measured case becomes (its measured set described once for rg_result_fill(), its counters and text columns) and its progress line. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rg/cmdline.h"
#include "rg/parts.h"
#include "rg/schema.h"
#include "cases.h"
#include "counters.h"
#include "disturb.h"
#include "latency.h"
#include "rounds.h"
#include "rows.h"

static void cpu_list(const struct bcase *c, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int t = 0; t < c->threads && off < len; t++)
		off += (size_t)snprintf(buf + off, len - off, t ? ",%d" : "%d", c->seen_cpu[t]);
}

void suite_progress_clock(const struct suite *s, char *buf, size_t len)
{
	double el = rg_now_s() - s->t0, left = s->est_total - s->est_done;
	char a[32], b[32];

	/* The plan's estimate, corrected by the rate measured so far. */
	if (s->est_done > 0)
		left *= el / s->est_done;
	rg_cl_say_seconds(a, sizeof(a), el);
	rg_cl_say_seconds(b, sizeof(b), left);
	if (snprintf(buf, len, " (%s, ~%s left)", a, b) >= (int)len && len)
		buf[len - 1] = '\0';	/* cut, as snprintf left it: the line stays one line */
}

void suite_progress_done(struct suite *s, int group, int pass)
{
	const struct rg_suite_cfg *cfg = s->cfg;

	for (size_t i = 0; i < s->n; i++) {
		const struct bcase *c = &s->c[i];

		if (c->group != group || c->skipped || kind_of(c)->reference)
			continue;
		/* As rg_suite_run()'s estimate: calibration ~3 chunks, then a chunk per round. */
		s->est_done += (cfg->repetitions + (pass > 0 ? 1 : 3)) * cfg->min_time;
	}
}

int suite_rows_upto(struct suite *s, int upto)
{
	for (; s->rows_next <= upto && s->rows_next < s->ngroups; s->rows_next++) {
		int g = s->rows_next;

		/* The group's rows, in case order; cases filtered out by --benchmark_filter leave none. */
		for (size_t i = 0; i < s->n; i++) {
			struct bcase *c = &s->c[i];

			if (c->group != g || kind_of(c)->reference || (!c->skipped && !c->reported))
				continue;
			if (suite_add_row(s, c)) {
				fprintf(stderr, "rgbench: out of memory\n");
				return -1;
			}
		}
	}
	return 0;
}

/*
 * The progress line of a measured case, from its row (so that the paired
 * delta is computed once, for the row).
 */
static void progress_line(struct suite *s, const struct bcase *c, const struct rg_result *r,
			  bool own_base)
{
	FILE *f = s->cfg->progress;
	char cpus[64], cvb[16] = "  n/a ", dl[64] = "", lat[128] = "", rounds[64], clock[64];

	s->ndone++;
	if (!f || *s->cfg->stop)
		return;
	suite_progress_clock(s, clock, sizeof(clock));
	if (c->error || !c->nrep) {
		fprintf(f, "[%3zu/%zu] %-44s error: %s%s\n", s->ndone, s->nrun_total, c->name,
			c->error ? c->errmsg : "not run", clock);
		fflush(f);
		return;
	}
	cpu_list(c, cpus, sizeof(cpus));
	double cv = 100.0 * rg_stat_stddev(c->ns, c->nrep) / rg_stat_mean(c->ns, c->nrep);

	if (!isnan(cv))
		snprintf(cvb, sizeof(cvb), "%5.2f%%", cv);
	if (!isnan(r->delta_ns) && !own_base) {
		char tag[16];

		/* The interval's level follows it when it is below 95% (few rounds). */
		if (isnan(r->delta_ci_lo))
			snprintf(dl, sizeof(dl), "  delta %+.3f [n/a: %ld rounds]", r->delta_ns,
				 r->repetitions);
		else
			snprintf(dl, sizeof(dl), "  delta %+.3f [%+.3f, %+.3f]%s", r->delta_ns,
				 r->delta_ci_lo, r->delta_ci_hi,
				 rg_ci_level_tag(r->delta_ci_level, tag, sizeof(tag)));
	}
	if (kind_of(c)->distribution)
		snprintf(lat, sizeof(lat), "  batch %llu  p90 %.3f  p99 %.3f  p99.9 %.3f  max %.3f",
			 (unsigned long long)c->batch, r->lat_p90_ns, r->lat_p99_ns, r->lat_p999_ns,
			 r->lat_max_ns);
	if (c->nruns > 1)
		snprintf(rounds, sizeof(rounds), "%zu runs x %zu round%s", c->nruns, c->nrep / c->nruns,
			 c->nrep / c->nruns == 1 ? "" : "s");
	else
		snprintf(rounds, sizeof(rounds), "%zu rounds", c->nrep);
	fprintf(f, "[%3zu/%zu] %-44s %8.3f ns/pair%s%s  cv %s  wall %.3f  %s, %ld discarded%s  cpus %s%s\n",
		s->ndone, s->nrun_total, c->name, r->ns_median, dl, lat, cvb,
		rg_stat_median(c->wall, c->nrep), rounds, c->discarded,
		!strcmp(r->status, "noisy") ? "  NOISY" : "", cpus, clock);
	fflush(f);
}

/* Counters and events per pair, or why not. */
static void counter_columns(struct rg_result *r, const struct bcase *c)
{
	const char *none = loop_kinds[c->loop].no_counters;

	if (none) {
		snprintf(r->counters, sizeof(r->counters), "%s", none);
		snprintf(r->events, sizeof(r->events), "%s", none);
		snprintf(r->pmu_table, sizeof(r->pmu_table), "%s", none);
		return;
	}
	if (c->ctr_why) {
		snprintf(r->counters, sizeof(r->counters), "%s", c->ctr_why);
	} else if (!c->counted_all) {
		snprintf(r->counters, sizeof(r->counters), "n/a: a thread could not open counters");
	} else {
		snprintf(r->counters, sizeof(r->counters), "%s", rg_counters_kind());
		r->cycles_per_pair = c->cycles / (double)c->ops;
		r->instructions_per_pair = c->instructions / (double)c->ops;
	}
	/* the table that encoded the events, or the same reason as the events column */
	if (c->ev_why) {
		snprintf(r->events, sizeof(r->events), "%s", c->ev_why);
		snprintf(r->pmu_table, sizeof(r->pmu_table), "%.511s", c->ev_why);
	} else if (!c->ev_all) {
		snprintf(r->events, sizeof(r->events), "n/a: a thread could not open the events");
		snprintf(r->pmu_table, sizeof(r->pmu_table), "n/a: a thread could not open the events");
	} else {
		snprintf(r->pmu_table, sizeof(r->pmu_table), "%s", rg_events_list()->pmu);
		double per_pair[RG_PMU_MAX_EVENTS];

		for (size_t i = 0; i < rg_events_list()->n; i++)
			per_pair[i] = c->ev[i] / (double)c->ops;
		rg_pmu_format_values(rg_events_list(), per_pair, r->events, sizeof(r->events));
	}
}

/*
 * A case measured in runs: where each run's rounds end in the case's rounds
 * (concatenated run after run) and where its slots, stack and loop were;
 * whether the baseline's rounds fall into the same runs (every run with
 * rounds, as many as the case's), so that each run has its paired delta.
 */
static bool describe_runs(const struct bcase *c, const struct bcase *base, size_t *end,
			  char (*where)[RG_RUN_WHERE_LEN])
{
	bool paired = base && base != c && base->nruns == c->nruns;
	size_t o = 0;

	for (size_t k = 0; k < c->nruns; k++) {
		const struct case_run *x = &c->run[k];

		o += x->nrep;
		end[k] = o;
		snprintf(where[k], sizeof(where[k]), "%s", x->where);
		paired = paired && base->run[k].nrep == x->nrep && x->nrep;
	}
	return paired;
}

/*
 * What the rounds still disturbed after the re-runs (a thread's CPU/wall
 * below RG_SUITE_MIN_CPU_WALL) did to the row's figure: the row is `noisy`
 * when they are half its rounds or more (the median may be one of them), or
 * when one of them lies outside the range of the row's undisturbed rounds
 * (it moved the median and widened the interval); the reason says which.
 * Disturbed rounds inside that range stay in and the row stays `ok`.
 */
static void disturbance(struct rg_result *r, const struct bcase *c)
{
	struct rg_disturb d = rg_disturb_judge(c->ns, c->ratio, c->nrep, RG_SUITE_MIN_CPU_WALL);

	if (!d.noisy)
		return;
	snprintf(r->status, sizeof(r->status), "noisy");
	if (2 * d.disturbed >= c->nrep)
		snprintf(r->reason, sizeof(r->reason),
			 "%zu of %zu rounds still disturbed after %d re-runs (lowest thread CPU/wall %.2f, up to %ld involuntary switches): too few undisturbed rounds to check them against",
			 d.disturbed, c->nrep, RG_SUITE_RETRIES, c->worst_ratio, c->worst_iv);
	else
		snprintf(r->reason, sizeof(r->reason),
			 "%zu of %zu rounds still disturbed after %d re-runs (lowest thread CPU/wall %.2f, up to %ld involuntary switches): %zu outside the undisturbed rounds' %.3f-%.3f ns",
			 d.disturbed, c->nrep, RG_SUITE_RETRIES, c->worst_ratio, c->worst_iv, d.outside,
			 d.lo, d.hi);
}

/* The case's baseline (its own, or the group's noop) when it has the same rounds; NULL when none. */
static const struct bcase *baseline(struct suite *s, const struct bcase *c, const char **name)
{
	const struct bcase *base;

	if (kind_of(c)->distribution)
		return NULL;	/* a distribution, not paired rounds */
	base = c->base >= 0 ? &s->c[c->base] : suite_group_noop(s, c->group);
	*name = c->base >= 0 ? c->base_name : "noop";
	if (!base || base->error || base->nrep != c->nrep)
		return NULL;
	return base;
}

int suite_add_row(struct suite *s, struct bcase *c)
{
	const char *gname = c->part ? rg_parts[c->part - 1].name : c->gi->name, *bname = NULL;
	double hlo[RG_LAT_HIST_BINS], hhi[RG_LAT_HIST_BINS];
	uint64_t hcount[RG_LAT_HIST_BINS];
	size_t run_end[RG_MAX_RUNS];
	char where[RG_MAX_RUNS][RG_RUN_WHERE_LEN];
	const struct bcase *base, *ref;
	struct rg_result *r;

	if (c->skipped)
		r = rg_results_skip(s->rs, "user", gname, c->scenario, "%s", c->reason);
	else
		r = rg_results_add(s->rs, "user", gname, c->scenario);
	if (!r)
		return -ENOMEM;
	/* guards.def; a ladder step stands for no design */
	snprintf(r->role, sizeof(r->role), "%s", c->part ? "n/a" : rg_guard_role(c->gi));
	r->threads = c->threads;
	r->batch = (long)c->batch;
	r->duty_ns = c->duty_ns;
	r->work_units = c->work;	/* in + out */
	if (kind_of(c)->duty)
		r->duty_in_ns = (double)c->duty_in_ns;
	if (c->skipped) {
		snprintf(r->counters, sizeof(r->counters), "n/a: not run");
		snprintf(r->events, sizeof(r->events), "n/a: not run");
		snprintf(r->pmu_table, sizeof(r->pmu_table), "n/a: not run");
		return 0;
	}
	snprintf(r->pinning, sizeof(r->pinning), "hwloc");
	cpu_list(c, r->cpus, sizeof(r->cpus));
	snprintf(r->cpus_why, sizeof(r->cpus_why), "%s", s->cfg->cpus_why);
	r->discarded = c->discarded;
	if (c->error || !c->nrep) {
		snprintf(r->status, sizeof(r->status), "error");
		snprintf(r->reason, sizeof(r->reason), "%s", c->error ? c->errmsg : "not run");
		snprintf(r->counters, sizeof(r->counters), "n/a: not run");
		snprintf(r->events, sizeof(r->events), "n/a: not run");
		snprintf(r->pmu_table, sizeof(r->pmu_table), "n/a: not run");
		progress_line(s, c, r, false);
		return 0;
	}
	snprintf(r->interleave, sizeof(r->interleave), "rounds");
	disturbance(r, c);
	snprintf(r->layout, sizeof(r->layout),
		 "%zu run(s); aslr %s, thp %s; fixed: slots page-aligned%s",
		 c->nruns > 1 ? c->nruns : 1, s->cfg->aslr, s->cfg->thp,
		 c->stack_free ? " (RG_TEST_LAYOUT=kernel: stack where the kernel put it)"
		 : ", measured frame's page offset");
	if (c->nruns > 1 && strstr(c->run[0].where, " forked"))
		snprintf(r->layout, sizeof(r->layout),
			 "%zu runs forked, not re-executed (no exec here): one address layout; aslr %s",
			 c->nruns, s->cfg->aslr);
	/* What the case measured, in one description: the row's numbers in one call. */
	struct rg_measured m = {
		.n = c->nrep, .ns = c->ns, .ns_is_cpu = true,
		.round_pairs = c->chunk, .min_round_ns = RG_SUITE_MIN_ROUND_NS,
	};
	base = baseline(s, c, &bname);
	if (kind_of(c)->distribution) {
		/* The batches, not the rounds; the rounds' ns only for the runs. */
		m.dist = c->dist;
		m.ndist = c->ndist;
		m.nhist = lat_hist_bins(c, hlo, hhi, hcount);
		m.hist_lo = hlo;
		m.hist_hi = hhi;
		m.hist_count = hcount;
		m.round_pairs = 0;
	} else {
		m.mops = c->mops;
		m.wall_ns = c->wall;
	}
	if (base) {
		m.baseline = bname;
		m.base = base->ns;
		m.nbase = base->nrep;
		m.keep_diffs = true;
	}
	if (c->nruns > 1) {
		m.nruns = c->nruns;
		m.run_end = run_end;
		m.run_where = (const char (*)[RG_RUN_WHERE_LEN])where;
		m.runs_paired = describe_runs(c, base, run_end, where);
	}
	ref = suite_group_ref(s, c->group);
	if (ref && !ref->error) {
		m.ref_ns = ref->ns;
		m.nref = ref->nrep;
	}
	if (rg_result_fill(r, &m))
		return -ENOMEM;
	r->refusals = c->refusals;
	r->ops = c->ops;
	counter_columns(r, c);
	progress_line(s, c, r, base == c);
	return 0;
}
