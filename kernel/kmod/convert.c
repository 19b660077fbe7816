// SPDX-License-Identifier: MIT
/* The module's debugfs CSV (per run, per CPU) to shared-schema rows (per guard and scenario): rg_kmod_convert(). */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/cpu_limit.h"
#include "rg/csv.h"
#include "rg/kmod.h"
#include "rg/parts.h"
#include "rg/registry.h"
#include "rg/schema.h"

enum { C_GUARD, C_SCENARIO, C_THREADS, C_CPUS, C_CPU, C_RUN, C_BATCH, C_DUTY,
       C_NS_TOTAL, C_OPS, C_REFUSALS, C_STATUS, C_REASON,
       /* optional (modules before schema 3 did not write them) */
       C_ROLE, C_DISTURBED, C_DISCARDED,
       /* optional (modules before schema 4 ran another duty shape) */
       C_DUTY_IN, C_DUTY_UNITS,
       /* optional (the tramp scenario's program runs, modules since schema 5) */
       C_PROG_RUNS, C_NCOLS };
#define C_NREQUIRED C_ROLE
static const char *const col_names[C_NCOLS] = {
	"guard", "scenario", "threads", "cpus", "cpu", "run", "batch", "duty_ns",
	"ns_total", "ops", "refusals", "status", "reason",
	"role", "disturbed", "discarded",
	"duty_in_ns", "duty_units", "prog_runs",
};

/* The module's rows of one guard and scenario (consecutive in its CSV), summed up. */
struct group {
	char guard[48], scenario[48], cpus[256], status[16], reason[256], role[32];
	long threads, batch, duty, discarded, disturbed;
	double duty_in;		/* ns inside the guarded region; NAN: not the trampoline shape */
	long units;		/* duty work units per call, in + out */
	unsigned long long ops, refusals, prog_runs;
	/* per run: sum of ns per pair over CPUs, CPU count, sum of Mpairs/s */
	double *ns_sum, *mops_sum;
	long *ncpu;
	long nruns;
	bool timed;
};

/* A timed row's per-round values, kept until the file's end: its numbers are filled then, paired with its baseline's rounds. */
struct timed {
	size_t row;
	double *ns, *mops;
	size_t n;
};

struct timed_list {
	struct timed *v;
	size_t n;
};

/* One conversion: where rows go, the group being summed, and what to report. */
struct conv {
	struct rg_resultset *rs;
	int idx[C_NCOLS];	/* column -> field index, -1 when absent (optional only) */
	int nhdr;
	struct group g;
	bool have;		/* g holds a group not yet emitted */
	struct timed_list tl;
	/* the cycle reference (modules since schema 4): per run, sum of ns per add over CPUs */
	double *ref_sum;
	long *ref_ncpu, ref_nruns;
	int added, errors;
	char *err;
	size_t errlen;
};

static void group_free(struct group *g)
{
	free(g->ns_sum);
	free(g->mops_sum);
	free(g->ncpu);
	memset(g, 0, sizeof(*g));
}

static void set_identity(struct rg_result *r, const struct group *g)
{
	snprintf(r->pinning, sizeof(r->pinning), "kthread");
	snprintf(r->cpus, sizeof(r->cpus), "%s", g->cpus);
	snprintf(r->cpus_why, sizeof(r->cpus_why), "the module's cpus= list (--cpus, default all online), "
		 "one kthread per CPU, SMT siblings left out unless --siblings");
	snprintf(r->role, sizeof(r->role), "%s", g->role);
	r->threads = g->threads;
	r->batch = g->batch;
	r->duty_ns = g->duty;
	r->duty_in_ns = g->duty_in;
	r->work_units = g->units;
}

/* Keep a timed row's per-round ns and Mpairs/s (n of each, taken over) until the file's end. 0 or -1 (ENOMEM). */
static int keep_timed(struct timed_list *tl, size_t row, double *ns, double *mops, long n)
{
	struct timed *t = realloc(tl->v, (tl->n + 1) * sizeof(*t));

	if (!t) {
		free(ns);
		free(mops);
		return -1;
	}
	tl->v = t;
	tl->v[tl->n++] = (struct timed){ .row = row, .ns = ns, .mops = mops, .n = (size_t)n };
	return 0;
}

