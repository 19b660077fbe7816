// SPDX-License-Identifier: MIT
/* `rgbench compare`: A/B tables (text, Markdown, commit log, CSV) with a Mann-Whitney U verdict. */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/env.h"
#include "rg/plots.h"

#define ALPHA 0.05
#define COMMIT_LOG_WIDTH 72

enum out_fmt { OUT_TEXT, OUT_MARKDOWN, OUT_COMMIT, OUT_CSV };

struct side {
	const char *path;
	struct rg_rows rows;
};

/* One line of the comparison: a (base) and/or b (new) row; role when paired by role. */
struct cmp {
	const struct rg_row *a, *b;
	char role[48];		/* "" when paired by key (same guard name) */
};

struct metric {
	enum rg_col median, spread;
	bool higher_better;
	const char *unit, *name;
};

static const struct metric M_NS = { RG_COL_ns_median, RG_COL_ns_stddev, false, "ns", "ns_median" };
static const struct metric M_MOPS = { RG_COL_mops_median, RG_COL_mops_stddev, true, "M/s", "mops_median" };

static void usage(FILE *f)
{
	fputs("usage: rgbench compare [--markdown|--commit-log|--csv] [--across-hosts] BASE NEW\n"
	      "       rgbench compare [--markdown|--csv] --across-suites USER KMOD\n"
	      "       rgbench compare [--markdown|--commit-log|--csv] --baseline GUARD FILE\n"
	      "BASE, NEW, FILE: result files (.csv/.json) or directories of them.\n"
	      "--allow-emulated: compare rows measured on an emulated CPU (virt emulated (...)),\n"
	      "                  refused otherwise (exit 2).\n", f);
}

/* The first "emulated (...)" virt value among a side's rows, NULL when there is none. */
static const char *emulated_virt(const struct side *s)
{
	for (size_t i = 0; i < s->rows.n; i++) {
		const char *virt = rg_row_s(&s->rows.v[i], RG_COL_virt);

		if (rg_env_virt_emulated(virt))
			return virt;
	}
	return NULL;
}

/* Measured: ok, or noisy (values kept from disturbed runs; the verdict says so). */
static bool row_ok(const struct rg_row *r)
{
	return r && (!strcmp(rg_row_s(r, RG_COL_status), "ok") ||
		     !strcmp(rg_row_s(r, RG_COL_status), "noisy"));
}

static bool row_noisy(const struct rg_row *r)
{
	return r && !strcmp(rg_row_s(r, RG_COL_status), "noisy");
}

/* The suite's main metric, or the other one when only that is measured on both sides. */
static const struct metric *pick_metric(const struct rg_row *a, const struct rg_row *b)
{
	const struct rg_row *k = a ? a : b;
	const struct metric *main = strcmp(rg_row_s(k, RG_COL_suite), "bpf") ? &M_NS : &M_MOPS;
	const struct metric *alt = main == &M_NS ? &M_MOPS : &M_NS;
	bool main_ok = true, alt_ok = true;

	for (int i = 0; i < 2; i++) {
		const struct rg_row *r = i ? b : a;

		if (!r)
			continue;
		main_ok &= !isnan(rg_row_d(r, main->median));
		alt_ok &= !isnan(rg_row_d(r, alt->median));
	}
	return !main_ok && alt_ok ? alt : main;
}

static void samples(const struct rg_row *r, const struct metric *m, const double **v, size_t *n)
{
	if (m == &M_NS) {
		*v = r->samples_ns;
		*n = r->n_ns;
	} else {
		*v = r->samples_mops;
		*n = r->n_mops;
	}
}

static void fmt_num(char *buf, size_t size, double v)
{
	if (isnan(v))
		snprintf(buf, size, "n/a");
	else if (v >= 1000)
		snprintf(buf, size, "%.0f", v);
	else if (v >= 100)
		snprintf(buf, size, "%.1f", v);
	else if (v >= 1)
		snprintf(buf, size, "%.2f", v);
	else
		snprintf(buf, size, "%.3f", v);
}

/* The spread with as many decimals as fmt_num gives the median. */
static void fmt_spread(char *buf, size_t size, double median, double s)
{
	int dec = median >= 1000 ? 0 : median >= 100 ? 1 : median >= 1 ? 2 : 3;

	snprintf(buf, size, "%.*f", dec, s);
}

static void fmt_factor(char *buf, size_t size, double f)
{
	if (isnan(f) || isinf(f))
		snprintf(buf, size, "n/a");
	else if (f >= 10)
		snprintf(buf, size, "%.0fx", f);
	else if (f >= 0.01)
		snprintf(buf, size, "%.2fx", f);
	else
		snprintf(buf, size, "%.2gx", f);
}

static void fmt_change(char *buf, size_t size, double pct)
{
	if (isnan(pct) || isinf(pct))
		snprintf(buf, size, "n/a");
	else if (fabs(pct) >= 1000)
		snprintf(buf, size, "%+.0f%%", pct);
	else
		snprintf(buf, size, "%+.1f%%", pct);
}

static void fmt_p(char *buf, size_t size, double p)
{
	if (p < 0.001)
		snprintf(buf, size, "<0.001");
	else
		snprintf(buf, size, "%.3f", p);
}

/* Everything computed for one line, as text and as numbers. */
struct res {
	const struct metric *m;
	double va, vb, sa, sb, change, factor, p;
	size_t na, nb;
	char a[48], b[48], a_short[24], b_short[24], chg[24], fac[24], pv[24], verdict[320];
	char note_short[16];	/* the commit log's p column when there is no p */
	const char *test;	/* "exact", "normal" or "" */
	bool paired;		/* tested on per-round differences against the baseline */
};

/*
 * Rows measured in interleaved rounds carry, per round, their difference
 * against the baseline of the same round (samples_delta_ns): the test then
 * compares those, so drift within each run cancels out. Only when both rows
 * were measured that way against the same baseline.
 */
static bool round_paired(const struct rg_row *a, const struct rg_row *b)
{
	/* The baseline's own deltas are all 0: its row is tested on its samples. */
	return a->n_delta && b->n_delta && a->n_delta == a->n_ns && b->n_delta == b->n_ns &&
	       strcmp(rg_row_s(a, RG_COL_guard), rg_row_s(a, RG_COL_baseline)) &&
	       !strcmp(rg_row_s(a, RG_COL_interleave), "rounds") &&
	       !strcmp(rg_row_s(b, RG_COL_interleave), "rounds") &&
	       !strcmp(rg_row_s(a, RG_COL_baseline), rg_row_s(b, RG_COL_baseline));
}

