// SPDX-License-Identifier: MIT
/* `rgbench report`'s calibration: the module's tramp rows beside the real trampoline of the same boot (report_boots.c: a base boot's prediction beside a patched boot's measurement). */
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
static const struct path paths[] = {
	{ "fentry", "tramp-fentry", "the JITed trampoline: __bpf_prog_enter_recur, the program, __bpf_prog_exit_recur" },
	{ "raw_tp", "tramp-rawtp", "__bpf_trace_run: the check, rcu, run_ctx, the program" },
	{ "fexit", "tramp-fentry", NULL },
	{ "fmod_ret", "tramp-fentry", NULL },
	{ "tp_btf", "tramp-rawtp", NULL },
};
#define NPATHS (sizeof(paths) / sizeof(paths[0]))
#define NCALIB 2	/* the first two are calibrated; the others are predicted in the two-boot check */

/* The design the boot's kernel runs: the fleet pages' rule (across_decide.c), from arch, kernel and LSE. */
void rp_cal_boot_design(struct boot *b)
{
	struct host tmp;
	const struct rg_row *id = b->id;

	memset(&tmp, 0, sizeof(tmp));
	tmp.rows = &id;
	tmp.n = 1;
	snprintf(tmp.arch, sizeof(tmp.arch), "%s", rg_row_s(b->id, RG_COL_arch));
	snprintf(tmp.kernel, sizeof(tmp.kernel), "%s", rg_row_s(b->id, RG_COL_kernel));
	b->design = rp_across_current_role(&tmp, b->why, sizeof(b->why));
}

int rp_cal_boot_add(struct boot *b, const struct rg_row *r)
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
const struct rg_row *rp_cal_tramp_row(const struct boot *b, const char *scenario, const char *role)
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

/* A row's cost over its floor: delta_ns with its interval, 0 for the floor, else n/a. */
struct cost rp_cal_floor_cost(const struct rg_row *r)
{
	struct cost k = rp_paired_cost(r);

	if (!k.paired && rg_role_has(rg_row_role(r, NULL), "harness-floor")) {
		k.v = k.lo = k.hi = 0;
		k.paired = true;
	}
	return k;
}

struct pred rp_cal_predict(double real, const struct cost *design, const struct cost *cur)
{
	struct pred p = { real + design->v - cur->v, NAN, NAN };

	if (!isnan(design->lo) && !isnan(cur->hi) && !isnan(design->hi) && !isnan(cur->lo)) {
		p.lo = real + design->lo - cur->hi;
		p.hi = real + design->hi - cur->lo;
	}
	return p;
}

/* A real BPF row of attach type attach: measured, per event. */
bool rp_cal_real_row(const struct rg_row *r, const char *attach)
{
	return rp_row_ok(r) && !strcmp(rg_row_s(r, RG_COL_suite), "bpf") &&
	       !strcmp(rg_row_s(r, RG_COL_guard), attach) && rg_row_d(r, RG_COL_ns_median) > 0;
}

const struct path *rp_cal_path_of(const char *attach)
{
	for (size_t i = 0; i < NPATHS; i++)
		if (!strcmp(paths[i].attach, attach))
			return &paths[i];
	return NULL;
}

/* The running design's tramp row, x86-64's pcpu-xadd also under its older role name. */
const struct rg_row *rp_cal_tramp_current(const struct boot *b, const char *scenario)
{
	const struct rg_row *r = rp_cal_tramp_row(b, scenario, b->design);

	if (!r && !strcmp(b->design, "this-cpu-6.18") && !strcmp(rg_row_s(b->id, RG_COL_arch), "x86_64"))
		r = rp_cal_tramp_row(b, scenario, "this-cpu-pre-6.18");
	return r;
}

void rp_cal_fmt2(char *buf, size_t size, double v)
{
	rg_fmt_fixed(buf, size, v, 2);
}

void rp_cal_fmt_iv(char *buf, size_t size, double lo, double hi)
{
	char a[24], b[24];

	if (isnan(lo) || isnan(hi)) {
		snprintf(buf, size, "n/a");
		return;
	}
	rp_cal_fmt2(a, sizeof(a), lo);
	rp_cal_fmt2(b, sizeof(b), hi);
	snprintf(buf, size, "[%s, %s]", a, b);
}

