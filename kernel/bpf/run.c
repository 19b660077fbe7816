// SPDX-License-Identifier: MIT
/* The BPF bench's rows: each variant measured in alternating windows against its baseline, in passes over every row (numbers: fill.c; the driver batch: batch.c). */
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
#include "rg/stats.h"
#include "bpf_internal.h"

/* ---- one row ---- */

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
	/* One figure, the rate: ns_median and wall_ns_median 1e3 / (M/s per producer). */
	if (row->ops && rg_result_fill(row, &(struct rg_measured){ .n = 1, .mops = &mops,
								   .ns_from_rate = true }))
		return -ENOMEM;
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

/* Producers for rr, set up for the row's loop. 0 or -ENOMEM. */
static int row_setup(struct ctx *c, struct row_run *rr)
{
	const struct opts *o = c->o;
	struct run *r;

	if (rr->m != MODE_SYSCALL) {
		rr->fd_b = trig_driver_fd(&rr->t);
		rr->fd_a = rr->k == K_DRV_COUNT ? trig_measured_fd(&rr->t) : rr->fd_b;
	}
	rr->r = r = run_alloc(rr->np);
	rr->prod = calloc((size_t)rr->np, sizeof(*rr->prod));
	if (!r || !rr->prod)
		return -ENOMEM;
	r->pin = &c->pin;
	r->batch = c->batch;
	r->limit = o->triggers ? o->triggers : UINT64_MAX;
	r->loop = rr->m != MODE_SYSCALL ? LOOP_DRIVER :
		  rr->k == K_USER_COUNT ? LOOP_USER_COUNT : LOOP_SYSCALL;
	r->prog_fd = rr->fd_a;
	return 0;
}