static void value_text(char *full, size_t fs, char *shrt, size_t ss, const struct rg_row *r,
		       const struct metric *m, double v, double s)
{
	char nv[32], ns[32];

	if (!r) {
		snprintf(full, fs, "-");
		snprintf(shrt, ss, "-");
		return;
	}
	if (!row_ok(r)) {
		snprintf(full, fs, "%s", rg_row_s(r, RG_COL_status));
		snprintf(shrt, ss, "%s", rg_row_s(r, RG_COL_status));
		return;
	}
	fmt_num(nv, sizeof(nv), v);
	if (isnan(v)) {
		snprintf(full, fs, "n/a");
		snprintf(shrt, ss, "n/a");
		return;
	}
	fmt_spread(ns, sizeof(ns), v, s);
	if (isnan(s))
		snprintf(full, fs, "%s %s", nv, m->unit);
	else
		snprintf(full, fs, "%s ±%s %s", nv, ns, m->unit);
	snprintf(shrt, ss, "%s%s", nv, m->unit);
}

static void compute(const struct cmp *c, const char *alabel, bool ratio_mode, struct res *r)
{
	const struct rg_row *a = c->a, *b = c->b;
	const double *xa = NULL, *xb = NULL;

	memset(r, 0, sizeof(*r));
	r->m = pick_metric(a, b);
	r->va = r->vb = r->sa = r->sb = r->change = r->factor = r->p = NAN;
	r->test = "";
	if (a) {
		r->va = rg_row_d(a, r->m->median);
		r->sa = rg_row_d(a, r->m->spread);
		samples(a, r->m, &xa, &r->na);
	}
	if (b) {
		r->vb = rg_row_d(b, r->m->median);
		r->sb = rg_row_d(b, r->m->spread);
		samples(b, r->m, &xb, &r->nb);
	}
	value_text(r->a, sizeof(r->a), r->a_short, sizeof(r->a_short), a, r->m, r->va, r->sa);
	value_text(r->b, sizeof(r->b), r->b_short, sizeof(r->b_short), b, r->m, r->vb, r->sb);
	snprintf(r->chg, sizeof(r->chg), "-");
	snprintf(r->fac, sizeof(r->fac), "-");
	snprintf(r->pv, sizeof(r->pv), "-");
	if (!a || !b) {
		if (ratio_mode)
			snprintf(r->verdict, sizeof(r->verdict), "no %s row", alabel);
		else
			snprintf(r->verdict, sizeof(r->verdict), "only in %s", a ? "base" : "new");
		snprintf(r->chg, sizeof(r->chg), "%s", ratio_mode ? "-" : a ? "removed" : "added");
		return;
	}
	if (!row_ok(a) || !row_ok(b)) {
		const struct rg_row *s = !row_ok(a) ? a : b;

		snprintf(r->verdict, sizeof(r->verdict), "%s in %s%s%s", rg_row_s(s, RG_COL_status),
			 !row_ok(a) && !row_ok(b) ? "both"
			 : s == a ? alabel : (ratio_mode ? "this row" : "new"),
			 *rg_row_s(s, RG_COL_reason) ? ": " : "", rg_row_s(s, RG_COL_reason));
		snprintf(r->chg, sizeof(r->chg), "%s", rg_row_s(s, RG_COL_status));
		return;
	}
	if (isnan(r->va) || isnan(r->vb)) {
		snprintf(r->verdict, sizeof(r->verdict), "n/a (not measured)");
		return;
	}
	if (r->va > 0) {
		r->change = (r->vb - r->va) / r->va * 100.0;
		fmt_change(r->chg, sizeof(r->chg), r->change);
	}
	if (ratio_mode)
		r->factor = r->va > 0 ? r->vb / r->va : NAN;
	else if (r->m->higher_better)
		r->factor = r->va > 0 ? r->vb / r->va : NAN;
	else
		r->factor = r->vb > 0 ? r->va / r->vb : NAN;
	fmt_factor(r->fac, sizeof(r->fac), r->factor);
	if (!ratio_mode && r->m == &M_NS && round_paired(a, b)) {
		xa = a->samples_delta_ns;
		xb = b->samples_delta_ns;
		r->na = a->n_delta;
		r->nb = b->n_delta;
		r->paired = true;
	}
	if (!r->na || !r->nb) {
		snprintf(r->verdict, sizeof(r->verdict), "n/a (no samples)");
		snprintf(r->pv, sizeof(r->pv), "n/a");
	} else if (r->na < RG_MWU_MIN_SAMPLES || r->nb < RG_MWU_MIN_SAMPLES) {
		snprintf(r->verdict, sizeof(r->verdict), "too few repetitions (%zu vs %zu, need %d)",
			 r->na, r->nb, RG_MWU_MIN_SAMPLES);
		snprintf(r->pv, sizeof(r->pv), "few");
	} else {
		struct rg_mwu t;
		char p[24];
		bool better;

		if (rg_mwu_test(xa, r->na, xb, r->nb, &t)) {
			snprintf(r->verdict, sizeof(r->verdict), "n/a (test failed)");
			return;
		}
		r->p = t.p;
		r->test = t.exact ? "exact" : "normal";
		fmt_p(p, sizeof(p), t.p);
		snprintf(r->pv, sizeof(r->pv), "%s", p);
		double da = r->va, db = r->vb;

		if (r->paired) {
			/* The direction of the tested quantity: the delta against the baseline. */
			da = rg_row_d(a, RG_COL_delta_ns);
			db = rg_row_d(b, RG_COL_delta_ns);
		}
		better = r->m->higher_better ? db > da : db < da;
		if (t.p >= ALPHA)
			snprintf(r->verdict, sizeof(r->verdict), "no significant change (p=%s%s)", p,
				 r->paired ? ", per-round deltas" : "");
		else if (db == da)
			snprintf(r->verdict, sizeof(r->verdict), "differs (p=%s%s)", p,
				 r->paired ? ", per-round deltas" : "");
		else
			snprintf(r->verdict, sizeof(r->verdict), "%s (p%s%s%s)",
				 better ? "faster" : "slower", *p == '<' ? "" : "=", p,
				 r->paired ? ", per-round deltas" : "");
		if (row_noisy(a) || row_noisy(b)) {
			size_t l = strlen(r->verdict);

			snprintf(r->verdict + l, sizeof(r->verdict) - l, "; noisy in %s",
				 row_noisy(a) && row_noisy(b) ? "both" : row_noisy(a) ? alabel
				 : ratio_mode ? "this row" : "new");
		}
	}
}

/* ---- pairing ----------------------------------------------------------- */

/*
 * The key that pairs a base row with a new row: suite, guard, scenario,
 * threads, duty and batch. Across hosts the batch is left out: it may be
 * sized per machine (the BPF driver batch), so each side shows its own
 * batch as context instead (batch_text()).
 */
static int pair_key_cmp(const struct rg_row *a, const struct rg_row *b, bool across)
{
	static const enum rg_col s[] = { RG_COL_suite, RG_COL_guard, RG_COL_scenario };
	static const enum rg_col n[] = { RG_COL_threads, RG_COL_duty_ns };
	int d;

	if (!across)
		return rg_row_key_cmp(a, b);
	for (size_t i = 0; i < 3; i++)
		if ((d = strcmp(rg_row_s(a, s[i]), rg_row_s(b, s[i]))))
			return d;
	for (size_t i = 0; i < sizeof(n) / sizeof(n[0]); i++)
		if (rg_row_i(a, n[i]) != rg_row_i(b, n[i]))
			return rg_row_i(a, n[i]) < rg_row_i(b, n[i]) ? -1 : 1;
	return 0;
}

