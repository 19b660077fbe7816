// SPDX-License-Identifier: MIT
/* `rgbench report` over any number of hosts: the role matrix, the decision table against each kernel's own design, and the per-event prediction (across_matrix.c: the matrix and its CSV files). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/schema.h"
#include "across.h"

/* "+1.23 [+1.10,+1.40]", "+1.23" without an interval, "-" without a value. */
static void fmt_cell(char *buf, size_t size, double v, double lo, double hi)
{
	char a[24], b[24], d[24];

	if (isnan(v)) {
		snprintf(buf, size, "-");
		return;
	}
	rp_fmt_signed(a, sizeof(a), v);
	if (isnan(lo) || isnan(hi)) {
		snprintf(buf, size, "%s", a);
		return;
	}
	rp_fmt_signed(b, sizeof(b), lo);
	rp_fmt_signed(d, sizeof(d), hi);
	snprintf(buf, size, "%s [%s,%s]", a, b, d);
}

/* ---- sections ----------------------------------------------------------------------------- */

static const char *tag_of(size_t i, char *buf, size_t size)
{
	if (i < 26)
		snprintf(buf, size, "%c", (int)('A' + i));
	else
		snprintf(buf, size, "H%zu", i + 1);
	return buf;
}

/* The matrix in column groups that fit c->width; cycles: the reference-cycle values. */
static void matrix_out(struct ctx *c, const struct fleet *f, bool cycles)
{
	size_t *w = calloc(f->nh + 1, sizeof(*w)), rolew = 4, from = 0;
	char buf[64], tag[16];

	if (!w)
		return;
	for (size_t r = 0; r < f->nroles; r++)
		if (role_shown(f, r) && strlen(f->roles[r]) > rolew)
			rolew = strlen(f->roles[r]);
	for (size_t i = 0; i < f->nh; i++) {
		w[i] = strlen(tag_of(i, tag, sizeof(tag)));
		for (size_t r = 0; r < f->nroles; r++) {
			const struct cell *x = cell_at(f, r, i);

			if (!role_shown(f, r))
				continue;
			if (cycles)
				fmt_cell(buf, sizeof(buf), x->cyc, x->cyc_lo, x->cyc_hi);
			else
				fmt_cell(buf, sizeof(buf), x->r ? x->k.v : NAN, x->k.lo, x->k.hi);
			w[i] = strlen(buf) > w[i] ? strlen(buf) : w[i];
		}
	}
	while (from < f->nh) {
		size_t to = from + 1, total = rolew + 2 + w[from];
		struct rg_table t;

		while (to < f->nh && to - from < 39 && total + 2 + w[to] <= (size_t)c->width)
			total += 2 + w[to++];
		rg_table_init(&t, 1 + to - from);
		{
			const char *hdr[40] = { "role" };
			char tags[40][320];

			for (size_t i = from; i < to ; i++) {
				/* the label when it fits the column, else the tag of the legend */
				if (strlen(f->h[i]->name) <= w[i])
					snprintf(tags[i - from], sizeof(tags[0]), "%s", f->h[i]->name);
				else
					tag_of(i, tags[i - from], sizeof(tags[0]));
				hdr[1 + i - from] = tags[i - from];
				t.right[1 + i - from] = true;
			}
			rg_table_add(&t, hdr);
		}
		for (size_t r = 0; r < f->nroles; r++) {
			const char *row[40] = { f->roles[r] };
			char cells[40][64];

			if (!role_in(f, r, from, to))
				continue;
			for (size_t i = from; i < to ; i++) {
				const struct cell *x = cell_at(f, r, i);

				if (cycles)
					fmt_cell(cells[i - from], sizeof(cells[0]), x->r ? x->cyc : NAN, x->cyc_lo, x->cyc_hi);
				else
					fmt_cell(cells[i - from], sizeof(cells[0]), x->r ? x->k.v : NAN, x->k.lo, x->k.hi);
				row[1 + i - from] = cells[i - from];
			}
			rg_table_add(&t, row);
		}
		rp_table_out(c, &t);
		rg_table_free(&t);
		from = to;
	}
	free(w);
}

