// SPDX-License-Identifier: MIT
/* `rgbench report`: one page (plain text / Markdown) answering which guard is cheapest here, by how much, and where. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rg/plots.h"

#define MAX_FILES 64
#define MAX_HOSTS 8
#define MAX_LEFT 32
#define DUTY_SHARE 0.05		/* "guard differences under 5% of a pair's total" */

struct input {
	const char *path;
	struct rg_rows rows;
	long long version;
	char timer[200];	/* JSON "timer", as text; "" when absent */
};

struct host {
	char name[128], arch[32];
	const struct rg_row **rows;
	size_t n;
	long long vmin, vmax;
	bool legacy_roles;	/* some role came from the built-in table */
	char timer[200];
	size_t ndup;
};

struct ctx {
	FILE *f;
	int width;
	char left[MAX_LEFT][240];
	int nleft;
};

static void usage(FILE *f)
{
	fputs("usage: rgbench report FILE|DIR... [--out report.md] [--width N] [--across-hosts]\n"
	      "One page for a mail or a commit message: the machine, guards ranked by their\n"
	      "difference against noop, the headline ratios, duty, threads, latency tail,\n"
	      "BPF and module costs, plots beside it. --across-hosts: two machines side by\n"
	      "side, guards paired by role. --width: wrap prose and fit tables (default 72).\n", f);
}

/* ---- text helpers --------------------------------------------------------- */

/* A paragraph wrapped at ctx->width, prefix on the first line, indent on the others. */
static void wrap(struct ctx *c, const char *prefix, const char *indent, const char *text)
{
	size_t col = strlen(prefix), w = (size_t)c->width;
	bool first = true;

	fputs(prefix, c->f);
	for (const char *p = text; *p; ) {
		const char *e = p;
		size_t len;

		while (*e && *e != ' ')
			e++;
		len = (size_t)(e - p);
		if (!first) {
			if (col + 1 + len > w) {
				fprintf(c->f, "\n%s", indent);
				col = strlen(indent);
			} else {
				fputc(' ', c->f);
				col++;
			}
		}
		fwrite(p, 1, len, c->f);
		col += len;
		first = false;
		while (*e == ' ')
			e++;
		p = e;
	}
	fputc('\n', c->f);
}

