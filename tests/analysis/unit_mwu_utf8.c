// SPDX-License-Identifier: MIT
/* analysis.unit's U test and UTF-8 cases: the U test against hand-computed values, text the writer writes and the reader reads back. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rg/compare.h"
#include "rg/page.h"
#include "rg/results.h"
#include "rg/text.h"

#include "check.h"
#include "unit.h"

static void mwu_case(const char *name, const double *x, size_t n1, const double *y, size_t n2,
		     double u1, double p, bool exact)
{
	struct rg_mwu t;

	CHECK(!rg_mwu_test(x, n1, y, n2, &t), "%s: test failed", name);
	CHECK(fabs(t.u1 - u1) < 1e-12, "%s: U1 %.17g, want %.17g", name, t.u1, u1);
	CHECK(fabs(t.u2 - ((double)(n1 * n2) - u1)) < 1e-12, "%s: U2 %.17g", name, t.u2);
	CHECK(fabs(t.p - p) < 1e-12, "%s: p %.17g, want %.17g", name, t.p, p);
	CHECK(t.exact == exact, "%s: exact %d, want %d", name, t.exact, exact);
}

static void test_mwu(void)
{
	/*
	 * Exact: there are C(10,5) = 252 equally likely rank sets for x; only one
	 * gives U1 = 0 and one gives U1 = 25, so p = 2/252.
	 */
	mwu_case("separated 5v5", (double[]){ 1, 2, 3, 4, 5 }, 5, (double[]){ 6, 7, 8, 9, 10 }, 5,
		 0, 2.0 / 252, true);
	mwu_case("separated reversed", (double[]){ 6, 7, 8, 9, 10 }, 5, (double[]){ 1, 2, 3, 4, 5 }, 5,
		 25, 2.0 / 252, true);
	/* 3v3: C(6,3) = 20 sets, U1 = 0 once: p = 2/20. */
	mwu_case("separated 3v3", (double[]){ 1, 2, 3 }, 3, (double[]){ 4, 5, 6 }, 3, 0, 0.1, true);
	/*
	 * x = 1,3,5 vs y = 2,4,6: ranks of x 1+3+5 = 9, U1 = 9 - 6 = 3, U2 = 6.
	 * U counts for 3v3 over u = 0..9: 1 1 2 3 3 3 3 2 1 1; P(U >= 6) = 7/20.
	 */
	mwu_case("interleaved 3v3", (double[]){ 1, 3, 5 }, 3, (double[]){ 2, 4, 6 }, 3, 3, 0.7, true);
	/* One observation each: U in {0, 1} with probability 1/2: p = 1. */
	mwu_case("1v1", (double[]){ 1 }, 1, (double[]){ 2 }, 1, 0, 1.0, true);
	/*
	 * Ties -> normal approximation. x = 1,2,2,3; y = 2,3,4,5. Ranks: 1 -> 1,
	 * the three 2s -> 3, the two 3s -> 5.5, 4 -> 7, 5 -> 8. R1 = 12.5,
	 * U1 = 12.5 - 10 = 2.5, U2 = 13.5. Tie term 3^3-3 + 2^3-2 = 30.
	 * var = 16/12 * (9 - 30/56) = 79/7; z = (13.5 - 8 - 0.5)/sqrt(79/7);
	 * p = erfc(z / sqrt 2).
	 */
	mwu_case("ties 4v4", (double[]){ 1, 2, 2, 3 }, 4, (double[]){ 2, 3, 4, 5 }, 4, 2.5,
		 erfc(5.0 / sqrt(79.0 / 7.0) / sqrt(2.0)), false);
	/* All values equal: no evidence at all. */
	mwu_case("all equal", (double[]){ 3, 3, 3 }, 3, (double[]){ 3, 3, 3, 3 }, 4, 6, 1.0, false);
	/*
	 * No ties but 26 a side (over RG_MWU_EXACT_MAX): normal, var = 26*26*53/12,
	 * x = 1..26 below y = 27..52: U2 = 676, z = (676 - 338 - 0.5)/sqrt(var).
	 */
	{
		double x[26], y[26];

		for (int i = 0; i < 26; i++) {
			x[i] = i + 1;
			y[i] = i + 27;
		}
		mwu_case("26v26", x, 26, y, 26, 0,
			 erfc((676 - 338 - 0.5) / sqrt(26.0 * 26 * 53 / 12) / sqrt(2.0)), false);
	}
	{
		struct rg_mwu t;

		CHECK(rg_mwu_test((double[]){ 1 }, 1, NULL, 0, &t) == -1, "empty side accepted");
	}
}

