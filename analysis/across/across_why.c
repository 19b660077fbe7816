// SPDX-License-Identifier: MIT
/* `rgbench report`'s "why" sections: each host's decision explained by the ladders of its two designs (the ladder scenario's rows: the user suite's, then the kernel module's where the host has them), and the ladders of every host side by side. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "across.h"

#define MAX_STEPS 16

/* One step of a ladder: its row and what its part adds against the step before. */
struct step {
	const struct rg_row *r;
	const char *part;	/* the guard name after "<design>+" */
	double v, lo, hi;	/* delta_ns and its interval (NAN when absent) */
	double cyc;		/* v in reference cycles, NAN without the cycle reference */
};

/* A design's ladder in one host's rows: the whole (against noop) and its steps in order. */
struct ladder {
	const char *design;
	const struct rg_row *whole;
	struct step s[MAX_STEPS];
	size_t n;
	double sum, level;	/* sum of the steps' deltas; the lowest interval level among them */
};

static bool excludes_zero(const struct step *s)
{
	return !isnan(s->lo) && !isnan(s->hi) && (s->lo > 0 || s->hi < 0);
}

static const struct rg_row *ladder_row(const struct host *h, const char *suite, const char *design,
				      const char *base)
{
	size_t len = strlen(design);

	for (size_t i = 0; i < h->n; i++) {
		const struct rg_row *r = h->rows[i];
		const char *g = rg_row_s(r, RG_COL_guard);

		if (rp_row_ok(r) && !strcmp(rg_row_s(r, RG_COL_suite), suite) &&
		    !strcmp(rg_row_s(r, RG_COL_scenario), "ladder") && !strncmp(g, design, len) &&
		    g[len] == '+' && !strcmp(rg_row_s(r, RG_COL_baseline), base))
			return r;
	}
	return NULL;
}

/*
 * The design's ladder in suite's rows (user: one thread; kmod: the module's
 * kthreads, any count): its steps follow the baseline chain (the first step
 * against noop, each next one against the step before). False when the
 * host has no step of it.
 */
static bool ladder_in(const struct host *h, const char *suite, const char *design, struct ladder *L)
{
	const char *base = "noop";
	const struct rg_row *r;

	memset(L, 0, sizeof(*L));
	L->design = design;
	L->level = NAN;
	L->whole = rp_find(h, suite, design, "ladder", strcmp(suite, "user") ? -1 : 1, 0);
	while (L->n < MAX_STEPS && (r = ladder_row(h, suite, design, base))) {
		struct step *s = &L->s[L->n++];
		double ref = rg_row_d(r, RG_COL_ref_ns_per_cycle), lv = rg_row_d(r, RG_COL_delta_ci_level);

		s->r = r;
		s->part = rg_row_s(r, RG_COL_guard) + strlen(design) + 1;
		s->v = rg_row_d(r, RG_COL_delta_ns);
		s->lo = rg_row_d(r, RG_COL_delta_ci_lo);
		s->hi = rg_row_d(r, RG_COL_delta_ci_hi);
		s->cyc = ref > 0 ? s->v / ref : NAN;
		L->sum += s->v;
		if (!isnan(lv) && (isnan(L->level) || lv < L->level))
			L->level = lv;
		base = rg_row_s(r, RG_COL_guard);
	}
	return L->n > 0;
}

static bool ladder_of(const struct host *h, const char *design, struct ladder *L)
{
	return ladder_in(h, "user", design, L);
}

bool rp_across_pair(const struct host *h, const char **cur, const char **other, char *why, size_t size)
{
	struct decision d;

	*cur = *other = NULL;
	if (!rp_across_decide(h, &d)) {
		snprintf(why, size, "%s", d.why);
		return false;
	}
	*cur = rg_row_s(d.cur, RG_COL_guard);
	for (size_t i = 0; i < d.n && !*other; i++)
		if (!strcmp(d.c[i].role, "merged-rctx"))
			*other = rg_row_s(d.c[i].r, RG_COL_guard);
	if (!*other && d.n)
		*other = rg_row_s(d.c[0].r, RG_COL_guard);
	if (!*other)
		snprintf(why, size, "no candidate design beside %s", *cur);
	return *other != NULL;
}