static const struct rg_row *bs_base;
static bool bs_across;

static int cmp_idx(const void *x, const void *y)
{
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	int d = pair_key_cmp(&bs_base[i], &bs_base[j], bs_across);

	return d ? d : (i > j) - (i < j);	/* equal keys in file order */
}

/*
 * Pair base and new rows by key: base order first, then rows only in new.
 * Each new row pairs at most once (the first unused one of equal key).
 */
static struct cmp *pair_ab(const struct side *A, const struct side *B, bool across, size_t *n)
{
	size_t nb = B->rows.n, k = 0, *idx = malloc((nb ? nb : 1) * sizeof(*idx));
	bool *used = calloc(nb ? nb : 1, sizeof(*used));
	struct cmp *v = malloc((A->rows.n + nb + 1) * sizeof(*v));

	if (!idx || !used || !v) {
		free(idx);
		free(used);
		free(v);
		return NULL;
	}
	for (size_t i = 0; i < nb; i++)
		idx[i] = i;
	bs_base = B->rows.v;
	bs_across = across;
	qsort(idx, nb, sizeof(*idx), cmp_idx);
	for (size_t i = 0; i < A->rows.n; i++) {
		const struct rg_row *a = &A->rows.v[i], *b = NULL;
		size_t lo = 0, hi = nb;

		/* The first of the equal keys, then the first unused one. */
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (pair_key_cmp(&B->rows.v[idx[mid]], a, across) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < nb && !pair_key_cmp(&B->rows.v[idx[lo]], a, across); lo++) {
			if (!used[idx[lo]]) {
				b = &B->rows.v[idx[lo]];
				used[idx[lo]] = true;
				break;
			}
		}
		v[k++] = (struct cmp){ a, b, "" };
	}
	for (size_t i = 0; i < nb; i++)
		if (!used[i])
			v[k++] = (struct cmp){ NULL, &B->rows.v[i], "" };
	free(idx);
	free(used);
	*n = k;
	return v;
}

/* Same key except the guard. */
static bool same_but_guard(const struct rg_row *x, const struct rg_row *y)
{
	return !strcmp(rg_row_s(x, RG_COL_suite), rg_row_s(y, RG_COL_suite)) &&
	       !strcmp(rg_row_s(x, RG_COL_scenario), rg_row_s(y, RG_COL_scenario)) &&
	       rg_row_i(x, RG_COL_threads) == rg_row_i(y, RG_COL_threads) &&
	       rg_row_i(x, RG_COL_duty_ns) == rg_row_i(y, RG_COL_duty_ns) &&
	       rg_row_i(x, RG_COL_batch) == rg_row_i(y, RG_COL_batch);
}

/*
 * --across-hosts: a row only one machine measured (its guard's name exists on
 * one architecture only, so the other side has no row or a skipped one) is
 * paired with the other machine's lone measured rows of the same key but
 * another guard that share a role (rg_row_role: the role column). A guard
 * standing in for several roles pairs once per role. A lone row that found a
 * partner replaces its line (and the other side's "skipped" beside it); one
 * that found none stays as it was. Pairs by name of two measured rows stay.
 */
static const struct rg_row *lone_a(const struct cmp *c)
{
	return c->a && row_ok(c->a) && (!c->b || !row_ok(c->b)) ? c->a : NULL;
}

static const struct rg_row *lone_b(const struct cmp *c)
{
	return c->b && row_ok(c->b) && (!c->a || !row_ok(c->a)) ? c->b : NULL;
}

static struct cmp *pair_roles(struct cmp *v, size_t *n)
{
	size_t cap = *n + 1, k = 0, npairs = 0;
	struct cmp *out = NULL, *pairs = malloc(cap * sizeof(*pairs));
	size_t *owner = malloc(cap * sizeof(*owner));
	bool *used = calloc(*n + 1, sizeof(*used)), *matched = calloc(*n + 1, sizeof(*matched));

	if (!pairs || !owner || !used || !matched)
		goto oom;
	for (size_t i = 0; i < *n; i++) {
		const struct rg_row *a = lone_a(&v[i]);
		const char *ra = a ? rg_row_role(a, NULL) : "";

		for (size_t j = 0; *ra && j < *n; j++) {
			const struct rg_row *b = lone_b(&v[j]);
			char common[48];

			if (!b || j == i || !same_but_guard(a, b) ||
			    !strcmp(rg_row_s(a, RG_COL_guard), rg_row_s(b, RG_COL_guard)) ||
			    !rg_roles_common(ra, rg_row_role(b, NULL), common, sizeof(common)))
				continue;
			if (npairs + 1 >= cap) {
				struct cmp *np = realloc(pairs, 2 * cap * sizeof(*pairs));
				size_t *no = np ? realloc(owner, 2 * cap * sizeof(*owner)) : NULL;

				if (np)
					pairs = np;
				if (!no)
					goto oom;
				owner = no;
				cap *= 2;
			}
			pairs[npairs] = (struct cmp){ a, b, "" };
			snprintf(pairs[npairs].role, sizeof(pairs[0].role), "%s", common);
			owner[npairs++] = i;
			used[j] = matched[i] = true;
		}
	}
	out = malloc((*n + npairs + 1) * sizeof(*out));
	if (!out)
		goto oom;
	for (size_t i = 0; i < *n; i++) {
		if (matched[i]) {
			for (size_t p = 0; p < npairs; p++)
				if (owner[p] == i)
					out[k++] = pairs[p];
			/* a measured b beside a lone a is still a line of its own */
			if (v[i].b && row_ok(v[i].b) && !used[i])
				out[k++] = (struct cmp){ NULL, v[i].b, "" };
			continue;
		}
		if (used[i]) {
			if (v[i].a && row_ok(v[i].a))
				out[k++] = (struct cmp){ v[i].a, NULL, "" };
			continue;
		}
		out[k++] = v[i];
	}
	free(pairs);
	free(owner);
	free(used);
	free(matched);
	free(v);
	*n = k;
	return out;
oom:
	free(pairs);
	free(owner);
	free(used);
	free(matched);
	free(v);
	return NULL;
}

/* The guard cell: the guard, or "role: base-guard / new-guard" for a pair by role. */
static const char *guard_cell(const struct cmp *c, char *buf, size_t size)
{
	const struct rg_row *k = c->b ? c->b : c->a;

	if (!c->role[0])
		return rg_row_s(k, RG_COL_guard);
	snprintf(buf, size, "%s: %s / %s", c->role, rg_row_s(c->a, RG_COL_guard),
		 rg_row_s(c->b, RG_COL_guard));
	return buf;
}

