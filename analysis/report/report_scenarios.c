// SPDX-License-Identifier: MIT
/* `rgbench report`'s sections of one host by scenario: duty, threads, latency, re-entry, BPF and module. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

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

void rp_sec_duty(struct ctx *c, const struct host *h)
{
	long long d[64];
	size_t nd = 0;
	struct rg_table t;
	const char *hdr[] = { "duty ns", "cheapest", "ns", "dearest", "ns", "spread" };
	long long first_under = -1;
	double last_spread = NAN;

	rp_heading(c, "Duty cycle: where guard differences fall under 5%% (%s)", h->name);
	for (size_t i = 0; i < h->n; i++) {
		const struct rg_row *r = h->rows[i];
		bool seen = false;

		if (!rp_row_ok(r) || strcmp(rg_row_s(r, RG_COL_suite), "user") ||
		    strcmp(rg_row_s(r, RG_COL_scenario), "duty") || rg_row_i(r, RG_COL_threads) != 1)
			continue;
		for (size_t k = 0; k < nd; k++)
			seen |= d[k] == rg_row_i(r, RG_COL_duty_ns);
		if (!seen && nd < 64)
			d[nd++] = rg_row_i(r, RG_COL_duty_ns);
	}
	if (!nd) {
		rp_left_out(c, "duty", "%s has no ok user duty rows", rp_md(h->name));
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

			if (!rp_row_ok(r) || strcmp(rg_row_s(r, RG_COL_scenario), "duty") ||
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
		rp_fmt_ns(a, sizeof(a), rg_row_d(lo, RG_COL_ns_median));
		rp_fmt_ns(b, sizeof(b), rg_row_d(hi, RG_COL_ns_median));
		snprintf(sp, sizeof(sp), "%.1f%%", spread * 100);
		const char *row[] = { dn, rg_row_s(lo, RG_COL_guard), a, rg_row_s(hi, RG_COL_guard), b, sp };
		rg_table_add(&t, row);
	}
	rp_table_out(c, &t);
	rg_table_free(&t);
	if (first_under >= 0)
		rp_para(c, "With %lld ns of work between pairs the dearest guard's pair+work total is within 5%% of the cheapest's: below that load the guard choice shows; above it, it hardly does. (spread: (dearest - cheapest) / dearest; noop and the negative control are not counted.)",
		     first_under);
	else
		rp_para(c, "Guard differences stay above 5%% of a pair's total at every measured duty (%.1f%% at %lld ns): measure longer duties (--duty) to find where they fade.",
		     last_spread * 100, d[nd - 1]);
}

void rp_sec_threads(struct ctx *c, const struct host *h)
{
	long long tmax = 0;
	struct rg_table t;
	const char *hdr[] = { "guard", "1 thread M/s", "", "efficiency" };
	char thdr[32];
	size_t rows = 0;

	rp_heading(c, "Thread scaling (%s)", h->name);
	for (size_t i = 0; i < h->n; i++) {
		const struct rg_row *r = h->rows[i];

		if (rp_row_ok(r) && !strcmp(rg_row_s(r, RG_COL_scenario), "threads") &&
		    rg_row_i(r, RG_COL_threads) > tmax)
			tmax = rg_row_i(r, RG_COL_threads);
	}
	if (tmax < 2) {
		rp_left_out(c, "threads", "%s has no ok threads rows with 2 or more threads", rp_md(h->name));
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

		if (!rp_row_ok(r) || strcmp(rg_row_s(r, RG_COL_scenario), "threads") ||
		    rg_row_i(r, RG_COL_threads) != tmax)
			continue;
		one = rp_find(h, "user", rg_row_s(r, RG_COL_guard), "threads", 1, -1);
		if (!one)
			one = rp_find(h, "user", rg_row_s(r, RG_COL_guard), "pair", 1, 0);
		m1 = one ? rg_row_d(one, RG_COL_mops_median) : NAN;
		mt = rg_row_d(r, RG_COL_mops_median);
		rg_fmt_fixed(a, sizeof(a), m1, 1);
		rg_fmt_fixed(b, sizeof(b), mt, 1);
		if (!isnan(m1) && !isnan(mt) && m1 > 0) {
			rg_fmt_fixed(e, sizeof(e) - 1, 100 * mt / (m1 * (double)tmax), 0);
			strcat(e, "%");
		} else {
			snprintf(e, sizeof(e), "n/a");
		}
		const char *row[] = { rg_row_s(r, RG_COL_guard), a, b, e };
		rg_table_add(&t, row);
		rows++;
	}
	rp_table_out(c, &t);
	rg_table_free(&t);
	rp_para(c, "efficiency: throughput with %lld pinned threads over %lld times one thread's (100%% = perfect scaling; a shared counter falls far below).",
	     tmax, tmax);
	(void)rows;
}

/* A timed row's delta_ns over its baseline with its interval, or "-" without one. */
static void delta_text(const struct rg_row *r, char *buf, size_t size)
{
	char d[24], lo[24], hi[24], tag[16];
	double v = rg_row_d(r, RG_COL_delta_ns);

	if (isnan(v)) {
		snprintf(buf, size, "-");
		return;
	}
	rp_fmt_signed(d, sizeof(d), v);
	if (isnan(rg_row_d(r, RG_COL_delta_ci_lo)) || isnan(rg_row_d(r, RG_COL_delta_ci_hi))) {
		snprintf(buf, size, "%s", d);
		return;
	}
	rp_fmt_signed(lo, sizeof(lo), rg_row_d(r, RG_COL_delta_ci_lo));
	rp_fmt_signed(hi, sizeof(hi), rg_row_d(r, RG_COL_delta_ci_hi));
	snprintf(buf, size, "%s [%s, %s]%s", d, lo, hi,
		 rg_ci_level_tag(rg_row_d(r, RG_COL_delta_ci_level), tag, sizeof(tag)));
}

