// SPDX-License-Identifier: MIT
/* `rgbench compare`'s tables: text, Markdown and CSV, and the commit-log form that fits 72 columns. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

/* ---- output --------------------------------------------------------------- */

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

/*
 * A line of the header names a side ("base:", "new:", "file:", ...): its
 * wrapped lines align under the name. In Markdown every wrapped line is
 * indented 4 columns or more, so no word can start a list or a heading there.
 */
static const char *indent_of(const char *line, bool markdown)
{
	static const char *const side[] = { "base:", "new: ", "file:", "user:", "kmod:", "both:" };

	for (size_t i = 0; i < sizeof(side) / sizeof(side[0]); i++)
		if (!strncmp(line, side[i], 5))
			return "      ";
	return markdown ? "    " : "  ";
}

void cmp_print_lines(FILE *f, enum out_fmt fmt, size_t width, const struct lines *hl)
{
	if (fmt == OUT_CSV)
		return;
	for (size_t i = 0; i < hl->n; i++) {	/* names in them: text, never markup or controls */
		char line[2048];

		rg_str_printable(line, sizeof(line), hl->v[i]);
		rp_wrap_line(f, fmt == OUT_MARKDOWN ? rp_md(line) : line, width,
			     indent_of(line, fmt == OUT_MARKDOWN),
			     fmt == OUT_MARKDOWN ? "  " : "");
	}
	fputc('\n', f);
}

/* The header lines (not in CSV), then the table in the chosen format. */
void cmp_print_table(FILE *f, enum out_fmt fmt, size_t width, const struct lines *hl,
		     struct rg_table *t)
{
	cmp_print_lines(f, fmt, width, hl);
	if (fmt == OUT_MARKDOWN)
		rg_table_print_markdown(t, f);
	else if (fmt == OUT_CSV)
		rg_table_print_csv(t, f);
	else
		rg_table_print_text(t, f);
}

/*
 * A line with nothing measured to compare: a row skipped or failed with no
 * measured row beside it (with --baseline: the row itself). Such lines are
 * folded into one line per status and reason under the table (the guards of
 * one architecture in a run of the other: "skipped, arm64 only").
 */
static const struct rg_row *unmeasured(const struct cmp *c, bool ratio_mode)
{
	if (ratio_mode)
		return c->b && !cmp_row_ok(c->b) ? c->b : NULL;
	if ((c->a && cmp_row_ok(c->a)) || (c->b && cmp_row_ok(c->b)))
		return NULL;
	return c->b ? c->b : c->a;
}

/* The folded lines of one status and reason: how many, and each guard once. */
struct fold {
	const char *status, *reason;
	size_t nrows, nguards, cap;
	const char **guards;	/* point into the rows */
};

struct folds {
	struct fold *v;		/* room for one fold per line */
	size_t n;
};

/* 0, or -1 when out of memory. */
static int fold_add(struct folds *fs, const struct rg_row *r)
{
	const char *st = rg_row_s(r, RG_COL_status), *why = rg_row_s(r, RG_COL_reason);
	const char *g = rg_row_s(r, RG_COL_guard);
	struct fold *fo = NULL;

	for (size_t k = 0; k < fs->n && !fo; k++)
		if (!strcmp(fs->v[k].status, st) && !strcmp(fs->v[k].reason, why))
			fo = &fs->v[k];
	if (!fo) {
		fo = &fs->v[fs->n++];
		*fo = (struct fold){ st, why, 0, 0, 0, NULL };
	}
	fo->nrows++;
	/* the same guard again right after itself (its other scenarios); others: fold_unique() */
	if (fo->nguards && !strcmp(fo->guards[fo->nguards - 1], g))
		return 0;
	if (fo->nguards == fo->cap) {
		size_t cap = fo->cap ? 2 * fo->cap : 8;
		const char **v = realloc(fo->guards, cap * sizeof(*v));

		if (!v)
			return -1;
		fo->guards = v;
		fo->cap = cap;
	}
	fo->guards[fo->nguards++] = g;
	return 0;
}

static int cmp_name_pos(const void *x, const void *y)
{
	const char *const *a = *(const char *const *const *)x, *const *b = *(const char *const *const *)y;
	int d = strcmp(*a, *b);

	return d ? d : (a > b) - (a < b);
}