/* Every non-baseline row against the baseline guard's row of the same key. */
static struct cmp *pair_baseline(const struct side *S, const char *guard, size_t *n,
				 size_t *nbase)
{
	struct cmp *v = malloc((S->rows.n + 1) * sizeof(*v));
	size_t k = 0;

	*nbase = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < S->rows.n; i++) {
		const struct rg_row *r = &S->rows.v[i], *a = NULL;

		if (!strcmp(rg_row_s(r, RG_COL_guard), guard)) {
			(*nbase)++;
			continue;
		}
		for (size_t j = 0; j < S->rows.n && !a; j++) {
			const struct rg_row *c = &S->rows.v[j];

			if (!strcmp(rg_row_s(c, RG_COL_guard), guard) && same_but_guard(c, r))
				a = c;
		}
		v[k++] = (struct cmp){ a, r, "" };
	}
	*n = k;
	return v;
}

/* ---- header lines -------------------------------------------------------- */

/* Distinct values of a column over a side: "a", or "a, b" (at most 3 listed). */
static void distinct(const struct side *s, enum rg_col col, char *buf, size_t size)
{
	const char *seen[3];
	size_t n = 0, more = 0;

	buf[0] = 0;
	for (size_t i = 0; i < s->rows.n; i++) {
		const char *v = rg_row_s(&s->rows.v[i], col);
		bool dup = false;

		for (size_t k = 0; k < n; k++)
			dup |= !strcmp(seen[k], v);
		if (dup)
			continue;
		if (n == 3) {
			more++;
			continue;
		}
		seen[n++] = v;
	}
	for (size_t k = 0; k < n; k++) {
		size_t l = strlen(buf);

		snprintf(buf + l, size - l, "%s%s", k ? ", " : "", *seen[k] ? seen[k] : "?");
	}
	if (more) {
		size_t l = strlen(buf);

		snprintf(buf + l, size - l, " (+%zu more)", more);
	}
	if (!n)
		snprintf(buf, size, "?");
}

static void distinct_int(const struct side *s, enum rg_col col, char *buf, size_t size)
{
	long long seen[3];
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0; i < s->rows.n; i++) {
		long long v = rg_row_i(&s->rows.v[i], col);
		bool dup = false;

		for (size_t k = 0; k < n; k++)
			dup |= seen[k] == v;
		if (!dup && n < 3)
			seen[n++] = v;
	}
	for (size_t k = 0; k < n; k++) {
		size_t l = strlen(buf);

		snprintf(buf + l, size - l, "%s%lld", k ? ", " : "", seen[k]);
	}
	if (!n)
		snprintf(buf, size, "?");
}

struct lines {
	char **v;
	size_t n;
};

__attribute__((format(printf, 2, 3)))
static void addl(struct lines *l, const char *fmt, ...)
{
	char *s = NULL, **v;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		return;
	v = realloc(l->v, (l->n + 1) * sizeof(*v));
	if (!v) {
		free(s);
		return;
	}
	l->v = v;
	l->v[l->n++] = s;
}

static void header_lines(struct lines *l, const struct side *A, const struct side *B,
			 bool across)
{
	static const struct {
		enum rg_col col;
		const char *what;
		bool is_int;
	} diff[] = {
		{ RG_COL_cpu_model, "CPU models", false },
		{ RG_COL_kernel, "kernels", false },
		{ RG_COL_schema_version, "schema versions", true },
		{ RG_COL_rgbench_version, "rgbench versions", false },
		{ RG_COL_host, "hosts", false },
	};
	const struct side *s[2] = { A, B };

	for (int i = 0; i < (B ? 2 : 1); i++) {
		char host[256], cpu[256], kern[256];

		distinct(s[i], RG_COL_host, host, sizeof(host));
		distinct(s[i], RG_COL_cpu_model, cpu, sizeof(cpu));
		distinct(s[i], RG_COL_kernel, kern, sizeof(kern));
		addl(l, "%s %s: %s, %s, kernel %s, %zu rows", B ? (i ? "new: " : "base:") : "file:",
		     s[i]->path, host, cpu, kern, s[i]->rows.n);
	}
	if (!B)
		return;
	for (size_t k = 0; k < sizeof(diff) / sizeof(diff[0]); k++) {
		char x[256], y[256];

		if (diff[k].is_int) {
			distinct_int(A, diff[k].col, x, sizeof(x));
			distinct_int(B, diff[k].col, y, sizeof(y));
		} else {
			distinct(A, diff[k].col, x, sizeof(x));
			distinct(B, diff[k].col, y, sizeof(y));
		}
		if (strcmp(x, y)) {
			if (diff[k].col == RG_COL_host && !across)
				addl(l, "note: hosts differ (%s vs %s): --across-hosts labels the columns by machine",
				     x, y);
			else
				addl(l, "note: %s differ: %s vs %s", diff[k].what, x, y);
		} else if (diff[k].col == RG_COL_host && across) {
			addl(l, "note: --across-hosts, but both sides come from host %s", x);
		}
	}
}

/*
 * Say when paired rows were not measured the same way: a different
 * interleave (rounds, alternating, none) or, for rounds, a different number
 * of rounds. Their samples then do not mean the same thing, and the test
 * falls back to (or mixes) per-repetition values.
 */
static void interleave_lines(struct lines *l, const struct cmp *v, size_t n)
{
	size_t nmode = 0, ncount = 0;
	const struct cmp *em = NULL, *ec = NULL;

	for (size_t i = 0; i < n; i++) {
		const struct rg_row *a = v[i].a, *b = v[i].b;

		if (!a || !b || !row_ok(a) || !row_ok(b))
			continue;
		if (strcmp(rg_row_s(a, RG_COL_interleave), rg_row_s(b, RG_COL_interleave))) {
			em = em ? em : &v[i];
			nmode++;
		} else if (!strcmp(rg_row_s(a, RG_COL_interleave), "rounds") &&
			   rg_row_i(a, RG_COL_repetitions) != rg_row_i(b, RG_COL_repetitions)) {
			ec = ec ? ec : &v[i];
			ncount++;
		}
	}
	if (nmode) {
		char key[160];

		rg_row_key_text(em->b, key, sizeof(key));
		addl(l, "note: %zu row%s not interleaved the same way (e.g. %s: base %s, new %s): "
			"tested on per-repetition values, drift between the runs is not removed",
		     nmode, nmode == 1 ? "" : "s", key, rg_row_s(em->a, RG_COL_interleave),
		     rg_row_s(em->b, RG_COL_interleave));
	}
	if (ncount) {
		char key[160];

		rg_row_key_text(ec->b, key, sizeof(key));
		addl(l, "note: %zu row%s measured in a different number of rounds (e.g. %s: base %lld, new %lld)",
		     ncount, ncount == 1 ? "" : "s", key, rg_row_i(ec->a, RG_COL_repetitions),
		     rg_row_i(ec->b, RG_COL_repetitions));
	}
}

/* "host (cpu model)" for --across-hosts column labels. */
static void host_label(const struct side *s, char *buf, size_t size, bool with_cpu)
{
	char h[128], c[128];

	distinct(s, RG_COL_host, h, sizeof(h));
	distinct(s, RG_COL_cpu_model, c, sizeof(c));
	if (with_cpu)
		snprintf(buf, size, "%s (%s)", h, c);
	else
		snprintf(buf, size, "%s", h);
}