/* One name through Markdown's sanitizer (rg_md_text) into a buffer of size bytes: exactly want? */
static void md_case(const char *in, size_t size, const char *want)
{
	char buf[256];

	rg_md_text(buf, size, in);
	CHECK(!strcmp(buf, want), "markdown '%s' (size %zu): got '%s', want '%s'", in, size, buf, want);
}

/* One string through rg_str_printable into a buffer of size bytes: exactly want? */
static void printable_case(const char *in, size_t size, const char *want)
{
	char buf[64];

	rg_str_printable(buf, size, in);
	CHECK(!strcmp(buf, want), "printable '%s' (size %zu): got '%s', want '%s'", in, size, buf, want);
}

/*
 * What the writer writes, the reader reads (issue 19): names, a host and a
 * reason holding bytes that are not UTF-8 come back as printable UTF-8
 * with '?' for each such byte, from the CSV and from the JSON.
 */
static void test_write_read_utf8(void)
{
	char dir[] = "/tmp/rg-utf8-XXXXXX", csv[64], json[64], err[1024] = "";
	struct rg_resultset rs;
	struct rg_rows rows = { 0 };
	struct rg_result *r;
	struct rg_env env;

	printable_case("plain", 64, "plain");
	printable_case("\xc2\xb5s \xe2\x9c\x93 \xf0\x9f\x98\x80", 64, "\xc2\xb5s \xe2\x9c\x93 \xf0\x9f\x98\x80");
	printable_case("a\xff" "b\xc3(c", 64, "a?b?(c");			/* stray, then a lead without its tail */
	printable_case("\xc0\xaf \xe0\x80\xaf \xed\xa0\x80 \xf4\x90\x80\x80", 64,
		       "?? ??? ??? ????");				/* overlong, surrogate, > U+10FFFF */
	printable_case("x\xe2\x9c", 64, "x??");				/* cut off at the end */
	printable_case("t\tw\x01\x7f\xc2\x85", 64, "t w???");		/* controls, C1 NEL */
	printable_case("a\xe2\x9c\x93", 4, "a");				/* never half a character */
	printable_case("a\xe2\x9c\x93", 5, "a\xe2\x9c\x93");
	/*
	 * Issue 36 item 8: Markdown's one sanitizer. A tag, a link, code, emphasis, a
	 * table's cell border, math and an autolink stay text; a control is made
	 * printable first; '_' inside a word (x86_64) is left; never cut after a
	 * lone backslash or inside a character.
	 */
	md_case("<img src=x onerror=alert(1)>", 64, "\\<img src=x onerror=alert(1)\\>");
	md_case("[x](https:evil).json", 64, "\\[x\\](https:evil).json");
	md_case("a|b`c\"d,e", 64, "a\\|b\\`c\"d,e");
	md_case("*x* _y_ ~~z~~ $m$ #1 !&amp; \\", 64,
		"\\*x\\* \\_y\\_ \\~\\~z\\~\\~ \\$m\\$ \\#1 \\!\\&amp; \\\\");
	md_case("x86_64 this_cpu_inc _lead", 64, "x86_64 this_cpu_inc \\_lead");
	md_case("see https://evil.example", 64, "see https\\://evil.example");
	md_case("a\tb\nc\x1b[1m", 64, "a b c?\\[1m");
	md_case("ab<", 4, "ab");				/* "ab\\" would escape what follows */
	md_case("a\xc3\xa9<", 4, "a\xc3\xa9");
	CHECK(rg_md_word_starts_block("-", 1) && rg_md_word_starts_block("---", 3) &&
	      rg_md_word_starts_block("+", 1) && rg_md_word_starts_block("==", 2) &&
	      rg_md_word_starts_block("1.", 2) && rg_md_word_starts_block("12)", 3) &&
	      !rg_md_word_starts_block("-x", 2) && !rg_md_word_starts_block("6.18", 4) &&
	      !rg_md_word_starts_block("1.,", 3) && !rg_md_word_starts_block("+1", 2) &&
	      !rg_md_word_starts_block("a.", 2), "rg_md_word_starts_block");
	{	/* a page repaired in place: line ends and tabs kept, each stray byte '?' */
		char page[] = "ok \xc3\xa9 \xc3(\n\tx\xff\xe2\x9c";
		size_t bad = rg_utf8_repair(page);

		CHECK(bad == 4 && !strcmp(page, "ok \xc3\xa9 ?(\n\tx???"), "repair: %zu '%s'", bad, page);
	}

	CHECK(mkdtemp(dir), "mkdtemp");
	snprintf(csv, sizeof(csv), "%s/r.csv", dir);
	snprintf(json, sizeof(json), "%s/r.json", dir);
	memset(&env, 0, sizeof(env));
	snprintf(env.host, sizeof(env.host), ".h\xc3(d/$n\xff");
	snprintf(env.cpu_model, sizeof(env.cpu_model), "M\xe2\x82");
	rg_results_init(&rs, &env);
	r = rg_results_add(&rs, "user", "t\xc0\xafls", "pair");
	CHECK(r, "add");
	snprintf(r->status, sizeof(r->status), "skipped");
	snprintf(r->reason, sizeof(r->reason), "why \xed\xa0\x80 \xc2\xb5s");
	CHECK(!rg_results_write(&rs, csv, json, err, sizeof(err)), "write: %s", err);
	rg_output_release();
	for (int i = 0; i < 2; i++) {
		const char *path = i ? json : csv;

		CHECK(!rg_read_path(path, &rows, err, sizeof(err)) && rows.n == 1, "read %s: %s", path, err);
		if (rows.n != 1)
			continue;
		CHECK(!strcmp(rg_row_s(&rows.v[0], RG_COL_host), ".h?(d/$n?"), "%s host: '%s'", path,
		      rg_row_s(&rows.v[0], RG_COL_host));
		CHECK(!strcmp(rg_row_s(&rows.v[0], RG_COL_cpu_model), "M??"), "%s cpu_model: '%s'", path,
		      rg_row_s(&rows.v[0], RG_COL_cpu_model));
		CHECK(!strcmp(rg_row_s(&rows.v[0], RG_COL_guard), "t??ls"), "%s guard: '%s'", path,
		      rg_row_s(&rows.v[0], RG_COL_guard));
		CHECK(!strcmp(rg_row_s(&rows.v[0], RG_COL_reason), "why ??? \xc2\xb5s"), "%s reason: '%s'",
		      path, rg_row_s(&rows.v[0], RG_COL_reason));
		rg_rows_free(&rows);
	}
	rg_results_free(&rs);
	unlink(csv);
	unlink(json);
	rmdir(dir);
}

