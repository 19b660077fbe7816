// SPDX-License-Identifier: MIT
/* `rgbench report`'s sections of one host: machine, ranking, headline ratios (report_scenarios.c: the rest). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static const char *marked_guard(const struct rg_row *r, char *buf, size_t size);
static bool row_noisy(const struct rg_row *r);

void rp_sec_machine(struct ctx *c, const struct host *h, const struct input *in, size_t nin)
{
	const struct rg_row *r = h->rows[0];
	bool arm = !strcmp(h->arch, "aarch64");

	rp_heading(c, "Machine: %s", h->name);
	rp_bullet(c, "CPU: %s %s (%s), %s", rp_md(rg_row_s(r, RG_COL_cpu_vendor)),
		  rp_md(rg_row_s(r, RG_COL_cpu_model)), rp_md(rg_row_s(r, RG_COL_cpu_part)), rp_md(h->arch));
	rp_bullet(c, "kernel %s, preemption %s, virtualization %s", rp_md(rg_row_s(r, RG_COL_kernel)),
		  rp_md(rg_row_s(r, RG_COL_preempt)),
		  *rg_row_s(r, RG_COL_virt) ? rp_md(rg_row_s(r, RG_COL_virt)) : "n/a (schema < 3)");
	rp_bullet(c, "LSE atomics: %s; rseq: %s", arm ? (rg_row_i(r, RG_COL_lse) ? "yes" : "no") : "n/a (x86-64)",
	       rg_row_i(r, RG_COL_rseq) ? "registered" : "not available");
	for (size_t i = 0; i < nin; i++) {
		const struct rg_row *f = in[i].rows.n ? &in[i].rows.v[0] : NULL;

		if (f && rp_row_of_host(h, f))
			rp_bullet(c, "file %s: schema %lld, run %s at %s, %zu rows", rp_md(in[i].path),
			       in[i].version, *rg_row_s(f, RG_COL_run_id) ? rp_md(rg_row_s(f, RG_COL_run_id)) : "n/a",
			       rp_md(rg_row_s(f, RG_COL_timestamp)), in[i].rows.n);
	}
	if (h->vmin != h->vmax)
		rp_bullet(c, "the files have schema versions %lld to %lld: columns a version lacks read as n/a",
		       h->vmin, h->vmax);
	for (size_t i = 0; i < h->ndups; i++) {
		char key[200];

		rg_row_key_text(h->dups[i].ed, key, sizeof(key));
		rp_bullet(c, "%zu row(s) of %s are also in %s (read first): those are used, e.g. %s at %s:%d, not %s:%d",
			  h->dups[i].n, rp_md(h->dups[i].dropped), rp_md(h->dups[i].kept), rp_md(key),
			  rp_md(h->dups[i].kept), h->dups[i].ek->line, rp_md(h->dups[i].dropped),
			  h->dups[i].ed->line);
	}
	fputc('\n', c->f);
}

static int cmp_cost(const void *a, const void *b)
{
	const struct cost *x = a, *y = b;

	if (isnan(x->v) != isnan(y->v))
		return isnan(x->v) ? 1 : -1;
	return x->v < y->v ? -1 : x->v > y->v;
}

struct ranked {
	struct cost k;		/* first, for cmp_cost */
	const struct rg_row *r;
};