/* Each guard of fo once, in the order of its first line (O(n log n) for any number). */
static void fold_unique(struct fold *fo)
{
	const char ***by = malloc((fo->nguards ? fo->nguards : 1) * sizeof(*by));
	bool *dup = calloc(fo->nguards ? fo->nguards : 1, sizeof(*dup));
	size_t k = 0;

	if (!by || !dup) {	/* out of memory: the names as they came */
		free(by);
		free(dup);
		return;
	}
	for (size_t i = 0; i < fo->nguards; i++)
		by[i] = &fo->guards[i];
	qsort(by, fo->nguards, sizeof(*by), cmp_name_pos);
	for (size_t i = 1; i < fo->nguards; i++)
		if (!strcmp(*by[i], *by[i - 1]))
			dup[by[i] - fo->guards] = true;
	for (size_t i = 0; i < fo->nguards; i++)
		if (!dup[i])
			fo->guards[k++] = fo->guards[i];
	fo->nguards = k;
	free(by);
	free(dup);
}

/* A commit log's one line for every folded line: "148 rows with nothing measured to compare (...)". */
static void fold_count(FILE *f, const struct folds *fs, size_t width)
{
	size_t n = 0;
	char line[160];

	for (size_t k = 0; k < fs->n; k++)
		n += fs->v[k].nrows;
	if (!n)
		return;
	snprintf(line, sizeof(line), "%zu row%s with nothing measured to compare (skipped or failed: the text form names them)",
		 n, n == 1 ? "" : "s");
	rp_wrap_line(f, line, width, "  ", "");
}

/* "Skipped on both sides (arm64 only), 11 rows: a, b, c." wrapped at width, never cut. */
static void fold_lines(FILE *f, struct folds *fs, bool ratio_mode, bool markdown, size_t width)
{
	for (size_t k = 0; k < fs->n; k++) {
		struct fold *fo = &fs->v[k];
		char *s = NULL, *line;
		size_t len = 0;
		FILE *m = open_memstream(&s, &len);

		if (!m)
			return;
		fold_unique(fo);
		fprintf(m, "%c%s%s%s%s%s, %zu row%s:", toupper((unsigned char)fo->status[0]),
			fo->status + (fo->status[0] != 0), ratio_mode ? "" : " on both sides",
			*fo->reason ? " (" : "", fo->reason, *fo->reason ? ")" : "", fo->nrows,
			fo->nrows == 1 ? "" : "s");
		for (size_t i = 0; i < fo->nguards; i++)
			fprintf(m, " %s%s", fo->guards[i], i + 1 < fo->nguards ? "," : ".");
		if (fclose(m)) {
			free(s);
			return;
		}
		/* every name whole, however many: room for Markdown's longest escape of each byte */
		line = malloc(2 * (8 * len + 1));
		if (line) {
			char *md = line + 8 * len + 1;

			rg_str_printable(line, 8 * len + 1, s);
			if (markdown)
				rg_md_text(md, 8 * len + 1, line);
			rp_wrap_line(f, markdown ? md : line, width, indent_of(line, markdown),
				     markdown ? "  " : "");
			free(line);
		}
		free(s);
	}
}

/* A kernel design (roles.def's RG_KROLE) in one of the roles of a line's rows. */
static bool kernel_role(const struct cmp *c, bool ratio_mode)
{
	for (size_t j = 0; rp_kernel_roles[j]; j++) {
		const char *kr = rp_kernel_roles[j];

		if (c->role[0] ? !strcmp(c->role, kr) :
		    (c->b && rg_role_has(rg_row_role(c->b, NULL), kr)) ||
		    (!ratio_mode && c->a && rg_role_has(rg_row_role(c->a, NULL), kr)))
			return true;
	}
	return false;
}

/*
 * The lines that decide, shown by default: a change called (beyond the noise
 * the verdict's test allows), and the kernel designs on the rows the report
 * decides on (one-thread pair rows of the user suite, loop rows of the module).
 */
static bool decision_row(const struct cmp *c, bool ratio_mode)
{
	const struct rg_row *k = c->b ? c->b : c->a;
	const char *suite = rg_row_s(k, RG_COL_suite), *sc = rg_row_s(k, RG_COL_scenario);
	bool decision = (!strcmp(suite, "user") && !strcmp(sc, "pair") &&
			     rg_row_i(k, RG_COL_threads) <= 1 && rg_row_i(k, RG_COL_duty_ns) == 0) ||
			    (!strcmp(suite, "kmod") && !strcmp(sc, "loop"));

	return decision && kernel_role(c, ratio_mode);
}