/* Roles measured on at least two of the hosts. */
static size_t roles_in_common(const struct fleet *f)
{
	size_t n = 0;

	for (size_t r = 0; r < f->nroles; r++) {
		size_t on = 0;

		if (!role_shown(f, r))
			continue;
		for (size_t i = 0; i < f->nh; i++)
			on += cell_at(f, r, i)->r != NULL;
		n += on >= 2;
	}
	return n;
}

/*
 * Every interval says its level: the cells' intervals are their rows'
 * (delta_ci_level; with runs, over the runs), so say how many shown cells
 * are below 95% and at which levels, once under the matrix.
 */
static void matrix_levels(struct ctx *c, const struct fleet *f)
{
	double lo = INFINITY, hi = -INFINITY;
	size_t n = 0, all = 0;

	for (size_t r = 0; r < f->nroles; r++) {
		if (!role_shown(f, r))
			continue;
		for (size_t i = 0; i < f->nh; i++) {
			const struct cell *x = cell_at(f, r, i);
			double l;

			if (!x->r || isnan(x->k.lo))
				continue;
			all++;
			l = rg_row_d(x->r, RG_COL_delta_ci_level);
			if (isnan(l) || l >= RG_CI_NOMINAL)
				continue;
			n++;
			lo = fmin(lo, l);
			hi = fmax(hi, l);
		}
	}
	if (!n)
		return;
	if (lo == hi)
		rp_para(c, "%zu of %zu intervals are at %.1f%%, below 95%% (each is its row's delta_ci_level: the order statistic over its rounds, or over its runs).",
			n, all, 100 * lo);
	else
		rp_para(c, "%zu of %zu intervals are at %.1f%% to %.1f%%, below 95%% (each is its row's delta_ci_level: the order statistic over its rounds, or over its runs).",
			n, all, 100 * lo, 100 * hi);
}

static void sec_matrix(struct ctx *c, const struct fleet *f)
{
	char tag[16], why[160];
	size_t shown = 0;

	rp_heading(c, "Guard cost by role and host");
	for (size_t r = 0; r < f->nroles; r++)
		shown += role_shown(f, r);
	if (!shown) {
		rp_left_out(c, "matrix", "no host has an ok user pair row (one thread, no duty) with a role");
		return;
	}
	for (size_t i = 0; i < f->nh; i++) {
		const char *role = rp_across_current_role(f->h[i], why, sizeof(why));

		rp_bullet(c, "%s = %s%s: %s %s (%s), kernel %s; runs %s", tag_of(i, tag, sizeof(tag)),
			  rp_md(f->h[i]->name), f->h[i]->emulated ? " [EMULATED]" : "", rp_md(f->h[i]->vendor),
			  rp_md(f->h[i]->model), rp_md(f->h[i]->arch), rp_md(f->h[i]->kernels),
			  role ? rp_md(role) : "n/a");
	}
	fputc('\n', c->f);
	matrix_out(c, f, false);
	rp_para(c, "ns per enter/exit pair over noop on that host (one pinned thread) with its interval; \"-\": not measured there. The guard standing for a role differs per architecture (the role column).");
	matrix_levels(c, f);
	if (f->more_roles)
		rp_para(c, "%zu row(s) whose role is not among the first %d role names are not shown.", f->more_roles, MAX_ROLES);
	if (f->nh >= 2 && !roles_in_common(f))
		rp_para(c, "No role is measured on two of these hosts: the columns share nothing to compare.");
	if (f->any_cycles) {
		matrix_out(c, f, true);
		rp_para(c, "The same in reference cycles (over ref_ns_per_cycle, the row's dependent-add chain); \"-\" where the row has no reference.");
	} else {
		rp_para(c, "In reference cycles: n/a (no row carries ref_ns_per_cycle).");
	}
}