static void fmt_step(char *buf, size_t size, const struct step *s)
{
	char v[32], lo[32], hi[32];

	rp_fmt_signed(v, sizeof(v), s->v);
	if (isnan(s->lo) || isnan(s->hi)) {
		snprintf(buf, size, "%s", v);
		return;
	}
	rp_fmt_signed(lo, sizeof(lo), s->lo);
	rp_fmt_signed(hi, sizeof(hi), s->hi);
	snprintf(buf, size, "%s [%s, %s]", v, lo, hi);
}

static double whole_delta(const struct ladder *L)
{
	return L->whole ? rg_row_d(L->whole, RG_COL_delta_ns) : NAN;
}

/* L's rows: each step (+ns, its interval, +ref cycles), then the sum of the steps and the whole. */
static void ladder_rows(struct rg_table *t, const struct ladder *L)
{
	char cell[5][96];
	const char *row[5] = { cell[0], cell[1], cell[2], cell[3], cell[4] };

	for (size_t i = 0; i < L->n; i++) {
		snprintf(cell[0], 96, "%s", i ? "" : L->design);
		snprintf(cell[1], 96, "%zu +%s", i + 1, L->s[i].part);
		rp_fmt_signed(cell[2], 96, L->s[i].v);
		cell[3][0] = '\0';
		if (!isnan(L->s[i].lo) && !isnan(L->s[i].hi)) {
			char lo[32], hi[32];

			rp_fmt_signed(lo, sizeof(lo), L->s[i].lo);
			rp_fmt_signed(hi, sizeof(hi), L->s[i].hi);
			snprintf(cell[3], 96, "[%s, %s]", lo, hi);
		}
		rp_fmt_signed(cell[4], 96, L->s[i].cyc);
		rg_table_add(t, row);
	}
	for (int w = 0; w < 2; w++) {
		cell[0][0] = cell[3][0] = cell[4][0] = '\0';
		snprintf(cell[1], 96, "%s", w ? "whole, vs noop" : "sum of the steps");
		rp_fmt_signed(cell[2], 96, w ? whole_delta(L) : L->sum);
		rg_table_add(t, row);
	}
}

/*
 * The two ladders in one table, one after the other (side by side they do not
 * fit a mail's 72 columns without cutting the intervals).
 */
static void ladders_table(struct ctx *c, const struct ladder *A, const struct ladder *B)
{
	const char *hdr[] = { "design", "step", "+ns", "interval", "+ref cyc" };
	struct rg_table t;

	rg_table_init(&t, 5);
	rg_table_add(&t, hdr);
	t.right[2] = t.right[4] = true;
	ladder_rows(&t, A);
	ladder_rows(&t, B);
	rp_table_out(c, &t);
	rg_table_free(&t);
}

static int cmp_abs_desc(const void *a, const void *b)
{
	const struct step *x = *(const struct step *const *)a, *y = *(const struct step *const *)b;

	return fabs(x->v) < fabs(y->v) ? 1 : fabs(x->v) > fabs(y->v) ? -1 : 0;
}

/* "of D's +W ns, +part is +x ns, +part +y ns ...": only steps whose interval excludes zero, largest first. */
static void explain(FILE *f, const struct ladder *L)
{
	const struct step *s[MAX_STEPS];
	size_t n = 0;
	char w[32], v[32];

	for (size_t i = 0; i < L->n; i++)
		if (excludes_zero(&L->s[i]))
			s[n++] = &L->s[i];
	qsort(s, n, sizeof(s[0]), cmp_abs_desc);
	rp_fmt_signed(w, sizeof(w), isnan(whole_delta(L)) ? L->sum : whole_delta(L));
	if (!n) {
		fprintf(f, "no step of %s's %s ns has an interval that excludes zero", L->design, w);
		return;
	}
	fprintf(f, "of %s's %s ns, ", L->design, w);
	for (size_t i = 0; i < n; i++) {
		rp_fmt_signed(v, sizeof(v), s[i]->v);
		fprintf(f, "%s+%s %s%s ns", i == 0 ? "" : i + 1 == n ? " and " : ", ", s[i]->part,
			i == 0 ? "is " : "", v);
	}
}