/*
 * The lines shown without --all: the decision rows, and in the text and
 * Markdown forms every change called too. A commit log of two files that
 * have decision rows holds those alone (what a patch's claim rests on: the
 * lines under it say how many called rows --all adds); with none (a BPF-only
 * run, --baseline), the changes called, as the other forms.
 */
static bool decides(const struct cmp *c, const struct res *r, bool ratio_mode, bool commit)
{
	return decision_row(c, ratio_mode) || (!commit && r->called);
}

#define NAME_HEAD "guard/scenario"	/* the commit log's name column */
#define SHORT_LABEL 9			/* its value columns' labels: longer ones give way */

/* "guard/scenario t4 d100" (or "role/scenario ..."): the line's whole name (malloc'ed, NULL when out of memory). */
static char *commit_name(const struct cmp *c)
{
	const struct rg_row *k = c->b ? c->b : c->a;
	char *s = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&s, &len);

	if (!m)
		return NULL;
	/* by role: the header lines say which guards */
	fprintf(m, "%s/%s", c->role[0] ? c->role : rg_row_s(k, RG_COL_guard), rg_row_s(k, RG_COL_scenario));
	if (rg_row_i(k, RG_COL_threads) > 1)
		fprintf(m, " t%lld", rg_row_i(k, RG_COL_threads));
	if (rg_row_i(k, RG_COL_duty_ns) > 0)
		fprintf(m, " d%lld", rg_row_i(k, RG_COL_duty_ns));
	if (fclose(m)) {
		free(s);
		return NULL;
	}
	return s;
}

/*
 * A name wider than its column, on lines of its own above its figures: whole
 * on one line when it fits width, else broken after a '/', '-' or ' ' (or, with
 * none, at width) onto lines indented 2 columns: every character kept.
 */
static void name_lines(FILE *f, const char *name, size_t width)
{
	const char *p = name;
	size_t indent = 0;

	while (*p) {
		size_t room = width > indent + 8 ? width - indent : 8, cols = 0, cut = 0, brk = 0;
		const char *q = p;

		/* the bytes of the first room columns, and the last break within them */
		for (; *q && cols < room; q++) {
			if (((unsigned char)*q & 0xc0) == 0x80)
				continue;
			cols++;
			if (strchr("/- ", *q))
				brk = (size_t)(q - p) + 1;
		}
		while (*q && ((unsigned char)*q & 0xc0) == 0x80)	/* the rest of the last character */
			q++;
		cut = !*q ? (size_t)(q - p) : brk ? brk : (size_t)(q - p);
		fprintf(f, "%*s%.*s\n", (int)indent, "", (int)(cut - (p[cut - 1] == ' ')), p);
		p += cut;
		while (*p == ' ')
			p++;
		indent = 2;
	}
}

/*
 * t's lines as rg_table_print_text() prints them, the first column at most
 * budget wide: a row whose name (names[r]) is wider stands on lines of its
 * own (name_lines()), its figures under it with that cell blank.
 */
static int print_commit(FILE *f, struct rg_table *t, char **names, size_t budget, size_t width)
{
	char *buf = NULL, *line;
	size_t len = 0, r = 0;
	FILE *m;

	for (size_t i = 0; i < t->nrows; i++)
		if (rg_utf8_width(names[i]) > budget)
			t->cells[i * t->ncols][0] = 0;	/* the cell holds names[i]: now blank */
	m = open_memstream(&buf, &len);
	if (!m)
		return -1;
	rg_table_print_text(t, m);
	if (fclose(m)) {
		free(buf);
		return -1;
	}
	/* one line of buf per row of t */
	for (char *p = buf; *p; p = line + 1, r++) {
		line = strchr(p, '\n');
		if (!line)
			line = p + strlen(p);
		if (r < t->nrows && rg_utf8_width(names[r]) > budget)
			name_lines(f, names[r], width);
		fwrite(p, 1, (size_t)(line - p), f);
		fputc('\n', f);
		if (!*line)
			break;
	}
	free(buf);
	return 0;
}

/* s padded on the left to w columns into buf. */
static void pad_left(char *buf, size_t size, const char *s, size_t w)
{
	size_t sw = rg_utf8_width(s);

	snprintf(buf, size, "%*s%s", (int)(w > sw ? w - sw : 0), "", s);
}