/* A timed group's rounds: per run, the mean over CPUs of ns per pair and the sum of Mpairs/s. */
static int set_timed(struct rg_resultset *rs, struct rg_result *r, const struct group *g,
		     struct timed_list *tl)
{
	double *ns, *mops;
	long n = 0;

	/* On the heap: the run index comes from the input (up to 1e6 runs). */
	ns = malloc((g->nruns ? g->nruns : 1) * sizeof(double));
	mops = malloc((g->nruns ? g->nruns : 1) * sizeof(double));
	if (!ns || !mops) {
		free(ns);
		free(mops);
		return -1;
	}
	for (long i = 0; i < g->nruns; i++) {
		if (!g->ncpu[i])
			continue;
		ns[n] = g->ns_sum[i] / (double)g->ncpu[i];
		mops[n] = g->mops_sum[i];
		n++;
	}
	snprintf(r->interleave, sizeof(r->interleave), "rounds");
	r->discarded = g->discarded;
	if (g->disturbed && !strcmp(r->status, "ok")) {
		snprintf(r->status, sizeof(r->status), "noisy");
		snprintf(r->reason, sizeof(r->reason),
			 "%ld run(s) on a kthread still saw an interrupt or context switch "
			 "after the retries", g->disturbed);
	}
	return keep_timed(tl, rs->n - 1, ns, mops, n);
}

/* The group as one row. 0, or -1 with "out of memory" in c->err. */
static int group_emit(struct conv *c)
{
	const struct group *g = &c->g;
	struct rg_result *r;

	if (!strcmp(g->status, "skipped")) {
		r = rg_results_skip(c->rs, "kmod", g->guard, g->scenario, "%s", g->reason);
		if (!r)
			goto nomem;
		set_identity(r, g);
		return 0;
	}
	r = rg_results_add(c->rs, "kmod", g->guard, g->scenario);
	if (!r)
		goto nomem;
	set_identity(r, g);
	r->ops = g->ops;
	r->refusals = g->refusals;
	r->prog_runs = g->prog_runs;
	snprintf(r->counters, sizeof(r->counters), "n/a: kernel module");
	if (strcmp(g->status, "ok")) {
		snprintf(r->status, sizeof(r->status), "%s", g->status);
		snprintf(r->reason, sizeof(r->reason), "%s", g->reason);
	}
	if (!g->timed)
		r->repetitions = 1;
	else if (set_timed(c->rs, r, g, &c->tl))
		goto nomem;
	return 0;
nomem:
	snprintf(c->err, c->errlen, "out of memory");
	return -1;
}

/*
 * The row a timed row is paired with: noop, but in the ladder scenario a
 * step's previous step of its design (guards.def's RG_PART order, as the
 * user suite's ladder), the first step's noop.
 */
static const char *baseline_of(const struct rg_result *r)
{
	if (!strcmp(r->scenario, "ladder"))
		for (int i = 0; i < RG_PART__COUNT; i++)
			if (!strcmp(rg_parts[i].name, r->guard))
				return rg_part_step(i) > 1 ? rg_parts[i - 1].name : "noop";
	return "noop";
}

/*
 * The timed row whose rounds row t is paired with: its baseline row
 * (baseline_of()) of the same scenario, threads and duty from the same file
 * (round i of the guard against round i of the baseline: the module ran them
 * in the same shuffled round). NULL for noop and when there is none.
 */
