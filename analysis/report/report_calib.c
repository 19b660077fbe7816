// SPDX-License-Identifier: MIT
/* `rgbench report`'s calibration: the module's tramp rows beside the real trampoline of the same boot, and a base boot's prediction beside a patched boot's measurement. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/schema.h"
#include "report.h"

/*
 * The attach types the module's tramp scenarios model, in the order one is
 * chosen for calibration: fentry where the kernel allows it, else raw_tp.
 * The other trampoline attach types take the scenario of their path.
 */
static const struct path {
	const char *attach, *scenario, *what;
} paths[] = {
	{ "fentry", "tramp-fentry", "the JITed trampoline: __bpf_prog_enter_recur, the program, __bpf_prog_exit_recur" },
	{ "raw_tp", "tramp-rawtp", "__bpf_trace_run: the check, rcu, run_ctx, the program" },
	{ "fexit", "tramp-fentry", NULL },
	{ "fmod_ret", "tramp-fentry", NULL },
	{ "tp_btf", "tramp-rawtp", NULL },
};
#define NPATHS (sizeof(paths) / sizeof(paths[0]))
#define NCALIB 2	/* the first two are calibrated; the others are predicted in the two-boot check */

/* The rows of one boot: one machine (host identity) running one kernel. */
struct boot {
	const struct rg_row *id;	/* its first row: host identity, arch, kernel */
	const struct rg_row **rows;
	size_t n, cap;
	const char *design;	/* role of the design its kernel runs, NULL when unknown */
	char why[160];
};

/* The design the boot's kernel runs: the fleet pages' rule (fleet_decide.c), from arch and kernel. */
static void boot_design(struct boot *b)
{
	struct host tmp;

	memset(&tmp, 0, sizeof(tmp));
	snprintf(tmp.arch, sizeof(tmp.arch), "%s", rg_row_s(b->id, RG_COL_arch));
	snprintf(tmp.kernel, sizeof(tmp.kernel), "%s", rg_row_s(b->id, RG_COL_kernel));
	b->design = rp_fleet_current_role(&tmp, b->why, sizeof(b->why));
}

static int boot_add(struct boot *b, const struct rg_row *r)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 64;
		void *p = realloc(b->rows, cap * sizeof(*b->rows));

		if (!p)
			return -1;
		b->rows = p;
		b->cap = cap;
	}
	b->rows[b->n++] = r;
	return 0;
}

/* A measured module row of a tramp scenario whose role holds role; the fewest threads. */
static const struct rg_row *tramp_row(const struct boot *b, const char *scenario, const char *role)
{
	const struct rg_row *best = NULL;

	for (size_t i = 0; i < b->n; i++) {
		const struct rg_row *r = b->rows[i];

		if (!rp_row_ok(r) || strcmp(rg_row_s(r, RG_COL_suite), "kmod") ||
		    strcmp(rg_row_s(r, RG_COL_scenario), scenario) ||
		    !rg_role_has(rg_row_role(r, NULL), role))
			continue;
		if (!best || rg_row_i(r, RG_COL_threads) < rg_row_i(best, RG_COL_threads))
			best = r;
	}
	return best;
}

/* Where the fallback takes guard rows from, in this order, as the fleet prediction does. */
static const char *const fallback_where[][2] = {
	{ "kmod", "loop" }, { "kmod", "loop-irqsoff" }, { "user", "pair" },
};
#define NWHERE (sizeof(fallback_where) / sizeof(fallback_where[0]))

/*
 * A design's guard row in fallback_where[w]: the module's rows with the
 * fewest kthreads, the user suite's one-thread pair row; no duty.
 */
static const struct rg_row *guard_row(const struct boot *b, size_t w, const char *role)
{
	const struct rg_row *best = NULL;
	bool user = !strcmp(fallback_where[w][0], "user");

	for (size_t i = 0; i < b->n; i++) {
		const struct rg_row *r = b->rows[i];

		if (!rp_row_ok(r) || strcmp(rg_row_s(r, RG_COL_suite), fallback_where[w][0]) ||
		    strcmp(rg_row_s(r, RG_COL_scenario), fallback_where[w][1]) ||
		    rg_row_i(r, RG_COL_duty_ns) != 0 || (user && rg_row_i(r, RG_COL_threads) != 1) ||
		    !rg_role_has(rg_row_role(r, NULL), role))
			continue;
		if (!best || rg_row_i(r, RG_COL_threads) < rg_row_i(best, RG_COL_threads))
			best = r;
	}
	return best;
}

