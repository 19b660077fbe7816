// SPDX-License-Identifier: MIT
/* `rgbench compare`'s tables: text, Markdown and CSV, and the commit-log form that fits 72 columns. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

/* ---- output --------------------------------------------------------------- */

/* Truncate s to at most w display columns, marking the cut with '~'. */
void cmp_clip(char *s, size_t w)
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
			cmp_clip(s, w);	/* not ASCII: cut at the end */
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
/* Lines skipped on both sides: how many, and each guard once (names point into the rows). */
struct skips {
	char **guards;
	size_t n, nguards;
};

/*
 * Compute every line into r[]; hide the ones skipped on both sides (they go
 * into sk instead) and widen w[1..5] to the value cells of the others.
 */
static void commit_measure(const struct cmp *v, size_t n, const char *la, bool ratio_mode,
			   bool cycles, struct res *r, bool *hide, struct skips *sk, size_t w[6])
{
	for (size_t i = 0; i < n; i++) {
		const char *cells[6];

		cmp_compute(&v[i], la, ratio_mode, cycles, &r[i]);
		if (v[i].a && v[i].b && !cmp_row_ok(v[i].a) && !cmp_row_ok(v[i].b)) {
			const char *g = rg_row_s(v[i].b, RG_COL_guard);
			bool seen = false;

			hide[i] = true;
			sk->n++;
			for (size_t k = 0; k < sk->nguards; k++)
				seen |= !strcmp(sk->guards[k], g);
			if (!seen)
				sk->guards[sk->nguards++] = (char *)g;
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
}

/* "guard/scenario t4 d100" (or "role/scenario ..."), the name part cut to fit budget columns. */
static void commit_name(const struct cmp *c, size_t budget, char *name, size_t size)
{
	const struct rg_row *k = c->b ? c->b : c->a;
	char sfx[48] = "";
	size_t sl;

	if (c->role[0])	/* by role: the header lines say which guards */
		snprintf(name, size, "%s/%s", c->role, rg_row_s(k, RG_COL_scenario));
	else
		snprintf(name, size, "%s/%s", rg_row_s(k, RG_COL_guard), rg_row_s(k, RG_COL_scenario));
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
	strncat(name, sfx, size - strlen(name) - 1);
}

/* Under the table: the lines skipped on both sides, then what the columns mean. */
static void commit_footer(FILE *f, const struct res *r, size_t n, const struct skips *sk,
			  bool ratio_mode)
{
	if (sk->n) {
		char prefix[64];

		snprintf(prefix, sizeof(prefix), "Skipped on both sides (%zu row%s):", sk->n,
			 sk->n == 1 ? "" : "s");
		wrap_list(f, prefix, sk->guards, sk->nguards);
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
}

/*
 * The commit-log form: one table of at most COMMIT_LOG_WIDTH columns. The name
 * column gets what the numbers leave; rows skipped on both sides are summed up
 * in one line under the table instead of one row each.
 */
static int emit_commit(FILE *f, const struct cmp *v, size_t n, const char *la, const char *lb,
		       bool ratio_mode, bool cycles, const struct lines *hl)
{
	struct res *r = calloc(n ? n : 1, sizeof(*r));
	bool *hide = calloc(n ? n : 1, sizeof(*hide));
	struct skips sk = { .guards = calloc(n ? n : 1, sizeof(char *)) };
	const char *h[] = { "guard/scenario", la, lb, "change", ratio_mode ? "ratio" : "speedup", "p" };
	size_t w[6] = { 0 }, budget = 0;
	struct rg_table t;
	int ret = -1;

	rg_table_init(&t, 6);
	if (!r || !hide || !sk.guards || rg_table_add(&t, h))
		goto out;
	for (int c = 1; c < 6; c++) {
		t.right[c] = true;
		w[c] = rg_utf8_width(h[c]);
	}
	commit_measure(v, n, la, ratio_mode, cycles, r, hide, &sk, w);
	budget = COMMIT_LOG_WIDTH - 2 * 5;
	for (int c = 1; c < 6; c++)
		budget = budget > w[c] + 16 ? budget - w[c] : 16;
	for (size_t i = 0; i < n; i++) {
		char name[160];

		if (hide[i])
			continue;
		commit_name(&v[i], budget, name, sizeof(name));
		const char *row[] = { name, r[i].a_short, r[i].b_short, r[i].chg, r[i].fac, r[i].pv };
		if (rg_table_add(&t, row))
			goto out;
	}
	for (size_t i = 0; i < hl->n; i++) {
		char line[2048];

		rg_str_printable(line, sizeof(line), hl->v[i]);
		cmp_clip(line, COMMIT_LOG_WIDTH);
		fprintf(f, "%s\n", line);
	}
	fputc('\n', f);
	rg_table_print_text(&t, f);
	fputc('\n', f);
	commit_footer(f, r, n, &sk, ratio_mode);
	ret = 0;
out:
	rg_table_free(&t);
	free(r);
	free(hide);
	free(sk.guards);
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
void cmp_print_table(FILE *f, enum out_fmt fmt, const struct lines *hl, struct rg_table *t)
{
	if (fmt != OUT_CSV) {
		for (size_t i = 0; i < hl->n; i++) {	/* names in them: text, never markup or controls */
			char line[2048];

			rg_str_printable(line, sizeof(line), hl->v[i]);
			fprintf(f, "%s%s\n", fmt == OUT_MARKDOWN ? rp_md(line) : line,
				fmt == OUT_MARKDOWN ? "  " : "");
		}
		fputc('\n', f);
	}
	if (fmt == OUT_MARKDOWN)
		rg_table_print_markdown(t, f);
	else if (fmt == OUT_CSV)
		rg_table_print_csv(t, f);
	else
		rg_table_print_text(t, f);
}

/* Rows the Markdown table leaves out: how many, and their first few distinct reasons. */
struct md_skips {
	size_t n;
	char why[200];
	bool more;
};

static void note_skip(struct md_skips *sk, const char *reason)
{
	size_t l = strlen(sk->why);

	sk->n++;
	if (!*reason)
		reason = "no reason given";
	if (strstr(sk->why, reason))
		return;
	if (l + strlen(reason) + 3 >= sizeof(sk->why)) {
		sk->more = true;
		return;
	}
	snprintf(sk->why + l, sizeof(sk->why) - l, "%s%s", l ? "; " : "", reason);
}

int cmp_emit(FILE *f, enum out_fmt fmt, const struct cmp *v, size_t n, const char *la,
		const char *lb, const char *la_short, const char *lb_short, bool ratio_mode,
		bool cycles, const struct lines *hl)
{
	struct md_skips sk = { 0 };
	struct rg_table t;
	const char *facname = ratio_mode ? "ratio" : "speedup";

	if (fmt == OUT_COMMIT)
		return emit_commit(f, v, n, la_short, lb_short, ratio_mode, cycles, hl);
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

		/* A table for a commit message leaves out what neither side measured. */
		if (fmt == OUT_MARKDOWN && v[i].a && v[i].b && !cmp_row_ok(v[i].a) &&
		    !cmp_row_ok(v[i].b)) {
			note_skip(&sk, rg_row_s(v[i].b, RG_COL_reason));
			continue;
		}
		cmp_compute(&v[i], la_short, ratio_mode, cycles, &r);
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
	cmp_print_table(f, fmt, hl, &t);
	if (sk.n)
		fprintf(f, "\nLeft out: %zu row%s skipped on both sides (%s%s).\n", sk.n,
			sk.n == 1 ? "" : "s", sk.why, sk.more ? ", ..." : "");
	rg_table_free(&t);
	return 0;
oom:
	rg_table_free(&t);
	return -1;
}
