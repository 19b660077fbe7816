// SPDX-License-Identifier: MIT
/* The BPF bench's row numbers: samples of both sides, the delta and the passes' values on producer CPU time, the progress line. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/schema.h"
#include "bpf_internal.h"

int series_alloc(struct series *s, size_t n)
{
	memset(s, 0, sizeof(*s));
	s->mops = calloc(n ? n : 1, sizeof(double));
	s->ns = calloc(n ? n : 1, sizeof(double));
	s->cpu_ns = calloc(n ? n : 1, sizeof(double));
	return s->mops && s->ns && s->cpu_ns ? 0 : -ENOMEM;
}

void series_free(struct series *s)
{
	free(s->mops);
	free(s->ns);
	free(s->cpu_ns);
	memset(s, 0, sizeof(*s));
}

void series_add(struct series *s, const struct window *w, int np)
{
	s->mops[s->n] = (double)w->events / w->wall / 1e6;
	s->ns[s->n] = 1e9 * w->wall * np / (double)w->events;
	s->cpu_ns[s->n] = 1e9 * w->cpu / (double)w->events;
	s->n++;
	s->events += w->events;
	s->misses += w->misses;
	s->disturbed += w->nvcsw > 0;
	s->nvcsw += w->nvcsw;
}

static bool all_finite(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return false;
	return n > 0;
}

/*
 * The passes as runs (rows interleaved pass by pass in one process): where
 * each pass's samples end and when it began. rg_result_fill() takes each
 * pass's median and paired difference, one value per pass however many
 * samples it holds, and the run-level interval and A/A floor as the user
 * suite has them over its runs.
 */
static void describe_passes(const struct row_run *rr, char (*where)[RG_RUN_WHERE_LEN])
{
	size_t lo = 0;

	for (int p = 0; p < rr->npass; p++) {
		snprintf(where[p], sizeof(where[p]), "pass %d of %d: %zu sample(s) from +%.2f s",
			 p + 1, rr->npass, rr->pass_end[p] - lo, rr->pass_at[p]);
		lo = rr->pass_end[p];
	}
}

int row_fill(struct ctx *c, struct rg_result *row, const struct row_run *rr)
{
	const struct series *a = &rr->sa, *b = rr->bk >= 0 ? &rr->sb : NULL;
	/* Producer CPU time where every window has it: what the delta and the passes are on. */
	bool cpu = all_finite(a->cpu_ns, a->n) && (!b || all_finite(b->cpu_ns, b->n));
	const double *xb = b ? (cpu ? b->cpu_ns : b->ns) : NULL;
	const char *on = cpu ? "producer CPU ns per event" : "wall ns per event per producer";
	char where[MAX_PASSES][RG_RUN_WHERE_LEN];
	/* The windows, each side's; ns_median exactly 1e3 / (M/s per producer), also for an even number. */
	struct rg_measured m = {
		.n = a->n, .ns = a->ns, .mops = a->mops, .cpu_ns = cpu ? a->cpu_ns : NULL,
		.ns_from_rate = true, .on_cpu = cpu,
	};

	if (b) {
		m.baseline = trig_kinds[rr->bk].name;
		m.base = xb;
		m.nbase = b->n;
		m.keep_diffs = cpu;	/* samples_cpu_delta_ns */
		snprintf(row->interleave, sizeof(row->interleave), "alternating");
	}
	if (rr->npass > 1) {
		describe_passes(rr, where);
		m.nruns = (size_t)rr->npass;
		m.run_end = rr->pass_end;
		m.run_where = (const char (*)[RG_RUN_WHERE_LEN])where;
		m.runs_paired = true;
	}
	if (rg_result_fill(row, &m))
		return -ENOMEM;
	row->refusals = a->misses;
	row->ops = a->events;
	if (rr->npass > 1)
		snprintf(row->layout, sizeof(row->layout),
			 "%d passes over all rows in one process (not fresh processes); "
			 "delta_ns and runs_*: %s", rr->npass, on);
	else
		snprintf(row->layout, sizeof(row->layout), "1 pass in one process; delta_ns: %s", on);
	/* As the user suite: a disturbed sample makes the row noisy, saying how (no re-run). */
	if (a->disturbed || (b && b->disturbed)) {
		snprintf(row->status, sizeof(row->status), "noisy");
		snprintf(row->reason, sizeof(row->reason),
			 "%zu of %zu windows disturbed: a producer was stopped or blocked (%ld voluntary switches)",
			 a->disturbed + (b ? b->disturbed : 0), a->n + (b ? b->n : 0),
			 a->nvcsw + (b ? b->nvcsw : 0));
	}
	(void)c;
	return 0;
}