/* What the commit log's columns mean, from what its lines hold, wrapped at width. */
static void commit_footer(FILE *f, const struct res *r, const bool *show, size_t n,
			  const struct emit_opts *o, bool with_factor)
{
	bool mwu = false, runs = false, floor = false, few = false, paired = false, low = false;
	char *s = NULL;
	size_t len = 0;
	FILE *m;

	for (size_t i = 0; i < n; i++) {
		if (!show[i])
			continue;
		mwu |= !strcmp(r[i].test, "exact") || !strcmp(r[i].test, "normal") ||
		       !strcmp(r[i].test, "rounds");
		runs |= !strcmp(r[i].test, "runs");
		floor |= !strcmp(r[i].test, "floor");
		few |= !strcmp(r[i].pv, "few");
		paired |= r[i].paired;
		low |= !isnan(r[i].ci_level) && r[i].ci_level < RG_CI_NOMINAL;
	}
	m = open_memstream(&s, &len);
	if (!m)
		return;
	fprintf(m, "Medians; change: %s [interval of the difference, %s]",
		o->ratio_mode ? "against the baseline" : "new vs base",
		low ? "95% or more unless its level follows" : "95% or more");
	if (with_factor)
		fputs(o->ratio_mode ? "; ratio: value/baseline" : "; speedup: base/new (ns), new/base (M/s)", m);
	if (mwu || runs || floor || few) {
		const char *sep = "";

		fputs("; p:", m);
		if (mwu) {
			fprintf(m, " Mann-Whitney U over the repetitions%s", paired ?
				" (per-round deltas where both rows have them)" : "");
			sep = ",";
		}
		if (runs) {
			fprintf(m, "%s Welch's t over the runs", sep);
			sep = ",";
		}
		if (floor) {
			fprintf(m, "%s floor: one run a side, called beyond the A/A floor (interval: +- the floor)", sep);
			sep = ",";
		}
		if (few)
			fprintf(m, "%s few: under %d samples a side", sep, RG_MWU_MIN_SAMPLES);
	}
	fputc('.', m);
	if (fclose(m)) {
		free(s);
		return;
	}
	rp_wrap_line(f, s, o->width, "", "");
	free(s);
}

/*
 * The commit-log form: one table that fits o->width (at most 72 columns):
 * name, "base -> new", the change with its interval, the speedup (left out
 * when the names would get under 16 columns) and p.
 */