void rp_sec_latency(struct ctx *c, const struct host *h)
{
	struct rg_table t;
	const char *hdr[] = { "guard", "batch", "p50", "p90", "p99", "p99.9", "max", "pair" };
	size_t n = 0;

	rp_heading(c, "Latency tail per guard (%s)", h->name);
	rg_table_init(&t, 8);
	rg_table_add(&t, hdr);
	for (int i = 1; i < 8; i++)
		t.right[i] = true;
	for (size_t i = 0; i < h->n; i++) {
		const struct rg_row *r = h->rows[i], *pair;
		char b[24], v[6][24];
		double x[6];

		if (!rp_row_ok(r) || strcmp(rg_row_s(r, RG_COL_scenario), "latency") ||
		    isnan(rg_row_d(r, RG_COL_lat_p50_ns)))
			continue;
		pair = rp_find(h, "user", rg_row_s(r, RG_COL_guard), "pair", 1, 0);
		x[0] = rg_row_d(r, RG_COL_lat_p50_ns);
		x[1] = rg_row_d(r, RG_COL_lat_p90_ns);
		x[2] = rg_row_d(r, RG_COL_lat_p99_ns);
		x[3] = rg_row_d(r, RG_COL_lat_p999_ns);
		x[4] = rg_row_d(r, RG_COL_lat_max_ns);
		x[5] = pair ? rg_row_d(pair, RG_COL_ns_median) : NAN;
		for (int k = 0; k < 6; k++)
			rp_fmt_ns(v[k], sizeof(v[k]), x[k]);
		snprintf(b, sizeof(b), "%lld", rg_row_i(r, RG_COL_batch));
		const char *row[] = { rg_row_s(r, RG_COL_guard), b, v[0], v[1], v[2], v[3], v[4], v[5] };
		rg_table_add(&t, row);
		n++;
	}
	if (!n) {
		rg_table_free(&t);
		rp_left_out(c, "latency", "%s has no ok latency rows (the latency scenario is newer than schema 3's first files, or its counter was unusable)",
			 rp_md(h->name));
		return;
	}
	rp_table_out(c, &t);
	rg_table_free(&t);
	rp_para(c, "ns per pair per batch of `batch` pairs, timed with the cycle counter (%s). Interrupted batches (a timer tick, an interrupt, preemption) are kept: they are the tail. pair: the pair scenario's median, for comparison with p50.",
	     h->timer[0] ? h->timer : "timer details in the JSON's \"timer\"");
}

/* The context a re-entry row tests ("softirq-irq" of "softirq-irq-recursion"), or NULL. */
static const char *reentry_context(const struct rg_row *r, char *buf, size_t size)
{
	const char *sc = rg_row_s(r, RG_COL_scenario);
	size_t l = strlen(sc);

	for (const char *const *sfx = (const char *const[]){ "-recursion", "-deferred", NULL }; *sfx; sfx++)
		if (l > strlen(*sfx) && !strcmp(sc + l - strlen(*sfx), *sfx)) {
			snprintf(buf, size, "%.*s", (int)(l - strlen(*sfx)), sc);
			return buf;
		}
	return NULL;
}

/* One cell of the re-entry table: pass/FAIL, what the attempts got, and how many. */
static void reentry_cell(const struct rg_row *r, char *buf, size_t size)
{
	/* ok or noisy (timing disturbed; the outcomes were still checked): pass; error: FAIL */
	const char *pf = strcmp(rg_row_s(r, RG_COL_status), "error") ? "pass" : "FAIL";
	unsigned long long ops = (unsigned long long)rg_row_i(r, RG_COL_ops);
	unsigned long long ref = (unsigned long long)rg_row_i(r, RG_COL_refusals);
	bool deferred = strstr(rg_row_s(r, RG_COL_scenario), "-deferred") != NULL;

	if (ref == ops && ops)
		snprintf(buf, size, "%s R %llu", pf, ops);
	else if (!ref)
		snprintf(buf, size, "%s %c %llu", pf, deferred ? 'D' : 'G', ops);
	else
		snprintf(buf, size, "%s R %llu/%llu", pf, ref, ops);
}