/* A row's cost over its floor: delta_ns with its interval, 0 for the floor, else n/a. */
static struct cost floor_cost(const struct rg_row *r)
{
	struct cost k = rp_paired_cost(r);

	if (!k.paired && rg_role_has(rg_row_role(r, NULL), "harness-floor")) {
		k.v = k.lo = k.hi = 0;
		k.paired = true;
	}
	return k;
}

/* real + (design - current): value and interval (both rows' intervals, as the decision table). */
struct pred {
	double v, lo, hi;
};

static struct pred predict(double real, const struct cost *design, const struct cost *cur)
{
	struct pred p = { real + design->v - cur->v, NAN, NAN };

	if (!isnan(design->lo) && !isnan(cur->hi) && !isnan(design->hi) && !isnan(cur->lo)) {
		p.lo = real + design->lo - cur->hi;
		p.hi = real + design->hi - cur->lo;
	}
	return p;
}

/* A real BPF row of attach type attach: measured, per event. */
static bool real_row(const struct rg_row *r, const char *attach)
{
	return rp_row_ok(r) && !strcmp(rg_row_s(r, RG_COL_suite), "bpf") &&
	       !strcmp(rg_row_s(r, RG_COL_guard), attach) && rg_row_d(r, RG_COL_ns_median) > 0;
}

static const struct path *path_of(const char *attach)
{
	for (size_t i = 0; i < NPATHS; i++)
		if (!strcmp(paths[i].attach, attach))
			return &paths[i];
	return NULL;
}

/* The running design's tramp row, x86-64's pcpu-xadd also under its older role name. */
static const struct rg_row *tramp_current(const struct boot *b, const char *scenario)
{
	const struct rg_row *r = tramp_row(b, scenario, b->design);

	if (!r && !strcmp(b->design, "this-cpu-6.18") && !strcmp(rg_row_s(b->id, RG_COL_arch), "x86_64"))
		r = tramp_row(b, scenario, "this-cpu-pre-6.18");
	return r;
}

static void fmt2(char *buf, size_t size, double v)
{
	rg_fmt_fixed(buf, size, v, 2);
}

static void fmt_iv(char *buf, size_t size, double lo, double hi)
{
	char a[24], b[24];

	if (isnan(lo) || isnan(hi)) {
		snprintf(buf, size, "n/a");
		return;
	}
	fmt2(a, sizeof(a), lo);
	fmt2(b, sizeof(b), hi);
	snprintf(buf, size, "[%s, %s]", a, b);
}

static void fmt_pct(char *buf, size_t size, double model, double real)
{
	if (isnan(model) || isnan(real) || real == 0)
		snprintf(buf, size, "n/a");
	else
		snprintf(buf, size, "%+.1f%%", 100 * (model - real) / real);
}

/* ---- calibration on one boot (item: the module's tramp rows against the real trampoline) ---- */

/* A skipped fentry row of b (its reason says why the kernel refused it), or NULL. */
static const struct rg_row *fentry_refused(const struct boot *b)
{
	for (size_t i = 0; i < b->n; i++)
		if (!strcmp(rg_row_s(b->rows[i], RG_COL_suite), "bpf") &&
		    !strcmp(rg_row_s(b->rows[i], RG_COL_guard), "fentry") &&
		    !strcmp(rg_row_s(b->rows[i], RG_COL_status), "skipped"))
			return b->rows[i];
	return NULL;
}

/* Why no attach type can be calibrated, for the left-out line. */
static void calib_why(const struct boot *b, char *buf, size_t size)
{
	const struct rg_row *fe = fentry_refused(b);

	snprintf(buf, size, "needs a measured fentry or raw_tp row (rgbench bpf) and the module's %s rows of the running design (%s) from the same kernel%s%s",
		 "tramp-fentry / tramp-rawtp", b->design, fe ? "; fentry: " : "",
		 fe ? rg_row_s(fe, RG_COL_reason) : "");
}

/* The attach type calibrated on b: the first of paths[0..NCALIB) with a real row and its tramp rows. */
static const struct path *calib_path(const struct boot *b)
{
	for (size_t p = 0; p < NCALIB; p++) {
		bool real = false;

		for (size_t i = 0; i < b->n && !real; i++)
			real = real_row(b->rows[i], paths[p].attach);
		if (real && tramp_current(b, paths[p].scenario))
			return &paths[p];
	}
	return NULL;
}