/* ---- output --------------------------------------------------------------- */

/* Truncate s to at most w display columns, marking the cut with '~'. */
static void clip(char *s, size_t w)
{
	size_t cols = 0;

	for (char *p = s; *p; p++) {
		if (((unsigned char)*p & 0xc0) == 0x80)
			continue;
		if (++cols > w) {
			/* back up so the '~' is the w-th column */
			char *q = p - 1;

			while (q > s && ((unsigned char)*q & 0xc0) == 0x80)
				q--;
			*q = '~';
			q[1] = 0;
			return;
		}
	}
}

/*
 * Cut s to w columns by replacing its middle with '~', keeping the last 8
 * characters: "pcpu-lock-xadd/fals~e-packed" stays distinct from "...padded".
 */
static void clip_mid(char *s, size_t w)
{
	size_t len = strlen(s), tail = 8;

	for (const char *p = s; *p; p++)
		if ((unsigned char)*p >= 0x80) {
			clip(s, w);	/* not ASCII: cut at the end */
			return;
		}
	if (len <= w || w < tail + 2)
		return;
	s[w - tail - 1] = '~';
	memmove(s + w - tail, s + len - tail, tail + 1);
}

/* Print words (", "-separated) after a prefix, wrapped at the commit-log width. */
static void wrap_list(FILE *f, const char *prefix, char **words, size_t n)
{
	size_t col = (size_t)fprintf(f, "%s", prefix);

	for (size_t i = 0; i < n; i++) {
		size_t w = strlen(words[i]) + (i + 1 < n ? 1 : 0);

		if (col + 1 + w > COMMIT_LOG_WIDTH) {
			fputs("\n ", f);
			col = 1;
		}
		col += (size_t)fprintf(f, " %s%s", words[i], i + 1 < n ? "," : "");
	}
	fputc('\n', f);
}

/*
 * The commit-log form: one table of at most COMMIT_LOG_WIDTH columns. The name
 * column gets what the numbers leave; rows skipped on both sides are summed up
 * in one line under the table instead of one row each.
 */
static int emit_commit(FILE *f, const struct cmp *v, size_t n, const char *la, const char *lb,
		       bool ratio_mode, const struct lines *hl)
{
	struct res *r = calloc(n ? n : 1, sizeof(*r));
	bool *hide = calloc(n ? n : 1, sizeof(*hide));
	char **skipped = calloc(n ? n : 1, sizeof(*skipped));
	const char *h[] = { "guard/scenario", la, lb, "change", ratio_mode ? "ratio" : "speedup", "p" };
	size_t w[6] = { 0 }, budget = 0, nskip = 0, nguards = 0;
	struct rg_table t;
	int ret = -1;

	rg_table_init(&t, 6);
	if (!r || !hide || !skipped || rg_table_add(&t, h))
		goto out;
	for (int c = 1; c < 6; c++) {
		t.right[c] = true;
		w[c] = rg_utf8_width(h[c]);
	}
	for (size_t i = 0; i < n; i++) {
		const char *cells[6];

		compute(&v[i], la, ratio_mode, &r[i]);
		if (v[i].a && v[i].b && !row_ok(v[i].a) && !row_ok(v[i].b)) {
			const char *g = rg_row_s(v[i].b, RG_COL_guard);
			bool seen = false;

			hide[i] = true;
			nskip++;
			for (size_t k = 0; k < nguards; k++)
				seen |= !strcmp(skipped[k], g);
			if (!seen)
				skipped[nguards++] = (char *)g;
			continue;
		}
		cells[1] = r[i].a_short;
		cells[2] = r[i].b_short;
		cells[3] = r[i].chg;
		cells[4] = r[i].fac;
		cells[5] = r[i].pv;
		for (int c = 1; c < 6; c++)
			if (rg_utf8_width(cells[c]) > w[c])
				w[c] = rg_utf8_width(cells[c]);
	}
	budget = COMMIT_LOG_WIDTH - 2 * 5;
	for (int c = 1; c < 6; c++)
		budget = budget > w[c] + 16 ? budget - w[c] : 16;
	for (size_t i = 0; i < n; i++) {
		const struct rg_row *k = v[i].b ? v[i].b : v[i].a;
		char name[160], sfx[48] = "";
		size_t sl;

		if (hide[i])
			continue;
		if (v[i].role[0])	/* by role: the header lines say which guards */
			snprintf(name, sizeof(name), "%s/%s", v[i].role, rg_row_s(k, RG_COL_scenario));
		else
			snprintf(name, sizeof(name), "%s/%s", rg_row_s(k, RG_COL_guard),
				 rg_row_s(k, RG_COL_scenario));
		if (rg_row_i(k, RG_COL_threads) > 1)
			snprintf(sfx, sizeof(sfx), " t%lld", rg_row_i(k, RG_COL_threads));
		if (rg_row_i(k, RG_COL_duty_ns) > 0) {
			sl = strlen(sfx);
			snprintf(sfx + sl, sizeof(sfx) - sl, " d%lld", rg_row_i(k, RG_COL_duty_ns));
		}
		/* Cut the guard/scenario part, never the thread and duty suffix. */
		sl = strlen(sfx);
		if (rg_utf8_width(name) + sl > budget)
			clip_mid(name, budget > sl + 12 ? budget - sl : 12);
		strncat(name, sfx, sizeof(name) - strlen(name) - 1);
		const char *row[] = { name, r[i].a_short, r[i].b_short, r[i].chg, r[i].fac, r[i].pv };
		if (rg_table_add(&t, row))
			goto out;
	}
	for (size_t i = 0; i < hl->n; i++) {
		clip(hl->v[i], COMMIT_LOG_WIDTH);
		fprintf(f, "%s\n", hl->v[i]);
	}
	fputc('\n', f);
	rg_table_print_text(&t, f);
	fputc('\n', f);
	if (nskip) {
		char prefix[64];

		snprintf(prefix, sizeof(prefix), "Skipped on both sides (%zu row%s):", nskip,
			 nskip == 1 ? "" : "s");
		wrap_list(f, prefix, skipped, nguards);
	}
	fprintf(f, "Values are medians. %s\n"
		   "p: two-sided Mann-Whitney U over the repetitions (few: fewer\n"
		   "than %d a side; n/a: no per-repetition samples).\n",
		ratio_mode ? "ratio: value / baseline." : "speedup: base/new (ns), new/base (M/s).",
		RG_MWU_MIN_SAMPLES);
	for (size_t i = 0; i < n; i++)
		if (r[i].paired) {
			fputs("Rows measured in interleaved rounds on both sides: the test\n"
			      "is over the per-round deltas against their baseline.\n", f);
			break;
		}
	ret = 0;
out:
	rg_table_free(&t);
	free(r);
	free(hide);
	free(skipped);
	return ret;
}

