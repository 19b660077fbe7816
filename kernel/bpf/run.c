// SPDX-License-Identifier: MIT
/* The BPF bench's rows: each variant measured in alternating windows against its baseline, every row in order (the driver batch: batch.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/schema.h"
#include "rg/cmdline.h"
#include "bpf_internal.h"

/* Per-window values of one side (the row's, or its baseline's). */
struct series {
	double *mops;		/* M events/s, all producers */
	double *ns;		/* wall ns per event per producer: 1e3 / (M/s per producer) */
	double *cpu_ns;		/* producers' CPU ns per event */
	size_t n;
	uint64_t events, misses;
	size_t disturbed;	/* windows in which a producer was stopped or blocked */
	long nvcsw;		/* their voluntary switches, all windows */
};

static int series_alloc(struct series *s, size_t n)
{
	memset(s, 0, sizeof(*s));
	s->mops = calloc(n ? n : 1, sizeof(double));
	s->ns = calloc(n ? n : 1, sizeof(double));
	s->cpu_ns = calloc(n ? n : 1, sizeof(double));
	return s->mops && s->ns && s->cpu_ns ? 0 : -ENOMEM;
}

static void series_free(struct series *s)
{
	free(s->mops);
	free(s->ns);
	free(s->cpu_ns);
	memset(s, 0, sizeof(*s));
}

static void series_add(struct series *s, const struct window *w, int np)
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

/* ---- one row ---- */

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

void trig_say(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (!c->out)
		return;
	va_start(ap, fmt);
	vfprintf(c->out, fmt, ap);
	va_end(ap);
	fflush(c->out);
}

static void row_identity(struct ctx *c, struct rg_result *row, enum rg_kind k, enum rg_mode m,
			 int np)
{
	row->threads = np;
	row->batch = m == MODE_SYSCALL ? 1 : c->batch;
	/* Counting other than the default is part of what was measured: the scenario says it. */
	if (c->o->count != COUNT_PERCPU)
		snprintf(row->scenario, sizeof(row->scenario), "%s,count=%s", trig_mode_names[m],
			 trig_count_names[c->o->count]);
	snprintf(row->role, sizeof(row->role), "%s", role_of(k));
}

/* Fill a measured row from its windows (and its baseline's, when paired). */
static int row_fill(struct ctx *c, struct rg_result *row, enum rg_kind k, const struct series *a,
		    const struct series *b, int bk)
{
	bool cpu_ok = true;

	if (rg_result_set_samples(row, a->ns, a->mops, a->n))
		return -ENOMEM;
	/* Exactly 1e3 / (M/s per producer), also for an even number of samples. */
	row->ns_median = 1e3 / row->mops_per_thread;
	row->wall_ns_median = row->ns_median;
	for (size_t i = 0; i < a->n; i++)
		cpu_ok &= isfinite(a->cpu_ns[i]);
	if (cpu_ok && a->n)
		row->cpu_ns_median = rg_stat_median(a->cpu_ns, a->n);
	row->refusals = a->misses;
	row->ops = a->events;
	if (b) {
		snprintf(row->interleave, sizeof(row->interleave), "alternating");
		if (rg_result_set_delta(row, trig_kinds[bk].name, a->ns, b->ns, a->n))
			return -ENOMEM;
	}
	/* As the user suite: a disturbed sample makes the row noisy, saying how (no re-run). */
	if (a->disturbed || (b && b->disturbed)) {
		snprintf(row->status, sizeof(row->status), "noisy");
		snprintf(row->reason, sizeof(row->reason),
			 "%zu of %zu windows disturbed: a producer was stopped or blocked (%ld voluntary switches)",
			 a->disturbed + (b ? b->disturbed : 0), a->n + (b ? b->n : 0),
			 a->nvcsw + (b ? b->nvcsw : 0));
	}
	(void)c;
	(void)k;
	return 0;
}