/* The tramp rows of scenario on b other than the floor and the current design, in row order. */
static size_t tramp_designs(const struct boot *b, const char *scenario, const struct rg_row *cur,
			    const struct rg_row **out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < b->n && n < max; i++) {
		const struct rg_row *r = b->rows[i];

		if (!rp_row_ok(r) || r == cur || strcmp(rg_row_s(r, RG_COL_suite), "kmod") ||
		    strcmp(rg_row_s(r, RG_COL_scenario), scenario) ||
		    rg_role_has(rg_row_role(r, NULL), "harness-floor"))
			continue;
		bool seen = false;

		for (size_t j = 0; j < n && !seen; j++)
			seen = !strcmp(rg_row_s(out[j], RG_COL_guard), rg_row_s(r, RG_COL_guard));
		if (!seen)
			out[n++] = r;
	}
	return n;
}

/* The first role of a row's list, for a table cell. */
static void first_role(const struct rg_row *r, char *buf, size_t size)
{
	const char *l = rg_row_role(r, NULL), *e = strchr(l, ';');

	snprintf(buf, size, "%.*s", (int)(e ? e - l : (long)strlen(l)), l);
}

/* One table line: a design's predicted (or measured) ns and M/s for real row e. */
static void calib_line(struct rg_table *t, const struct rg_row *e, const char *design, const char *guard,
		       const struct pred *p)
{
	double ns = rg_row_d(e, RG_COL_ns_median), mops = rg_row_d(e, RG_COL_mops_median);
	char d[96], a[24], iv[64], m[24];

	snprintf(d, sizeof(d), "  %s (%s)", design, guard);
	if (!p) {
		fmt2(a, sizeof(a), ns);
		snprintf(iv, sizeof(iv), "measured");
	} else {
		fmt2(a, sizeof(a), p->v);
		fmt_iv(iv, sizeof(iv), p->lo, p->hi);
	}
	if (isnan(mops) || !((p ? p->v : ns) > 0))
		snprintf(m, sizeof(m), "n/a");
	else
		rg_fmt_fixed(m, sizeof(m), mops * ns / (p ? p->v : ns), 3);
	const char *row[] = { d, a, iv, m };
	rg_table_add(t, row);
}

