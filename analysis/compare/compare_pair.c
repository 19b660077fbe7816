// SPDX-License-Identifier: MIT
/* `rgbench compare`'s matching: base and new rows by key, lone rows by role across hosts, every guard against a baseline. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

/* ---- pairing ----------------------------------------------------------- */

/*
 * The key that pairs a base row with a new row: suite, guard, scenario,
 * threads, duty and batch. Across hosts the batch is left out: it may be
 * sized per machine (the BPF driver batch), so each side shows its own
 * batch as context instead (batch_text()). Two bpf rows pair without it on
 * one machine too: the driver batch is measured by each run and lands on
 * either side of a 1-2-5 step from one run to the next (5000 or 10000 here),
 * and a paired row's delta over its baseline of the same batch cancels the
 * syscall's share that the batch changes.
 */
static int pair_key_cmp(const struct rg_row *a, const struct rg_row *b, bool across)
{
	static const enum rg_col s[] = { RG_COL_suite, RG_COL_guard, RG_COL_scenario };
	static const enum rg_col n[] = { RG_COL_threads, RG_COL_duty_ns };
	int d;

	if (!across && (strcmp(rg_row_s(a, RG_COL_suite), "bpf") || strcmp(rg_row_s(b, RG_COL_suite), "bpf")))
		return rg_row_key_cmp(a, b);
	for (size_t i = 0; i < 3; i++)
		if ((d = strcmp(rg_row_s(a, s[i]), rg_row_s(b, s[i]))))
			return d;
	for (size_t i = 0; i < sizeof(n) / sizeof(n[0]); i++)
		if (rg_row_i(a, n[i]) != rg_row_i(b, n[i]))
			return rg_row_i(a, n[i]) < rg_row_i(b, n[i]) ? -1 : 1;
	return 0;
}

/* What cmp_idx() sorts indexes of, given to qsort_r (no file-static state). */
struct idx_sort {
	const struct rg_row *base;
	bool across;
};

static int cmp_idx(const void *x, const void *y, void *arg)
{
	const struct idx_sort *s = arg;
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	int d = pair_key_cmp(&s->base[i], &s->base[j], s->across);

	return d ? d : (i > j) - (i < j);	/* equal keys in file order */
}

/*
 * Pair base and new rows by key: base order first, then rows only in new.
 * Each new row pairs at most once (the first unused one of equal key).
 */
struct cmp *cmp_pair_ab(const struct side *A, const struct side *B, bool across, size_t *n)
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
	qsort_r(idx, nb, sizeof(*idx), cmp_idx, &(struct idx_sort){ B->rows.v, across });
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

/* The key without the guard: suite, scenario, threads, duty, batch (strcmp-like). */
static int but_guard_cmp(const struct rg_row *x, const struct rg_row *y)
{
	static const enum rg_col n[] = { RG_COL_threads, RG_COL_duty_ns, RG_COL_batch };
	int d = strcmp(rg_row_s(x, RG_COL_suite), rg_row_s(y, RG_COL_suite));

	if (!d)
		d = strcmp(rg_row_s(x, RG_COL_scenario), rg_row_s(y, RG_COL_scenario));
	for (size_t i = 0; !d && i < sizeof(n) / sizeof(n[0]); i++)
		if (rg_row_i(x, n[i]) != rg_row_i(y, n[i]))
			d = rg_row_i(x, n[i]) < rg_row_i(y, n[i]) ? -1 : 1;
	return d;
}

/* Rows indexed by but_guard_cmp, equal keys in index order: the lookups below are O(log n). */
struct bg_ent {
	const struct rg_row *r;
	size_t i;
};

static int bg_cmp(const void *pa, const void *pb)
{
	const struct bg_ent *a = pa, *b = pb;
	int d = but_guard_cmp(a->r, b->r);

	return d ? d : (a->i > b->i) - (a->i < b->i);
}