static void row_print(struct ctx *c, const struct rg_result *row, enum rg_kind k, enum rg_mode m,
		      int np)
{
	char sdb[16] = "n/a", db[112] = "", cib[64] = "", tag[16];

	if (!isnan(row->mops_stddev))
		snprintf(sdb, sizeof(sdb), "%.3f", row->mops_stddev);
	if (!isnan(row->delta_ns)) {
		/* The interval's level follows it when below 95% (fewer than 6 samples). */
		if (!isnan(row->delta_ci_lo))
			snprintf(cib, sizeof(cib), " [%+.2f, %+.2f]%s", row->delta_ci_lo,
				 row->delta_ci_hi, rg_ci_level_tag(row->delta_ci_level, tag, sizeof(tag)));
		else
			snprintf(cib, sizeof(cib), " [n/a: %ld samples]", row->repetitions);
		snprintf(db, sizeof(db), "; %+.2f ns over %s%s", row->delta_ns, row->baseline, cib);
	}
	/* cpu/wall: the share of the windows the producers were on a CPU. */
	double oncpu = row->cpu_ns_median / row->ns_median;
	char busy[80] = "";

	if (oncpu < 0.8)
		snprintf(busy, sizeof(busy), " (producers on a CPU %.0f%% of the time: busy machine)",
			 100 * oncpu);
	trig_say(c, "[%d/%d] %-13s %-8s p=%d hits %8.3f ± %6s M/s (%7.3f M/prod)  %.2f ns/event%s; "
	    "misses %llu%s%s%s\n", c->row, c->nrows, trig_kinds[k].name, trig_mode_names[m], np,
	    row->mops_mean, sdb, row->mops_mean / np, row->ns_median, db,
	    (unsigned long long)row->refusals, busy, strcmp(row->status, "noisy") ? "" : "; NOISY: ",
	    strcmp(row->status, "noisy") ? "" : row->reason);
}

/* --triggers: each producer triggers exactly o->triggers events; no timing windows. */
static int run_fixed(struct ctx *c, struct run *r, struct producer *prod, const struct trig *t,
		     bool bpf_counted, struct rg_result *row)
{
	uint64_t m0 = trig_misses(t);
	double t0, t1, mops;
	int err = producers_start(r, prod);

	if (err)
		return err;
	t0 = rg_now_s();
	while (atomic_load(&r->done) < r->np && sleep_until(rg_now_s() + 0.01))
		;
	producers_stop(r, prod);
	t1 = rg_now_s();
	if (trig_stopped())
		return -EINTR;
	row->ops = bpf_counted ? trig_hits(t) : user_hits(r);
	row->refusals = trig_misses(t) - m0;
	mops = (double)row->ops / (t1 - t0) / 1e6;
	if (row->ops && rg_result_set_samples(row, NULL, &mops, 1))
		return -ENOMEM;
	if (row->ops)
		row->ns_median = row->wall_ns_median = 1e3 / row->mops_per_thread;
	(void)c;
	return atomic_load(&r->errors) ? -EIO : 0;
}

/* The row of a variant that could not be opened: skipped, saying why. 0 or -ENOMEM. */
static int row_unopened(struct ctx *c, enum rg_kind k, enum rg_mode m, int np, const char *why)
{
	const char *mode = trig_mode_names[m];
	struct rg_result *row = rg_results_skip(c->rs, SUITE, trig_kinds[k].name, mode, "%s", why);

	if (!row)
		return -ENOMEM;
	row_identity(c, row, k, m, np);
	trig_say(c, "[%d/%d] %-13s %-8s skipped: %s\n", c->row, c->nrows, trig_kinds[k].name, mode, why);
	if (c->o->verbose && trig_last_warn[0])
		trig_say(c, "%-13s %-8s libbpf: %s\n", "", "", trig_last_warn);
	return 0;
}