/*
 * The re-entry outcomes of a suite as a guard-by-context table: the module's
 * irq/softirq/softirq-irq/nmi rows, the user suite's signal rows. Nothing when
 * the host has none of the suite's rows at all; a line when it has timed rows only.
 */
void rp_sec_reentry(struct ctx *c, const struct host *h, const char *suite)
{
	enum { MAXCTX = 8, MAXG = 64 };
	char ctx[MAXCTX][32], guards[MAXG][64], cell[MAXG][MAXCTX][40], buf[32], why[400] = "";
	size_t nctx = 0, ng = 0, nfail = 0, nrows = 0, nsuite = 0, nnot = 0;
	struct rg_table t;

	memset(cell, 0, sizeof(cell));
	for (size_t i = 0; i < h->n; i++) {
		const struct rg_row *r = h->rows[i];
		bool mine = !strcmp(rg_row_s(r, RG_COL_suite), suite);
		const char *cx = mine ? reentry_context(r, buf, sizeof(buf)) : NULL;
		size_t x = 0, g = 0;

		nsuite += mine;
		if (!cx)
			continue;
		if (!rp_row_ok(r) && strcmp(rg_row_s(r, RG_COL_status), "error")) {
			nnot++;	/* skipped: never tried here */
			continue;
		}
		while (x < nctx && strcmp(ctx[x], cx))
			x++;
		while (g < ng && strcmp(guards[g], rg_row_s(r, RG_COL_guard)))
			g++;
		if ((x == nctx && nctx == MAXCTX) || (g == ng && ng == MAXG))
			continue;
		if (x == nctx)
			snprintf(ctx[nctx++], sizeof(ctx[0]), "%s", cx);
		if (g == ng)
			snprintf(guards[ng++], sizeof(guards[0]), "%s", rg_row_s(r, RG_COL_guard));
		reentry_cell(r, cell[g][x], sizeof(cell[g][x]));
		nrows++;
		if (!strcmp(rg_row_s(r, RG_COL_status), "error")) {
			size_t l = strlen(why);

			if (nfail++ < 3)
				snprintf(why + l, sizeof(why) - l, "%s%s/%s: %s", l ? "; " : "",
					 guards[g], ctx[x], rg_row_s(r, RG_COL_reason));
		}
	}
	if (!nrows) {
		if (nnot && strcmp(suite, "kmod")) {
			rp_heading(c, "Signal re-entry (%s)", h->name);
			rp_para(c, "Not run here: %zu re-entry row%s (skipped).", nnot, nnot == 1 ? "" : "s");
		} else if (nnot) {
			rp_para(c, "Re-entry: all %zu rows skipped.", nnot);
		} else if (!strcmp(suite, "kmod") && nsuite)
			rp_para(c, "Re-entry: no re-entry rows in the module's file (run without --irq-iters 0).");
		return;
	}
	if (strcmp(suite, "kmod"))
		rp_heading(c, "Signal re-entry (%s)", h->name);
	rg_table_init(&t, 1 + nctx);
	{
		const char *hdr[1 + MAXCTX] = { "guard" };

		for (size_t x = 0; x < nctx; x++) {
			hdr[1 + x] = ctx[x];
			t.right[1 + x] = true;
		}
		rg_table_add(&t, hdr);
	}
	for (size_t g = 0; g < ng; g++) {
		const char *row[1 + MAXCTX] = { guards[g] };

		for (size_t x = 0; x < nctx; x++)
			row[1 + x] = cell[g][x][0] ? cell[g][x] : "-";
		rg_table_add(&t, row);
	}
	rp_para(c, "Re-entry on the same CPU while the guard is held (%s), per context: %zu row%s, %zu failed.",
		!strcmp(suite, "kmod") ? "the module interrupts the holder with an irq, a softirq, both, or an NMI" :
					 "a signal handler interrupts the holder on the same thread",
		nrows, nrows == 1 ? "" : "s", nfail);
	rp_table_out(c, &t);
	rg_table_free(&t);
	rp_para(c, "pass: every attempt got the outcome the design promises (the %s checks it); FAIL: some did not. "
		"R refused, G granted, D deferred until the holder's exit; the number is the attempts (R a/b: a of b refused).",
		!strcmp(suite, "kmod") ? "module" : "suite");
	if (nfail)
		rp_para(c, "Failed: %s%s", rp_md(why), nfail > 3 ? "; ..." : "");
	if (nnot)
		rp_para(c, "Not run here: %zu re-entry row%s (skipped).", nnot, nnot == 1 ? "" : "s");
}