/*
 * The interval of the shift the U test inverts, against hand-computed order
 * statistics and levels of the exact distribution of U.
 */
static void test_mwu_ci(void)
{
	struct rg_mwu_ci ci;

	/*
	 * 5v5 without ties: U counts for u = 0, 1, 2, 3 are 1, 1, 2, 3 of 252, so
	 * P(U <= 2) = 4/252 keeps 1 - 8/252 = 96.8 % and P(U <= 3) = 7/252 would
	 * give 94.4 %: k = 3, the 3rd and 23rd of the 25 sorted differences
	 * y - x (10 11 12 ... : d[2] = 7, d[22] = 13).
	 */
	CHECK(!rg_mwu_shift_ci((double[]){ 1, 2, 3, 4, 5 }, 5, (double[]){ 11, 12, 13, 14, 15.5 }, 5,
			       &ci), "5v5 interval failed");
	CHECK(ci.lo == 7 && ci.hi == 13 && fabs(ci.level - (1 - 8.0 / 252)) < 1e-12 && ci.exact,
	      "5v5: [%g, %g] at %.17g (exact %d), want [7, 13] at 1 - 8/252", ci.lo, ci.hi, ci.level,
	      ci.exact);
	/* 2v2: no k reaches 95 %; [min, max] with its real level, 1 - 2 P(U = 0) = 1 - 2/6. */
	CHECK(!rg_mwu_shift_ci((double[]){ 1, 2 }, 2, (double[]){ 5, 9 }, 2, &ci), "2v2 interval failed");
	CHECK(ci.lo == 3 && ci.hi == 8 && fabs(ci.level - (1 - 2.0 / 6)) < 1e-12,
	      "2v2: [%g, %g] at %.17g, want [3, 8] at 2/3", ci.lo, ci.hi, ci.level);
	/* Ties: the normal approximation, a level of at least 95 % around the shift of 10. */
	CHECK(!rg_mwu_shift_ci((double[]){ 1, 2, 2, 3, 4, 5 }, 6, (double[]){ 11, 12, 12, 13, 14, 15 }, 6,
			       &ci), "ties interval failed");
	CHECK(!ci.exact && ci.level >= 0.95 && ci.level < 1 && ci.lo <= 10 && ci.hi >= 10 && ci.lo < ci.hi,
	      "ties: [%g, %g] at %g (exact %d)", ci.lo, ci.hi, ci.level, ci.exact);
	CHECK(rg_mwu_shift_ci((double[]){ 1 }, 1, NULL, 0, &ci) == -1 && isnan(ci.level),
	      "empty side accepted");
}

int unit_mwu_utf8(void)
{
	test_mwu();
	test_mwu_ci();
	test_write_read_utf8();
	return rg_test_failures;
}
