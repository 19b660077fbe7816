// SPDX-License-Identifier: MIT
/* `rgbench report`'s two-boot check: a base boot's prediction beside a patched boot's measurement (report_calib.c: the rows of a boot, the model). */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/schema.h"
#include "report.h"

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

/* ---- two boots of one machine: the base's prediction against the patched kernel's measurement ---- */

/*
 * Every (machine, kernel) of the inputs in reading order, with its rows, into
 * *bootsp (allocated, any number: a fleet of many hosts is many boots).
 * -1: out of memory.
 */
static int read_boots(const struct input *in, size_t nin, struct boot **bootsp, size_t *nb)
{
	size_t cap = 0;
	struct boot *boots = NULL;

	*nb = 0;
	*bootsp = NULL;
	for (size_t f = 0; f < nin; f++)
		for (size_t i = 0; i < in[f].rows.n; i++) {
			const struct rg_row *r = &in[f].rows.v[i];
			size_t k;

			for (k = 0; k < *nb; k++)
				if (!rp_host_id_cmp(boots[k].id, r) &&
				    !strcmp(rg_row_s(boots[k].id, RG_COL_kernel), rg_row_s(r, RG_COL_kernel)))
					break;
			if (k == *nb) {
				struct boot *v = rg_grow(boots, &cap, *nb, sizeof(*v), 16);

				if (!v)
					return -1;
				*bootsp = boots = v;
				memset(&boots[k], 0, sizeof(boots[k]));
				boots[k].id = r;
				(*nb)++;
			}
			if (rp_cal_boot_add(&boots[k], r))
				return -1;
		}
	for (size_t k = 0; k < *nb; k++)
		rp_cal_boot_design(&boots[k]);
	return 0;
}

/* The same event measured on the patched boot: guard, scenario and producers alike. */
static const struct rg_row *same_event(const struct boot *b, const struct rg_row *e)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct rg_row *r = b->rows[i];

		if (rp_cal_real_row(r, rg_row_s(e, RG_COL_guard)) &&
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
	const struct path *pa = rp_cal_path_of(rg_row_s(e, RG_COL_guard));
	const struct rg_row *rc = pa ? rp_cal_tramp_current(base, pa->scenario) : NULL;
	const struct rg_row *rd = pa ? rp_cal_tramp_row(base, pa->scenario, design) : NULL;
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
	kc = rp_cal_floor_cost(rc);
	kd = rp_cal_floor_cost(rd);
	if (isnan(kc.v) || isnan(kd.v))
		return false;
	*p = rp_cal_predict(rg_row_d(e, RG_COL_ns_median), &kd, &kc);
	return true;
}

static void boots_pair(struct ctx *c, const struct boot *base, const struct boot *pat)
{
	struct rg_table t;
	const char *hdr[] = { "event", "base", "pred.", "interval", "patched", "error" };
	size_t n = 0, nused = 0;
	char used[4][320], types[4][64];

	rp_para(c, "%s%s: base kernel %s (runs %s), patched kernel %s (runs %s). The base's measurement plus the design change (pred.: a PREDICTION) beside what the patched kernel measured (n/a: not measured there); error = (pred. - patched) / patched:",
		rp_md(rg_row_s(base->id, RG_COL_host)),
		strncmp(rg_row_s(base->id, RG_COL_virt), "emulated", 8) ? "" : " [EMULATED]",
		rp_md(rg_row_s(base->id, RG_COL_kernel)), rp_md(base->design),
		rp_md(rg_row_s(pat->id, RG_COL_kernel)), rp_md(pat->design));
	rg_table_init(&t, 6);
	rg_table_add(&t, hdr);
	for (int k = 1; k <= 5; k++)
		t.right[k] = true;
	for (size_t i = 0; i < base->n; i++) {
		const struct rg_row *e = base->rows[i], *m;
		char ev[96], b[24], pv[24], iv[64], mv[24], err[24], from[32], rows[288] = "";
		struct pred p;
		bool seen = false;

		if (!rp_cal_path_of(rg_row_s(e, RG_COL_guard)) || !rp_cal_real_row(e, rg_row_s(e, RG_COL_guard)))
			continue;
		m = same_event(pat, e);
		snprintf(ev, sizeof(ev), "%s/%s p=%lld", rg_row_s(e, RG_COL_guard), rg_row_s(e, RG_COL_scenario),
			 rg_row_i(e, RG_COL_threads));
		rp_cal_fmt2(b, sizeof(b), rg_row_d(e, RG_COL_ns_median));
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
		rp_cal_fmt2(pv, sizeof(pv), p.v);
		rp_cal_fmt_iv(iv, sizeof(iv), p.lo, p.hi);
		if (m)
			rp_cal_fmt2(mv, sizeof(mv), rg_row_d(m, RG_COL_ns_median));
		else
			snprintf(mv, sizeof(mv), "n/a");	/* the patched files have no such row */
		rp_cal_fmt_pct(err, sizeof(err), p.v, m ? rg_row_d(m, RG_COL_ns_median) : NAN);
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
	struct boot *boots = NULL;
	size_t nb = 0, pairs = 0;
	bool listed = false;	/* the last thing written is a list item */

	if (read_boots(in, nin, &boots, &nb))
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
				rp_bullet(c, "%s, kernels %s and %s: %s", rp_md(rg_row_s(a->id, RG_COL_host)),
					  rp_md(rg_row_s(a->id, RG_COL_kernel)), rp_md(rg_row_s(b->id, RG_COL_kernel)),
					  rp_md(!a->design ? a->why : b->why));
			else
				rp_bullet(c, "%s, kernels %s and %s: both run %s, nothing to predict",
					  rp_md(rg_row_s(a->id, RG_COL_host)), rp_md(rg_row_s(a->id, RG_COL_kernel)),
					  rp_md(rg_row_s(b->id, RG_COL_kernel)), rp_md(a->design));
		}
	if (listed)
		fputc('\n', c->f);
out:
	for (size_t k = 0; boots && k < nb; k++)
		free(boots[k].rows);
	free(boots);
}
