// SPDX-License-Identifier: MIT
/* What a measured case becomes: its progress line and its result row (samples, paired delta against noop, counters). */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "rg/schema.h"
#include "suite_int.h"

static void cpu_list(const struct bcase *c, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int t = 0; t < c->threads && off < len; t++)
		off += (size_t)snprintf(buf + off, len - off, t ? ",%d" : "%d", c->seen_cpu[t]);
}

void suite_progress_line(struct suite *s, const struct bcase *c, const struct bcase *base)
{
	FILE *f = s->cfg->progress;
	char cpus[64], cvb[16] = "  n/a ", dl[64] = "";

	s->ndone++;
	if (!f)
		return;
	if (c->error || !c->nrep) {
		fprintf(f, "[%3zu/%zu] %-44s error: %s\n", s->ndone, s->nrun_total, c->name,
			c->error ? c->errmsg : "not run");
		return;
	}
	cpu_list(c, cpus, sizeof(cpus));
	double cv = 100.0 * rg_stat_stddev(c->ns, c->nrep) / rg_stat_mean(c->ns, c->nrep);

	if (!isnan(cv))
		snprintf(cvb, sizeof(cvb), "%5.2f%%", cv);
	if (base && base != c && base->nrep == c->nrep && !base->error) {
		double d, lo, hi, lvl;
		char tag[16];

		/* The interval's level follows it when it is below 95% (few rounds). */
		if (!rg_stat_paired_delta(c->ns, base->ns, c->nrep, &d, &lo, &hi, &lvl)) {
			if (isnan(lo))
				snprintf(dl, sizeof(dl), "  delta %+.3f [n/a: %zu rounds]", d, c->nrep);
			else
				snprintf(dl, sizeof(dl), "  delta %+.3f [%+.3f, %+.3f]%s", d, lo, hi,
					 rg_ci_level_tag(lvl, tag, sizeof(tag)));
		}
	}
	fprintf(f, "[%3zu/%zu] %-44s %8.3f ns/pair%s  cv %s  wall %.3f  %zu rounds, %ld discarded%s  cpus %s\n",
		s->ndone, s->nrun_total, c->name, rg_stat_median(c->ns, c->nrep), dl, cvb,
		rg_stat_median(c->wall, c->nrep), c->nrep, c->discarded,
		c->nnoisy ? "  NOISY" : "", cpus);
}

int suite_add_row(struct rg_resultset *rs, struct bcase *c, const struct bcase *base)
{
	const char *gname = c->gi->name;
	struct rg_result *r;

	if (c->skipped)
		r = rg_results_skip(rs, "user", gname, c->scenario, "%s", c->reason);
	else
		r = rg_results_add(rs, "user", gname, c->scenario);
	if (!r)
		return -ENOMEM;
	snprintf(r->role, sizeof(r->role), "%s", rg_guard_role(c->gi));	/* guards.def */
	r->threads = c->threads;
	r->batch = (long)c->batch;
	r->duty_ns = c->duty_ns;
	r->work_units = c->work;	/* in + out */
	if (c->loop == LOOP_DUTY)
		r->duty_in_ns = (double)c->duty_in_ns;
	if (c->skipped) {
		snprintf(r->counters, sizeof(r->counters), "n/a: not run");
		snprintf(r->events, sizeof(r->events), "n/a: not run");
		return 0;
	}
	snprintf(r->pinning, sizeof(r->pinning), "hwloc");
	cpu_list(c, r->cpus, sizeof(r->cpus));
	r->discarded = c->discarded;
	if (c->error || !c->nrep) {
		snprintf(r->status, sizeof(r->status), "error");
		snprintf(r->reason, sizeof(r->reason), "%s", c->error ? c->errmsg : "not run");
		snprintf(r->counters, sizeof(r->counters), "n/a: not run");
		snprintf(r->events, sizeof(r->events), "n/a: not run");
		return 0;
	}
	if (rg_result_set_samples(r, c->ns, c->mops, c->nrep))
		return -ENOMEM;
	snprintf(r->interleave, sizeof(r->interleave), "rounds");
	r->cpu_ns_median = r->ns_median;
	if (base && !base->error && base->nrep == c->nrep) {
		if (rg_result_set_delta(r, "noop", c->ns, base->ns, c->nrep) ||
		    rg_result_set_round_samples(r, c->wall, c->ns, base->ns, c->nrep))
			return -ENOMEM;
	} else if (rg_result_set_round_samples(r, c->wall, NULL, NULL, c->nrep)) {
		return -ENOMEM;
	}
	if (c->nnoisy) {
		snprintf(r->status, sizeof(r->status), "noisy");
		snprintf(r->reason, sizeof(r->reason),
			 "%zu of %zu rounds still disturbed after %d re-runs (lowest thread CPU/wall %.2f, up to %ld involuntary switches)",
			 c->nnoisy, c->nrep, RG_SUITE_RETRIES, c->worst_ratio, c->worst_iv);
	}
	r->refusals = c->refusals;
	r->ops = c->ops;
	if (c->ctr_why) {
		snprintf(r->counters, sizeof(r->counters), "%s", c->ctr_why);
	} else if (!c->counted_all) {
		snprintf(r->counters, sizeof(r->counters), "n/a: a thread could not open counters");
	} else {
		snprintf(r->counters, sizeof(r->counters), "%s", rg_counters_kind());
		r->cycles_per_pair = c->cycles / (double)c->ops;
		r->instructions_per_pair = c->instructions / (double)c->ops;
	}
	if (c->ev_why) {
		snprintf(r->events, sizeof(r->events), "%s", c->ev_why);
	} else if (!c->ev_all) {
		snprintf(r->events, sizeof(r->events), "n/a: a thread could not open the events");
	} else {
		double per_pair[RG_PMU_MAX_EVENTS];

		for (size_t i = 0; i < rg_events_list()->n; i++)
			per_pair[i] = c->ev[i] / (double)c->ops;
		rg_pmu_format_values(rg_events_list(), per_pair, r->events, sizeof(r->events));
	}
	return 0;
}