void rp_sec_ranking(struct ctx *c, const struct host *h)
{
	struct ranked *v = calloc(h->n + 1, sizeof(*v));
	size_t n = 0, npaired = 0;
	struct rg_table t;
	const char *hdr[] = { "#", "guard", "ns/pair", "over noop", "95% interval" };

	rp_heading(c, "Guards ranked by cost over noop (%s)", h->name);
	if (!v)
		return;
	for (size_t i = 0; i < h->n; i++) {
		if (!rp_is_pair1(h->rows[i]))
			continue;
		v[n].r = h->rows[i];
		v[n].k = rp_cost_of(h, h->rows[i]);
		npaired += v[n].k.paired;
		n++;
	}
	if (!n) {
		rp_left_out(c, "ranking", "%s has no ok user pair rows (one thread, no duty)", rp_md(h->name));
		free(v);
		return;
	}
	qsort(v, n, sizeof(*v), cmp_cost);
	/* "95% interval" only when no interval of the table fell short of it. */
	for (size_t i = 0; i < n; i++)
		if (rg_row_d(v[i].r, RG_COL_delta_ci_level) < RG_CI_NOMINAL)
			hdr[4] = "interval";
	rg_table_init(&t, 5);
	rg_table_add(&t, hdr);
	t.right[0] = t.right[2] = t.right[3] = t.right[4] = true;
	for (size_t i = 0; i < n; i++) {
		char no[8], ns[24], d[24], ci[64], lo[24], hi[24], tag[16];

		snprintf(no, sizeof(no), "%zu", i + 1);
		rp_fmt_ns(ns, sizeof(ns), v[i].k.ns);
		rp_fmt_signed(d, sizeof(d), v[i].k.v);
		if (v[i].k.paired && !isnan(v[i].k.lo)) {
			rp_fmt_signed(lo, sizeof(lo), v[i].k.lo);
			rp_fmt_signed(hi, sizeof(hi), v[i].k.hi);
			/* Below 95% (few rounds), the interval says its level. */
			snprintf(ci, sizeof(ci), "[%s, %s]%s", lo, hi,
				 rg_ci_level_tag(rg_row_d(v[i].r, RG_COL_delta_ci_level), tag,
						 sizeof(tag)));
		} else {
			snprintf(ci, sizeof(ci), "n/a");
		}
		char g[96];
		const char *row[] = { no, marked_guard(v[i].r, g, sizeof(g)), ns, d, ci };
		rg_table_add(&t, row);
	}
	rp_table_out(c, &t);
	rg_table_free(&t);
	if (npaired == n)
		rp_para(c, "ns per enter/exit pair, one pinned thread. \"over noop\" is the median of paired per-round differences against noop, with its interval: 95%% or more (the exact order-statistic interval of the median; schema 3 files: a 95%% bootstrap), or the lower level it reached when printed after it.");
	else
		rp_para(c, "ns per enter/exit pair, one pinned thread. \"over noop\" is %s: %zu of %zu rows have no paired difference (delta_ns is n/a: the file predates paired rounds, or its suite did not pair them), so theirs is a difference of medians, without an interval.",
		     npaired ? "the paired difference where the file has one" : "the difference of medians",
		     n - npaired, n);
	for (size_t i = 0; i < n; i++)
		if (row_noisy(v[i].r)) {
			rp_para(c, "(noisy): the row's rounds were disturbed (status noisy, see its reason); its figures are kept but left out of the headline ratios unless --include-noisy.");
			break;
		}
	free(v);
}

/*
 * The headline tables. A ratio divides only rows of the same wrapping: the
 * kernel form (the whole sequence the kernel runs: arm64's preempt count
 * around every this_cpu op, rctx-kernel's count, context level and
 * this_cpu_ptr; x86's this_cpu ops, which need no wrapper) or the
 * instructions alone. Their lines come from roles.def and guards.def
 * (report_headline.c); what each wrapping holds is said per arch here.
 */
static const struct {
	const char *arch, *kernel;
} wrapping_about[] = {
	{ "aarch64", "each row is the kernel's whole sequence: the preempt count around every this_cpu op, and for rctx the count, the context level read from it and this_cpu_ptr" },
	{ "x86_64", "each row is the kernel's whole sequence: this_cpu_inc_return/this_cpu_dec are one %gs: instruction each with no wrapper; rctx adds two preempt_disable/enable pairs, the context level and this_cpu_ptr" },
};
#define BARE_ABOUT "the per-CPU op and its lookup, nothing around them"

static bool row_noisy(const struct rg_row *r)
{
	return !strcmp(rg_row_s(r, RG_COL_status), "noisy");
}

/* A guard's name as the tables print it: noisy rows marked. */
static const char *marked_guard(const struct rg_row *r, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s", rg_row_s(r, RG_COL_guard), row_noisy(r) ? " (noisy)" : "");
	return buf;
}

/* "X costs 1.50x Y over noop (3.00 vs 2.00 ns)", any magnitude kept. */
static void bullet_costs(struct ctx *c, const char *x, const char *y, double a, double b)
{
	char r[40], sa[24], sb[24];

	rp_fmt_ratio(r, sizeof(r), a, b);
	rg_fmt_fixed(sa, sizeof(sa), a, 2);
	rg_fmt_fixed(sb, sizeof(sb), b, 2);
	rp_bullet(c, "%s costs %s %s over noop (%s vs %s ns)", rp_md(x), r, rp_md(y), sa, sb);
}

/* Append what to the ", "-separated list in buf, once (a row can be in two tables). */
static void list_add(char *buf, size_t size, const char *what)
{
	size_t l = strlen(buf), n = strlen(what);

	for (const char *p = buf; p && *p; p = strstr(p, ", ") ? strstr(p, ", ") + 2 : NULL)
		if (!strncmp(p, what, n) && (p[n] == '\0' || p[n] == ','))
			return;
	snprintf(buf + l, size - l, "%s%s", l ? ", " : "", what);
}