static const struct timed *paired_of(const struct rg_resultset *rs, const struct timed_list *tl,
				     const struct rg_result *r)
{
	const char *base = baseline_of(r);

	if (!strcmp(r->guard, "noop"))
		return NULL;
	for (size_t j = 0; j < tl->n; j++) {
		const struct rg_result *b = &rs->rows[tl->v[j].row];

		if (!strcmp(b->guard, base) && !strcmp(b->scenario, r->scenario) &&
		    b->threads == r->threads && b->duty_ns == r->duty_ns)
			return &tl->v[j];
	}
	return NULL;
}

static void timed_free(struct timed_list *tl)
{
	for (size_t i = 0; i < tl->n; i++) {
		free(tl->v[i].ns);
		free(tl->v[i].mops);
	}
	free(tl->v);
	tl->v = NULL;
	tl->n = 0;
}

/* The header: "suite" first, every required column present. 0 or -1 (message in c->err). */
static int map_header(struct conv *c, struct rg_csv *s)
{
	if (rg_csv_next(s, NULL) <= 0 || strcmp(s->f[0], "suite")) {
		snprintf(c->err, c->errlen, "module output has no CSV header");
		return -1;
	}
	c->nhdr = (int)s->nf;
	for (int k = 0; k < C_NCOLS; k++) {
		c->idx[k] = -1;
		for (int i = 0; i < c->nhdr; i++)
			if (!strcmp(s->f[i], col_names[k]))
				c->idx[k] = i;
		if (c->idx[k] < 0 && k < C_NREQUIRED) {
			snprintf(c->err, c->errlen, "module CSV lacks column '%s'", col_names[k]);
			return -1;
		}
	}
	return 0;
}

/*
 * A module guard's name in the results. Modules before rctx-kernel existed
 * called their kernel-form rctx check "rctx" (the user suite's rseq design
 * now): it ran what rctx-kernel runs, so old raw files read as rctx-kernel.
 */
static const char *guard_name(const char *raw)
{
	return strcmp(raw, "rctx") ? raw : "rctx-kernel";
}

/* The first row of a guard and scenario: its identity and status. */
static void group_start(struct conv *c, char **f, const unsigned long long num[3])
{
	struct group *g = &c->g;
	const char *guard = guard_name(f[c->idx[C_GUARD]]);
	unsigned long long v;

	c->have = true;
	snprintf(g->guard, sizeof(g->guard), "%s", guard);
	snprintf(g->scenario, sizeof(g->scenario), "%s", f[c->idx[C_SCENARIO]]);
	snprintf(g->cpus, sizeof(g->cpus), "%s", f[c->idx[C_CPUS]]);
	snprintf(g->status, sizeof(g->status), "%s", f[c->idx[C_STATUS]]);
	snprintf(g->reason, sizeof(g->reason), "%s", f[c->idx[C_REASON]]);
	/*
	 * A guard the user suite also has takes its role from guards.def (one
	 * vocabulary); module-only guards keep the module's.
	 */
	if (rg_guard_find(guard))
		snprintf(g->role, sizeof(g->role), "%s", rg_guard_role(rg_guard_find(guard)));
	else
		snprintf(g->role, sizeof(g->role), "%s",
			 c->idx[C_ROLE] >= 0 && *f[c->idx[C_ROLE]] ? f[c->idx[C_ROLE]] : "n/a");
	g->threads = (long)num[0];
	g->batch = (long)num[1];
	g->duty = (long)num[2];
	/* The split is written by modules that run the trampoline shape, on duty rows only. */
	g->duty_in = NAN;
	if (c->idx[C_DUTY_IN] >= 0 && rg_csv_u64(f[c->idx[C_DUTY_IN]], &v))
		g->duty_in = (double)v;
	if (c->idx[C_DUTY_UNITS] >= 0 && rg_csv_u64(f[c->idx[C_DUTY_UNITS]], &v))
		g->units = (long)v;
	if (!strcmp(g->status, "error"))
		c->errors++;
}