void rp_cal_fmt_pct(char *buf, size_t size, double model, double real)
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
			real = rp_cal_real_row(b->rows[i], paths[p].attach);
		if (real && rp_cal_tramp_current(b, paths[p].scenario))
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
		rp_cal_fmt2(a, sizeof(a), ns);
		snprintf(iv, sizeof(iv), "measured");
	} else {
		rp_cal_fmt2(a, sizeof(a), p->v);
		rp_cal_fmt_iv(iv, sizeof(iv), p->lo, p->hi);
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
		rp_left_out(c, "calibration", "%s: %s", rp_md(h->name), rp_md(why));
		return;
	}
	cur = rp_cal_tramp_current(b, p->scenario);
	kcur = rp_cal_floor_cost(cur);
	nd = tramp_designs(b, p->scenario, cur, designs, sizeof(designs) / sizeof(designs[0]));
	const struct rg_row *fe = p == &paths[0] ? NULL : fentry_refused(b);

	rp_para(c, "%s%s, kernel %s (runs %s): calibrated attach type: %s (%s)%s%s.", rp_md(h->name),
		h->emulated ? " [EMULATED]" : "", rp_md(rg_row_s(b->id, RG_COL_kernel)), rp_md(b->design), p->attach,
		p->what, p == &paths[0] ? "" : fe ? "; fentry refused: " : "; no fentry row with its tramp-fentry rows",
		fe ? rp_md(rg_row_s(fe, RG_COL_reason)) : "");
	/* The model's error: the module's path per invocation against the real hook over its baseline. */
	rg_table_init(&t, 4);
	{
		const char *mh[] = { "real event", "real ns", "module ns", "model error" };

		rg_table_add(&t, mh);
		for (size_t i = 0; i < b->n; i++) {
			const struct rg_row *e = b->rows[i];
			char ev[96], rv[24], mv[24], err[24];
			double hook = rg_row_d(e, RG_COL_delta_ns), model = rg_row_d(cur, RG_COL_ns_median);

			if (!rp_cal_real_row(e, p->attach))
				continue;
			snprintf(ev, sizeof(ev), "%s/%s p=%lld", p->attach, rg_row_s(e, RG_COL_scenario),
				 rg_row_i(e, RG_COL_threads));
			rp_cal_fmt2(rv, sizeof(rv), hook);
			rp_cal_fmt2(mv, sizeof(mv), model);
			rp_cal_fmt_pct(err, sizeof(err), model, hook);
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

		if (!rp_cal_real_row(e, p->attach))
			continue;
		if (!first)
			first = e;
		snprintf(ev, sizeof(ev), "%s/%s p=%lld", p->attach, rg_row_s(e, RG_COL_scenario),
			 rg_row_i(e, RG_COL_threads));
		const char *row[] = { ev, "", "", "" };
		rg_table_add(&t, row);
		calib_line(&t, e, b->design, rg_row_s(cur, RG_COL_guard), NULL);
		for (size_t j = 0; j < nd; j++) {
			struct cost kd = rp_cal_floor_cost(designs[j]);
			struct pred pr = rp_cal_predict(rg_row_d(e, RG_COL_ns_median), &kd, &kcur);

			first_role(designs[j], role, sizeof(role));
			calib_line(&t, e, role, rg_row_s(designs[j], RG_COL_guard), &pr);
		}
	}
	rp_para(c, "Every other design (PREDICTION, not a measurement): real(%s) + tramp(design) - tramp(%s), tramp = the %s row's ns over the module's noop floor (delta_ns); the interval holds both rows' intervals:",
		b->design, b->design, p->scenario);
	rp_table_out(c, &t);
	rg_table_free(&t);
	l = (size_t)snprintf(used, sizeof(used), "Rows used: real: bpf %s rows (%s); module: kmod %s %s=%s",
			     p->attach, first ? rp_md(first->file) : "?", p->scenario, rp_md(b->design),
			     rp_md(rg_row_s(cur, RG_COL_guard)));
	for (size_t j = 0; j < nd && l < sizeof(used); j++) {
		char role[48];

		first_role(designs[j], role, sizeof(role));
		l += (size_t)snprintf(used + l, sizeof(used) - l, ", %s=%s", rp_md(role),
				      rp_md(rg_row_s(designs[j], RG_COL_guard)));
	}
	if (l < sizeof(used))
		snprintf(used + l, sizeof(used) - l, " (%s).", rp_md(cur->file));
	rp_para(c, "%s", used);
}

/* The rows of h from the kernel its design is read from (h->kernel): one boot. */
static int host_boot(const struct host *h, struct boot *b)
{
	memset(b, 0, sizeof(*b));
	for (size_t i = 0; i < h->n; i++)
		if (!strcmp(rg_row_s(h->rows[i], RG_COL_kernel), h->kernel) && rp_cal_boot_add(b, h->rows[i]))
			return -1;
	if (!b->n)
		return -1;
	b->id = b->rows[0];
	rp_cal_boot_design(b);
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
		rp_left_out(c, "calibration", "%s: %s", rp_md(h->name), rp_md(b.why));
	else
		calib_boot(c, h, &b);
	free(b.rows);
}