static int emit_commit(FILE *f, const struct emit_opts *o, const struct cmp *v, size_t n,
		       const struct res *r, const bool *show, bool *with_factor_out)
{
	const char *fac_h = o->ratio_mode ? "ratio" : "speedup";
	/* a label too long for a narrow column gives way, never cut: the header lines name the sides */
	bool narrow = rg_utf8_width(o->las) <= SHORT_LABEL && rg_utf8_width(o->lbs) <= SHORT_LABEL;
	const char *la = narrow ? o->las : o->ratio_mode ? "baseline" : "base",
		   *lb = narrow ? o->lbs : o->ratio_mode ? "value" : "new";
	size_t wa = rg_utf8_width(la), wb = rg_utf8_width(lb), wc = strlen("change"),
	       wf = strlen(fac_h), wp = 1, wn = 0, budget, nrows = 1, nnames = 0;
	bool with_factor;
	struct rg_table t = { 0 };
	char **names = calloc(n + 1, sizeof(*names));	/* per row of t: the line's whole name */
	int ret = -1;

	if (!names)
		return -1;
	for (size_t i = 0; i < n; i++) {
		char c[96];

		if (!show[i])
			continue;
		snprintf(c, sizeof(c), "%s%s", r[i].chg, r[i].ci);
		wa = rg_utf8_width(r[i].a_short) > wa ? rg_utf8_width(r[i].a_short) : wa;
		wb = rg_utf8_width(r[i].b_short) > wb ? rg_utf8_width(r[i].b_short) : wb;
		wc = rg_utf8_width(c) > wc ? rg_utf8_width(c) : wc;
		wf = rg_utf8_width(r[i].fac) > wf ? rg_utf8_width(r[i].fac) : wf;
		wp = rg_utf8_width(r[i].pv) > wp ? rg_utf8_width(r[i].pv) : wp;
	}
	for (size_t i = 0; i < n; i++) {
		if (!show[i])
			continue;
		names[++nnames] = commit_name(&v[i]);
		if (!names[nnames])
			goto out;
		wn = rg_utf8_width(names[nnames]) > wn ? rg_utf8_width(names[nnames]) : wn;
	}
	/*
	 * The name gets what the numbers and 2 columns between cells leave, the
	 * speedup too when every name fits beside it (or, when some name fits
	 * nowhere, the column keeps 16); else the speedup is left out so that
	 * the names fit. A name wider than its column stands on lines of its
	 * own; when the figures leave no 14 columns (the head "guard/scenario"),
	 * every name does, the head too, and the figures start at column 3.
	 */
	{
		long rest = (long)o->width - (long)(wa + 4 + wb) - (long)wc - (long)wp - 2 * 3;
		long wfac = rest - 2 - (long)wf, head = (long)strlen(NAME_HEAD);

		if (wfac >= 16 && wfac >= (long)wn) {
			with_factor = true;
			budget = (size_t)wfac;
		} else if (rest >= (long)wn && rest >= head) {
			with_factor = false;
			budget = (size_t)rest;
		} else if (rest >= head) {
			with_factor = wfac >= 16;
			budget = (size_t)(with_factor ? wfac : rest);
		} else {
			with_factor = wfac >= 0;
			budget = 0;
		}
	}
	*with_factor_out = with_factor;
	rg_table_init(&t, with_factor ? 5 : 4);
	names[0] = (char *)NAME_HEAD;
	{
		char ha[64], hb[64], hab[160];

		pad_left(ha, sizeof(ha), la, wa);
		pad_left(hb, sizeof(hb), lb, wb);
		snprintf(hab, sizeof(hab), "%s -> %s", ha, hb);
		const char *h5[] = { NAME_HEAD, hab, "change", fac_h, "p" };
		const char *h4[] = { NAME_HEAD, hab, "change", "p" };

		if (rg_table_add(&t, with_factor ? h5 : h4))
			goto out;
	}
	for (size_t c = 1; c < t.ncols; c++)
		t.right[c] = true;
	for (size_t i = 0; i < n; i++) {
		char ca[64], cb[64], ab[160], chg[96];
		const char *name;

		if (!show[i])
			continue;
		name = names[nrows++];
		pad_left(ca, sizeof(ca), r[i].a_short, wa);
		pad_left(cb, sizeof(cb), r[i].b_short, wb);
		snprintf(ab, sizeof(ab), "%s -> %s", ca, cb);
		snprintf(chg, sizeof(chg), "%s%s", r[i].chg, r[i].ci);
		const char *r5[] = { name, ab, chg, r[i].fac, r[i].pv };
		const char *r4[] = { name, ab, chg, r[i].pv };

		if (rg_table_add(&t, with_factor ? r5 : r4))
			goto out;
	}
	ret = print_commit(f, &t, names, budget, o->width);
out:
	rg_table_free(&t);
	for (size_t i = 1; i <= nnames; i++)
		free(names[i]);
	free(names);
	return ret;
}

size_t cmp_text_width(const struct rg_table *t)
{
	size_t *w = calloc(t->ncols, sizeof(*w)), max = 0;

	if (!w)
		return 0;
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < t->ncols; c++)
			if (rg_utf8_width(t->cells[r * t->ncols + c]) > w[c])
				w[c] = rg_utf8_width(t->cells[r * t->ncols + c]);
	for (size_t r = 0; r < t->nrows; r++) {
		size_t end = t->ncols, lw = 0;

		while (end > 1 && !*t->cells[r * t->ncols + end - 1])
			end--;
		for (size_t c = 0; c < end; c++)
			lw += (c ? 2 : 0) + (c + 1 == end && !t->right[c] ?
					     rg_utf8_width(t->cells[r * t->ncols + c]) : w[c]);
		max = lw > max ? lw : max;
	}
	free(w);
	return max;
}

/*
 * The text table when its lines would be wider than width: one record per
 * line of the table, each within width (a name longer than it stands whole,
 * never cut):
 *	suite/guard/scenario/tTHREADS/dDUTY  batch B
 *	  base  new  change  speedup	(right-aligned, as the table's columns)
 *	  verdict			(wrapped)
 * When the figures' line would not fit, the speedup (or ratio) opens the
 * verdict's line instead. t is emit_table()'s 11 columns, its first row the header.
 */