/* Make room for run index run in the group's per-run sums (new ones zero). 0 or -1. */
static int group_grow(struct group *g, long run)
{
	long nr = run + 1;
	double *a, *b;
	long *n;

	if (run < g->nruns)
		return 0;
	a = realloc(g->ns_sum, nr * sizeof(double));
	if (a)
		g->ns_sum = a;
	b = a ? realloc(g->mops_sum, nr * sizeof(double)) : NULL;
	if (b)
		g->mops_sum = b;
	n = b ? realloc(g->ncpu, nr * sizeof(long)) : NULL;
	if (!n)
		return -1;
	g->ncpu = n;
	for (long i = g->nruns; i < nr; i++) {
		g->ns_sum[i] = g->mops_sum[i] = 0;
		g->ncpu[i] = 0;
	}
	g->nruns = nr;
	return 0;
}

/* One CPU's timed run: its ns per pair and Mpairs/s into the run's sums. 0 or -1. */
static int group_add_run(struct conv *c, char **f, int line, unsigned long long batch)
{
	struct group *g = &c->g;
	unsigned long long run, ns, v;

	if (!rg_csv_u64(f[c->idx[C_RUN]], &run) || !rg_csv_u64(f[c->idx[C_NS_TOTAL]], &ns) ||
	    run > 1000000 || !batch) {
		snprintf(c->err, c->errlen, "module CSV line %d: bad run or time", line);
		return -1;
	}
	if (c->idx[C_DISTURBED] >= 0 && rg_csv_u64(f[c->idx[C_DISTURBED]], &v) && v)
		g->disturbed++;
	if ((long)batch > g->batch)
		g->batch = (long)batch;
	if (group_grow(g, (long)run)) {
		snprintf(c->err, c->errlen, "out of memory");
		return -1;
	}
	g->timed = true;
	g->ns_sum[run] += (double)ns / (double)batch;
	g->mops_sum[run] += ns ? (double)batch * 1e3 / (double)ns : 0;
	g->ncpu[run]++;
	return 0;
}

/*
 * A cycle-ref line (the module's cycle reference: batch in adds): its ns per
 * add into the run's sum. 0 or -1 (message in c->err).
 */
static int add_ref(struct conv *c, char **f, int line, unsigned long long adds)
{
	unsigned long long run, ns;

	if (!rg_csv_u64(f[c->idx[C_RUN]], &run) || !rg_csv_u64(f[c->idx[C_NS_TOTAL]], &ns) ||
	    run > 1000000 || !adds) {
		snprintf(c->err, c->errlen, "module CSV line %d: bad cycle-ref run or time", line);
		return -1;
	}
	if ((long)run >= c->ref_nruns) {
		double *a = realloc(c->ref_sum, (run + 1) * sizeof(double));
		long *n = a ? realloc(c->ref_ncpu, (run + 1) * sizeof(long)) : NULL;

		if (a)
			c->ref_sum = a;
		if (!n) {
			snprintf(c->err, c->errlen, "out of memory");
			return -1;
		}
		c->ref_ncpu = n;
		for (long i = c->ref_nruns; i <= (long)run; i++) {
			c->ref_sum[i] = 0;
			c->ref_ncpu[i] = 0;
		}
		c->ref_nruns = (long)run + 1;
	}
	c->ref_sum[run] += (double)ns / (double)adds;
	c->ref_ncpu[run]++;
	return 0;
}

/*
 * Every timed row of the file, in one rg_result_fill() each: its rounds, its
 * delta against its baseline's rounds (paired_of(); over the rounds both
 * have: median, order-statistic interval and its level), and for an ok or
 * noisy row the cycle reference the module ran in each of the file's rounds
 * (its columns and the noisy rule). 0 or -1 (ENOMEM).
 */