void rp_sec_suite(struct ctx *c, const struct host *h, const char *suite)
{
	bool bpf = !strcmp(suite, "bpf");
	struct rg_table t;
	const char *hdr_b[] = { "attach", "mode", "prod", "ns/event", "M/s" };
	const char *hdr_k[] = { "guard", "scenario", "kthr", "ns/pair", "over noop", "M/s" };
	const char *one_sc = NULL;	/* kmod: the scenario of every timed row, else NULL */
	size_t n = 0, nskip = 0, ncol = bpf ? 5 : 6, sc_col = 1;
	char skipped[512] = "", buf[32];

	rp_heading(c, bpf ? "BPF per-event cost (%s)" : "Kernel module: in-kernel cost (%s)", h->name);
	for (size_t i = 0; !bpf && i < h->n; i++) {
		const struct rg_row *r = h->rows[i];

		if (strcmp(rg_row_s(r, RG_COL_suite), suite) || !rp_row_ok(r) ||
		    reentry_context(r, buf, sizeof(buf)))
			continue;
		if (!one_sc) {
			one_sc = rg_row_s(r, RG_COL_scenario);
		} else if (strcmp(one_sc, rg_row_s(r, RG_COL_scenario))) {
			one_sc = NULL;
			break;
		}
	}
	if (one_sc) {	/* one scenario: said once under the table, not in a column */
		memmove(&hdr_k[1], &hdr_k[2], 4 * sizeof(hdr_k[0]));
		ncol = 5;
		sc_col = 0;
	}
	rg_table_init(&t, ncol);
	rg_table_add(&t, bpf ? hdr_b : hdr_k);
	for (size_t k = 1 + sc_col; k < ncol; k++)
		t.right[k] = true;
	for (size_t i = 0; i < h->n; i++) {
		const struct rg_row *r = h->rows[i];
		char th[24], ns[24], m[24], d[80];

		if (strcmp(rg_row_s(r, RG_COL_suite), suite))
			continue;
		if (!bpf && reentry_context(r, buf, sizeof(buf)))
			continue;	/* not timed: the re-entry table below */
		if (!rp_row_ok(r)) {
			size_t l = strlen(skipped);

			if (nskip++ < 8)
				snprintf(skipped + l, sizeof(skipped) - l, "%s%s/%s (%s)", l ? ", " : "",
					 rg_row_s(r, RG_COL_guard), rg_row_s(r, RG_COL_scenario),
					 rg_row_s(r, RG_COL_status));
			continue;
		}
		snprintf(th, sizeof(th), "%lld", rg_row_i(r, RG_COL_threads));
		rp_fmt_ns(ns, sizeof(ns), rg_row_d(r, RG_COL_ns_median));
		rg_fmt_fixed(m, sizeof(m), rg_row_d(r, RG_COL_mops_median), 2);
		delta_text(r, d, sizeof(d));
		const char *row_b[] = { rg_row_s(r, RG_COL_guard), rg_row_s(r, RG_COL_scenario), th, ns, m };
		const char *row_k[] = { rg_row_s(r, RG_COL_guard), rg_row_s(r, RG_COL_scenario), th, ns, d, m };

		if (one_sc)
			memmove(&row_k[1], &row_k[2], 4 * sizeof(row_k[0]));
		rg_table_add(&t, bpf ? row_b : row_k);
		n++;
	}
	if (!n && !nskip) {
		rg_table_free(&t);
		rp_left_out(c, bpf ? "bpf" : "kmod", "no %s rows in the files for %s (%s)", suite, rp_md(h->name),
			 bpf ? "run as root, or give the file of `rgbench bpf`" :
			       "give the file of `rgbench kmod`");
		return;
	}
	if (n)
		rp_table_out(c, &t);
	rg_table_free(&t);
	if (bpf)
		rp_para(c, "ns/event: per program run over the baseline of the same mode (the guard's share of a BPF invocation); M/s: events per second, all producers.");
	else if (n)
		rp_para(c, "ns per guard pair inside the kernel%s%s%s, kthreads (kthr) bound one per CPU, real preempt_disable() and this_cpu_* operations; over noop: the median of per-round differences against noop with its interval (95%% or more, or the level printed after it).",
			one_sc ? " (scenario " : "", one_sc ? one_sc : "", one_sc ? ")" : "");
	if (nskip > 8)
		rp_para(c, "Not measured (%zu rows): %s and %zu more.", nskip, rp_md(skipped), nskip - 8);
	else if (nskip)
		rp_para(c, "Not measured (%zu row%s): %s.", nskip, nskip == 1 ? "" : "s", rp_md(skipped));
	if (!bpf)
		rp_sec_reentry(c, h, "kmod");
}