static void calib_boot(struct ctx *c, const struct host *h, const struct boot *b)
{
	const struct path *p = calib_path(b);
	const struct rg_row *cur, *designs[16], *first = NULL;
	struct rg_table t;
	const char *hdr[] = { "event / design", "ns/event", "interval", "M/s" };
	char why[600], used[1400];
	size_t nd, l;
	struct cost kcur;

	if (!p) {
		calib_why(b, why, sizeof(why));
		rp_left_out(c, "calibration", "%s: %s", h->name, why);
		return;
	}
	cur = tramp_current(b, p->scenario);
	kcur = floor_cost(cur);
	nd = tramp_designs(b, p->scenario, cur, designs, sizeof(designs) / sizeof(designs[0]));
	const struct rg_row *fe = p == &paths[0] ? NULL : fentry_refused(b);

	rp_para(c, "%s%s, kernel %s (runs %s): calibrated attach type: %s (%s)%s%s.", h->name,
		h->emulated ? " [EMULATED]" : "", rg_row_s(b->id, RG_COL_kernel), b->design, p->attach,
		p->what, p == &paths[0] ? "" : fe ? "; fentry refused: " : "; no fentry row with its tramp-fentry rows",
		fe ? rg_row_s(fe, RG_COL_reason) : "");
	/* The model's error: the module's path per invocation against the real hook over its baseline. */
	rg_table_init(&t, 4);
	{
		const char *mh[] = { "real event", "real ns", "module ns", "model error" };

		rg_table_add(&t, mh);
		for (size_t i = 0; i < b->n; i++) {
			const struct rg_row *e = b->rows[i];
			char ev[96], rv[24], mv[24], err[24];
			double hook = rg_row_d(e, RG_COL_delta_ns), model = rg_row_d(cur, RG_COL_ns_median);

			if (!real_row(e, p->attach))
				continue;
			snprintf(ev, sizeof(ev), "%s/%s p=%lld", p->attach, rg_row_s(e, RG_COL_scenario),
				 rg_row_i(e, RG_COL_threads));
			fmt2(rv, sizeof(rv), hook);
			fmt2(mv, sizeof(mv), model);
			fmt_pct(err, sizeof(err), model, hook);
			const char *row[] = { ev, rv, mv, err };
			rg_table_add(&t, row);
		}
		t.right[1] = t.right[2] = t.right[3] = true;
		rp_para(c, "The model's error on this machine: the module's %s row of the running design (%s: ns per invocation of enter, the program, exit) against the real %s hook (ns per event over its baseline, delta_ns); error = (module - real) / real.",
			p->scenario, rg_row_s(cur, RG_COL_guard), p->attach);
		rp_table_out(c, &t);
		rg_table_free(&t);
	}
	rg_table_init(&t, 4);
	rg_table_add(&t, hdr);
	t.right[1] = t.right[2] = t.right[3] = true;
	for (size_t i = 0; i < b->n; i++) {
		const struct rg_row *e = b->rows[i];
		char ev[96], role[48];

		if (!real_row(e, p->attach))
			continue;
		if (!first)
			first = e;
		snprintf(ev, sizeof(ev), "%s/%s p=%lld", p->attach, rg_row_s(e, RG_COL_scenario),
			 rg_row_i(e, RG_COL_threads));
		const char *row[] = { ev, "", "", "" };
		rg_table_add(&t, row);
		calib_line(&t, e, b->design, rg_row_s(cur, RG_COL_guard), NULL);
		for (size_t j = 0; j < nd; j++) {
			struct cost kd = floor_cost(designs[j]);
			struct pred pr = predict(rg_row_d(e, RG_COL_ns_median), &kd, &kcur);

			first_role(designs[j], role, sizeof(role));
			calib_line(&t, e, role, rg_row_s(designs[j], RG_COL_guard), &pr);
		}
	}
	rp_para(c, "Every other design (PREDICTION, not a measurement): real(%s) + tramp(design) - tramp(%s), tramp = the %s row's ns over the module's noop floor (delta_ns); the interval holds both rows' intervals:",
		b->design, b->design, p->scenario);
	rp_table_out(c, &t);
	rg_table_free(&t);
	l = (size_t)snprintf(used, sizeof(used), "Rows used: real: bpf %s rows (%s); module: kmod %s %s=%s",
			     p->attach, first ? first->file : "?", p->scenario, b->design, rg_row_s(cur, RG_COL_guard));
	for (size_t j = 0; j < nd && l < sizeof(used); j++) {
		char role[48];

		first_role(designs[j], role, sizeof(role));
		l += (size_t)snprintf(used + l, sizeof(used) - l, ", %s=%s", role, rg_row_s(designs[j], RG_COL_guard));
	}
	if (l < sizeof(used))
		snprintf(used + l, sizeof(used) - l, " (%s).", cur->file);
	rp_para(c, "%s", used);
}

/* The rows of h from the kernel its design is read from (h->kernel): one boot. */
static int host_boot(const struct host *h, struct boot *b)
{
	memset(b, 0, sizeof(*b));
	for (size_t i = 0; i < h->n; i++)
		if (!strcmp(rg_row_s(h->rows[i], RG_COL_kernel), h->kernel) && boot_add(b, h->rows[i]))
			return -1;
	if (!b->n)
		return -1;
	b->id = b->rows[0];
	boot_design(b);
	return 0;
}

void rp_sec_calib(struct ctx *c, const struct host *h)
{
	struct boot b;

	/* Without tramp rows the prediction section's fallback says so, once for every host. */
	if (!rp_has_tramp(h))
		return;
	rp_heading(c, "Calibration against the real trampoline");
	if (host_boot(h, &b)) {
		rp_left_out(c, "calibration", "out of memory");
		free(b.rows);
		return;
	}
	if (!b.design)
		rp_left_out(c, "calibration", "%s: %s", h->name, b.why);
	else
		calib_boot(c, h, &b);
	free(b.rows);
}

/* ---- two boots of one machine: the base's prediction against the patched kernel's measurement ---- */

#define MAX_BOOTS 16

/* Every (machine, kernel) of the inputs in reading order, with its rows. -1: out of memory. */
static int read_boots(const struct input *in, size_t nin, struct boot *boots, size_t *nb, size_t *more)
{
	*nb = *more = 0;
	for (size_t f = 0; f < nin; f++)
		for (size_t i = 0; i < in[f].rows.n; i++) {
			const struct rg_row *r = &in[f].rows.v[i];
			size_t k;

			for (k = 0; k < *nb; k++)
				if (!rp_host_id_cmp(boots[k].id, r) &&
				    !strcmp(rg_row_s(boots[k].id, RG_COL_kernel), rg_row_s(r, RG_COL_kernel)))
					break;
			if (k == *nb) {
				if (*nb == MAX_BOOTS) {
					(*more)++;
					continue;
				}
				memset(&boots[k], 0, sizeof(boots[k]));
				boots[k].id = r;
				(*nb)++;
			}
			if (boot_add(&boots[k], r))
				return -1;
		}
	for (size_t k = 0; k < *nb; k++)
		boot_design(&boots[k]);
	return 0;
}