/* The value of name in an events column ("a=1.000;b=2.000"), NAN when absent. */
static double event_value(const char *events, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = events; p && *p; p = strchr(p, ';') ? strchr(p, ';') + 1 : NULL)
		if (!strncmp(p, name, len) && p[len] == '=')
			return strtod(p + len + 1, NULL);
	return NAN;
}

/* a and b differ by more than 0.05 per pair and 5% of the larger. */
static bool differ(double a, double b)
{
	double m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);

	return !isnan(a) && !isnan(b) && fabs(a - b) > 0.05 && fabs(a - b) > 0.05 * m;
}

/* The per-pair counts of the two wholes that differ (cycles, instructions, events), or why none. */
static void counts(struct ctx *c, const struct ladder *A, const struct ladder *B)
{
	const struct rg_row *a = A->whole, *b = B->whole;
	const char *ca = a ? rg_row_s(a, RG_COL_counters) : "n/a: no whole row", *cb, *ea, *eb;
	char *s = NULL;
	size_t slen = 0, n = 0;
	FILE *f;

	cb = b ? rg_row_s(b, RG_COL_counters) : "n/a: no whole row";
	if (strncmp(ca, "perf", 4) || strncmp(cb, "perf", 4)) {
		rp_para(c, "Counts per pair: n/a here (%s: %s).",
			rp_md(strncmp(ca, "perf", 4) ? A->design : B->design), rp_md(strncmp(ca, "perf", 4) ? ca : cb));
		return;
	}
	f = open_memstream(&s, &slen);
	if (!f)
		return;
	static const struct { enum rg_col col; const char *name; } ctr[] = {
		{ RG_COL_cycles_per_pair, "cycles" }, { RG_COL_instructions_per_pair, "instructions" },
	};
	for (size_t i = 0; i < sizeof(ctr) / sizeof(ctr[0]); i++) {
		double x = rg_row_d(a, ctr[i].col), y = rg_row_d(b, ctr[i].col);

		if (differ(x, y))
			fprintf(f, "%s%s %.2f vs %.2f", n++ ? ", " : "", ctr[i].name, x, y);
	}
	ea = rg_row_s(a, RG_COL_events);
	eb = rg_row_s(b, RG_COL_events);
	for (const char *p = strncmp(ea, "n/a", 3) ? ea : NULL; p && *p;
	     p = strchr(p, ';') ? strchr(p, ';') + 1 : NULL) {
		char name[64];
		size_t len = strcspn(p, "=");

		snprintf(name, sizeof(name), "%.*s", (int)(len < 63 ? len : 63), p);
		if (differ(event_value(ea, name), event_value(eb, name)))
			fprintf(f, "%s%s %.2f vs %.2f", n++ ? ", " : "", name, event_value(ea, name),
				event_value(eb, name));
	}
	fclose(f);
	if (n)
		rp_para(c, "Counts per pair that differ (%s vs %s; events: %s): %s.", A->design, B->design,
			strncmp(ea, "n/a", 3) ? rg_row_s(a, RG_COL_pmu_table) : ea, s);
	else
		rp_para(c, "Counts per pair (%s vs %s): none differs by more than 0.05 and 5%%%s%s.", A->design,
			B->design, strncmp(ea, "n/a", 3) ? "" : "; events ", strncmp(ea, "n/a", 3) ? "" : ea);
	free(s);
}

