// SPDX-License-Identifier: MIT
/* `rgbench compare --across-suites`: each guard's userspace cost beside its in-kernel cost. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"

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
	char a[32], b[32], c[32], tag[16];

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
		rg_fmt_fixed(a, sizeof(a), *v, 3);
		if (isnan(*lo)) {
			snprintf(buf, size, "%s", a);
		} else {
			rg_fmt_fixed(b, sizeof(b), *lo, 3);
			rg_fmt_fixed(c, sizeof(c), *hi, 3);
			snprintf(buf, size, "%s [%s, %s]%s", a, b, c,
				 rg_ci_level_tag(rg_row_d(r, RG_COL_delta_ci_level), tag, sizeof(tag)));
		}
		return;
	}
	*v = rg_row_d(r, RG_COL_ns_median);
	cmp_fmt_num(a, sizeof(a), *v);
	if (isnan(*v)) {
		snprintf(buf, size, "n/a");
	} else if (isnan(rg_row_d(r, RG_COL_ns_stddev))) {
		snprintf(buf, size, "%s", a);
	} else {
		cmp_fmt_spread(b, sizeof(b), *v, rg_row_d(r, RG_COL_ns_stddev));
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
 * Duty rows stand side by side only when both suites ran the trampoline
 * shape (duty_in_ns set) with the same in/out split. False, with why, when not.
 */
static bool duty_paired(const struct rg_row *u, const struct rg_row *m, char *why, size_t size)
{
	double a, b;

	if (!u || !m || !rg_row_i(u, RG_COL_duty_ns))
		return true;
	a = rg_row_d(u, RG_COL_duty_in_ns);
	b = rg_row_d(m, RG_COL_duty_in_ns);
	if (isnan(a) || isnan(b))
		snprintf(why, size, "not paired: %s ran another duty shape (duty_in_ns n/a)",
			 isnan(a) && isnan(b) ? "both" : isnan(a) ? "user" : "kmod");
	else if (a != b)
		snprintf(why, size, "not paired: duty split %g+%g ns in user, %g+%g in kmod", a,
			 (double)rg_row_i(u, RG_COL_duty_ns) - a, b, (double)rg_row_i(m, RG_COL_duty_ns) - b);
	else
		return true;
	return false;
}

/* The note column: a side missing or not measured, no ratio, or different thread counts. */
static void suites_note(char *note, size_t size, const struct rg_row *u, const struct rg_row *m,
			bool delta, double user_value)
{
	note[0] = 0;
	if (!u || !m)
		snprintf(note, size, "%s only", u ? "user" : "kmod");
	else if (!measured(u) || !measured(m))
		snprintf(note, size, "%s in %s: %s", rg_row_s(measured(u) ? m : u, RG_COL_status),
			 measured(u) ? "kmod" : "user", rg_row_s(measured(u) ? m : u, RG_COL_reason));
	else if (delta && user_value <= 0)
		snprintf(note, size, "user delta <= 0: no ratio");
	else if (rg_row_i(u, RG_COL_threads) != rg_row_i(m, RG_COL_threads))
		snprintf(note, size, "threads %lld vs %lld kthreads", rg_row_i(u, RG_COL_threads),
			 rg_row_i(m, RG_COL_threads));
}

/*
 * The line of row r (a timed row of suites[pass]) when r is where its guard
 * and duty are listed: the first user row, or the first module row of a guard
 * the user suite lacks. 1 when added, 0 when listed elsewhere, -1 out of memory.
 */
static int suites_line(struct rg_table *t, enum out_fmt fmt, bool cycles, const struct side *S[2],
		       const struct rg_row *r, int pass, size_t *nunpaired)
{
	const char *guard = rg_row_s(r, RG_COL_guard), *role;
	long long duty = rg_row_i(r, RG_COL_duty_ns);
	const struct rg_row *u = find_timed(S, "user", guard, duty), *m = find_timed(S, "kmod", guard, duty);
	char uv[96], mv[96], ra[24], du[24], note[160], unpaired[160];
	double x[3], y[3], ratio = NAN;
	bool delta, paired;

	if (r != (pass ? m : u) || (pass && u))
		return 0;	/* listed once, at its first row */
	paired = duty_paired(u, m, unpaired, sizeof(unpaired));
	delta = u && m && measured(u) && measured(m) && !isnan(rg_row_d(u, RG_COL_delta_ns)) &&
		!isnan(rg_row_d(m, RG_COL_delta_ns));
	suite_value(uv, sizeof(uv), u, delta, &x[0], &x[1], &x[2]);
	suite_value(mv, sizeof(mv), m, delta, &y[0], &y[1], &y[2]);
	if (paired && !isnan(x[0]) && !isnan(y[0]) && x[0] > 0)
		ratio = y[0] / x[0];
	cmp_fmt_factor(ra, sizeof(ra), ratio);
	suites_note(note, sizeof(note), u, m, delta, x[0]);
	if (!paired) {
		snprintf(note, sizeof(note), "%s", unpaired);
		(*nunpaired)++;
	}
	role = m && strcmp(rg_row_s(m, RG_COL_role), "n/a") ? rg_row_s(m, RG_COL_role)
							      : rg_row_s(r, RG_COL_role);
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
		const char *row[] = { guard, role, du, ut, mt, u ? rg_row_s(u, RG_COL_scenario) : "",
				      m ? rg_row_s(m, RG_COL_scenario) : "",
				      delta ? "delta_ns" : "ns_median", cmp_ns_unit(cycles), c[0], c[1], c[2], c[3],
				      c[4], c[5], c[6], note };
		return rg_table_add(t, row) ? -1 : 1;
	}
	const char *row[] = { guard, role, du, delta ? "delta" : "ns/pair", uv, mv, ra, note };
	return rg_table_add(t, row) ? -1 : 1;
}