/* One table; false when it has fewer than two rows (then nothing is written). */
static bool headline_table(struct ctx *c, const struct host *h, const struct hl_table *T,
			   const char *wrapping, const char *about, char *missing, size_t msize,
			   char *noisy, size_t nsize)
{
	struct cost k[RP_HL_MAX];
	const struct rg_row *r[RP_HL_MAX];
	const struct rg_row *by = T->by < T->n ? T->l[T->by].r : NULL;
	char g[96];
	const char *hdr[] = { "design", "guard", "ns/pair", "over noop", "ratio" };
	struct rg_table t;
	size_t found = 0;

	for (size_t i = 0; i < T->n; i++) {
		r[i] = T->l[i].r;
		if (r[i] && row_noisy(r[i]) && !c->include_noisy) {
			list_add(noisy, nsize, rg_row_s(r[i], RG_COL_guard));
			r[i] = NULL;
		} else if (!r[i]) {
			list_add(missing, msize, T->l[i].name);
		}
		if (r[i]) {
			k[i] = rp_cost_of(h, r[i]);
			found++;
		}
	}
	if (found < 2)
		return false;
	if (by && !r[T->by])
		by = NULL;	/* noisy */
	/* The divisor in the text, not the header: a guard's name made the table 76 columns. */
	rp_para(c, "Wrapping: %s (%s). ratio: the row's cost over noop divided by %s's.", wrapping, about,
		by ? rg_row_s(by, RG_COL_guard) : "n/a (its row is noisy)");
	rg_table_init(&t, 5);
	rg_table_add(&t, hdr);
	t.right[2] = t.right[3] = t.right[4] = true;
	for (size_t i = 0; i < T->n; i++) {
		char ns[24], d[24], x[24];
		double a, b;

		if (!r[i])
			continue;
		rp_fmt_ns(ns, sizeof(ns), k[i].ns);
		rp_fmt_signed(d, sizeof(d), k[i].v);
		a = rp_cmp_value(&k[i]);
		b = by ? rp_cmp_value(&k[T->by]) : NAN;
		rp_fmt_ratio(x, sizeof(x), a, b);
		const char *row[] = { T->l[i].what, marked_guard(r[i], g, sizeof(g)), ns, d, x };
		rg_table_add(&t, row);
	}
	rp_table_out(c, &t);
	rg_table_free(&t);
	/* The sentences: each design against the next one present. */
	for (size_t i = 0; i + 1 < T->n; i++) {
		for (size_t j = i + 1; j < T->n; j++) {
			double a, b;

			if (!r[i] || !r[j])
				continue;
			a = rp_cmp_value(&k[i]);
			b = rp_cmp_value(&k[j]);
			if (isnan(a) || isnan(b))
				rp_bullet(c, "%s vs %s: n/a (a cost over noop is not positive)",
					  rp_md(T->l[i].what), rp_md(T->l[j].what));
			else
				bullet_costs(c, T->l[i].what, T->l[j].what, a, b);
			break;
		}
	}
	fputc('\n', c->f);
	return true;
}

void rp_sec_headline(struct ctx *c, const struct host *h)
{
	bool arm = !strcmp(h->arch, "aarch64");
	char missing[512] = "", noisy[256] = "";
	const char *about = NULL;
	struct hl_table T;
	int tables = 0;

	rp_heading(c, "Headline ratios (%s, %s)", h->name, arm ? "arm64" : "x86-64");
	for (size_t i = 0; i < sizeof(wrapping_about) / sizeof(wrapping_about[0]); i++)
		if (!strcmp(wrapping_about[i].arch, h->arch))
			about = wrapping_about[i].kernel;
	if (about) {
		rp_headline_kernel(h, rp_kernel_roles, &T);
		tables += headline_table(c, h, &T, "kernel form", about, missing, sizeof(missing), noisy,
					 sizeof(noisy));
		rp_headline_bare(h, rp_kernel_roles, &T);
		tables += headline_table(c, h, &T, "instructions alone", BARE_ABOUT, missing, sizeof(missing),
					 noisy, sizeof(noisy));
	}
	if (!tables) {
		rp_left_out(c, "headline ratios", "%s has fewer than two rows of one wrapping (missing: %s%s%s)",
			    rp_md(h->name), missing[0] ? rp_md(missing) : "none", noisy[0] ? "; noisy: " : "",
			    rp_md(noisy));
		return;
	}
	rp_para(c, "Ratios divide rows of one wrapping only. Userspace designs (rseq, rctx in an rseq critical section) are a third wrapping: ranked above, not divided here.");
	if (noisy[0])
		rp_para(c, "Left out as noisy (their rounds were disturbed; --include-noisy keeps them): %s.", rp_md(noisy));
	if (missing[0])
		rp_para(c, "Not in these files: %s.", rp_md(missing));
}