/* The host's other ladders (rseq, the proposals with --full): each whole, the sum of its steps and the steps. */
static void other_ladders(struct ctx *c, const struct host *h, const struct ladder *A, const struct ladder *B)
{
	for (size_t i = 0; i < h->n; i++) {
		const struct rg_row *r = h->rows[i];
		const char *g = rg_row_s(r, RG_COL_guard);
		struct ladder L;
		char *s = NULL, w[32], v[32];
		size_t slen = 0;
		FILE *f;

		if (!rp_row_ok(r) || strcmp(rg_row_s(r, RG_COL_suite), "user") ||
		    strcmp(rg_row_s(r, RG_COL_scenario), "ladder") || strchr(g, '+') || !strcmp(g, "noop") ||
		    !strcmp(g, A->design) || !strcmp(g, B->design) || !ladder_of(h, g, &L))
			continue;
		f = open_memstream(&s, &slen);
		if (!f)
			return;
		rp_fmt_signed(w, sizeof(w), whole_delta(&L));
		rp_fmt_signed(v, sizeof(v), L.sum);
		fprintf(f, "Also measured: %s %s ns over noop, its %zu steps sum to %s ns (", g, w, L.n, v);
		for (size_t k = 0; k < L.n; k++) {
			rp_fmt_signed(v, sizeof(v), L.s[k].v);
			fprintf(f, "%s+%s %s%s", k ? ", " : "", L.s[k].part, v, excludes_zero(&L.s[k]) ? "" : " ~0");
		}
		fprintf(f, ").");
		fclose(f);
		rp_para(c, "%s", s);
		free(s);
	}
}

/* The lowest interval level of the two ladders, in percent. */
static double lowest_level(const struct ladder *A, const struct ladder *B)
{
	return 100 * (isnan(A->level) || B->level < A->level ? B->level : A->level);
}

/* The generated sentence: "<lead> <B's steps>; <A's steps>." */
static void sentence(struct ctx *c, const char *lead, const struct ladder *A, const struct ladder *B)
{
	char *s = NULL;
	size_t slen = 0;
	FILE *f = open_memstream(&s, &slen);

	if (!f)
		return;
	fprintf(f, "%s", lead);
	explain(f, B);
	fprintf(f, "; ");
	explain(f, A);
	fprintf(f, ".");
	fclose(f);
	rp_para(c, "%s", s);
	free(s);
}

/*
 * Where the host also has the kernel module's ladder (rgbench kmod --ladder),
 * it follows the user suite's: both, as they answer the question at two
 * levels (the user suite's parts model the kernel's instructions; the
 * module's are the kernel's own macros, in kthreads with interrupts off).
 */
void rp_sec_why(struct ctx *c, const struct host *h)
{
	const char *cur, *other;
	struct ladder A, B, KA, KB;
	char why[200], lead[160];
	bool user, kmod;

	rp_heading(c, "Why (%s)", h->name);
	if (!rp_across_pair(h, &cur, &other, why, sizeof(why))) {
		rp_left_out(c, "why", "%s: %s", rp_md(h->name), rp_md(why));
		return;
	}
	user = ladder_of(h, cur, &A) && ladder_of(h, other, &B);
	kmod = ladder_in(h, "kmod", cur, &KA) && ladder_in(h, "kmod", other, &KB);
	if (!user && !kmod) {
		rp_left_out(c, "why", "%s has no ladder rows for %s (the ladder scenario; rgbench --scenarios ladder)",
			    rp_md(h->name), rp_md(A.n ? other : cur));
		return;
	}
	if (user) {
		rp_para(c, "The decision's two designs taken apart: each step adds one part to the step before, measured in the same interleaved rounds (scenario ladder); +ns is the step's median paired difference against the step before (the first: against noop) with its interval (lowest confidence %.1f%%), +ref cyc the same in reference cycles.",
			lowest_level(&A, &B));
		ladders_table(c, &A, &B);
		snprintf(lead, sizeof(lead), "On %s, ", h->name);
		sentence(c, lead, &A, &B);
		counts(c, &A, &B);
		other_ladders(c, h, &A, &B);
	}
	if (!kmod)
		return;
	rp_para(c, "The same two designs taken apart in kernel context (suite kmod, rgbench kmod --ladder): each step its own loop in the module, built from the kernel's own preempt_disable(), interrupt_context_level(), this_cpu_ptr() and this_cpu ops, timed on bound kthreads with interrupts off in the module's interleaved rounds; +ns against the step before (the first: against noop), lowest confidence %.1f%%.",
		lowest_level(&KA, &KB));
	ladders_table(c, &KA, &KB);
	snprintf(lead, sizeof(lead), "In the kernel module on %s, ", h->name);
	sentence(c, lead, &KA, &KB);
}