/* The batch column: one value, or "base/new" when the paired rows differ (across hosts). */
static void batch_text(char *buf, size_t size, const struct cmp *c)
{
	const struct rg_row *k = c->b ? c->b : c->a;

	if (c->a && c->b && rg_row_i(c->a, RG_COL_batch) != rg_row_i(c->b, RG_COL_batch))
		snprintf(buf, size, "%lld/%lld", rg_row_i(c->a, RG_COL_batch),
			 rg_row_i(c->b, RG_COL_batch));
	else
		snprintf(buf, size, "%lld", rg_row_i(k, RG_COL_batch));
}

/* The header lines (not in CSV), then the table in the chosen format. */
static void print_table(FILE *f, enum out_fmt fmt, const struct lines *hl, struct rg_table *t)
{
	if (fmt != OUT_CSV) {
		for (size_t i = 0; i < hl->n; i++)
			fprintf(f, "%s%s\n", hl->v[i], fmt == OUT_MARKDOWN ? "  " : "");
		fputc('\n', f);
	}
	if (fmt == OUT_MARKDOWN)
		rg_table_print_markdown(t, f);
	else if (fmt == OUT_CSV)
		rg_table_print_csv(t, f);
	else
		rg_table_print_text(t, f);
}

static int emit(FILE *f, enum out_fmt fmt, const struct cmp *v, size_t n, const char *la,
		const char *lb, const char *la_short, const char *lb_short, bool ratio_mode,
		const struct lines *hl)
{
	struct rg_table t;
	const char *facname = ratio_mode ? "ratio" : "speedup";

	if (fmt == OUT_COMMIT)
		return emit_commit(f, v, n, la_short, lb_short, ratio_mode, hl);
	if (fmt == OUT_CSV) {
		rg_table_init(&t, 21);
		const char *h[] = { "suite", "guard", "scenario", "threads", "duty_ns", "batch",
				    "metric", "unit", "higher_is_better", "base_label", "base_median",
				    "base_spread", "base_samples", "new_label", "new_median",
				    "new_spread", "new_samples", "change_pct",
				    ratio_mode ? "ratio" : "speedup", "p_value", "verdict" };
		if (rg_table_add(&t, h))
			goto oom;
	} else {
		rg_table_init(&t, 11);
		const char *h[] = { "suite", "guard", "scenario", "threads", "duty_ns", "batch",
				    la, lb, "change", facname, "verdict" };
		if (rg_table_add(&t, h))
			goto oom;
		for (int i = 3; i < 10; i++)
			t.right[i] = true;
	}
	for (size_t i = 0; i < n; i++) {
		const struct rg_row *k = v[i].b ? v[i].b : v[i].a;
		char th[24], du[24], ba[48], gb[160];
		const char *gname = guard_cell(&v[i], gb, sizeof(gb));
		struct res r;

		compute(&v[i], la_short, ratio_mode, &r);
		snprintf(th, sizeof(th), "%lld", rg_row_i(k, RG_COL_threads));
		snprintf(du, sizeof(du), "%lld", rg_row_i(k, RG_COL_duty_ns));
		batch_text(ba, sizeof(ba), &v[i]);
		if (fmt == OUT_CSV) {
			char c[12][40];
			double nums[] = { r.va, r.sa, r.vb, r.sb, r.change, r.factor, r.p };
			char *np[] = { c[0], c[1], c[3], c[4], c[6], c[7], c[8] };

			for (size_t j = 0; j < 7; j++) {
				if (isnan(nums[j]) || isinf(nums[j]))
					np[j][0] = 0;
				else
					snprintf(np[j], 40, "%.6g", nums[j]);
			}
			snprintf(c[2], 40, "%zu", r.na);
			snprintf(c[5], 40, "%zu", r.nb);
			const char *row[] = { rg_row_s(k, RG_COL_suite), gname,
					      rg_row_s(k, RG_COL_scenario), th, du, ba, r.m->name,
					      r.m->unit, r.m->higher_better ? "1" : "0", la_short,
					      v[i].a ? c[0] : "", v[i].a ? c[1] : "", c[2], lb_short,
					      v[i].b ? c[3] : "", v[i].b ? c[4] : "", c[5], c[6], c[7],
					      c[8], r.verdict };
			if (rg_table_add(&t, row))
				goto oom;
		} else {
			const char *row[] = { rg_row_s(k, RG_COL_suite), gname,
					      rg_row_s(k, RG_COL_scenario), th, du, ba, r.a, r.b,
					      r.chg, r.fac, r.verdict };
			if (rg_table_add(&t, row))
				goto oom;
		}
	}
	print_table(f, fmt, hl, &t);
	rg_table_free(&t);
	return 0;
oom:
	rg_table_free(&t);
	return -1;
}

/* ---- --across-suites ----------------------------------------------------- */

/* A timed row of the user suite (pair, or duty with its work) or of the module (loop*). */
static bool timed_row(const struct rg_row *r, const char *suite)
{
	const char *sc = rg_row_s(r, RG_COL_scenario);

	if (strcmp(rg_row_s(r, RG_COL_suite), suite))
		return false;
	if (!strcmp(suite, "kmod"))
		return !strncmp(sc, "loop", 4);
	return !strcmp(sc, rg_row_i(r, RG_COL_duty_ns) ? "duty" : "pair");
}

static bool measured(const struct rg_row *r)
{
	const char *st = rg_row_s(r, RG_COL_status);

	return !strcmp(st, "ok") || !strcmp(st, "noisy");
}

/* The first timed row of suite with this guard and duty, across both files. */
static const struct rg_row *find_timed(const struct side *S[2], const char *suite,
				       const char *guard, long long duty)
{
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < S[k]->rows.n; i++) {
			const struct rg_row *r = &S[k]->rows.v[i];

			if (timed_row(r, suite) && !strcmp(rg_row_s(r, RG_COL_guard), guard) &&
			    rg_row_i(r, RG_COL_duty_ns) == duty)
				return r;
		}
	return NULL;
}

/* "v [lo, hi]" for a delta, "v ±sd" for ns per pair, or the row's status. */
static void suite_value(char *buf, size_t size, const struct rg_row *r, bool delta,
			double *v, double *lo, double *hi)
{
	char a[32], b[32], c[32];

	*v = *lo = *hi = NAN;
	if (!r) {
		snprintf(buf, size, "-");
		return;
	}
	if (!measured(r)) {
		snprintf(buf, size, "%s", rg_row_s(r, RG_COL_status));
		return;
	}
	if (delta) {
		*v = rg_row_d(r, RG_COL_delta_ns);
		*lo = rg_row_d(r, RG_COL_delta_ci_lo);
		*hi = rg_row_d(r, RG_COL_delta_ci_hi);
		snprintf(a, sizeof(a), "%.3f", *v);
		if (isnan(*lo)) {
			snprintf(buf, size, "%s", a);
		} else {
			snprintf(b, sizeof(b), "%.3f", *lo);
			snprintf(c, sizeof(c), "%.3f", *hi);
			snprintf(buf, size, "%s [%s, %s]", a, b, c);
		}
		return;
	}
	*v = rg_row_d(r, RG_COL_ns_median);
	fmt_num(a, sizeof(a), *v);
	if (isnan(*v)) {
		snprintf(buf, size, "n/a");
	} else if (isnan(rg_row_d(r, RG_COL_ns_stddev))) {
		snprintf(buf, size, "%s", a);
	} else {
		fmt_spread(b, sizeof(b), *v, rg_row_d(r, RG_COL_ns_stddev));
		snprintf(buf, size, "%s ±%s", a, b);
	}
}