static void cpus_string(const struct rg_place *pin, int np, char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < np && off < size; i++) {
		int cpu = rg_place_cpu(pin, i);
		int w = snprintf(buf + off, size - off, "%s%d", i ? "," : "", cpu);

		if (w < 0)
			break;
		off += (size_t)w;
	}
}

static void row_print(struct ctx *c, const struct rg_result *row, const struct row_run *rr)
{
	char sdb[16] = "n/a", db[160] = "", cib[64] = "", tag[16], runs[48] = "";
	bool cpu = row->samples_cpu_ns != NULL;

	if (!isnan(row->mops_stddev))
		snprintf(sdb, sizeof(sdb), "%.3f", row->mops_stddev);
	if (row->runs > 1)
		snprintf(runs, sizeof(runs), " (%ld passes)", row->runs);
	if (!isnan(row->delta_ns)) {
		/* The interval's level follows it when below 95% (fewer than 6 values). */
		if (!isnan(row->delta_ci_lo))
			snprintf(cib, sizeof(cib), " [%+.2f, %+.2f]%s%s", row->delta_ci_lo,
				 row->delta_ci_hi, rg_ci_level_tag(row->delta_ci_level, tag, sizeof(tag)),
				 runs);
		else
			snprintf(cib, sizeof(cib), " [n/a: %ld %s]", row->runs > 1 ? row->runs :
				 row->repetitions, row->runs > 1 ? "passes" : "samples");
		snprintf(db, sizeof(db), "; %+.2f %sns over %s%s", row->delta_ns, cpu ? "CPU " : "",
			 row->baseline, cib);
	}
	/* cpu/wall: the share of the windows the producers were on a CPU. */
	double oncpu = row->cpu_ns_median / row->ns_median;
	char busy[80] = "";

	if (oncpu < 0.8)
		snprintf(busy, sizeof(busy), " (producers on a CPU %.0f%% of the time: busy machine)",
			 100 * oncpu);
	trig_say(c, "[%d/%d] %-13s %-8s p=%d hits %8.3f ± %6s M/s (%7.3f M/prod)  %.2f ns/event, "
	    "%.2f CPU ns/event%s; misses %llu%s%s%s\n", c->row, c->nrows, trig_kinds[rr->k].name,
	    trig_mode_names[rr->m], rr->np, row->mops_mean, sdb, row->mops_mean / rr->np,
	    row->ns_median, row->cpu_ns_median, db, (unsigned long long)row->refusals, busy,
	    strcmp(row->status, "noisy") ? "" : "; NOISY: ",
	    strcmp(row->status, "noisy") ? "" : row->reason);
}

int row_finish(struct ctx *c, struct row_run *rr, struct rg_result *row, int err)
{
	const struct opts *o = c->o;
	const char *name = trig_kinds[rr->k].name, *mode = trig_mode_names[rr->m];
	struct run *r = rr->r;

	if (rr->unpinned || (r && atomic_load(&r->unpinned))) {
		snprintf(row->pinning, sizeof(row->pinning), "none");
	} else {
		snprintf(row->pinning, sizeof(row->pinning), "%s", c->pin.how);
		cpus_string(&c->pin, rr->np, row->cpus, sizeof(row->cpus));
		snprintf(row->cpus_why, sizeof(row->cpus_why), "%s", o->ncpus ? "--cpus given" :
			 "default: the first allowed CPUs in placement order, one producer each");
	}
	if (err == -ENOMEM)
		return err;
	if (err) {
		snprintf(row->status, sizeof(row->status), "error");
		if (err == -EIO && r)
			snprintf(row->reason, sizeof(row->reason),
				 "bpf_prog_test_run_opts failed in %d producer(s): %s",
				 atomic_load(&r->errors), strerror(atomic_load(&r->first_errno)));
		else if (err == -EAGAIN)
			snprintf(row->reason, sizeof(row->reason), "cannot start %d producer threads",
				 rr->np);
		else
			snprintf(row->reason, sizeof(row->reason), "%s",
				 rr->why[0] ? rr->why : strerror(-err));
		trig_say(c, "[%d/%d] %-13s %-8s error: %s\n", c->row, c->nrows, name, mode, row->reason);
	} else if (o->triggers) {
		trig_say(c, "[%d/%d] %-13s %-8s p=%d triggers=%llu hits=%llu misses=%llu\n", c->row,
		    c->nrows, name, mode, rr->np,
		    (unsigned long long)o->triggers * (unsigned long long)rr->np,
		    (unsigned long long)row->ops, (unsigned long long)row->refusals);
	} else {
		row_print(c, row, rr);
	}
	return 0;
}