/* Every host's two ladders side by side: one column per host, the steps as rows. */
void rp_sec_why_fleet(struct ctx *c, const struct host *hosts, size_t nh, bool allow_emulated)
{
	struct ladder (*L)[2] = calloc(nh ? nh : 1, sizeof(*L));
	const char **hdr = calloc(nh + 1, sizeof(*hdr));
	char (*cell)[128] = calloc(nh + 1, sizeof(*cell));
	const char **row = calloc(nh + 1, sizeof(*row));
	size_t used = 0, most[2] = { 0, 0 };
	struct rg_table t;

	if (!L || !hdr || !cell || !row)
		goto out;
	hdr[0] = "step";
	for (size_t i = 0; i < nh; i++) {
		const char *cur, *other;
		char why[200];

		hdr[i + 1] = hosts[i].name;
		if ((hosts[i].emulated && !allow_emulated) ||
		    !rp_across_pair(&hosts[i], &cur, &other, why, sizeof(why)) ||
		    !ladder_of(&hosts[i], cur, &L[i][0]) || !ladder_of(&hosts[i], other, &L[i][1]))
			continue;
		used++;
		for (int k = 0; k < 2; k++)
			most[k] = L[i][k].n > most[k] ? L[i][k].n : most[k];
	}
	if (nh < 2 || !used)
		goto out;	/* one host, or files without ladders: the hosts' own why sections say so */
	rp_heading(c, "Why, every host: the two designs' ladders");
	if (used < 2) {
		rp_left_out(c, "why (fleet)", "fewer than two hosts have ladder rows for their decision's designs");
		goto out;
	}
	rg_table_init(&t, nh + 1);
	rg_table_add(&t, hdr);
	for (int k = 0; k < 2; k++) {
		for (size_t s = 0; s <= most[k]; s++) {
			if (s)
				snprintf(cell[0], sizeof(cell[0]), "%s step %zu", k ? "other" : "current", s);
			else
				snprintf(cell[0], sizeof(cell[0]), "%s design", k ? "other" : "current");
			for (size_t i = 0; i < nh; i++) {
				const struct ladder *l = &L[i][k];
				char v[32];

				cell[i + 1][0] = '\0';
				if (!l->n)
					continue;
				if (!s) {
					rp_fmt_signed(v, sizeof(v), whole_delta(l));
					snprintf(cell[i + 1], sizeof(cell[0]), "%s %s", l->design, v);
				} else if (s <= l->n) {
					fmt_step(v, sizeof(v), &(struct step){ .v = l->s[s - 1].v, .lo = NAN, .hi = NAN });
					snprintf(cell[i + 1], sizeof(cell[0]), "+%s %s%s", l->s[s - 1].part, v,
						 excludes_zero(&l->s[s - 1]) ? "" : " ~0");
				}
			}
			for (size_t i = 0; i <= nh; i++)
				row[i] = cell[i];
			rg_table_add(&t, row);
		}
	}
	rp_para(c, "ns per pair; the design rows against noop, each step against the step before (~0: its interval holds zero).");
	rp_table_out(c, &t);
	rg_table_free(&t);
out:
	free(L);
	free(hdr);
	free(cell);
	free(row);
}

bool rp_across_top_step(const struct host *h, const char *design, struct rp_part *p)
{
	struct ladder L;
	const struct step *top = NULL;

	memset(p, 0, sizeof(*p));
	if (!ladder_of(h, design, &L))
		return false;
	for (size_t i = 0; i < L.n; i++)
		if (!isnan(L.s[i].v) && (!top || fabs(L.s[i].v) > fabs(top->v)))
			top = &L.s[i];
	if (!top)
		return false;
	p->part = top->part;
	p->v = top->v;
	p->lo = top->lo;
	p->hi = top->hi;
	p->whole = L.sum;
	p->nsteps = L.n;
	return true;
}