static void csv_num(char *buf, size_t size, double v)
{
	if (isnan(v) || isinf(v))
		buf[0] = 0;
	else
		snprintf(buf, size, "%.6g", v);
}

/*
 * One line per guard (and duty) measured by the user suite, the module or
 * both: each side's cost over its own noop (delta_ns with its 95% interval)
 * when both rows have one, else ns per pair (median ± stddev), and kmod/user.
 */
static int emit_across_suites(FILE *f, enum out_fmt fmt, const struct side *A,
			      const struct side *B, const struct lines *hl)
{
	const struct side *S[2] = { A, B };
	const char *suites[2] = { "user", "kmod" };
	struct rg_table t;
	size_t nrows = 0;

	if (fmt == OUT_CSV) {
		const char *h[] = { "guard", "role", "duty_ns", "user_threads", "kmod_threads",
				    "user_scenario", "kmod_scenario", "metric", "unit",
				    "user_value", "user_lo", "user_hi", "kmod_value", "kmod_lo",
				    "kmod_hi", "ratio", "note" };

		rg_table_init(&t, 17);
		if (rg_table_add(&t, h))
			goto oom;
	} else {
		const char *h[] = { "guard", "role", "duty_ns", "metric", "user (ns)",
				    "kmod (ns)", "kmod/user", "note" };

		rg_table_init(&t, 8);
		if (rg_table_add(&t, h))
			goto oom;
		t.right[2] = t.right[4] = t.right[5] = t.right[6] = true;
	}
	/* Rows of the user suite first (in file order), then module-only ones. */
	for (int pass = 0; pass < 2; pass++) {
		for (int k = 0; k < 2; k++) {
			for (size_t i = 0; i < S[k]->rows.n; i++) {
				const struct rg_row *r = &S[k]->rows.v[i], *u, *m;
				const char *guard = rg_row_s(r, RG_COL_guard), *role;
				long long duty = rg_row_i(r, RG_COL_duty_ns);
				char uv[96], mv[96], ra[24], du[24], note[160] = "";
				double x[3], y[3], ratio = NAN;
				bool delta;

				if (!timed_row(r, suites[pass]))
					continue;
				u = find_timed(S, "user", guard, duty);
				m = find_timed(S, "kmod", guard, duty);
				if (r != (pass ? m : u) || (pass && u))
					continue;	/* listed once, at its first row */
				delta = u && m && measured(u) && measured(m) &&
					!isnan(rg_row_d(u, RG_COL_delta_ns)) &&
					!isnan(rg_row_d(m, RG_COL_delta_ns));
				suite_value(uv, sizeof(uv), u, delta, &x[0], &x[1], &x[2]);
				suite_value(mv, sizeof(mv), m, delta, &y[0], &y[1], &y[2]);
				if (!isnan(x[0]) && !isnan(y[0]) && x[0] > 0)
					ratio = y[0] / x[0];
				fmt_factor(ra, sizeof(ra), ratio);
				if (!u || !m)
					snprintf(note, sizeof(note), "%s only", u ? "user" : "kmod");
				else if (!measured(u) || !measured(m))
					snprintf(note, sizeof(note), "%s in %s: %s",
						 rg_row_s(measured(u) ? m : u, RG_COL_status),
						 measured(u) ? "kmod" : "user",
						 rg_row_s(measured(u) ? m : u, RG_COL_reason));
				else if (delta && x[0] <= 0)
					snprintf(note, sizeof(note), "user delta <= 0: no ratio");
				else if (rg_row_i(u, RG_COL_threads) != rg_row_i(m, RG_COL_threads))
					snprintf(note, sizeof(note), "threads %lld vs %lld kthreads",
						 rg_row_i(u, RG_COL_threads), rg_row_i(m, RG_COL_threads));
				role = m && strcmp(rg_row_s(m, RG_COL_role), "n/a") ?
				       rg_row_s(m, RG_COL_role) : rg_row_s(r, RG_COL_role);
				snprintf(du, sizeof(du), "%lld", duty);
				if (fmt == OUT_CSV) {
					char c[7][32], ut[24] = "", mt[24] = "";

					for (int j = 0; j < 3; j++) {
						csv_num(c[j], sizeof(c[j]), x[j]);
						csv_num(c[3 + j], sizeof(c[3 + j]), y[j]);
					}
					csv_num(c[6], sizeof(c[6]), ratio);
					if (u)
						snprintf(ut, sizeof(ut), "%lld", rg_row_i(u, RG_COL_threads));
					if (m)
						snprintf(mt, sizeof(mt), "%lld", rg_row_i(m, RG_COL_threads));
					const char *row[] = { guard, role, du, ut, mt,
							      u ? rg_row_s(u, RG_COL_scenario) : "",
							      m ? rg_row_s(m, RG_COL_scenario) : "",
							      delta ? "delta_ns" : "ns_median", "ns",
							      c[0], c[1], c[2], c[3], c[4], c[5], c[6],
							      note };
					if (rg_table_add(&t, row))
						goto oom;
				} else {
					const char *row[] = { guard, role, du,
							      delta ? "delta" : "ns/pair", uv, mv,
							      ra, note };
					if (rg_table_add(&t, row))
						goto oom;
				}
				nrows++;
			}
		}
	}
	print_table(f, fmt, hl, &t);
	if (fmt != OUT_CSV)
		fprintf(f, "\ndelta: ns per pair over the same suite's noop, median of paired per-round\n"
			   "differences [95%% interval]; ns/pair (median ± stddev) where a side has\n"
			   "no delta. kmod/user: the in-kernel value over the userspace one.\n");
	rg_table_free(&t);
	return nrows ? 0 : 1;
oom:
	rg_table_free(&t);
	return -1;
}

/* Does the side hold any timed row of suite? */
static bool has_timed(const struct side *s, const char *suite)
{
	for (size_t i = 0; i < s->rows.n; i++)
		if (timed_row(&s->rows.v[i], suite))
			return true;
	return false;
}