/* The same event measured on the patched boot: guard, scenario and producers alike. */
static const struct rg_row *same_event(const struct boot *b, const struct rg_row *e)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct rg_row *r = b->rows[i];

		if (real_row(r, rg_row_s(e, RG_COL_guard)) &&
		    !strcmp(rg_row_s(r, RG_COL_scenario), rg_row_s(e, RG_COL_scenario)) &&
		    rg_row_i(r, RG_COL_threads) == rg_row_i(e, RG_COL_threads))
			return r;
	}
	return NULL;
}

/*
 * The base's prediction of event e under the patched design: the module's
 * tramp rows of e's path on the base when it has both designs' rows, else
 * the guard rows (the fallback). false when neither exists; from says which.
 */
static bool boot_predict(const struct boot *base, const char *design, const struct rg_row *e,
			 struct pred *p, char *from, size_t size, char *rows, size_t rsize)
{
	const struct path *pa = path_of(rg_row_s(e, RG_COL_guard));
	const struct rg_row *rc = pa ? tramp_current(base, pa->scenario) : NULL;
	const struct rg_row *rd = pa ? tramp_row(base, pa->scenario, design) : NULL;
	struct cost kc, kd;

	if (rc && rd) {
		snprintf(from, size, "%s", pa->scenario);
		snprintf(rows, rsize, "%s: kmod %s %s=%s, %s=%s (%s)", from, pa->scenario, design,
			 rg_row_s(rd, RG_COL_guard), base->design, rg_row_s(rc, RG_COL_guard), rc->file);
	} else {
		/* both designs' rows from one place: a module row and a user row do not subtract */
		for (size_t w = 0; w < NWHERE && !(rc && rd); w++) {
			rc = guard_row(base, w, base->design);
			if (!rc && !strcmp(base->design, "this-cpu-6.18"))
				rc = guard_row(base, w, "this-cpu-pre-6.18");
			rd = guard_row(base, w, design);
		}
		if (!rc || !rd)
			return false;
		snprintf(from, size, "fallback");
		snprintf(rows, rsize, "fallback: %s %s rows %s=%s, %s=%s (%s)", rg_row_s(rd, RG_COL_suite),
			 rg_row_s(rd, RG_COL_scenario), design, rg_row_s(rd, RG_COL_guard), base->design,
			 rg_row_s(rc, RG_COL_guard), rc->file);
	}
	kc = floor_cost(rc);
	kd = floor_cost(rd);
	if (isnan(kc.v) || isnan(kd.v))
		return false;
	*p = predict(rg_row_d(e, RG_COL_ns_median), &kd, &kc);
	return true;
}