/* One row being measured: the variant, its loaded object, its producers, both sides' samples. */
struct row_run {
	enum rg_kind k;
	enum rg_mode m;
	int np;
	int bk;				/* the paired baseline (pair_of), or -1 */
	bool bpf_a;			/* side A counted by the program, not in userspace */
	int fd_a, fd_b;			/* the program side A / side B runs (driver modes) */
	struct trig t;
	struct run *r;
	struct producer *prod;
	struct series sa, sb;		/* side A (the row), side B (its baseline) */
	char why[256];
};

/* Producers and sample arrays for rr, set up for the row's loop. 0 or -ENOMEM. */
static int row_run_setup(struct ctx *c, struct row_run *rr)
{
	const struct opts *o = c->o;
	struct run *r;

	if (rr->m != MODE_SYSCALL) {
		rr->fd_b = trig_driver_fd(&rr->t);
		rr->fd_a = rr->k == K_DRV_COUNT ? trig_measured_fd(&rr->t) : rr->fd_b;
	}
	rr->r = r = run_alloc(rr->np);
	rr->prod = calloc((size_t)rr->np, sizeof(*rr->prod));
	if (!r || !rr->prod || series_alloc(&rr->sa, (size_t)o->reps) ||
	    series_alloc(&rr->sb, (size_t)o->reps))
		return -ENOMEM;
	r->pin = &c->pin;
	r->batch = c->batch;
	r->limit = o->triggers ? o->triggers : UINT64_MAX;
	r->loop = rr->m != MODE_SYSCALL ? LOOP_DRIVER :
		  rr->k == K_USER_COUNT ? LOOP_USER_COUNT : LOOP_SYSCALL;
	r->prog_fd = rr->fd_a;
	return 0;
}

static void row_run_free(struct row_run *rr)
{
	series_free(&rr->sa);
	series_free(&rr->sb);
	run_free(rr->r);
	free(rr->prod);
	trig_close(&rr->t);		/* programs and links go away on every path */
}

/* Side A: the measured program attached (or run); side B: the baseline's state, same loop. */
static int window_a(struct row_run *rr, double seconds, struct window *w)
{
	int err = trig_attach(&rr->t, rr->k, rr->m, rr->why, sizeof(rr->why));

	if (err)
		return err;
	rr->r->prog_fd = rr->fd_a;
	return run_window(rr->r, rr->prod, &rr->t, rr->bpf_a, seconds, w);
}

static int window_b(struct row_run *rr, double seconds, struct window *w)
{
	/* After a detach, a settle before the next window (RCU callbacks, freed links). */
	if (trig_detach(&rr->t) && !sleep_until(rg_now_s() + DETACH_SETTLE_S))
		return -EINTR;
	rr->r->prog_fd = rr->fd_b;
	return run_window(rr->r, rr->prod, &rr->t, false, seconds, w);
}

/* Warm-up: both states when paired, half the time each, discarded. */
static int row_warmup(struct ctx *c, struct row_run *rr)
{
	double warmup = c->o->warmup;
	struct window w;
	int err;

	if (warmup <= 0)
		return 0;
	if (rr->bk < 0)
		return run_window(rr->r, rr->prod, &rr->t, rr->bpf_a, warmup, &w);
	err = window_a(rr, warmup / 2, &w);
	return err ? err : window_b(rr, warmup / 2, &w);
}

/* One window of side A (b false) or B, added to its series. A window without events is -ENODATA. */
static int side_window(struct ctx *c, struct row_run *rr, bool b)
{
	struct window w;
	int err = b ? window_b(rr, c->o->duration, &w) : window_a(rr, c->o->duration, &w);

	if (err)
		return err;
	if (!w.events) {
		snprintf(rr->why, sizeof(rr->why), b ?
			 "no baseline events counted in a %.2f s window" :
			 "no events counted in a %.2f s window "
			 "(the program never ran, or the producers never got a CPU)", w.wall);
		return -ENODATA;
	}
	series_add(b ? &rr->sb : &rr->sa, &w, rr->np);
	return 0;
}