int rg_compare_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "markdown", no_argument, NULL, 'm' },
		{ "commit-log", no_argument, NULL, 'c' },
		{ "csv", no_argument, NULL, 'v' },
		{ "across-hosts", no_argument, NULL, 'a' },
		{ "across-suites", no_argument, NULL, 's' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "allow-emulated", no_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	enum out_fmt fmt = OUT_TEXT;
	const char *baseline = NULL;
	bool across = false, suites = false, allow_emulated = false;
	const char *emu;
	struct side A = { 0 }, B = { 0 };
	struct lines hl = { 0 };
	struct cmp *v = NULL;
	char err[1024], la[160], lb[160], las[24], lbs[24];
	char *buf = NULL;
	size_t n = 0, blen = 0, nbase = 0;
	int opt, ret = 1, nfmt = 0;
	FILE *mem;

	optind = 0;	/* GNU getopt: start over, whatever parsed argv before */
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'm': fmt = OUT_MARKDOWN; nfmt++; break;
		case 'c': fmt = OUT_COMMIT; nfmt++; break;
		case 'v': fmt = OUT_CSV; nfmt++; break;
		case 'a': across = true; break;
		case 's': suites = true; break;
		case 'b': baseline = optarg; break;
		case 'e': allow_emulated = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (nfmt > 1 || (baseline && across) || argc - optind != (baseline ? 1 : 2) ||
	    (baseline && !*baseline) || (suites && (baseline || across || fmt == OUT_COMMIT))) {
		fprintf(stderr, "rgbench: compare: %s\n",
			nfmt > 1 ? "choose one of --markdown, --commit-log, --csv"
			: suites && (baseline || across) ?
			  "--across-suites takes a user-suite file and a kmod file, alone"
			: suites ? "--across-suites prints text, --markdown or --csv"
			: baseline && across ? "--baseline compares guards within one file; drop --across-hosts"
			: baseline ? "--baseline GUARD takes exactly one FILE"
				   : "needs BASE and NEW");
		usage(stderr);
		return 2;
	}
	A.path = argv[optind];
	if (rg_read_path(A.path, &A.rows, err, sizeof(err)))
		goto fail;
	if (!baseline) {
		B.path = argv[optind + 1];
		if (rg_read_path(B.path, &B.rows, err, sizeof(err)))
			goto fail;
	}
	/* Timings taken under qemu are the emulator's: refuse them unless asked. */
	emu = emulated_virt(&A);
	if (!emu && !baseline)
		emu = emulated_virt(&B);
	if (emu && !allow_emulated) {
		fprintf(stderr, "rgbench: compare: %s holds rows measured on an emulated CPU "
			"(virt: %s), whose timings are not a machine's; --allow-emulated compares them anyway\n",
			emulated_virt(&A) ? A.path : B.path, emu);
		ret = 2;
		goto out;
	}
	if (suites) {
		const struct side *S[2] = { &A, &B };

		for (int k = 0; k < 2; k++) {
			const char *want = k ? "kmod" : "user";

			if (!has_timed(S[0], want) && !has_timed(S[1], want)) {
				snprintf(err, sizeof(err), "compare --across-suites: neither %s nor %s "
					 "has timed rows of suite %s (%s)", A.path, B.path, want,
					 k ? "rgbench kmod" : "rgbench: pair or duty");
				goto fail;
			}
		}
		header_lines(&hl, &A, &B, false);
		/* Name each file by the suite it brings rather than base/new. */
		for (int k = 0; k < 2 && k < (int)hl.n; k++) {
			const char *what = has_timed(S[k], "user") && has_timed(S[k], "kmod") ?
					   "both:" : has_timed(S[k], "user") ? "user:" : "kmod:";

			if (!strncmp(hl.v[k], k ? "new: " : "base:", 5))
				memcpy(hl.v[k], what, 5);
		}
		mem = open_memstream(&buf, &blen);
		if (mem) {
			int e = emit_across_suites(mem, fmt, &A, &B, &hl);

			if (fclose(mem) || e < 0)
				mem = NULL;
			else if (e > 0) {
				snprintf(err, sizeof(err), "compare --across-suites: no guard in %s or %s",
					 A.path, B.path);
				goto fail;
			}
		}
		if (!mem) {
			snprintf(err, sizeof(err), "compare: out of memory");
			goto fail;
		}
		fwrite(buf, 1, blen, stdout);
		ret = fflush(stdout) ? 1 : 0;
		goto out;
	}
	if (baseline) {
		v = pair_baseline(&A, baseline, &n, &nbase);
		if (v && !nbase) {
			snprintf(err, sizeof(err), "%s: no rows for guard '%s'", A.path, baseline);
			goto fail;
		}
		snprintf(la, sizeof(la), "%s", baseline);
		snprintf(lb, sizeof(lb), "value");
		snprintf(las, sizeof(las), "%s", baseline);
		snprintf(lbs, sizeof(lbs), "value");
		clip(las, 9);
	} else {
		v = pair_ab(&A, &B, across, &n);
		if (v && across)
			v = pair_roles(v, &n);
		if (across) {
			host_label(&A, la, sizeof(la), true);
			host_label(&B, lb, sizeof(lb), true);
			host_label(&A, las, sizeof(las), false);
			host_label(&B, lbs, sizeof(lbs), false);
			clip(las, 9);
			clip(lbs, 9);
		} else {
			snprintf(la, sizeof(la), "base");
			snprintf(lb, sizeof(lb), "new");
			snprintf(las, sizeof(las), "base");
			snprintf(lbs, sizeof(lbs), "new");
		}
	}
	if (!v) {
		snprintf(err, sizeof(err), "compare: out of memory");
		goto fail;
	}
	header_lines(&hl, &A, baseline ? NULL : &B, across);
	if (!baseline)
		interleave_lines(&hl, v, n);
	/* Which guard stood in for a role on each side (once per role and pair of names). */
	for (size_t i = 0; across && i < n; i++) {
		bool seen = false;

		if (!v[i].role[0])
			continue;
		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(v[k].role, v[i].role) &&
			       !strcmp(rg_row_s(v[k].a, RG_COL_guard), rg_row_s(v[i].a, RG_COL_guard)) &&
			       !strcmp(rg_row_s(v[k].b, RG_COL_guard), rg_row_s(v[i].b, RG_COL_guard));
		if (!seen)
			addl(&hl, "role %s: %s=%s, %s=%s", v[i].role, las,
			     rg_row_s(v[i].a, RG_COL_guard), lbs, rg_row_s(v[i].b, RG_COL_guard));
	}
	if (emu)
		addl(&hl, "note: emulated CPU (virt: %s): timings are the emulator's, not a machine's", emu);
	if (baseline)
		addl(&hl, "every guard relative to '%s' on the same suite/scenario/threads/duty",
		     baseline);
	/* Build everything in memory: on any failure nothing reaches stdout. */
	mem = open_memstream(&buf, &blen);
	if (mem) {
		int e = emit(mem, fmt, v, n, la, lb, las, lbs, baseline != NULL, &hl);

		if (fclose(mem) || e)
			mem = NULL;
	}
	if (!mem) {
		snprintf(err, sizeof(err), "compare: out of memory");
		goto fail;
	}
	fwrite(buf, 1, blen, stdout);
	ret = fflush(stdout) ? 1 : 0;
	goto out;
fail:
	fprintf(stderr, "rgbench: %s\n", err);
out:
	for (size_t i = 0; i < hl.n; i++)
		free(hl.v[i]);
	free(hl.v);
	free(buf);
	free(v);
	rg_rows_free(&A.rows);
	rg_rows_free(&B.rows);
	return ret;
}