static void boots_pair(struct ctx *c, const struct boot *base, const struct boot *pat)
{
	struct rg_table t;
	const char *hdr[] = { "event", "base", "pred.", "interval", "patched", "error" };
	size_t n = 0, nused = 0;
	char used[4][320], types[4][64];

	rp_para(c, "%s%s: base kernel %s (runs %s), patched kernel %s (runs %s). The base's measurement plus the design change (pred.: a PREDICTION) beside what the patched kernel measured (n/a: not measured there); error = (pred. - patched) / patched:",
		rg_row_s(base->id, RG_COL_host),
		strncmp(rg_row_s(base->id, RG_COL_virt), "emulated", 8) ? "" : " [EMULATED]",
		rg_row_s(base->id, RG_COL_kernel), base->design,
		rg_row_s(pat->id, RG_COL_kernel), pat->design);
	rg_table_init(&t, 6);
	rg_table_add(&t, hdr);
	for (int k = 1; k <= 5; k++)
		t.right[k] = true;
	for (size_t i = 0; i < base->n; i++) {
		const struct rg_row *e = base->rows[i], *m;
		char ev[96], b[24], pv[24], iv[64], mv[24], err[24], from[32], rows[288] = "";
		struct pred p;
		bool seen = false;

		if (!path_of(rg_row_s(e, RG_COL_guard)) || !real_row(e, rg_row_s(e, RG_COL_guard)))
			continue;
		m = same_event(pat, e);
		snprintf(ev, sizeof(ev), "%s/%s p=%lld", rg_row_s(e, RG_COL_guard), rg_row_s(e, RG_COL_scenario),
			 rg_row_i(e, RG_COL_threads));
		fmt2(b, sizeof(b), rg_row_d(e, RG_COL_ns_median));
		if (!boot_predict(base, pat->design, e, &p, from, sizeof(from), rows, sizeof(rows))) {
			p.v = p.lo = p.hi = NAN;
			snprintf(from, sizeof(from), "none");
			snprintf(rows, sizeof(rows), "none: the base has no tramp or guard rows of %s and %s",
				 base->design, pat->design);
		}
		for (size_t u = 0; u < nused && !seen; u++)
			if ((seen = !strcmp(used[u], rows)) && !strstr(types[u], rg_row_s(e, RG_COL_guard))) {
				size_t l = strlen(types[u]);

				snprintf(types[u] + l, sizeof(types[0]) - l, ", %s", rg_row_s(e, RG_COL_guard));
			}
		if (!seen && nused < 4) {
			snprintf(types[nused], sizeof(types[0]), "%s", rg_row_s(e, RG_COL_guard));
			snprintf(used[nused++], sizeof(used[0]), "%s", rows);
		}
		fmt2(pv, sizeof(pv), p.v);
		fmt_iv(iv, sizeof(iv), p.lo, p.hi);
		if (m)
			fmt2(mv, sizeof(mv), rg_row_d(m, RG_COL_ns_median));
		else
			snprintf(mv, sizeof(mv), "n/a");	/* the patched files have no such row */
		fmt_pct(err, sizeof(err), p.v, m ? rg_row_d(m, RG_COL_ns_median) : NAN);
		const char *row[] = { ev, b, pv, iv, mv, err };
		rg_table_add(&t, row);
		n++;
	}
	if (n)
		rp_table_out(c, &t);
	else
		rp_bullet(c, "the base has no measured fentry, fexit, fmod_ret, raw_tp or tp_btf row");
	rg_table_free(&t);
	rp_para(c, "ns per event per producer (ns_median). The rows whose difference moved the base's measurement, per attach type: the module's tramp rows of its path (tramp-fentry: fentry, fexit, fmod_ret; tramp-rawtp: raw_tp, tp_btf), else the guard rows (the fallback):");
	for (size_t u = 0; u < nused; u++)
		rp_bullet(c, "%s: %s", types[u], used[u]);
	if (nused)
		fputc('\n', c->f);
}

void rp_sec_boots(struct ctx *c, const struct input *in, size_t nin)
{
	struct boot *boots = calloc(MAX_BOOTS, sizeof(*boots));
	size_t nb = 0, more = 0, pairs = 0;
	bool listed = false;	/* the last thing written is a list item */

	if (!boots || read_boots(in, nin, boots, &nb, &more))
		goto out;	/* out of memory: the section is left out */
	for (size_t i = 0; i < nb; i++)
		for (size_t j = i + 1; j < nb; j++) {
			const struct boot *a = &boots[i], *b = &boots[j];

			if (rp_host_id_cmp(a->id, b->id))
				continue;
			if (!pairs++) {
				rp_heading(c, "Two kernels of one machine: prediction against measurement");
				rp_para(c, "Base: the kernel read first; patched: the one read after it. The design each runs is read from its arch and release (x86-64: this_cpu_inc_return, or the merged check for a release naming rctx; arm64: by release).");
			}
			if (a->design && b->design && strcmp(a->design, b->design)) {
				if (listed)
					fputc('\n', c->f);	/* the list ends before the next paragraph */
				listed = false;
				boots_pair(c, a, b);
				continue;
			}
			listed = true;
			if (!a->design || !b->design)
				rp_bullet(c, "%s, kernels %s and %s: %s", rg_row_s(a->id, RG_COL_host),
					  rg_row_s(a->id, RG_COL_kernel), rg_row_s(b->id, RG_COL_kernel),
					  !a->design ? a->why : b->why);
			else
				rp_bullet(c, "%s, kernels %s and %s: both run %s, nothing to predict",
					  rg_row_s(a->id, RG_COL_host), rg_row_s(a->id, RG_COL_kernel),
					  rg_row_s(b->id, RG_COL_kernel), a->design);
		}
	if (listed)
		fputc('\n', c->f);
	if (pairs && more)
		rp_para(c, "(%zu rows of machines and kernels beyond the first %d not compared.)", more, MAX_BOOTS);
out:
	for (size_t k = 0; boots && k < nb; k++)
		free(boots[k].rows);
	free(boots);
}