static int fill_timed(struct conv *c)
{
	double *ref = c->ref_sum;	/* per-run means, in place */
	size_t nref = 0;

	for (long i = 0; i < c->ref_nruns; i++)
		if (c->ref_ncpu[i])
			ref[nref++] = c->ref_sum[i] / (double)c->ref_ncpu[i];
	for (size_t i = 0; i < c->tl.n; i++) {
		const struct timed *t = &c->tl.v[i];
		struct rg_result *r = &c->rs->rows[t->row];
		const struct timed *b = paired_of(c->rs, &c->tl, r);
		struct rg_measured m = { .n = t->n, .ns = t->ns, .mops = t->mops };

		if (b && t->n && b->n) {
			m.baseline = baseline_of(r);
			m.base = b->ns;
			m.nbase = b->n;
		}
		if (!strcmp(r->status, "ok") || !strcmp(r->status, "noisy")) {
			m.ref_ns = ref;
			m.nref = nref;
		}
		if (rg_result_fill(r, &m))
			return -1;
	}
	return 0;
}

/*
 * What report accepts, checked here so that --from-raw never converts what
 * the reader then refuses (one line, exit 1, nothing written): names one
 * printable line that fits the result's field (never cut, so two names
 * equal in their first 47 bytes stay two), a known status, threads in
 * [1, RG_MAX_CPUS] (one kthread per CPU), batch and duty within a signed
 * 64-bit column. 0 or -1 (message in c->err).
 */
static int check_row(struct conv *c, char **f, const unsigned long long num[5], int line)
{
	static const struct { int col; size_t max; const char *name; } names[] = {
		{ C_GUARD, sizeof(((struct group *)0)->guard) - 1, "guard" },
		{ C_SCENARIO, sizeof(((struct group *)0)->scenario) - 1, "scenario" },
		{ C_CPUS, sizeof(((struct group *)0)->cpus) - 1, "cpus" },
		{ C_ROLE, sizeof(((struct group *)0)->role) - 1, "role" },
		{ C_REASON, ~(size_t)0, "reason" },
	};
	const char *st = f[c->idx[C_STATUS]];

	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		const char *v = c->idx[names[k].col] >= 0 ? f[c->idx[names[k].col]] : "";

		if (!rg_str_is_printable(v))
			return snprintf(c->err, c->errlen, "module CSV line %d: column '%s' holds a "
					"control, bidi or non-UTF-8 character", line, names[k].name), -1;
		if (strlen(v) > names[k].max)
			return snprintf(c->err, c->errlen, "module CSV line %d: column '%s' is longer "
					"than %zu bytes", line, names[k].name, names[k].max), -1;
	}
	if (!*f[c->idx[C_GUARD]] || !*f[c->idx[C_SCENARIO]])
		return snprintf(c->err, c->errlen, "module CSV line %d: an empty guard or scenario",
				line), -1;
	if (strcmp(st, "ok") && strcmp(st, "noisy") && strcmp(st, "skipped") && strcmp(st, "error"))
		return snprintf(c->err, c->errlen, "module CSV line %d: status '%.16s' is not ok, "
				"noisy, skipped or error", line, st), -1;
	if (num[0] < 1 || num[0] > RG_MAX_CPUS)
		return snprintf(c->err, c->errlen, "module CSV line %d: threads %llu is not in [1, %d]",
				line, num[0], RG_MAX_CPUS), -1;
	if (num[1] > INT64_MAX || num[2] > INT64_MAX)
		return snprintf(c->err, c->errlen, "module CSV line %d: batch or duty_ns over 2^63-1",
				line), -1;
	return 0;
}

/* A guard and scenario that already had its group: the module writes each group's rows together. */
static bool group_seen(const struct conv *c, const char *guard, const char *scenario)
{
	for (size_t i = 0; i < c->rs->n; i++)
		if (!strcmp(c->rs->rows[i].suite, "kmod") && !strcmp(c->rs->rows[i].guard, guard) &&
		    !strcmp(c->rs->rows[i].scenario, scenario))
			return true;
	return false;
}