static void para(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void para(struct ctx *c, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	wrap(c, "", "", buf);
	fputc('\n', c->f);
}

static void bullet(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bullet(struct ctx *c, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	wrap(c, "- ", "  ", buf);
}

static void heading(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void heading(struct ctx *c, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(c->f, "## %s\n\n", buf);
}

/* "Left out: why", in place and in the summary at the end. */
static void left_out(struct ctx *c, const char *section, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void left_out(struct ctx *c, const char *section, const char *fmt, ...)
{
	char why[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	para(c, "Left out: %s.", why);
	if (c->nleft < MAX_LEFT)
		snprintf(c->left[c->nleft++], sizeof(c->left[0]), "%s: %s", section, why);
}

static void clip_cell(char *s, size_t w)
{
	size_t n = strlen(s);

	if (n > w && w >= 2) {
		s[w - 1] = '~';
		s[w] = '\0';
	}
}

/*
 * Print t in a fenced block. While it is wider than the page, clip the widest
 * left-aligned column other than the first (the row's name), down to 8
 * characters; the first only when nothing else is left to clip.
 */
static void table_out(struct ctx *c, struct rg_table *t)
{
	size_t w[16];

	for (int guard = 0; guard < 400 && t->ncols <= 16; guard++) {
		size_t total = 0, wc = SIZE_MAX;

		for (size_t col = 0; col < t->ncols; col++) {
			w[col] = 0;
			for (size_t r = 0; r < t->nrows; r++) {
				size_t l = rg_utf8_width(t->cells[r * t->ncols + col]);

				w[col] = l > w[col] ? l : w[col];
			}
			total += w[col] + (col ? 2 : 0);
		}
		if (total <= (size_t)c->width)
			break;
		for (size_t col = 1; col < t->ncols; col++)
			if (!t->right[col] && w[col] > 8 && (wc == SIZE_MAX || w[col] > w[wc]))
				wc = col;
		if (wc == SIZE_MAX && !t->right[0] && w[0] > 8)
			wc = 0;
		if (wc == SIZE_MAX)
			break;
		for (size_t r = 0; r < t->nrows; r++)
			clip_cell(t->cells[r * t->ncols + wc], w[wc] - 1);
	}
	fputs("```\n", c->f);
	rg_table_print_text(t, c->f);
	fputs("```\n\n", c->f);
}

static void fmt_ns(char *buf, size_t size, double v)
{
	if (isnan(v))
		snprintf(buf, size, "n/a");
	else if (fabs(v) >= 100)
		snprintf(buf, size, "%.0f", v);
	else if (fabs(v) >= 10)
		snprintf(buf, size, "%.1f", v);
	else
		snprintf(buf, size, "%.2f", v);
}

static void fmt_signed(char *buf, size_t size, double v)
{
	char t[32];

	fmt_ns(t, sizeof(t), v);
	snprintf(buf, size, "%s%s", !isnan(v) && v >= 0 ? "+" : "", t);
}

/* ---- rows of a host -------------------------------------------------------- */

static bool row_ok(const struct rg_row *r)
{
	return !strcmp(rg_row_s(r, RG_COL_status), "ok") || !strcmp(rg_row_s(r, RG_COL_status), "noisy");
}

static const struct rg_row *find(const struct host *h, const char *suite, const char *guard,
				 const char *scenario, long long threads, long long duty)
{
	for (size_t i = 0; i < h->n; i++) {
		const struct rg_row *r = h->rows[i];

		if (row_ok(r) && !strcmp(rg_row_s(r, RG_COL_suite), suite) &&
		    (!guard || !strcmp(rg_row_s(r, RG_COL_guard), guard)) &&
		    !strcmp(rg_row_s(r, RG_COL_scenario), scenario) &&
		    (threads < 0 || rg_row_i(r, RG_COL_threads) == threads) &&
		    (duty < 0 || rg_row_i(r, RG_COL_duty_ns) == duty))
			return r;
	}
	return NULL;
}

static bool is_pair1(const struct rg_row *r)
{
	return row_ok(r) && !strcmp(rg_row_s(r, RG_COL_suite), "user") &&
	       !strcmp(rg_row_s(r, RG_COL_scenario), "pair") && rg_row_i(r, RG_COL_threads) == 1 &&
	       rg_row_i(r, RG_COL_duty_ns) == 0;
}

/* A guard's cost over noop: the paired difference when the row has one, else a difference of medians. */
struct cost {
	double v, lo, hi, ns;
	bool paired;
};

static struct cost cost_of(const struct host *h, const struct rg_row *r)
{
	const struct rg_row *noop = find(h, "user", "noop", rg_row_s(r, RG_COL_scenario),
					 rg_row_i(r, RG_COL_threads), rg_row_i(r, RG_COL_duty_ns));
	struct cost k = { NAN, NAN, NAN, rg_row_d(r, RG_COL_ns_median), false };

	if (!isnan(rg_row_d(r, RG_COL_delta_ns))) {
		k.v = rg_row_d(r, RG_COL_delta_ns);
		k.lo = rg_row_d(r, RG_COL_delta_ci_lo);
		k.hi = rg_row_d(r, RG_COL_delta_ci_hi);
		k.paired = true;
	} else if (!strcmp(rg_row_s(r, RG_COL_guard), "noop")) {
		k.v = 0;	/* the baseline itself: nothing to pair */
		k.paired = true;
	} else if (noop) {
		k.v = k.ns - rg_row_d(noop, RG_COL_ns_median);
	}
	return k;
}

static const struct rg_row *by_role(const struct host *h, const char *role)
{
	for (size_t i = 0; i < h->n; i++)
		if (is_pair1(h->rows[i]) && rg_role_has(rg_row_role(h->rows[i], NULL), role))
			return h->rows[i];
	return NULL;
}

/* ---- sections ---------------------------------------------------------------- */

static void sec_machine(struct ctx *c, const struct host *h, const struct input *in, size_t nin)
{
	const struct rg_row *r = h->rows[0];
	bool arm = !strcmp(h->arch, "aarch64");

	heading(c, "Machine: %s", h->name);
	bullet(c, "CPU: %s %s (%s), %s", rg_row_s(r, RG_COL_cpu_vendor), rg_row_s(r, RG_COL_cpu_model),
	       rg_row_s(r, RG_COL_cpu_part), h->arch);
	bullet(c, "kernel %s, preemption %s, virtualization %s", rg_row_s(r, RG_COL_kernel),
	       rg_row_s(r, RG_COL_preempt), *rg_row_s(r, RG_COL_virt) ? rg_row_s(r, RG_COL_virt) : "n/a (schema < 3)");
	bullet(c, "LSE atomics: %s; rseq: %s", arm ? (rg_row_i(r, RG_COL_lse) ? "yes" : "no") : "n/a (x86-64)",
	       rg_row_i(r, RG_COL_rseq) ? "registered" : "not available");
	for (size_t i = 0; i < nin; i++) {
		const struct rg_row *f = in[i].rows.n ? &in[i].rows.v[0] : NULL;

		if (f && !strcmp(rg_row_s(f, RG_COL_host), h->name))
			bullet(c, "file %s: schema %lld, run %s at %s, %zu rows", in[i].path,
			       in[i].version, *rg_row_s(f, RG_COL_run_id) ? rg_row_s(f, RG_COL_run_id) : "n/a",
			       rg_row_s(f, RG_COL_timestamp), in[i].rows.n);
	}
	if (h->vmin != h->vmax)
		bullet(c, "the files have schema versions %lld to %lld: columns a version lacks read as n/a",
		       h->vmin, h->vmax);
	if (h->ndup)
		bullet(c, "%zu row(s) repeated in a later file were ignored (the first file wins)", h->ndup);
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

static void sec_ranking(struct ctx *c, const struct host *h)
{
	struct ranked *v = calloc(h->n + 1, sizeof(*v));
	size_t n = 0, npaired = 0;
	struct rg_table t;
	const char *hdr[] = { "#", "guard", "ns/pair", "over noop", "95% interval" };

	heading(c, "Guards ranked by cost over noop (%s)", h->name);
	if (!v)
		return;
	for (size_t i = 0; i < h->n; i++) {
		if (!is_pair1(h->rows[i]))
			continue;
		v[n].r = h->rows[i];
		v[n].k = cost_of(h, h->rows[i]);
		npaired += v[n].k.paired;
		n++;
	}
	if (!n) {
		left_out(c, "ranking", "%s has no ok user pair rows (one thread, no duty)", h->name);
		free(v);
		return;
	}
	qsort(v, n, sizeof(*v), cmp_cost);
	rg_table_init(&t, 5);
	rg_table_add(&t, hdr);
	t.right[0] = t.right[2] = t.right[3] = t.right[4] = true;
	for (size_t i = 0; i < n; i++) {
		char no[8], ns[24], d[24], ci[48], lo[24], hi[24];

		snprintf(no, sizeof(no), "%zu", i + 1);
		fmt_ns(ns, sizeof(ns), v[i].k.ns);
		fmt_signed(d, sizeof(d), v[i].k.v);
		if (v[i].k.paired && !isnan(v[i].k.lo)) {
			fmt_signed(lo, sizeof(lo), v[i].k.lo);
			fmt_signed(hi, sizeof(hi), v[i].k.hi);
			snprintf(ci, sizeof(ci), "[%s, %s]", lo, hi);
		} else {
			snprintf(ci, sizeof(ci), "n/a");
		}
		const char *row[] = { no, rg_row_s(v[i].r, RG_COL_guard), ns, d, ci };
		rg_table_add(&t, row);
	}
	table_out(c, &t);
	rg_table_free(&t);
	if (npaired == n)
		para(c, "ns per enter/exit pair, one pinned thread. \"over noop\" is the median of paired per-round differences against noop, with its 95%% bootstrap interval.");
	else
		para(c, "ns per enter/exit pair, one pinned thread. \"over noop\" is %s: %zu of %zu rows have no paired difference (delta_ns is n/a: the file predates paired rounds, or its suite did not pair them), so theirs is a difference of medians, without an interval.",
		     npaired ? "the paired difference where the file has one" : "the difference of medians",
		     n - npaired, n);
	free(v);
}

struct headline {
	const char *role, *what;
};

static const struct headline arm_lines[] = {
	{ "this-cpu-pre-6.18", "STADD exit (<6.18)" },
	{ "this-cpu-6.18", "LDADD exit (6.18+)" },
	{ "this-cpu-llsc", "LL/SC" },
	{ "this-cpu-prfm-stadd", "PRFM+STADD exit" },
	{ "merged-rctx", "rctx (non-atomic)" },
};
static const struct headline x86_lines[] = {
	{ "pcpu-atomic", "lock xadd/dec" },
	{ "this-cpu-6.18", "xadd/dec (no lock)" },
	{ "merged-rctx", "rctx (non-atomic)" },
};

static double cmp_value(const struct cost *k)
{
	return !isnan(k->v) && k->v > 0 ? k->v : NAN;
}

static void sec_headline(struct ctx *c, const struct host *h)
{
	bool arm = !strcmp(h->arch, "aarch64");
	const struct headline *L = arm ? arm_lines : x86_lines;
	size_t nl = arm ? sizeof(arm_lines) / sizeof(arm_lines[0]) : sizeof(x86_lines) / sizeof(x86_lines[0]);
	struct cost k[8];
	const struct rg_row *r[8];
	const char *hdr[] = { "design", "guard", "ns/pair", "over noop", "x rctx" };
	struct rg_table t;
	size_t found = 0, irctx = nl - 1;
	char missing[256] = "";

	heading(c, "Headline ratios (%s, %s)", h->name, arm ? "arm64" : "x86-64");
	for (size_t i = 0; i < nl; i++) {
		r[i] = by_role(h, L[i].role);
		if (r[i]) {
			k[i] = cost_of(h, r[i]);
			found++;
		} else {
			size_t l = strlen(missing);

			snprintf(missing + l, sizeof(missing) - l, "%s%s", l ? ", " : "", L[i].role);
		}
	}
	if (found < 2) {
		left_out(c, "headline ratios", "%s has fewer than two of the roles %s (missing: %s)",
			 h->name, arm ? "this-cpu-pre-6.18, this-cpu-6.18, this-cpu-llsc, this-cpu-prfm-stadd, merged-rctx"
				      : "pcpu-atomic, this-cpu-6.18, merged-rctx", missing);
		return;
	}
	rg_table_init(&t, 5);
	rg_table_add(&t, hdr);
	t.right[2] = t.right[3] = t.right[4] = true;
	for (size_t i = 0; i < nl; i++) {
		char ns[24], d[24], x[24];
		double a, b;

		if (!r[i])
			continue;
		fmt_ns(ns, sizeof(ns), k[i].ns);
		fmt_signed(d, sizeof(d), k[i].v);
		a = cmp_value(&k[i]);
		b = r[irctx] ? cmp_value(&k[irctx]) : NAN;
		if (!isnan(a) && !isnan(b))
			snprintf(x, sizeof(x), "%.2fx", a / b);
		else
			snprintf(x, sizeof(x), "n/a");
		const char *row[] = { L[i].what, rg_row_s(r[i], RG_COL_guard), ns, d, x };
		rg_table_add(&t, row);
	}
	table_out(c, &t);
	rg_table_free(&t);
	/* The sentences: each design against the next one in the list. */
	for (size_t i = 0; i + 1 < nl; i++) {
		for (size_t j = i + 1; j < nl; j++) {
			double a, b;

			if (!r[i] || !r[j])
				continue;
			a = cmp_value(&k[i]);
			b = cmp_value(&k[j]);
			if (isnan(a) || isnan(b))
				bullet(c, "%s vs %s: n/a (a cost over noop is not positive)", L[i].what, L[j].what);
			else
				bullet(c, "%s costs %.2fx %s over noop (%.2f vs %.2f ns)", L[i].what, a / b,
				       L[j].what, a, b);
			break;
		}
	}
	fputc('\n', c->f);
	if (missing[0])
		para(c, "Not in these files: %s.", missing);
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static bool real_guard(const struct rg_row *r)
{
	const char *role = rg_row_role(r, NULL);

	return strcmp(rg_row_s(r, RG_COL_guard), "noop") && !rg_role_has(role, "negative-control") &&
	       !rg_role_has(role, "harness-floor");
}

static void sec_duty(struct ctx *c, const struct host *h)
{
	long long d[64];
	size_t nd = 0;
	struct rg_table t;
	const char *hdr[] = { "duty ns", "cheapest", "ns", "dearest", "ns", "spread" };
	long long first_under = -1;
	double last_spread = NAN;

	heading(c, "Duty cycle: where guard differences fall under 5%% (%s)", h->name);
	for (size_t i = 0; i < h->n; i++) {
		const struct rg_row *r = h->rows[i];
		bool seen = false;

		if (!row_ok(r) || strcmp(rg_row_s(r, RG_COL_suite), "user") ||
		    strcmp(rg_row_s(r, RG_COL_scenario), "duty") || rg_row_i(r, RG_COL_threads) != 1)
			continue;
		for (size_t k = 0; k < nd; k++)
			seen |= d[k] == rg_row_i(r, RG_COL_duty_ns);
		if (!seen && nd < 64)
			d[nd++] = rg_row_i(r, RG_COL_duty_ns);
	}
	if (!nd) {
		left_out(c, "duty", "%s has no ok user duty rows", h->name);
		return;
	}
	qsort(d, nd, sizeof(d[0]), cmp_ll);
	rg_table_init(&t, 6);
	rg_table_add(&t, hdr);
	t.right[0] = t.right[2] = t.right[4] = t.right[5] = true;
	for (size_t k = 0; k < nd; k++) {
		const struct rg_row *lo = NULL, *hi = NULL;
		char dn[24], a[24], b[24], sp[24];
		double spread;

		for (size_t i = 0; i < h->n; i++) {
			const struct rg_row *r = h->rows[i];

			if (!row_ok(r) || strcmp(rg_row_s(r, RG_COL_scenario), "duty") ||
			    rg_row_i(r, RG_COL_duty_ns) != d[k] || rg_row_i(r, RG_COL_threads) != 1 ||
			    !real_guard(r) || isnan(rg_row_d(r, RG_COL_ns_median)))
				continue;
			if (!lo || rg_row_d(r, RG_COL_ns_median) < rg_row_d(lo, RG_COL_ns_median))
				lo = r;
			if (!hi || rg_row_d(r, RG_COL_ns_median) > rg_row_d(hi, RG_COL_ns_median))
				hi = r;
		}
		if (!lo)
			continue;
		spread = (rg_row_d(hi, RG_COL_ns_median) - rg_row_d(lo, RG_COL_ns_median)) /
			 rg_row_d(hi, RG_COL_ns_median);
		if (spread < DUTY_SHARE && first_under < 0)
			first_under = d[k];
		last_spread = spread;
		snprintf(dn, sizeof(dn), "%lld", d[k]);
		fmt_ns(a, sizeof(a), rg_row_d(lo, RG_COL_ns_median));
		fmt_ns(b, sizeof(b), rg_row_d(hi, RG_COL_ns_median));
		snprintf(sp, sizeof(sp), "%.1f%%", spread * 100);
		const char *row[] = { dn, rg_row_s(lo, RG_COL_guard), a, rg_row_s(hi, RG_COL_guard), b, sp };
		rg_table_add(&t, row);
	}
	table_out(c, &t);
	rg_table_free(&t);
	if (first_under >= 0)
		para(c, "With %lld ns of work between pairs the dearest guard's pair+work total is within 5%% of the cheapest's: below that load the guard choice shows; above it, it hardly does. (spread: (dearest - cheapest) / dearest; noop and the negative control are not counted.)",
		     first_under);
	else
		para(c, "Guard differences stay above 5%% of a pair's total at every measured duty (%.1f%% at %lld ns): measure longer duties (--duty) to find where they fade.",
		     last_spread * 100, d[nd - 1]);
}

static void sec_threads(struct ctx *c, const struct host *h)
{
	long long tmax = 0;
	struct rg_table t;
	const char *hdr[] = { "guard", "1 thread M/s", "", "efficiency" };
	char thdr[32];
	size_t rows = 0;

	heading(c, "Thread scaling (%s)", h->name);
	for (size_t i = 0; i < h->n; i++) {
		const struct rg_row *r = h->rows[i];

		if (row_ok(r) && !strcmp(rg_row_s(r, RG_COL_scenario), "threads") &&
		    rg_row_i(r, RG_COL_threads) > tmax)
			tmax = rg_row_i(r, RG_COL_threads);
	}
	if (tmax < 2) {
		left_out(c, "threads", "%s has no ok threads rows with 2 or more threads", h->name);
		return;
	}
	snprintf(thdr, sizeof(thdr), "%lld threads M/s", tmax);
	hdr[2] = thdr;
	rg_table_init(&t, 4);
	rg_table_add(&t, hdr);
	t.right[1] = t.right[2] = t.right[3] = true;
	for (size_t i = 0; i < h->n; i++) {
		const struct rg_row *r = h->rows[i], *one;
		char a[24], b[24], e[24];
		double m1, mt;

		if (!row_ok(r) || strcmp(rg_row_s(r, RG_COL_scenario), "threads") ||
		    rg_row_i(r, RG_COL_threads) != tmax)
			continue;
		one = find(h, "user", rg_row_s(r, RG_COL_guard), "threads", 1, -1);
		if (!one)
			one = find(h, "user", rg_row_s(r, RG_COL_guard), "pair", 1, 0);
		m1 = one ? rg_row_d(one, RG_COL_mops_median) : NAN;
		mt = rg_row_d(r, RG_COL_mops_median);
		snprintf(a, sizeof(a), isnan(m1) ? "n/a" : "%.1f", m1);
		snprintf(b, sizeof(b), isnan(mt) ? "n/a" : "%.1f", mt);
		if (!isnan(m1) && !isnan(mt) && m1 > 0)
			snprintf(e, sizeof(e), "%.0f%%", 100 * mt / (m1 * (double)tmax));
		else
			snprintf(e, sizeof(e), "n/a");
		const char *row[] = { rg_row_s(r, RG_COL_guard), a, b, e };
		rg_table_add(&t, row);
		rows++;
	}
	table_out(c, &t);
	rg_table_free(&t);
	para(c, "efficiency: throughput with %lld pinned threads over %lld times one thread's (100%% = perfect scaling; a shared counter falls far below).",
	     tmax, tmax);
	(void)rows;
}

static void sec_latency(struct ctx *c, const struct host *h)
{
	struct rg_table t;
	const char *hdr[] = { "guard", "batch", "p50", "p90", "p99", "p99.9", "max", "pair" };
	size_t n = 0;

	heading(c, "Latency tail per guard (%s)", h->name);
	rg_table_init(&t, 8);
	rg_table_add(&t, hdr);
	for (int i = 1; i < 8; i++)
		t.right[i] = true;
	for (size_t i = 0; i < h->n; i++) {
		const struct rg_row *r = h->rows[i], *pair;
		char b[24], v[6][24];
		double x[6];

		if (!row_ok(r) || strcmp(rg_row_s(r, RG_COL_scenario), "latency") ||
		    isnan(rg_row_d(r, RG_COL_lat_p50_ns)))
			continue;
		pair = find(h, "user", rg_row_s(r, RG_COL_guard), "pair", 1, 0);
		x[0] = rg_row_d(r, RG_COL_lat_p50_ns);
		x[1] = rg_row_d(r, RG_COL_lat_p90_ns);
		x[2] = rg_row_d(r, RG_COL_lat_p99_ns);
		x[3] = rg_row_d(r, RG_COL_lat_p999_ns);
		x[4] = rg_row_d(r, RG_COL_lat_max_ns);
		x[5] = pair ? rg_row_d(pair, RG_COL_ns_median) : NAN;
		for (int k = 0; k < 6; k++)
			fmt_ns(v[k], sizeof(v[k]), x[k]);
		snprintf(b, sizeof(b), "%lld", rg_row_i(r, RG_COL_batch));
		const char *row[] = { rg_row_s(r, RG_COL_guard), b, v[0], v[1], v[2], v[3], v[4], v[5] };
		rg_table_add(&t, row);
		n++;
	}
	if (!n) {
		rg_table_free(&t);
		left_out(c, "latency", "%s has no ok latency rows (the latency scenario is newer than schema 3's first files, or its counter was unusable)",
			 h->name);
		return;
	}
	table_out(c, &t);
	rg_table_free(&t);
	para(c, "ns per pair per batch of `batch` pairs, timed with the cycle counter (%s). Interrupted batches (a timer tick, an interrupt, preemption) are kept: they are the tail. pair: the pair scenario's median, for comparison with p50.",
	     h->timer[0] ? h->timer : "timer details in the JSON's \"timer\"");
}

static void sec_suite(struct ctx *c, const struct host *h, const char *suite)
{
	bool bpf = !strcmp(suite, "bpf");
	struct rg_table t;
	const char *hdr_b[] = { "attach", "mode", "prod", "ns/event", "M/s" };
	const char *hdr_k[] = { "guard", "scenario", "kthr", "ns/pair", "M/s" };
	size_t n = 0, nskip = 0;
	char skipped[512] = "";

	heading(c, bpf ? "BPF per-event cost (%s)" : "Kernel module: in-kernel cost (%s)", h->name);
	rg_table_init(&t, 5);
	rg_table_add(&t, bpf ? hdr_b : hdr_k);
	t.right[2] = t.right[3] = t.right[4] = true;
	for (size_t i = 0; i < h->n; i++) {
		const struct rg_row *r = h->rows[i];
		char th[24], ns[24], m[24];

		if (strcmp(rg_row_s(r, RG_COL_suite), suite))
			continue;
		if (!row_ok(r)) {
			size_t l = strlen(skipped);

			if (nskip++ < 8)
				snprintf(skipped + l, sizeof(skipped) - l, "%s%s/%s (%s)", l ? ", " : "",
					 rg_row_s(r, RG_COL_guard), rg_row_s(r, RG_COL_scenario),
					 rg_row_s(r, RG_COL_status));
			continue;
		}
		snprintf(th, sizeof(th), "%lld", rg_row_i(r, RG_COL_threads));
		fmt_ns(ns, sizeof(ns), rg_row_d(r, RG_COL_ns_median));
		snprintf(m, sizeof(m), isnan(rg_row_d(r, RG_COL_mops_median)) ? "n/a" : "%.2f",
			 rg_row_d(r, RG_COL_mops_median));
		const char *row[] = { rg_row_s(r, RG_COL_guard), rg_row_s(r, RG_COL_scenario), th, ns, m };
		rg_table_add(&t, row);
		n++;
	}
	if (!n && !nskip) {
		rg_table_free(&t);
		left_out(c, bpf ? "bpf" : "kmod", "no %s rows in the files for %s (%s)", suite, h->name,
			 bpf ? "run as root, or give the file of `rgbench bpf`" :
			       "give the file of `rgbench kmod`");
		return;
	}
	if (n)
		table_out(c, &t);
	rg_table_free(&t);
	if (bpf)
		para(c, "ns/event: per program run over the baseline of the same mode (the guard's share of a BPF invocation); M/s: events per second, all producers.");
	else
		para(c, "ns per guard pair inside the kernel, kthreads bound one per CPU, real preempt_disable() and this_cpu_* operations.");
	if (nskip > 8)
		para(c, "Not measured (%zu rows): %s and %zu more.", nskip, skipped, nskip - 8);
	else if (nskip)
		para(c, "Not measured (%zu row%s): %s.", nskip, nskip == 1 ? "" : "s", skipped);
}

/* ---- across hosts ------------------------------------------------------------------ */

static const char *const role_order[] = {
	"harness-floor", "thread-floor", "this-cpu-pre-6.18", "this-cpu-6.18", "this-cpu-llsc",
	"this-cpu-prfm-stadd", "merged-rctx", "rctx-word", "pcpu-atomic", "pcpu-xchg", "pcpu-cas",
	"rseq", "shared-atomic", "negative-control", "reference",
};

static void sec_across(struct ctx *c, const struct host *A, const struct host *B)
{
	struct rg_table t;
	char ha[64], hb[64], roles[64][48];
	size_t nroles = 0, paired = 0, stood = 0;
	char onlya[512] = "", onlyb[512] = "";

	heading(c, "Side by side by role: %s vs %s", A->name, B->name);
	/* Every role either side has, the known ones in their order first. */
	for (size_t i = 0; i < sizeof(role_order) / sizeof(role_order[0]); i++)
		snprintf(roles[nroles++], sizeof(roles[0]), "%s", role_order[i]);
	for (int s = 0; s < 2; s++) {
		const struct host *h = s ? B : A;

		for (size_t i = 0; i < h->n; i++) {
			const char *list = rg_row_role(h->rows[i], NULL);

			for (const char *p = list; is_pair1(h->rows[i]) && p && *p; ) {
				const char *e = strchr(p, ';');
				char one[48];
				bool seen = false;

				snprintf(one, sizeof(one), "%.*s", (int)(e ? e - p : (long)strlen(p)), p);
				for (size_t k = 0; k < nroles; k++)
					seen |= !strcmp(roles[k], one);
				if (!seen && nroles < 64)
					snprintf(roles[nroles++], sizeof(roles[0]), "%s", one);
				p = e ? e + 1 : NULL;
			}
		}
	}
	snprintf(ha, sizeof(ha), "%s (%s)", A->name, A->arch);
	snprintf(hb, sizeof(hb), "%s (%s)", B->name, B->arch);
	rg_table_init(&t, 6);
	{
		const char *hdr[] = { "role", "A guard", "A ns", "B guard", "B ns", "A/B" };

		rg_table_add(&t, hdr);
	}
	t.right[2] = t.right[4] = t.right[5] = true;
	for (size_t k = 0; k < nroles; k++) {
		const struct rg_row *a = by_role(A, roles[k]), *b = by_role(B, roles[k]);
		struct cost ka, kb;
		char va[24], vb[24], x[24];
		size_t l;

		if (!a && !b)
			continue;
		if (!a || !b) {
			char *dst = a ? onlya : onlyb;

			l = strlen(dst);
			snprintf(dst + l, 512 - l, "%s%s (%s)", l ? ", " : "", roles[k],
				 rg_row_s(a ? a : b, RG_COL_guard));
			continue;
		}
		ka = cost_of(A, a);
		kb = cost_of(B, b);
		fmt_signed(va, sizeof(va), ka.v);
		fmt_signed(vb, sizeof(vb), kb.v);
		if (!isnan(cmp_value(&ka)) && !isnan(cmp_value(&kb)))
			snprintf(x, sizeof(x), "%.2fx", ka.v / kb.v);
		else
			snprintf(x, sizeof(x), "n/a");
		const char *row[] = { roles[k], rg_row_s(a, RG_COL_guard), va, rg_row_s(b, RG_COL_guard), vb, x };
		rg_table_add(&t, row);
		paired++;
		stood += strcmp(rg_row_s(a, RG_COL_guard), rg_row_s(b, RG_COL_guard)) != 0;
	}
	para(c, "A = %s, B = %s. ns per pair over noop (one pinned thread), rows paired by the role column (guards.def).",
	     ha, hb);
	if (!paired) {
		rg_table_free(&t);
		left_out(c, "side by side", "no role has an ok pair row on both %s and %s", A->name, B->name);
		return;
	}
	table_out(c, &t);
	rg_table_free(&t);
	if (stood)
		para(c, "%zu role%s paired guards of different names: the guard named on each side stood in for that role on its machine (a guard listed under several roles stands in for each).",
		     stood, stood == 1 ? "" : "s");
	if (onlya[0])
		para(c, "Only on A: %s.", onlya);
	if (onlyb[0])
		para(c, "Only on B: %s.", onlyb);
	if (A->legacy_roles || B->legacy_roles)
		para(c, "Some rows had no role column (older files): their roles come from the built-in table of the guard names those files used.");
}

/* ---- plots ---------------------------------------------------------------------- */

static bool has_sfx(const char *s, const char *sfx)
{
	size_t a = strlen(s), b = strlen(sfx);

	return a > b && !strcmp(s + a - b, sfx);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* PNGs in dir, linked as rel/name. */
static size_t list_pngs(struct ctx *c, const char *dir, const char *rel)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char *names[128];
	size_t n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < 128)
		if (has_sfx(de->d_name, ".png") && de->d_name[0] != '.')
			names[n++] = strdup(de->d_name);
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (!names[i])
			continue;
		fprintf(c->f, "- [%s](%s%s%s)\n", names[i], rel, *rel ? "/" : "", names[i]);
		free(names[i]);
	}
	return n;
}

static void sec_plots(struct ctx *c, const char *out, const struct input *in, size_t nin)
{
	char odir[4096], tmp[4096];
	size_t n = 0;

	heading(c, "Plots");
	snprintf(tmp, sizeof(tmp), "%s", out ? out : in[0].path);
	snprintf(odir, sizeof(odir), "%s", dirname(tmp));
	n += list_pngs(c, odir, "");
	for (size_t i = 0; i < nin; i++) {
		char stem[4096], dir[8300], *b, *dot;

		snprintf(tmp, sizeof(tmp), "%s", in[i].path);
		b = basename(tmp);
		snprintf(stem, sizeof(stem), "%s", b);
		dot = strrchr(stem, '.');
		if (dot && (!strcmp(dot, ".json") || !strcmp(dot, ".csv")))
			*dot = 0;
		snprintf(tmp, sizeof(tmp), "%s", in[i].path);
		snprintf(dir, sizeof(dir), "%s/%s-plots", dirname(tmp), stem);
		if (strcmp(dir, odir)) {
			char rel[4200];

			snprintf(rel, sizeof(rel), "%s-plots", stem);
			n += list_pngs(c, dir, rel);
		}
	}
	if (n)
		fputc('\n', c->f);
	else
		left_out(c, "plots", "no PNG beside the report or in <file>-plots/ (`rgbench plot FILES --out DIR` draws them; scripts/run.sh does)");
}

/* ---- input ---------------------------------------------------------------------- */

static void read_timer(struct input *in)
{
	json_error_t je;
	json_t *root = json_load_file(in->path, 0, &je), *t;

	in->timer[0] = 0;
	if (!root)
		return;
	t = json_object_get(root, "timer");
	if (json_is_object(t)) {
		json_t *s = json_object_get(t, "source"), *hz = json_object_get(t, "hz");
		json_t *res = json_object_get(t, "resolution_ns"), *ov = json_object_get(t, "overhead_ns");

		if (json_is_string(s))
			snprintf(in->timer, sizeof(in->timer),
				 "%s at %.4g MHz, resolution %.3g ns, overhead %.3g ns subtracted per batch",
				 json_string_value(s), json_is_number(hz) ? json_number_value(hz) / 1e6 : NAN,
				 json_is_number(res) ? json_number_value(res) : NAN,
				 json_is_number(ov) ? json_number_value(ov) : NAN);
	}
	json_decref(root);
}

static int add_host_row(struct host *h, const struct rg_row *r)
{
	const struct rg_row **v;
	bool legacy;

	for (size_t i = 0; i < h->n; i++)
		if (!rg_row_key_cmp(h->rows[i], r)) {
			h->ndup++;
			return 0;
		}
	v = realloc(h->rows, (h->n + 1) * sizeof(*v));
	if (!v)
		return -1;
	h->rows = v;
	h->rows[h->n++] = r;
	rg_row_role(r, &legacy);
	h->legacy_roles |= legacy && is_pair1(r);
	return 0;
}

/* Write buf to path atomically (temporary file, fsync, rename). */
static int write_file(const char *path, const char *buf, size_t len, char *err, size_t errlen)
{
	char tmp[4200];
	int fd, e = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "report: cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	for (size_t off = 0; off < len; ) {
		ssize_t w = write(fd, buf + off, len - off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			break;
		}
		off += (size_t)w;
	}
	if (!e && fsync(fd))
		e = errno;
	if (close(fd) && !e)
		e = errno;
	if (!e && rename(tmp, path))
		e = errno;
	if (e) {
		unlink(tmp);
		snprintf(err, errlen, "report: cannot write %s: %s", path, strerror(e));
		return -1;
	}
	return 0;
}

int rg_report_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "width", required_argument, NULL, 'w' },
		{ "across-hosts", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct input in[MAX_FILES];
	struct host hosts[MAX_HOSTS];
	size_t nin = 0, nh = 0, blen = 0;
	const char *out = NULL;
	char err[1200], *buf = NULL, *end;
	bool across = false;
	long width = 72;
	int opt, ret = 1;
	struct ctx c = { 0 };
	struct stat st;

	memset(in, 0, sizeof(in));
	memset(hosts, 0, sizeof(hosts));
	optind = 0;
	while ((opt = getopt_long(argc, argv, "o:w:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'o': out = optarg; break;
		case 'w':
			errno = 0;
			width = strtol(optarg, &end, 10);
			if (!*optarg || *end || errno || width < 40 || width > 400) {
				fprintf(stderr, "rgbench: report: --width %s: expected an integer in [40, 400]\n", optarg);
				return 2;
			}
			break;
		case 'a': across = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind >= argc || (out && (!*out || (!stat(out, &st) && S_ISDIR(st.st_mode))))) {
		fprintf(stderr, "rgbench: report: %s\n", optind >= argc ? "needs at least one result FILE or DIR"
								   : "--out needs a file name, not a directory");
		usage(stderr);
		return 2;
	}
	/* Read everything first: a bad file is one line on stderr and nothing written. */
	for (int a = optind; a < argc; a++) {
		struct rg_dir_run one = { .path = argv[a] }, *runs = &one;
		bool listed = !stat(argv[a], &st) && S_ISDIR(st.st_mode);
		size_t n = 1;

		if (listed && rg_list_dir(argv[a], &runs, &n, err, sizeof(err)))
			goto fail;
		for (size_t i = 0; i < n; i++) {
			if (nin == MAX_FILES) {
				snprintf(err, sizeof(err), "report: more than %d files", MAX_FILES);
				if (listed)
					rg_list_free(runs, n);
				goto fail;
			}
			/* x.csv beside x.json: validated, same run id, but the JSON is the source. */
			in[nin].path = strdup(runs[i].path);
			if (!in[nin].path || rg_read_run(&runs[i], &in[nin].rows, err, sizeof(err))) {
				nin++;
				if (listed)
					rg_list_free(runs, n);
				goto fail;
			}
			in[nin].version = in[nin].rows.n ? rg_row_i(&in[nin].rows.v[0], RG_COL_schema_version) : 0;
			read_timer(&in[nin]);
			nin++;
		}
		if (listed)
			rg_list_free(runs, n);
	}
	/* Group rows by host, in the order the files give them. */
	for (size_t i = 0; i < nin; i++) {
		for (size_t k = 0; k < in[i].rows.n; k++) {
			const struct rg_row *r = &in[i].rows.v[k];
			const char *hn = rg_row_s(r, RG_COL_host);
			size_t h;

			for (h = 0; h < nh; h++)
				if (!strcmp(hosts[h].name, hn))
					break;
			if (h == nh) {
				if (nh == MAX_HOSTS) {
					snprintf(err, sizeof(err), "report: rows from more than %d hosts", MAX_HOSTS);
					goto fail;
				}
				snprintf(hosts[h].name, sizeof(hosts[h].name), "%s", hn);
				snprintf(hosts[h].arch, sizeof(hosts[h].arch), "%s", rg_row_s(r, RG_COL_arch));
				hosts[h].vmin = hosts[h].vmax = in[i].version;
				nh++;
			}
			if (in[i].version < hosts[h].vmin)
				hosts[h].vmin = in[i].version;
			if (in[i].version > hosts[h].vmax)
				hosts[h].vmax = in[i].version;
			if (in[i].timer[0] && !hosts[h].timer[0])
				snprintf(hosts[h].timer, sizeof(hosts[h].timer), "%s", in[i].timer);
			if (add_host_row(&hosts[h], r)) {
				snprintf(err, sizeof(err), "report: out of memory");
				goto fail;
			}
		}
	}
	if (!nh) {
		snprintf(err, sizeof(err), "report: the files hold no rows");
		goto fail;
	}
	if (across && nh > 2) {
		fprintf(stderr, "rgbench: report: --across-hosts takes files of two hosts, these are from %zu\n", nh);
		ret = 2;
		goto out;
	}
	c.f = open_memstream(&buf, &blen);
	c.width = (int)width;
	if (!c.f) {
		snprintf(err, sizeof(err), "report: out of memory");
		goto fail;
	}
	if (nh == 2 && across)
		fprintf(c.f, "# rgbench report: %s (%s) vs %s (%s)\n\n", hosts[0].name, hosts[0].arch,
			hosts[1].name, hosts[1].arch);
	else
		fprintf(c.f, "# rgbench report: %s\n\n", nh == 1 ? hosts[0].name : "several hosts");
	{
		const char *cpu = rg_row_s(hosts[0].rows[0], RG_COL_cpu_model);
		char what[600];

		snprintf(what, sizeof(what),
			 "Which per-CPU recursion guard is cheapest on %s, by how much, under which load? %zu file%s, %zu host%s%s.",
			 nh == 1 ? cpu : "these machines", nin, nin == 1 ? "" : "s", nh, nh == 1 ? "" : "s",
			 across && nh == 1 ? "; --across-hosts needs a second host" : "");
		para(&c, "%s", what);
	}
	if (across && nh == 2) {
		sec_machine(&c, &hosts[0], in, nin);
		sec_machine(&c, &hosts[1], in, nin);
		sec_across(&c, &hosts[0], &hosts[1]);
	} else if (across) {
		heading(&c, "Side by side by role");
		left_out(&c, "side by side", "--across-hosts needs files from two hosts; all rows come from %s",
			 hosts[0].name);
	}
	for (size_t h = 0; h < nh; h++) {
		if (!(across && nh == 2))
			sec_machine(&c, &hosts[h], in, nin);
		sec_ranking(&c, &hosts[h]);
		sec_headline(&c, &hosts[h]);
		sec_duty(&c, &hosts[h]);
		sec_threads(&c, &hosts[h]);
		sec_latency(&c, &hosts[h]);
		sec_suite(&c, &hosts[h], "bpf");
		sec_suite(&c, &hosts[h], "kmod");
	}
	sec_plots(&c, out, in, nin);
	if (c.nleft) {
		heading(&c, "Left out");
		for (int i = 0; i < c.nleft; i++)
			bullet(&c, "%s", c.left[i]);
		fputc('\n', c.f);
	}
	para(&c, "Generated by `rgbench report`; values are medians of the runs in the files.");
	if (fclose(c.f)) {
		c.f = NULL;
		snprintf(err, sizeof(err), "report: out of memory");
		goto fail;
	}
	c.f = NULL;
	if (out) {
		if (write_file(out, buf, blen, err, sizeof(err)))
			goto fail;
		printf("wrote %s\n", out);
	} else {
		fwrite(buf, 1, blen, stdout);
	}
	ret = fflush(stdout) ? 1 : 0;
	goto out;
fail:
	fprintf(stderr, "rgbench: %s\n", err);
out:
	free(buf);
	for (size_t i = 0; i < nh; i++)
		free(hosts[i].rows);
	for (size_t i = 0; i < nin; i++) {
		rg_rows_free(&in[i].rows);
		free((char *)in[i].path);
	}
	return ret;
}