/* The row's objects and producers: programs and links go away on every path, the samples stay. */
static void row_close(struct row_run *rr)
{
	if (rr->r)
		rr->unpinned |= atomic_load(&rr->r->unpinned) != 0;
	run_free(rr->r);
	free(rr->prod);
	rr->r = NULL;
	rr->prod = NULL;
	trig_close(&rr->t);
	rr->fd_a = rr->fd_b = -1;
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

/* Warm-up of a pass: both states when paired, half the time each, discarded. */
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
 * Sample i of the row (counted over all passes): a window of side A and
 * (paired) one of side B, in the order A B, B A, A B, ... (ABBA), so that
 * drift within a row and what a detach leaves behind fall on both sides
 * alike instead of biasing every delta the same way. The pair of a sample
 * is its two windows, whatever their order.
 */
static int row_sample(struct ctx *c, struct row_run *rr, size_t i)
{
	bool b_first = rr->bk >= 0 && i % 2;
	int err = side_window(c, rr, b_first);

	if (err || rr->bk < 0)
		return err;
	return side_window(c, rr, !b_first);
}

/* The samples of pass p of P: --repetitions spread evenly, the first passes take the rest. */
static int pass_share(const struct opts *o, int p)
{
	return o->reps / o->passes + (p < o->reps % o->passes);
}

/* One timed pass of the row: its warm-up, then its share of the samples. */
static int pass_measure(struct ctx *c, struct row_run *rr, int p)
{
	int err = row_warmup(c, rr);

	for (int i = 0; i < pass_share(c->o, p) && !err; i++)
		err = row_sample(c, rr, rr->sa.n);
	if (!err)
		rr->pass_end[rr->npass++] = rr->sa.n;
	return err;
}

/* A variant asked for by name in a mode it has no path in: a skipped row saying so. */
static int row_no_path(struct ctx *c, enum rg_kind k, enum rg_mode m)
{
	const char *name = trig_kinds[k].name, *mode = trig_mode_names[m];

	if (!rg_results_skip(c->rs, SUITE, name, mode, "%s has no %s path in rgbench bpf (see --list)",
			     name, mode))
		return -ENOMEM;
	trig_say(c, "[%d/%d] %-13s %-8s skipped: no %s path\n", c->row, c->nrows, name, mode, mode);
	return 0;
}

/*
 * The row's first pass: open its object and producers, kept over the passes
 * (loading and verifying is a fixed cost, not a measurement), and add its
 * result row; a variant that cannot be opened becomes a skipped row (done).
 * 0 or -ENOMEM.
 */
static int row_start(struct ctx *c, struct row_run *rr)
{
	struct rg_result *row;

	if (rr->k != K_USER_COUNT &&
	    trig_open(&rr->t, c->o, rr->k, rr->m, rr->m == MODE_SYSCALL ? 1 : c->batch, rr->why,
		      sizeof(rr->why))) {
		rr->done = true;
		trig_close(&rr->t);
		return row_unopened(c, rr->k, rr->m, rr->np, rr->why);
	}
	row = row_setup(c, rr) ? NULL :
	      rg_results_add(c->rs, SUITE, trig_kinds[rr->k].name, trig_mode_names[rr->m]);
	if (!row)
		return -ENOMEM;
	rr->res = (size_t)(row - c->rs->rows);
	rr->started = true;
	row_identity(c, row, rr->k, rr->m, rr->np);
	return 0;
}

/*
 * Pass p of row rr: attach/warm up/measure its share of the samples/detach.
 * The first pass opens it (row_start); the last pass, or a failure in any,
 * fills its row, prints it and closes it. 0, -EINTR (stop requested: the
 * row unfinished), or -ENOMEM.
 */
static int row_pass(struct ctx *c, struct row_run *rr, int p, double t0)
{
	const struct opts *o = c->o;
	struct rg_result *row;
	int err;

	if (rr->done)
		return 0;
	if (!row_exists(rr->k, rr->m)) {
		rr->done = true;
		return row_no_path(c, rr->k, rr->m);
	}
	if (!rr->started && ((err = row_start(c, rr)) || rr->done))
		return err;
	rr->pass_at[p] = rg_now_s() - t0;
	row = &c->rs->rows[rr->res];
	err = o->triggers ? run_fixed(c, rr->r, rr->prod, &rr->t, rr->bpf_a, row)
			  : pass_measure(c, rr, p);
	/* A sample may end on side A: nothing stays attached while other rows run. */
	if (!err && trig_detach(&rr->t) && !sleep_until(rg_now_s() + DETACH_SETTLE_S))
		err = -EINTR;
	if (err != -EINTR && (err || p == o->passes - 1)) {
		if (!err && !o->triggers)
			err = row_fill(c, row, rr);
		err = row_finish(c, rr, row, err);
		rr->done = true;
		row_close(rr);
	}
	return err;
}

/* ---- every row ---- */

/* Seconds one row takes at most (a skipped one takes none). */
static double row_seconds(const struct opts *o, enum rg_kind k, enum rg_mode m)
{
	int sides = o->triggers ? 0 : pair_of(k, m) >= 0 ? 2 : 1;

	return o->passes * (o->warmup + 0.05) + sides * o->reps * (o->duration + SETTLE_S + 0.005) +
	       (sides == 2 ? o->reps * DETACH_SETTLE_S : 0);
}

/* Whether (k, m) makes a row: wanted, and existing or asked for by name (a skipped row then). */
static bool row_wanted(const struct opts *o, enum rg_kind k, enum rg_mode m)
{
	return (o->modes & M(m)) && o->want[k] && (row_exists(k, m) || o->explicit_kinds);
}

/*
 * The wanted rows in order (per producer count, per mode, each kind in table
 * order) into *rows, c->nrows of them, saying how long they take at most;
 * *driver: whether a driver row runs (the batch is then sized first). 0 or -ENOMEM.
 */
static int plan_rows(struct ctx *c, struct row_run **rows, bool *driver)
{
	const struct opts *o = c->o;
	double est = 0;
	int n = 0;

	*rows = NULL;
	*driver = false;
	for (int pass = 0; pass < 2; pass++) {
		n = 0;
		for (int ti = 0; ti < o->nthreads; ti++)
			for (int m = 0; m < NR_MODES; m++)
				for (int k = 0; k < NR_KINDS; k++) {
					enum rg_kind kk = (enum rg_kind)k;
					enum rg_mode mm = (enum rg_mode)m;

					if (!row_wanted(o, kk, mm))
						continue;
					if (*rows) {
						(*rows)[n] = (struct row_run){
							.k = kk, .m = mm, .np = o->threads[ti],
							.bk = o->triggers ? -1 : pair_of(kk, mm),
							.bpf_a = trig_kinds[k].prog != NULL,
							.fd_a = -1, .fd_b = -1,
						};
					} else if (row_exists(kk, mm)) {
						*driver |= m != MODE_SYSCALL;
						est += row_seconds(o, kk, mm);
					}
					n++;
				}
		if (pass == 0 && !(*rows = calloc(n ? (size_t)n : 1, sizeof(**rows))))
			return -ENOMEM;
	}
	c->row = 0;
	c->nrows = n;
	for (int i = 0; i < n; i++)
		if (series_alloc(&(*rows)[i].sa, (size_t)o->reps) ||
		    series_alloc(&(*rows)[i].sb, (size_t)o->reps))
			return -ENOMEM;
	if (*driver && !o->batch && !o->triggers)
		est += 2 * CAL_ROUNDS * (fmin(o->duration, 0.2) + SETTLE_S) + 0.1;
	if (!o->triggers)
		trig_say(c, "rgbench bpf: %d rows, %d sample(s) of %g s each in %d pass(es) over all rows, "
		    "%g s warm-up per row and pass (paired rows alternate with their baseline): "
		    "at most ~%.0f s\n", c->nrows, o->reps, o->duration, o->passes, o->warmup, est);
	return 0;
}

/* Stopped: the rows begun and not finished are no results (none holds samples yet). */
static void drop_unfinished(struct ctx *c, const struct row_run *rows, int n)
{
	size_t first = SIZE_MAX, out;

	for (int i = 0; i < n; i++)
		if (rows[i].started && !rows[i].done && rows[i].res < first)
			first = rows[i].res;
	if (first == SIZE_MAX)
		return;
	out = first;
	for (size_t j = first; j < c->rs->n; j++) {
		bool drop = false;

		for (int i = 0; i < n && !drop; i++)
			drop = rows[i].started && !rows[i].done && rows[i].res == j;
		if (!drop)
			c->rs->rows[out++] = c->rs->rows[j];
	}
	c->rs->n = out;
}

/*
 * After pass p (not the last): each row still measuring, with its figures so
 * far (medians of its samples, and over its baseline's), then the time taken
 * and what is left at that rate. Progress only: the row's line comes at its end.
 */
static void say_pass(struct ctx *c, const struct row_run *rows, int p, double t0)
{
	const struct opts *o = c->o;
	double el = rg_now_s() - t0, left = el * (o->passes - p - 1) / (p + 1);
	char a[32], b[32];

	if (!c->out || trig_stopped())
		return;
	for (int i = 0; i < c->nrows; i++) {
		const struct row_run *rr = &rows[i];
		char over[96] = "";

		if (!rr->started || rr->done || !rr->sa.n)
			continue;
		if (rr->bk >= 0 && rr->sb.n)
			snprintf(over, sizeof(over), "; %+.2f CPU ns over %s",
				 rg_stat_median(rr->sa.cpu_ns, rr->sa.n) -
				 rg_stat_median(rr->sb.cpu_ns, rr->sb.n), trig_kinds[rr->bk].name);
		trig_say(c, "[%d/%d] %-13s %-8s p=%d so far (pass %d of %d, %zu sample(s)): %.2f ns/event, "
			 "%.2f CPU ns/event%s\n", i + 1, c->nrows, trig_kinds[rr->k].name,
			 trig_mode_names[rr->m], rr->np, p + 1, o->passes, rr->sa.n,
			 rg_stat_median(rr->sa.ns, rr->sa.n), rg_stat_median(rr->sa.cpu_ns, rr->sa.n),
			 over);
	}
	rg_cl_say_seconds(a, sizeof(a), el);
	rg_cl_say_seconds(b, sizeof(b), left);
	trig_say(c, "rgbench bpf: pass %d of %d done (%s, ~%s left)\n", p + 1, o->passes, a, b);
}

/*
 * Run every wanted row in o->passes passes: each pass measures every row in
 * order (its warm-up and its share of the samples), so that a row's samples
 * spread over the whole of the bench's time and each pass gives it one
 * run-level value.
 */
int trig_run_all(struct ctx *c)
{
	const struct opts *o = c->o;
	struct row_run *rows;
	bool driver;
	double t0;
	int err;

	trig_messages_init(o->verbose);
	err = plan_rows(c, &rows, &driver);
	c->batch = o->batch ? o->batch : CAL_BATCH;
	if (!err && driver && !o->batch && !o->triggers)
		err = trig_size_batch(c, fmin(o->duration, 0.2));
	t0 = rg_now_s();
	for (int p = 0; p < o->passes && !err && !trig_stopped(); p++) {
		if (o->passes > 1)
			trig_say(c, "rgbench bpf: pass %d of %d\n", p + 1, o->passes);
		for (int i = 0; i < c->nrows && !err && !trig_stopped(); i++) {
			c->row = i + 1;
			err = row_pass(c, &rows[i], p, t0);
		}
		if (!err && p < o->passes - 1)
			say_pass(c, rows, p, t0);
	}
	if (err == -EINTR || trig_stopped()) {
		drop_unfinished(c, rows, c->nrows);
		err = -EINTR;
	}
	for (int i = 0; rows && i < c->nrows; i++) {
		row_close(&rows[i]);	/* rows left open by a stop or a failure */
		series_free(&rows[i].sa);
		series_free(&rows[i].sb);
	}
	free(rows);
	return err;
}