/*
 * Sample i: a window of side A and (paired) one of side B, in the order
 * A B, B A, A B, ... (ABBA), so that drift within a row and what a detach
 * leaves behind fall on both sides alike instead of biasing every delta the
 * same way. The pair of a sample is its two windows, whatever their order.
 */
static int row_sample(struct ctx *c, struct row_run *rr, int i)
{
	bool b_first = rr->bk >= 0 && i % 2;
	int err = side_window(c, rr, b_first);

	if (err || rr->bk < 0)
		return err;
	return side_window(c, rr, !b_first);
}

/* The timed row: warm-up, --repetitions samples, then the row's numbers. */
static int row_measure(struct ctx *c, struct row_run *rr, struct rg_result *row)
{
	int err = row_warmup(c, rr);

	for (int i = 0; i < c->o->reps && !err; i++)
		err = row_sample(c, rr, i);
	if (!err)
		err = row_fill(c, row, rr->k, &rr->sa, rr->bk >= 0 ? &rr->sb : NULL, rr->bk);
	return err;
}

/*
 * A measured row's pinning, and its status and progress line: a failure
 * becomes an error row saying why (then 0); -ENOMEM is passed on.
 */
static int row_finish(struct ctx *c, struct row_run *rr, struct rg_result *row, int err)
{
	const struct opts *o = c->o;
	const char *name = trig_kinds[rr->k].name, *mode = trig_mode_names[rr->m];
	struct run *r = rr->r;

	if (atomic_load(&r->unpinned)) {
		snprintf(row->pinning, sizeof(row->pinning), "none");
	} else {
		snprintf(row->pinning, sizeof(row->pinning), "%s", c->pin.how);
		cpus_string(&c->pin, rr->np, row->cpus, sizeof(row->cpus));
	}
	if (err == -ENOMEM)
		return err;
	if (err) {
		snprintf(row->status, sizeof(row->status), "error");
		if (err == -EIO)
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
		row_print(c, row, rr->k, rr->m, rr->np);
	}
	return 0;
}

/*
 * Measure one row: variant k in mode m with np producers. A row paired with a
 * baseline (pair_of) alternates windows A B A B ...: A with the measured
 * program attached (or run), B with the baseline's state, the same producer
 * loop in both. Skipped and failed variants become rows saying why.
 * 0, -EINTR (stop requested: nothing added), or -ENOMEM.
 */
static int run_row(struct ctx *c, enum rg_kind k, enum rg_mode m, int np)
{
	const struct opts *o = c->o;
	struct row_run rr = {
		.k = k, .m = m, .np = np, .bk = o->triggers ? -1 : pair_of(k, m),
		.bpf_a = trig_kinds[k].prog != NULL, .fd_a = -1, .fd_b = -1,
	};
	struct rg_result *row;
	int err;

	c->row++;
	if (k != K_USER_COUNT &&
	    trig_open(&rr.t, o, k, m, m == MODE_SYSCALL ? 1 : c->batch, rr.why, sizeof(rr.why)))
		return row_unopened(c, k, m, np, rr.why);
	err = row_run_setup(c, &rr);
	row = err ? NULL : rg_results_add(c->rs, SUITE, trig_kinds[k].name, trig_mode_names[m]);
	if (!row) {
		row_run_free(&rr);
		return -ENOMEM;
	}
	row_identity(c, row, k, m, np);
	if (o->triggers)
		err = run_fixed(c, rr.r, rr.prod, &rr.t, rr.bpf_a, row);
	else
		err = row_measure(c, &rr, row);
	if (err == -EINTR) {
		c->rs->n--;	/* an interrupted row is not a result */
		rg_result_set_samples(row, NULL, NULL, 0);
	} else {
		err = row_finish(c, &rr, row, err);
	}
	row_run_free(&rr);
	return err;
}