static void sec_decision(struct ctx *c, const struct fleet *f)
{
	size_t done = 0;

	rp_heading(c, "Decision: the trampoline's guard per host");
	for (size_t i = 0; i < f->nh; i++) {
		struct decision d;
		char line[2048], a[24], b[24], v[24];
		size_t l;

		if (!rp_across_decide(f->h[i], &d)) {
			rp_bullet(c, "%s: n/a (%s)", rp_md(f->h[i]->name), rp_md(d.why));
			continue;
		}
		l = (size_t)snprintf(line, sizeof(line), "%s%s, kernel %s, runs %s (%s, %s rows):",
				     rp_md(f->h[i]->name), f->h[i]->emulated ? " [EMULATED]" : "",
				     rp_md(f->h[i]->kernel), rp_md(d.role), rp_md(rg_row_s(d.cur, RG_COL_guard)),
				     d.suite);
		for (size_t k = 0; k < d.n && l < sizeof(line); k++) {
			rp_fmt_signed(v, sizeof(v), d.c[k].v);
			if (isnan(d.c[k].lo)) {
				l += (size_t)snprintf(line + l, sizeof(line) - l, "%s %s %s ns (no interval)",
						      k ? ";" : "", rp_md(d.c[k].role), v);
				continue;
			}
			rp_fmt_signed(a, sizeof(a), d.c[k].lo);
			rp_fmt_signed(b, sizeof(b), d.c[k].hi);
			l += (size_t)snprintf(line + l, sizeof(line) - l, "%s %s %s [%s, %s] ns%s",
					      k ? ";" : "", rp_md(d.c[k].role), v, a, b, rp_across_verdict(&d.c[k]));
		}
		if (!d.n && l < sizeof(line))
			snprintf(line + l, sizeof(line) - l, " no other kernel-form design measured");
		rp_bullet(c, "%s", line);
		done++;
	}
	fputc('\n', c->f);
	rp_para(c, "Each candidate as a change of ns per enter/exit pair against the design the host's kernel runs (x86-64: this_cpu_inc_return; arm64: STADD exit before 6.18, LDADD exit from 6.18, the merged per-context check from 7.0 or bpf-next), cheapest first; the interval holds both rows' intervals (candidate's low end minus current's high end, and so on); cheaper/dearer only where it excludes zero.");
	if (!done)
		rp_left_out(c, "decision", "no host has a row for the design its kernel runs");
}

/*
 * A BPF row whose program runs the trampoline's guard (prog->active): role
 * prog-active, or in files without a role the attach types that have it.
 */
bool rp_across_prog_active_row(const struct rg_row *r)
{
	static const char *const types[] = { "fentry", "fexit", "fmod_ret", "raw_tp", "tp_btf" };
	const char *role = rg_row_s(r, RG_COL_role);
	bool yes = rg_role_has(role, "prog-active");

	for (size_t i = 0; !yes && (!*role || !strcmp(role, "n/a")) && i < sizeof(types) / sizeof(types[0]); i++)
		yes = !strcmp(rg_row_s(r, RG_COL_guard), types[i]);
	return yes && rp_row_ok(r) && !strcmp(rg_row_s(r, RG_COL_suite), "bpf") &&
	       !isnan(rg_row_d(r, RG_COL_ns_median)) && rg_row_d(r, RG_COL_ns_median) > 0;
}

/* Predicted ns per event and M/s of BPF row e if the kernel ran change ch (NULL: the current design). */
static void predict_row(struct rg_table *t, const struct rg_row *e, const char *design,
			const struct change *ch)
{
	double ns = rg_row_d(e, RG_COL_ns_median), mops = rg_row_d(e, RG_COL_mops_median);
	double v = ch ? ns + ch->v : ns, lo = ch ? ns + ch->lo : ns, hi = ch ? ns + ch->hi : ns;
	char d[64], a[24], iv[48], m[24], lo_s[20], hi_s[20];

	snprintf(d, sizeof(d), "  %s", design);
	rg_fmt_fixed(a, sizeof(a), v, 2);
	if (!ch)
		snprintf(iv, sizeof(iv), "measured");
	else if (isnan(lo) || isnan(hi))
		snprintf(iv, sizeof(iv), "n/a");
	else {
		rg_fmt_fixed(lo_s, sizeof(lo_s), lo, 2);
		rg_fmt_fixed(hi_s, sizeof(hi_s), hi, 2);
		snprintf(iv, sizeof(iv), "[%s, %s]", lo_s, hi_s);
	}
	/* events per second scale with 1/ns: the same producers, each event costing v */
	if (isnan(mops) || v <= 0)
		snprintf(m, sizeof(m), "n/a");
	else
		rg_fmt_fixed(m, sizeof(m), mops * ns / v, 3);
	const char *row[] = { d, a, iv, m };
	rg_table_add(t, row);
}