static void print_records(FILE *f, const struct rg_table *t, size_t width)
{
	size_t w[4] = { 0 };
	char line[4096], name[4096];
	size_t nfig = 4;

	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < 4; c++)
			if (rg_utf8_width(t->cells[r * t->ncols + 6 + c]) > w[c])
				w[c] = rg_utf8_width(t->cells[r * t->ncols + 6 + c]);
	if (2 + w[0] + 2 + w[1] + 2 + w[2] + 2 + w[3] > width)
		nfig = 3;	/* the speedup goes to the verdict's line */
	for (size_t r = 0; r < t->nrows; r++) {
		char *const *k = &t->cells[r * t->ncols];
		size_t len = 0;

		if (r)
			snprintf(name, sizeof(name), "%s/%s/%s/t%s/d%s  batch %s", k[0], k[1], k[2], k[3],
				 k[4], k[5]);
		else
			snprintf(name, sizeof(name), "%s/%s/%s/tTHREADS/dDUTY  batch", k[0], k[1], k[2]);
		rp_wrap_line(f, name, width, "    ", "");
		/* the figures right-aligned in their columns (UTF-8: pad by columns, not bytes) */
		line[0] = 0;
		for (size_t c = 0; c < nfig && len < sizeof(line) - 1; c++) {
			const char *s = k[6 + c];
			size_t gap = w[c] - rg_utf8_width(s);

			len += (size_t)snprintf(line + len, sizeof(line) - len, "  %*s%s", (int)gap, "", s);
		}
		rp_wrap_line(f, line, width, "    ", "");
		if (nfig == 4)
			snprintf(line, sizeof(line), "  %s", k[10]);
		else
			snprintf(line, sizeof(line), "  %s  %s", k[9], k[10]);
		rp_wrap_line(f, line, width, "    ", "");
	}
}

/* The text, Markdown or CSV table of the lines shown. */
static int emit_table(FILE *f, const struct emit_opts *o, const struct cmp *v, size_t n,
		      const struct res *r, const bool *show, struct rg_table *t)
{
	const char *facname = o->ratio_mode ? "ratio" : "speedup";

	if (o->fmt == OUT_CSV) {
		const char *h[] = { "suite", "guard", "scenario", "threads", "duty_ns", "batch",
				    "metric", "unit", "higher_is_better", "base_label", "base_median",
				    "base_spread", "base_samples", "new_label", "new_median",
				    "new_spread", "new_samples", "change_pct", "change_ci_lo_pct",
				    "change_ci_hi_pct", "change_ci_level", facname, "p_value",
				    "verdict" };

		rg_table_init(t, 24);
		if (rg_table_add(t, h))
			return -1;
	} else {
		const char *h[] = { "suite", "guard", "scenario", "threads", "duty_ns", "batch",
				    o->la, o->lb, "change", facname, "verdict" };

		rg_table_init(t, 11);
		if (rg_table_add(t, h))
			return -1;
		for (int i = 3; i < 10; i++)
			t->right[i] = true;
	}
	for (size_t i = 0; i < n; i++) {
		const struct rg_row *k = v[i].b ? v[i].b : v[i].a;
		char th[24], du[24], ba[48], gb[160], chg[96];
		const char *gname = guard_cell(&v[i], gb, sizeof(gb));

		if (!show[i])
			continue;
		snprintf(th, sizeof(th), "%lld", rg_row_i(k, RG_COL_threads));
		snprintf(du, sizeof(du), "%lld", rg_row_i(k, RG_COL_duty_ns));
		batch_text(ba, sizeof(ba), &v[i]);
		if (o->fmt == OUT_CSV) {
			char c[14][40];
			double nums[] = { r[i].va, r[i].sa, r[i].vb, r[i].sb, r[i].change, r[i].ci_lo,
					  r[i].ci_hi, r[i].ci_level, r[i].factor, r[i].p };
			char *np[] = { c[0], c[1], c[3], c[4], c[6], c[7], c[8], c[9], c[10], c[11] };

			for (size_t j = 0; j < 10; j++) {
				if (isnan(nums[j]) || isinf(nums[j]))
					np[j][0] = 0;
				else
					snprintf(np[j], 40, "%.6g", nums[j]);
			}
			snprintf(c[2], 40, "%zu", r[i].na);
			snprintf(c[5], 40, "%zu", r[i].nb);
			const char *row[] = { rg_row_s(k, RG_COL_suite), gname,
					      rg_row_s(k, RG_COL_scenario), th, du, ba, r[i].m->name,
					      r[i].m->unit, r[i].m->higher_better ? "1" : "0", o->las,
					      v[i].a ? c[0] : "", v[i].a ? c[1] : "", c[2], o->lbs,
					      v[i].b ? c[3] : "", v[i].b ? c[4] : "", c[5], c[6], c[7],
					      c[8], c[9], c[10], c[11], r[i].verdict };
			if (rg_table_add(t, row))
				return -1;
		} else {
			snprintf(chg, sizeof(chg), "%s%s", r[i].chg, r[i].ci);
			const char *row[] = { rg_row_s(k, RG_COL_suite), gname,
					      rg_row_s(k, RG_COL_scenario), th, du, ba, r[i].a, r[i].b,
					      chg, r[i].fac, r[i].verdict };
			if (rg_table_add(t, row))
				return -1;
		}
	}
	if (o->fmt == OUT_MARKDOWN)
		rg_table_print_markdown(t, f);
	else if (o->fmt == OUT_CSV)
		rg_table_print_csv(t, f);
	else if (cmp_text_width(t) > o->width)
		print_records(f, t, o->width);	/* the table fits only a wider --width */
	else
		rg_table_print_text(t, f);
	return 0;
}