/* ---- every row ---- */

/* Seconds one row takes at most (a skipped one takes none). */
static double row_seconds(const struct opts *o, enum rg_kind k, enum rg_mode m)
{
	int sides = o->triggers ? 0 : pair_of(k, m) >= 0 ? 2 : 1;

	return o->warmup + sides * o->reps * (o->duration + SETTLE_S + 0.005) +
	       (sides == 2 ? o->reps * DETACH_SETTLE_S : 0) + 0.05;
}

/* Whether (k, m) makes a row: wanted, and existing or asked for by name (a skipped row then). */
static bool row_wanted(const struct opts *o, enum rg_kind k, enum rg_mode m)
{
	return (o->modes & M(m)) && o->want[k] && (row_exists(k, m) || o->explicit_kinds);
}

/*
 * Count the rows into c->nrows and say how long they take at most; *driver:
 * whether a driver row runs (the batch is then sized first).
 */
static void plan_rows(struct ctx *c, bool *driver)
{
	const struct opts *o = c->o;
	double est = 0;

	c->row = c->nrows = 0;
	*driver = false;
	for (int m = 0; m < NR_MODES; m++)
		for (int k = 0; k < NR_KINDS; k++) {
			if (!row_wanted(o, (enum rg_kind)k, (enum rg_mode)m))
				continue;
			c->nrows += o->nthreads;
			if (!row_exists((enum rg_kind)k, (enum rg_mode)m))
				continue;
			*driver |= m != MODE_SYSCALL;
			est += o->nthreads * row_seconds(o, (enum rg_kind)k, (enum rg_mode)m);
		}
	if (*driver && !o->batch && !o->triggers)
		est += 2 * CAL_ROUNDS * (fmin(o->duration, 0.2) + SETTLE_S) + 0.1;
	if (!o->triggers)
		trig_say(c, "rgbench bpf: %d rows, %d sample(s) of %g s after %g s warm-up each "
		    "(paired rows alternate with their baseline): at most ~%.0f s\n",
		    c->nrows, o->reps, o->duration, o->warmup, est);
}

/* A variant asked for by name in a mode it has no path in: a skipped row saying so. */
static int row_no_path(struct ctx *c, enum rg_kind k, enum rg_mode m)
{
	const char *name = trig_kinds[k].name, *mode = trig_mode_names[m];

	c->row++;
	if (!rg_results_skip(c->rs, SUITE, name, mode, "%s has no %s path in rgbench bpf (see --list)",
			     name, mode))
		return -ENOMEM;
	trig_say(c, "[%d/%d] %-13s %-8s skipped: no %s path\n", c->row, c->nrows, name, mode, mode);
	return 0;
}

/* Run every wanted row: per producer count, per mode, each kind in table order. */
int trig_run_all(struct ctx *c)
{
	const struct opts *o = c->o;
	bool driver;
	int err = 0;

	trig_messages_init(o->verbose);
	plan_rows(c, &driver);
	c->batch = o->batch ? o->batch : CAL_BATCH;
	if (driver && !o->batch && !o->triggers)
		err = trig_size_batch(c, fmin(o->duration, 0.2));
	for (int ti = 0; ti < o->nthreads && !err && !trig_stopped(); ti++)
		for (int m = 0; m < NR_MODES && !err && !trig_stopped(); m++)
			for (int k = 0; k < NR_KINDS && !err && !trig_stopped(); k++) {
				if (!row_wanted(o, (enum rg_kind)k, (enum rg_mode)m))
					continue;
				if (row_exists((enum rg_kind)k, (enum rg_mode)m))
					err = run_row(c, (enum rg_kind)k, (enum rg_mode)m, o->threads[ti]);
				else
					err = row_no_path(c, (enum rg_kind)k, (enum rg_mode)m);
			}
	if (trig_stopped())
		return -EINTR;
	return err;
}