/* The first entry of v[0..n) whose key is not below r's. */
static size_t bg_lower(const struct bg_ent *v, size_t n, const struct rg_row *r)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (but_guard_cmp(v[mid].r, r) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
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
	return c->a && cmp_row_ok(c->a) && (!c->b || !cmp_row_ok(c->b)) ? c->a : NULL;
}

static const struct rg_row *lone_b(const struct cmp *c)
{
	return c->b && cmp_row_ok(c->b) && (!c->a || !cmp_row_ok(c->a)) ? c->b : NULL;
}

struct cmp *cmp_pair_roles(struct cmp *v, size_t *n)
{
	size_t cap = *n + 1, k = 0, npairs = 0, nlb = 0;
	struct cmp *out = NULL, *pairs = malloc(cap * sizeof(*pairs));
	size_t *owner = malloc(cap * sizeof(*owner));
	bool *used = calloc(*n + 1, sizeof(*used)), *matched = calloc(*n + 1, sizeof(*matched));
	struct bg_ent *lb = malloc((*n + 1) * sizeof(*lb));

	if (!pairs || !owner || !used || !matched || !lb)
		goto oom;
	/* the lone new-side rows, by key without the guard */
	for (size_t j = 0; j < *n; j++)
		if (lone_b(&v[j]))
			lb[nlb++] = (struct bg_ent){ lone_b(&v[j]), j };
	qsort(lb, nlb, sizeof(*lb), bg_cmp);
	for (size_t i = 0; i < *n; i++) {
		const struct rg_row *a = lone_a(&v[i]);
		const char *ra = a ? rg_row_role(a, NULL) : "";

		for (size_t e = *ra ? bg_lower(lb, nlb, a) : nlb; e < nlb && !but_guard_cmp(lb[e].r, a); e++) {
			const struct rg_row *b = lb[e].r;
			size_t j = lb[e].i;
			char common[48];

			if (j == i ||
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
			if (v[i].b && cmp_row_ok(v[i].b) && !used[i])
				out[k++] = (struct cmp){ NULL, v[i].b, "" };
			continue;
		}
		if (used[i]) {
			if (v[i].a && cmp_row_ok(v[i].a))
				out[k++] = (struct cmp){ v[i].a, NULL, "" };
			continue;
		}
		out[k++] = v[i];
	}
	free(pairs);
	free(owner);
	free(used);
	free(matched);
	free(lb);
	free(v);
	*n = k;
	return out;
oom:
	free(lb);
	free(pairs);
	free(owner);
	free(used);
	free(matched);
	free(v);
	return NULL;
}

/* Every non-baseline row against the baseline guard's row of the same key. */
struct cmp *cmp_pair_baseline(const struct side *S, const char *guard, size_t *n,
				 size_t *nbase)
{
	struct cmp *v = malloc((S->rows.n + 1) * sizeof(*v));
	struct bg_ent *bl = malloc((S->rows.n + 1) * sizeof(*bl));
	size_t k = 0;

	*nbase = 0;
	if (!v || !bl) {
		free(v);
		free(bl);
		return NULL;
	}
	/* the baseline guard's rows, by key without the guard (the first in file order wins) */
	for (size_t i = 0; i < S->rows.n; i++)
		if (!strcmp(rg_row_s(&S->rows.v[i], RG_COL_guard), guard))
			bl[(*nbase)++] = (struct bg_ent){ &S->rows.v[i], i };
	qsort(bl, *nbase, sizeof(*bl), bg_cmp);
	for (size_t i = 0; i < S->rows.n; i++) {
		const struct rg_row *r = &S->rows.v[i], *a = NULL;
		size_t e;

		if (!strcmp(rg_row_s(r, RG_COL_guard), guard))
			continue;
		e = bg_lower(bl, *nbase, r);
		if (e < *nbase && !but_guard_cmp(bl[e].r, r))
			a = bl[e].r;
		v[k++] = (struct cmp){ a, r, "" };
	}
	free(bl);
	*n = k;
	return v;
}