int cmp_emit(FILE *f, const struct emit_opts *o, const struct cmp *v, size_t n,
	     const struct lines *hl)
{
	struct res *r = calloc(n ? n : 1, sizeof(*r));
	bool *show = calloc(n ? n : 1, sizeof(*show));
	struct folds fs = { calloc(n ? n : 1, sizeof(struct fold)), 0 };
	bool csv = o->fmt == OUT_CSV, md = o->fmt == OUT_MARKDOWN, with_factor = false;
	bool commit_decisions = false;	/* a commit log of the decision rows alone */
	size_t nleft = 0, ncalled_left = 0;
	struct rg_table t = { 0 };
	int ret = -1;

	if (!r || !show || !fs.v)
		goto out;
	for (size_t i = 0; i < n && o->fmt == OUT_COMMIT && !o->ratio_mode; i++)
		commit_decisions = commit_decisions ||
				   (!unmeasured(&v[i], false) && decision_row(&v[i], false));
	for (size_t i = 0; i < n; i++) {
		const struct rg_row *un = unmeasured(&v[i], o->ratio_mode);

		cmp_compute(&v[i], o->las, o->ratio_mode, o->cycles, &r[i]);
		/* CSV is the data: every line as it is */
		if (!csv && un) {
			if (fold_add(&fs, un))
				goto out;
			continue;
		}
		show[i] = csv || o->all || decides(&v[i], &r[i], o->ratio_mode, commit_decisions);
		nleft += !show[i];
		ncalled_left += !show[i] && r[i].called;
	}
	cmp_print_lines(f, o->fmt, o->width, hl);
	if (o->fmt == OUT_COMMIT ? emit_commit(f, o, v, n, r, show, &with_factor) :
	    emit_table(f, o, v, n, r, show, &t))
		goto out;
	if (csv) {
		ret = 0;
		goto out;
	}
	if (fs.n || nleft || o->fmt == OUT_COMMIT)
		fputc('\n', f);
	if (o->fmt == OUT_COMMIT && !o->all)
		fold_count(f, &fs, o->width);	/* a commit log: how many, the text form names them */
	else
		fold_lines(f, &fs, o->ratio_mode, md, o->width);
	if (nleft) {
		char line[160];

		/* one line at any width (60 at least) */
		if (ncalled_left)
			snprintf(line, sizeof(line), "--all shows %zu more row%s (%zu called, no kernel design)",
				 nleft, nleft == 1 ? "" : "s", ncalled_left);
		else
			snprintf(line, sizeof(line), "--all shows %zu more row%s (no kernel design, none called)",
				 nleft, nleft == 1 ? "" : "s");
		rp_wrap_line(f, line, o->width, md ? "    " : "  ", md ? "  " : "");
	}
	if (o->fmt == OUT_COMMIT)
		commit_footer(f, r, show, n, o, with_factor);
	ret = 0;
out:
	rg_table_free(&t);
	for (size_t k = 0; fs.v && k < fs.n; k++)
		free((void *)fs.v[k].guards);
	free(fs.v);
	free(r);
	free(show);
	return ret;
}