/* One data row: starts a new group when guard or scenario change. 0 or -1 (message in c->err). */
static int add_row(struct conv *c, char **f, size_t nf, int line)
{
	/* threads, batch, duty_ns, ops, refusals */
	static const int numcol[5] = { C_THREADS, C_BATCH, C_DUTY, C_OPS, C_REFUSALS };
	unsigned long long num[5], v;
	const char *status;

	if ((int)nf != c->nhdr || strcmp(f[0], "kmod")) {
		snprintf(c->err, c->errlen, "module CSV line %d: expected %d fields of suite kmod",
			 line, c->nhdr);
		return -1;
	}
	for (int k = 0; k < 5; k++) {
		if (!rg_csv_u64(f[c->idx[numcol[k]]], &num[k])) {
			snprintf(c->err, c->errlen, "module CSV line %d: bad number", line);
			return -1;
		}
	}
	if (check_row(c, f, num, line))
		return -1;
	if (!strcmp(f[c->idx[C_GUARD]], "cycle-ref"))
		return strcmp(f[c->idx[C_STATUS]], "ok") ? 0 : add_ref(c, f, line, num[1]);
	if (!c->have || strcmp(c->g.guard, guard_name(f[c->idx[C_GUARD]])) ||
	    strcmp(c->g.scenario, f[c->idx[C_SCENARIO]])) {
		if (c->have) {
			if (group_emit(c))
				return -1;
			c->added++;
			group_free(&c->g);
		}
		if (group_seen(c, guard_name(f[c->idx[C_GUARD]]), f[c->idx[C_SCENARIO]]))
			return snprintf(c->err, c->errlen, "module CSV line %d: rows of %s/%s after "
					"another group's (a group's rows are consecutive)", line,
					guard_name(f[c->idx[C_GUARD]]), f[c->idx[C_SCENARIO]]), -1;
		group_start(c, f, num);
	}
	if (c->g.ops + num[3] < c->g.ops || c->g.refusals + num[4] < c->g.refusals)
		return snprintf(c->err, c->errlen, "module CSV line %d: ops or refusals sum past "
				"2^64", line), -1;
	c->g.ops += num[3];
	c->g.refusals += num[4];
	if (c->idx[C_PROG_RUNS] >= 0 && rg_csv_u64(f[c->idx[C_PROG_RUNS]], &v))
		c->g.prog_runs += v;
	if (c->idx[C_DISCARDED] >= 0 && rg_csv_u64(f[c->idx[C_DISCARDED]], &v) &&
	    (long)v > c->g.discarded)
		c->g.discarded = (long)v;	/* per guard, repeated on each of its rows */
	status = f[c->idx[C_STATUS]];
	if (strcmp(status, "ok") || !*f[c->idx[C_NS_TOTAL]])
		return 0;	/* skipped, or a re-entry row without time */
	return group_add_run(c, f, line, num[1]);
}

/* Header, rows (blank lines skipped), the last group, then the deltas. 0 or -1. */
static int convert(struct conv *c, const char *csv)
{
	struct rg_csv s;
	int r, line, ret = -1;

	rg_csv_init(&s, csv, strlen(csv), 0);
	if (map_header(c, &s))
		goto out;
	while ((r = rg_csv_next(&s, &line)) > 0) {
		if (s.nf == 1 && !*s.f[0])
			continue;
		if (add_row(c, s.f, s.nf, line))
			goto out;
	}
	if (r < 0) {
		snprintf(c->err, c->errlen, "module CSV line %d: %s", s.err_line, s.err);
		goto out;
	}
	if (c->have) {
		if (group_emit(c))
			goto out;
		c->added++;
	}
	if (fill_timed(c)) {
		snprintf(c->err, c->errlen, "out of memory");
		goto out;
	}
	ret = 0;
out:
	rg_csv_free(&s);
	return ret;
}

int rg_kmod_convert(struct rg_resultset *rs, const char *csv, int *nerrors,
		    char *err, size_t errlen)
{
	struct conv c = { .rs = rs, .err = err, .errlen = errlen };
	int ret = convert(&c, csv);

	timed_free(&c.tl);
	group_free(&c.g);
	free(c.ref_sum);
	free(c.ref_ncpu);
	if (ret)
		return -1;
	if (nerrors)
		*nerrors = c.errors;
	return c.added;
}