static void sec_predict(struct ctx *c, const struct fleet *f)
{
	size_t done = 0;

	rp_heading(c, "Prediction: per-event cost under each design");
	rp_para(c, "From the guard rows: the fallback, used for a host without the module's tramp rows (rgbench kmod --scenarios tramp); a host with them is predicted in its \"Calibration against the real trampoline\" section.");
	for (size_t i = 0; i < f->nh; i++) {
		const struct host *h = f->h[i];
		struct decision d;
		struct rg_table t;
		const char *hdr[] = { "event / design", "ns/event", "interval", "M/s" };
		const char *bpf_file = NULL;
		char used[1200];
		size_t nev = 0, l;

		if (rp_has_tramp(h)) {
			rp_bullet(c, "%s: predicted from its module tramp rows (Calibration against the real trampoline)", rp_md(h->name));
			done++;
			continue;
		}
		for (size_t k = 0; k < h->n; k++)
			if (rp_across_prog_active_row(h->rows[k]) && !nev++)
				bpf_file = h->rows[k]->file;
		if (!nev || !rp_across_decide(h, &d))
			continue;
		rg_table_init(&t, 4);
		rg_table_add(&t, hdr);
		t.right[1] = t.right[2] = t.right[3] = true;
		for (size_t k = 0; k < h->n; k++) {
			const struct rg_row *e = h->rows[k];
			char ev[96];

			if (!rp_across_prog_active_row(e))
				continue;
			snprintf(ev, sizeof(ev), "%s/%s p=%lld", rg_row_s(e, RG_COL_guard),
				 rg_row_s(e, RG_COL_scenario), rg_row_i(e, RG_COL_threads));
			{
				const char *row[] = { ev, "", "", "" };

				rg_table_add(&t, row);
			}
			predict_row(&t, e, d.role, NULL);
			for (size_t j = 0; j < d.n; j++)
				predict_row(&t, e, d.c[j].role, &d.c[j]);
		}
		rp_para(c, "%s%s (PREDICTION, not a measurement: measured per-event cost - %s's guard difference + the design's):",
			rp_md(h->name), h->emulated ? " [EMULATED]" : "", rp_md(d.role));
		rp_table_out(c, &t);
		rg_table_free(&t);
		l = (size_t)snprintf(used, sizeof(used), "Rows used: BPF rows that run prog->active (%s); guard rows of suite %s: %s=%s",
				     rp_md(bpf_file), d.suite, rp_md(d.role), rp_md(rg_row_s(d.cur, RG_COL_guard)));
		for (size_t j = 0; j < d.n && l < sizeof(used); j++)
			l += (size_t)snprintf(used + l, sizeof(used) - l, ", %s=%s", rp_md(d.c[j].role),
					      rp_md(rg_row_s(d.c[j].r, RG_COL_guard)));
		rp_para(c, "%s.", used);
		done++;
	}
	if (!done) {
		rp_left_out(c, "prediction", "no host has both BPF rows of role prog-active (rgbench bpf: fentry, raw_tp, ...) and a guard row of its kernel's design");
		return;
	}
	rp_para(c, "ns/event: ns per event per producer; M/s: events per second, all producers, scaled by measured/predicted ns. Assumes one guard enter/exit pair per event and the CPU in the same state as when the guard rows were measured (docs/fleet.md); boot the other kernel to check it.");
}

void rp_sec_fleet(struct ctx *c, const struct host *hosts, size_t nh, bool allow_emulated)
{
	struct fleet f;

	if (rp_across_build(&f, hosts, nh, allow_emulated)) {
		rp_across_free(&f);
		return;
	}
	if (f.left[0])
		rp_para(c, "Left out of the next three sections as emulated (timings of qemu, not of a machine; --allow-emulated shows them): %s.",
			rp_md(f.left));
	if (!f.nh) {
		rp_heading(c, "Guard cost by role and host");
		rp_left_out(c, "matrix", "every host's rows were measured on an emulated CPU (--allow-emulated shows them)");
		rp_across_free(&f);
		return;
	}
	sec_matrix(c, &f);
	rp_plot_link(c, "fleet");
	sec_decision(c, &f);
	rp_plot_link(c, "decision");
	sec_predict(c, &f);
	rp_across_free(&f);
}