/*
 * The text table when its lines would be wider than width, as compare's
 * default text: one record per line of the table, each within width (a name
 * longer than it stands whole, never cut):
 *	guard  role  dDUTY  note	(wrapped; the note when the line has one)
 *	  metric  user  kmod  kmod/user	(right-aligned, as the table's columns)
 * t is the 8 columns of cmp_emit_across_suites(), its first row the header.
 */
static void suite_records(FILE *f, const struct rg_table *t, size_t width)
{
	size_t w[4] = { 0 };
	char line[1024];

	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < 4; c++)
			if (rg_utf8_width(t->cells[r * t->ncols + 3 + c]) > w[c])
				w[c] = rg_utf8_width(t->cells[r * t->ncols + 3 + c]);
	for (size_t r = 0; r < t->nrows; r++) {
		char *const *k = &t->cells[r * t->ncols];
		size_t len = 0;

		snprintf(line, sizeof(line), "%s  %s  d%s%s%s", k[0], k[1], r ? k[2] : "DUTY",
			 *k[7] ? "  " : "", k[7]);
		rp_wrap_line(f, line, width, "    ", "");
		/* the metric left-aligned, the figures right-aligned (UTF-8: pad by columns, not bytes) */
		line[0] = 0;
		for (size_t c = 0; c < 4 && len < sizeof(line) - 1; c++) {
			const char *s = k[3 + c];
			int gap = (int)(w[c] - rg_utf8_width(s));

			if (!c)
				len += (size_t)snprintf(line + len, sizeof(line) - len, "  %s%*s", s, gap, "");
			else
				len += (size_t)snprintf(line + len, sizeof(line) - len, "  %*s%s", gap, "", s);
		}
		rp_wrap_line(f, line, width, "    ", "");
	}
}

/*
 * One line per guard (and duty) measured by the user suite, the module or
 * both: each side's cost over its own noop (delta_ns with its interval, and
 * the interval's level when below 95%)
 * when both rows have one, else ns per pair (median ± stddev), and kmod/user.
 */
int cmp_emit_across_suites(FILE *f, enum out_fmt fmt, size_t width, const struct side *A,
			   const struct side *B, bool cycles, const struct lines *hl)
{
	const struct side *S[2] = { A, B };
	const char *suites[2] = { "user", "kmod" };
	struct rg_table t;
	size_t nrows = 0, nunpaired = 0;

	if (fmt == OUT_CSV) {
		const char *h[] = { "guard", "role", "duty_ns", "user_threads", "kmod_threads",
				    "user_scenario", "kmod_scenario", "metric", "unit",
				    "user_value", "user_lo", "user_hi", "kmod_value", "kmod_lo",
				    "kmod_hi", "ratio", "note" };

		rg_table_init(&t, 17);
		if (rg_table_add(&t, h))
			goto oom;
	} else {
		char uh[16], kh[16];

		snprintf(uh, sizeof(uh), "user (%s)", cmp_ns_unit(cycles));
		snprintf(kh, sizeof(kh), "kmod (%s)", cmp_ns_unit(cycles));
		const char *h[] = { "guard", "role", "duty_ns", "metric", uh, kh, "kmod/user", "note" };

		rg_table_init(&t, 8);
		if (rg_table_add(&t, h))
			goto oom;
		t.right[2] = t.right[4] = t.right[5] = t.right[6] = true;
	}
	/* Rows of the user suite first (in file order), then module-only ones. */
	for (int pass = 0; pass < 2; pass++) {
		for (int k = 0; k < 2; k++) {
			for (size_t i = 0; i < S[k]->rows.n; i++) {
				const struct rg_row *r = &S[k]->rows.v[i];
				int added;

				if (!timed_row(r, suites[pass]))
					continue;
				added = suites_line(&t, fmt, cycles, S, r, pass, &nunpaired);
				if (added < 0)
					goto oom;
				nrows += (size_t)added;
			}
		}
	}
	if (fmt == OUT_TEXT && cmp_text_width(&t) > width) {
		cmp_print_lines(f, fmt, width, hl);
		suite_records(f, &t, width);	/* the table fits only a wider --width */
	} else {
		cmp_print_table(f, fmt, width, hl, &t);
	}
	if (fmt != OUT_CSV) {
		char line[320];

		fputc('\n', f);
		rp_wrap_line(f, "delta: ns per pair over the same suite's noop, median of paired per-round "
			     "differences [95% interval, or the lower level printed after it]; ns/pair "
			     "(median ± stddev) where a side has no delta. kmod/user: the in-kernel "
			     "value over the userspace one.", width, "", "");
		if (nunpaired) {
			snprintf(line, sizeof(line), "note: %zu duty line%s not paired: duty rows are paired "
				 "only when both suites ran the trampoline shape (duty_in_ns set) with the "
				 "same in/out split.", nunpaired, nunpaired == 1 ? "" : "s");
			rp_wrap_line(f, line, width, "", "");
		}
	}
	rg_table_free(&t);
	return nrows ? 0 : 1;
oom:
	rg_table_free(&t);
	return -1;
}

/* Does the side hold any timed row of suite? */
bool cmp_has_timed(const struct side *s, const char *suite)
{
	for (size_t i = 0; i < s->rows.n; i++)
		if (timed_row(&s->rows.v[i], suite))
			return true;
	return false;
}
