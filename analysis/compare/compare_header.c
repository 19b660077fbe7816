// SPDX-License-Identifier: MIT
/* `rgbench compare`'s header lines: what each side is (host, CPU, kernel), how the sides differ, how they were interleaved. */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

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

__attribute__((format(printf, 2, 3)))
void cmp_addl(struct lines *l, const char *fmt, ...)
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

void cmp_header_lines(struct lines *l, const struct side *A, const struct side *B,
			 bool across, bool notes)
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
		char host[256], cpu[256], kern[256], ver[256];

		distinct(s[i], RG_COL_host, host, sizeof(host));
		distinct(s[i], RG_COL_cpu_model, cpu, sizeof(cpu));
		distinct(s[i], RG_COL_kernel, kern, sizeof(kern));
		distinct(s[i], RG_COL_rgbench_version, ver, sizeof(ver));
		/* the whole of each: the line wraps at the width, never cuts (cmp_print_lines) */
		cmp_addl(l, "%s %s: %s, %s, kernel %s, rgbench %s, %zu rows",
			 B ? (i ? "new: " : "base:") : "file:", s[i]->path, host, cpu, kern, ver,
			 s[i]->rows.n);
		/* a file of rgbench ab says which boot and --kernel label its rows were measured in */
		bool ab = false;

		for (size_t r = 0; r < s[i]->rows.n && !ab; r++)
			ab = rg_row_s(&s[i]->rows.v[r], RG_COL_ab_label)[0] != 0;
		if (ab) {
			distinct(s[i], RG_COL_ab_label, kern, sizeof(kern));
			distinct_int(s[i], RG_COL_ab_boot, ver, sizeof(ver));
			cmp_addl(l, "%s rgbench ab boot %s, label %s", B ? (i ? "new: " : "base:") : "file:",
				 ver, kern);
		}
	}
	if (!B)
		return;
	for (size_t k = 0; k < sizeof(diff) / sizeof(diff[0]); k++) {
		/* without notes, only what the lines above do not say: the schema versions */
		if (!notes && diff[k].col != RG_COL_schema_version)
			continue;
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
				cmp_addl(l, "note: hosts differ (%s vs %s): --across-hosts labels the columns by machine",
				     x, y);
			else
				cmp_addl(l, "note: %s differ: %s vs %s", diff[k].what, x, y);
		} else if (diff[k].col == RG_COL_host && across) {
			cmp_addl(l, "note: --across-hosts, but both sides come from host %s", x);
		}
	}
}

/*
 * Say when paired rows were not measured the same way: a different
 * interleave (rounds, alternating, none) or, for rounds, a different number
 * of rounds. Their samples then do not mean the same thing, and the test
 * falls back to (or mixes) per-repetition values.
 */
void cmp_interleave_lines(struct lines *l, const struct cmp *v, size_t n)
{
	size_t nmode = 0, ncount = 0;
	const struct cmp *em = NULL, *ec = NULL;

	for (size_t i = 0; i < n; i++) {
		const struct rg_row *a = v[i].a, *b = v[i].b;

		if (!a || !b || !cmp_row_ok(a) || !cmp_row_ok(b))
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
		cmp_addl(l, "note: %zu row%s not interleaved the same way (e.g. %s: base %s, new %s): "
			"tested on per-repetition values, drift between the runs is not removed",
		     nmode, nmode == 1 ? "" : "s", key, rg_row_s(em->a, RG_COL_interleave),
		     rg_row_s(em->b, RG_COL_interleave));
	}
	if (ncount) {
		char key[160];

		rg_row_key_text(ec->b, key, sizeof(key));
		cmp_addl(l, "note: %zu row%s measured in a different number of rounds (e.g. %s: base %lld, new %lld)",
		     ncount, ncount == 1 ? "" : "s", key, rg_row_i(ec->a, RG_COL_repetitions),
		     rg_row_i(ec->b, RG_COL_repetitions));
	}
}

/* "host (cpu model)" for --across-hosts column labels. */
void cmp_host_label(const struct side *s, char *buf, size_t size, bool with_cpu)
{
	char h[128], c[128];

	distinct(s, RG_COL_host, h, sizeof(h));
	distinct(s, RG_COL_cpu_model, c, sizeof(c));
	if (with_cpu)
		snprintf(buf, size, "%s (%s)", h, c);
	else
		snprintf(buf, size, "%s", h);
}

/* P(X >= k) for X ~ binomial(n, p). */
static double binom_sf(size_t n, size_t k, double p)
{
	double s = 0;

	for (size_t i = k; i <= n; i++)
		s += exp(lgamma((double)n + 1) - lgamma((double)i + 1) - lgamma((double)(n - i) + 1) +
			 (double)i * log(p) + (double)(n - i) * log1p(-p));
	return fmin(1, s);
}

/*
 * The A/A self-check: two files of the same host, CPU model, kernel and
 * rgbench build measure the same thing, so every change called is a false
 * positive. Say how many the verdicts' level leads one to expect among the
 * rows tested, how many were called, how many at p < 0.01, and how likely
 * that many is by chance alone.
 */
void cmp_aa_lines(struct lines *l, const struct side *A, const struct side *B,
		  const struct cmp *v, size_t n, bool cycles)
{
	static const enum rg_col same[] = { RG_COL_host, RG_COL_cpu_model, RG_COL_kernel,
					     RG_COL_rgbench_version };
	size_t tested = 0, called = 0, strong = 0, runs = 0, floor = 0, uncalled = 0;
	char unc[96] = "";

	for (size_t k = 0; k < sizeof(same) / sizeof(same[0]); k++) {
		char x[256], y[256];

		distinct(A, same[k], x, sizeof(x));
		distinct(B, same[k], y, sizeof(y));
		if (strcmp(x, y) || strchr(x, ','))
			return;	/* not one machine and build on both sides: no A/A check */
	}
	for (size_t i = 0; i < n; i++) {
		struct res r;

		cmp_compute(&v[i], "base", false, cycles, &r);
		if (!r.test || !r.test[0])
			continue;	/* untested: missing, failed or too few samples */
		if (r.one_run) {
			uncalled++;	/* one run per side, no floor: never called, so not an A/A trial */
			continue;
		}
		tested++;
		runs += !strcmp(r.test, "runs");
		floor += !strcmp(r.test, "floor");
		called += r.called;
		strong += r.called && r.p < 0.01;
	}
	if (!tested && !uncalled)
		return;
	if (uncalled)
		snprintf(unc, sizeof(unc), "; %zu of one run per side without an A/A floor, never called, left out", uncalled);
	cmp_addl(l, "A/A check (same host, CPU, kernel and build on both sides, so any change called is a false positive): "
		 "%zu rows tested (%zu on runs, %zu against the A/A floor, %zu on one run's samples), "
		 "expected about %.1f called at %.0f%%, seen %zu (%zu at p<0.01); %zu or more by chance: p=%.3g%s",
		 tested, runs, floor, tested - runs - floor, ALPHA * (double)tested, ALPHA * 100, called,
		 strong, called, binom_sf(tested, called, ALPHA), unc);
}
