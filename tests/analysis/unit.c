// SPDX-License-Identifier: MIT
/* Unit tests of the report library: the reader on buffers and on CSV/JSON pairs (unit_mwu_utf8.c has the rest). */
#define _GNU_SOURCE
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rg/cmdline.h"
#include "rg/compare.h"
#include "rg/page.h"
#include "rg/results.h"

#include "check.h"
#include "unit.h"

/* ---- reader --------------------------------------------------------------- */

static const char *names[] = {
#define X(name, kind, since, doc) #name,
	RG_RESULT_COLUMNS(X)
#undef X
};

#define RG_XSTR(x) #x
#define RG_STR(x) RG_XSTR(x)

/* make_csv leaves out every column newer than this schema version (and writes its missing numbers). */
static int file_version = RG_SCHEMA_VERSION;

/* A missing number in a CSV of file_version: empty from schema 6 on, n/a before. */
static const char *missing(void)
{
	return file_version >= 6 ? "" : "n/a";
}

/* A valid value for every column of a user row. */
static const char *default_value(const char *col)
{
	static const struct { const char *c, *v; } d[] = {
		{ "schema_version", RG_STR(RG_SCHEMA_VERSION) }, { "suite", "user" }, { "guard", "tls" },
		{ "scenario", "pair" }, { "threads", "2" }, { "batch", "1000" }, { "duty_ns", "0" },
		{ "repetitions", "5" }, { "ns_median", "1.5" },
		{ "lse", "0" }, { "rseq", "1" }, { "refusals", "0" }, { "ops", "123" },
		{ "prog_runs", "0" }, { "ab_label", "base" }, { "ab_boot", "3" },
		{ "status", "ok" }, { "reason", "" }, { "host", "h" }, { "cpu_model", "\"A, B\"" },
	};

	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++)
		if (!strcmp(d[i].c, col))
			return d[i].v;
	if (!strcmp(col, "discarded") || !strcmp(col, "runs"))
		return !strcmp(col, "runs") ? "1" : "0";
	if (!strcmp(col, "aa_floor_ns") || !strcmp(col, "mops_median"))
		return missing();
	if (strstr(col, "ns_") == col || strstr(col, "mops_") == col || strstr(col, "_per_") ||
	    strstr(col, "delta_") == col || strstr(col, "lat_") == col || strstr(col, "_ns_median") ||
	    strstr(col, "ref_") == col || !strcmp(col, "duty_in_ns"))
		return "2.25";
	return "x";
}

/* make_csv leaves this column out (a version 1 file has no `events`). */
static const char *omit_col;

/* The version that added a column (the reader's rule, restated). */
static int col_version(const char *n)
{
	static const char *const v3[] = {
		"run_id", "virt", "role", "baseline", "interleave", "delta_ns", "delta_ci_lo",
		"delta_ci_hi", "cpu_ns_median", "wall_ns_median", "discarded", "lat_p50_ns",
		"lat_p90_ns", "lat_p99_ns", "lat_p999_ns", "lat_max_ns",
	};

	static const char *const v4[] = {
		"duty_in_ns", "delta_ci_level", "ref_ns_per_cycle", "ref_cv", "ref_cycles_per_pair",
	};
	static const char *const v5[] = { "runs", "aa_floor_ns", "layout" };

	if (!strcmp(n, "events"))
		return 2;
	if (!strcmp(n, "unit") || !strcmp(n, "cpus_why") || !strcmp(n, "ab_label") || !strcmp(n, "ab_boot"))
		return 6;
	for (size_t i = 0; i < sizeof(v5) / sizeof(v5[0]); i++)
		if (!strcmp(n, v5[i]))
			return 5;
	if (!strcmp(n, "pmu_table") || !strcmp(n, "prog_runs"))
		return 5;
	for (size_t i = 0; i < sizeof(v4) / sizeof(v4[0]); i++)
		if (!strcmp(n, v4[i]))
			return 4;
	for (size_t i = 0; i < sizeof(v3) / sizeof(v3[0]); i++)
		if (!strcmp(n, v3[i]))
			return 3;
	return 1;
}

static bool omitted(const char *n)
{
	return (omit_col && !strcmp(n, omit_col)) || col_version(n) > file_version;
}

/* Set the schema_version field of every row of a make_csv() text to v. */
static void set_row_versions(char *s, char v)
{
	char want[4] = { '\n', (char)('0' + RG_SCHEMA_VERSION), ',', 0 };

	for (char *p = s; (p = strstr(p, want)); p++)
		p[1] = v;
}

/*
 * A CSV with the header in order (or reversed), an optional extra column, and
 * nrows rows (guard tls, tls2, ...) where column `col` of the last row is `val`.
 */
static char *make_csv(bool reversed, bool extra, int nrows, const char *col, const char *val)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int n = RG_NCOLS;

	for (int k = 0, first = 1; k < n; k++) {
		if (omitted(names[reversed ? n - 1 - k : k]))
			continue;
		fprintf(f, "%s%s", first ? "" : ",", names[reversed ? n - 1 - k : k]);
		first = 0;
	}
	if (extra)
		fputs(",comment", f);
	fputc('\n', f);
	for (int r = 0; r < nrows; r++) {
		for (int k = 0, first = 1; k < n; k++) {
			const char *c = names[reversed ? n - 1 - k : k];
			const char *v = default_value(c);
			char g[32];

			if (omitted(c))
				continue;

			if (!strcmp(c, "guard") && r) {
				snprintf(g, sizeof(g), "tls%d", r);
				v = g;
			}
			if (r == nrows - 1 && col && !strcmp(c, col))
				v = val;
			fprintf(f, "%s%s", first ? "" : ",", v);
			first = 0;
		}
		if (extra)
			fputs(",\"free text, with a comma\"", f);
		fputc('\n', f);
	}
	fclose(f);
	return buf;
}

static void expect_ok(const char *name, const char *buf, size_t nrows)
{
	struct rg_rows rows = { 0 };
	char err[1024] = "";

	CHECK(!rg_read_buffer(name, buf, strlen(buf), &rows, err, sizeof(err)), "%s: %s", name, err);
	CHECK(rows.n == nrows, "%s: %zu rows, want %zu", name, rows.n, nrows);
	rg_rows_free(&rows);
}

static void expect_err(const char *name, const char *buf, size_t len, const char *want)
{
	struct rg_rows rows = { 0 };
	char err[1024] = "";

	CHECK(rg_read_buffer(name, buf, len, &rows, err, sizeof(err)) == -1, "%s: accepted", name);
	CHECK(strstr(err, want) != NULL, "%s: error '%s', want '%s'", name, err, want);
	CHECK(!strchr(err, '\n'), "%s: multi-line error", name);
	rg_rows_free(&rows);
}

static const char *kinds[] = {
#define X(name, kind, since, doc) #kind,
	RG_RESULT_COLUMNS(X)
#undef X
};

/* A one-row JSON file: version at the top, row_version in the row, `events` or not. */
static char *make_json(int version, int row_version, bool events)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fprintf(f, "{\"schema_version\":%d,%s\"results\":[\n{", version,
		version >= 3 ? "\"run_id\":\"x\"," : "");
	for (int k = 0, first = 1; k < RG_NCOLS; k++) {
		const char *n = names[k], *kd = kinds[k];

		if ((!events && !strcmp(n, "events")) ||
		    (strcmp(n, "events") && col_version(n) > version))
			continue;
		fprintf(f, "%s\"%s\":", first ? "" : ",", n);
		first = 0;
		if (!strcmp(n, "schema_version"))
			fprintf(f, "%d", row_version);
		else if (!strcmp(n, "events"))
			fputs("\"mem_access=2.010;bus_access=0.500\"", f);
		else if (!strcmp(kd, "S"))
			fprintf(f, "\"%s\"", !strcmp(n, "suite") ? "user" : !strcmp(n, "status") ? "ok" :
				!strcmp(n, "guard") ? "tls" : !strcmp(n, "scenario") ? "pair" : "x");
		else if (!strcmp(kd, "D"))
			fputs("1.5", f);
		else
			fputs(!strcmp(n, "threads") ? "1" : "0", f);
	}
	fputs("}]}\n", f);
	fclose(f);
	return buf;
}

/* A CSV of nrows rows that say version v (file_version is the header's), col = val in each. */
static char *versioned_csv(char v, int nrows, const char *col, const char *val)
{
	char *s = make_csv(false, false, nrows, col, val);

	set_row_versions(s, v);
	return s;
}

/* Rows of version v under a header without a column v needs: refused with want. */
static void expect_missing(char v, int nrows, const char *want)
{
	char name[] = "vN.csv", *s = versioned_csv(v, nrows, NULL, NULL);

	name[1] = v;
	expect_err(name, s, strlen(s), want);
	free(s);
}

/*
 * Version 1 files (no `events`), version 2 files (`events` required) and
 * version 3 files (run id, virt, role, deltas, time bases, latency), CSV and JSON.
 */
static void test_versions(void)
{
	char *t;
	struct rg_rows rows = { 0 };
	char err[1024] = "", *s;

	/* CSV, version 1: no events and no version 3 column; the rows read them as empty. */
	file_version = 1;
	s = versioned_csv('1', 2, NULL, NULL);
	CHECK(!rg_read_buffer("v1.csv", s, strlen(s), &rows, err, sizeof(err)), "v1.csv: %s", err);
	CHECK(rows.n == 2, "v1.csv: %zu rows", rows.n);
	for (size_t i = 0; i < rows.n; i++) {
		CHECK(rg_row_i(&rows.v[i], RG_COL_schema_version) == 1, "v1.csv version");
		CHECK(!strcmp(rg_row_s(&rows.v[i], RG_COL_events), ""), "v1.csv events '%s'",
		      rg_row_s(&rows.v[i], RG_COL_events));
		CHECK(isnan(rg_row_d(&rows.v[i], RG_COL_delta_ns)), "v1.csv delta_ns not n/a");
		CHECK(!strcmp(rg_row_s(&rows.v[i], RG_COL_run_id), ""), "v1.csv run_id");
	}
	rg_rows_free(&rows);
	free(s);
	/* A version 2 row needs events ... */
	file_version = 2;
	omit_col = "events";
	expect_missing('2', 3, "v2.csv:2: required column 'events' is missing from the header (schema version 2)");
	omit_col = NULL;

	/* CSV, version 2: events comes through, version 3 columns read as n/a. */
	s = versioned_csv('2', 1, "events", "mem_access=2.010;ll_cache_miss_rd=0.000");
	CHECK(!rg_read_buffer("v2.csv", s, strlen(s), &rows, err, sizeof(err)), "v2.csv: %s", err);
	CHECK(rows.n == 1 && !strcmp(rg_row_s(&rows.v[0], RG_COL_events),
				     "mem_access=2.010;ll_cache_miss_rd=0.000"), "v2.csv events");
	CHECK(rows.n == 1 && isnan(rg_row_d(&rows.v[0], RG_COL_cpu_ns_median)), "v2.csv cpu_ns n/a");
	rg_rows_free(&rows);
	free(s);
	/* ... and a version 3 row needs every version 3 column. */
	expect_missing('3', 1, "v3.csv:2: required column 'run_id' is missing from the header (schema version 3)");

	/* CSV, version 3: the version 4 columns (interval level, duty split, cycle reference) read as n/a. */
	file_version = 3;
	s = versioned_csv('3', 1, "delta_ns", "0.5");
	CHECK(!rg_read_buffer("v3.csv", s, strlen(s), &rows, err, sizeof(err)), "v3.csv: %s", err);
	CHECK(rows.n == 1, "v3.csv: %zu rows", rows.n);
	for (size_t i = 0; i < rows.n; i++) {
		CHECK(rg_row_d(&rows.v[i], RG_COL_delta_ns) == 0.5, "v3.csv delta_ns");
		CHECK(isnan(rg_row_d(&rows.v[i], RG_COL_delta_ci_level)), "v3.csv delta_ci_level not n/a");
		CHECK(isnan(rg_row_d(&rows.v[i], RG_COL_ref_ns_per_cycle)), "v3.csv ref_ns_per_cycle not n/a");
		CHECK(isnan(rg_row_d(&rows.v[i], RG_COL_duty_in_ns)), "v3.csv duty_in_ns not n/a");
	}
	rg_rows_free(&rows);
	free(s);
	/* ... and a version 4 row needs every version 4 column. */
	expect_missing('4', 1,
		       "v4.csv:2: required column 'duty_in_ns' is missing from the header (schema version 4)");

	/* CSV, version 5: a missing number is n/a (an empty field is not a number there); no unit, no cpus_why. */
	file_version = 5;
	s = versioned_csv('5', 2, "ns_median", "n/a");
	CHECK(!rg_read_buffer("v5.csv", s, strlen(s), &rows, err, sizeof(err)), "v5.csv: %s", err);
	CHECK(rows.n == 2, "v5.csv: %zu rows", rows.n);
	for (size_t i = 0; i < rows.n; i++) {
		CHECK(rg_row_i(&rows.v[i], RG_COL_schema_version) == 5, "v5.csv version");
		CHECK(isnan(rg_row_d(&rows.v[i], RG_COL_mops_median)), "v5.csv mops_median n/a");
		CHECK(isnan(rg_row_d(&rows.v[i], RG_COL_aa_floor_ns)), "v5.csv aa_floor_ns n/a");
		CHECK(rg_row_d(&rows.v[i], RG_COL_cpu_ns_median) == 2.25, "v5.csv cpu_ns_median");
		CHECK(!strcmp(rg_row_s(&rows.v[i], RG_COL_unit), "") &&
		      !strcmp(rg_row_s(&rows.v[i], RG_COL_cpus_why), ""), "v5.csv unit, cpus_why read as empty");
	}
	CHECK(rows.n == 2 && isnan(rg_row_d(&rows.v[1], RG_COL_ns_median)), "v5.csv ns_median n/a");
	rg_rows_free(&rows);
	free(s);
	s = versioned_csv('5', 2, "ns_median", "");
	expect_err("v5.csv", s, strlen(s), "v5.csv:3: column 'ns_median': '' is not a number or n/a");
	free(s);

	/* CSV, version 6: a missing number is an empty field; the unit and cpus_why come through. */
	file_version = 6;
	s = versioned_csv('6', 2, "ns_median", "");
	CHECK(!rg_read_buffer("v6.csv", s, strlen(s), &rows, err, sizeof(err)), "v6.csv: %s", err);
	CHECK(rows.n == 2 && isnan(rg_row_d(&rows.v[1], RG_COL_ns_median)) &&
	      rg_row_d(&rows.v[0], RG_COL_ns_median) == 1.5 && isnan(rg_row_d(&rows.v[0], RG_COL_mops_median)) &&
	      !strcmp(rg_row_s(&rows.v[0], RG_COL_unit), "x") && !strcmp(rg_row_s(&rows.v[0], RG_COL_cpus_why), "x"),
	      "v6.csv: empty = missing");
	rg_rows_free(&rows);
	free(s);
	omit_col = "cpus_why";
	expect_missing('6', 1,
		       "v6.csv:2: required column 'cpus_why' is missing from the header (schema version 6)");
	omit_col = NULL;
	file_version = RG_SCHEMA_VERSION;

	/* CSV, version 3: a negative difference is legal, a negative time is not. */
	s = make_csv(false, false, 1, "delta_ns", "-0.25");
	CHECK(!rg_read_buffer("v3.csv", s, strlen(s), &rows, err, sizeof(err)), "v3.csv: %s", err);
	CHECK(rows.n == 1 && rg_row_d(&rows.v[0], RG_COL_delta_ns) == -0.25, "v3.csv delta_ns");
	rg_rows_free(&rows);
	free(s);
	s = make_csv(false, false, 1, "cpu_ns_median", "-0.25");
	expect_err("v3.csv", s, strlen(s), "column 'cpu_ns_median': negative value -0.25");
	free(s);
	s = make_csv(false, false, 1, "status", "noisy");
	expect_ok("noisy.csv", s, 1);
	free(s);

	/* The timer comes with the rows, from the same parse: per file, NULL source for a CSV. */
	s = make_json(3, 3, true);
	{
		const char *top = "{\"schema_version\":3,";
		char *doc = malloc(strlen(s) + 200);

		CHECK(doc && !strncmp(s, top, strlen(top)), "timer.json: make_json's top");
		sprintf(doc, "{\"timer\":{\"source\":\"cntvct_el0\",\"hz\":25000000,\"resolution_ns\":40,"
			"\"overhead_ns\":null},%s", s + 1);
		CHECK(!rg_read_buffer("timer.json", doc, strlen(doc), &rows, err, sizeof(err)), "timer.json: %s", err);
		free(doc);
	}
	free(s);
	s = make_csv(false, false, 1, NULL, NULL);
	CHECK(!rg_read_buffer("other.csv", s, strlen(s), &rows, err, sizeof(err)), "other.csv: %s", err);
	CHECK(rows.nfiles == 2 && rows.timers[0].source && !strcmp(rows.timers[0].source, "cntvct_el0") &&
	      rows.timers[0].hz == 25e6 && rows.timers[0].resolution_ns == 40 &&
	      isnan(rows.timers[0].overhead_ns), "timer.json: the timer read with the rows");
	CHECK(rows.nfiles == 2 && !rows.timers[1].source && isnan(rows.timers[1].hz), "other.csv: no timer");
	rg_rows_free(&rows);
	free(s);

	/* JSON, every version. */
	s = make_json(1, 1, false);
	CHECK(!rg_read_buffer("v1.json", s, strlen(s), &rows, err, sizeof(err)), "v1.json: %s", err);
	CHECK(rows.n == 1 && !strcmp(rg_row_s(&rows.v[0], RG_COL_events), ""), "v1.json events");
	rg_rows_free(&rows);
	free(s);
	s = make_json(2, 2, true);
	CHECK(!rg_read_buffer("v2.json", s, strlen(s), &rows, err, sizeof(err)), "v2.json: %s", err);
	CHECK(rows.n == 1 && !strcmp(rg_row_s(&rows.v[0], RG_COL_events),
				     "mem_access=2.010;bus_access=0.500"), "v2.json events");
	rg_rows_free(&rows);
	free(s);
	s = make_json(3, 3, true);
	CHECK(!rg_read_buffer("v3.json", s, strlen(s), &rows, err, sizeof(err)), "v3.json: %s", err);
	CHECK(rows.n == 1 && rg_row_d(&rows.v[0], RG_COL_delta_ns) == 1.5, "v3.json delta_ns");
	rg_rows_free(&rows);
	free(s);
	s = make_json(1, 1, true);
	expect_err("v1.json", s, strlen(s), "v1.json:2: results[0]: field 'events' is not in schema version 1");
	free(s);
	/* Version 3 JSON: the run id at the top is required and is every row's. */
	s = make_json(3, 3, true);
	t = strstr(s, "\"run_id\":\"x\",");
	memmove(t, t + 13, strlen(t + 13) + 1);
	expect_err("v3.json", s, strlen(s), "v3.json:1: no 'run_id' string at the top level (schema version 3)");
	free(s);
	s = make_json(3, 3, true);
	strstr(s, "\"run_id\":\"x\"")[10] = 'y';
	expect_err("v3.json", s, strlen(s), "v3.json:2: results[0]: run_id 'x', the file says 'y'");
	free(s);
	s = make_json(2, 2, false);
	expect_err("v2.json", s, strlen(s), "v2.json:2: results[0]: required field 'events' is missing");
	free(s);
	s = make_json(2, 1, true);
	expect_err("v2.json", s, strlen(s), "v2.json:2: results[0]: schema_version 1, the file says 2");
	free(s);
}

static void test_reader(void)
{
	struct rg_rows rows = { 0 };
	char err[1024] = "", *s, *t;

	/* Column order and extra columns do not matter; values come through exactly. */
	s = make_csv(true, true, 2, NULL, NULL);
	CHECK(!rg_read_buffer("rev.csv", s, strlen(s), &rows, err, sizeof(err)), "rev: %s", err);
	CHECK(rows.n == 2, "rev: %zu rows", rows.n);
	if (rows.n == 2) {
		const struct rg_row *r = &rows.v[1];

		CHECK(!strcmp(rg_row_s(r, RG_COL_guard), "tls1"), "guard %s", rg_row_s(r, RG_COL_guard));
		CHECK(rg_row_i(r, RG_COL_threads) == 2, "threads");
		CHECK(rg_row_i(r, RG_COL_batch) == 1000, "batch");
		CHECK(rg_row_d(r, RG_COL_ns_median) == 1.5, "ns_median");
		CHECK(isnan(rg_row_d(r, RG_COL_mops_median)), "mops n/a");
		CHECK(r->v[RG_COL_ops].u == 123, "ops");
		CHECK(!strcmp(rg_row_s(r, RG_COL_cpu_model), "A, B"), "quoted field '%s'",
		      rg_row_s(r, RG_COL_cpu_model));
		CHECK(r->line == 3, "line %d", r->line);
	}
	rg_rows_free(&rows);
	free(s);

	s = make_csv(false, false, 3, NULL, NULL);
	expect_ok("plain.csv", s, 3);
	{
		/* The same with CRLF line ends and a byte order mark. */
		char *crlf = malloc(strlen(s) * 2 + 4), *o = crlf;

		o += sprintf(o, "\xef\xbb\xbf");
		for (const char *p = s; *p; p++) {
			if (*p == '\n')
				*o++ = '\r';
			*o++ = *p;
		}
		*o = 0;
		expect_ok("crlf.csv", crlf, 3);
		free(crlf);
	}
	free(s);

	struct { const char *col, *val, *want; } bad[] = {
		{ "threads", "abc", "b.csv:4: column 'threads': 'abc' is not an integer" },
		{ "threads", "0", "must be at least 1" },
		{ "duty_ns", "-5", "column 'duty_ns': negative value -5" },
		{ "ns_median", "-1.5", "column 'ns_median': negative value -1.5" },
		{ "ns_median", "nan", "'nan' is not a number (schema version 6 writes a missing number as an empty field)" },
		{ "ns_median", "inf", "'inf' is not a number (schema version 6" },
		{ "ns_median", "1e999", "is not a number (schema version 6" },
		{ "ns_median", "0x10", "is not a number (schema version 6" },
		{ "ns_median", " 1", "is not a number (schema version 6" },
		{ "ns_median", "n/a", "b.csv:4: column 'ns_median': 'n/a' is not a number (schema version 6 writes a missing number as an empty field)" },
		{ "schema_version", "7", "b.csv:4: schema version 7 is not supported (this rgbench reads versions 1 to 6)" },
		{ "schema_version", "0", "b.csv:4: schema version 0 is not supported" },
		{ "schema_version", "1", "b.csv:4: column 'run_id' is not in schema version 1" },
		{ "schema_version", "2", "b.csv:4: column 'run_id' is not in schema version 2" },
		{ "schema_version", "3", "b.csv:4: column 'ab_label' is not in schema version 3" },
		{ "schema_version", "4", "b.csv:4: column 'ab_label' is not in schema version 4" },
		{ "schema_version", "5", "b.csv:4: column 'ab_label' is not in schema version 5" },
		{ "suite", "usr", "'usr' is not user, bpf, kmod or kbench" },
		{ "status", "fine", "is not ok, noisy, skipped or error" },
		{ "lse", "2", "column 'lse': '2' is not 0 or 1" },
		{ "ops", "-1", "is not an unsigned integer" },
		{ "guard", "tls", "b.csv:4: duplicate row user/tls/pair threads=2 duty_ns=0 batch=1000 (first at line 2)" },
		{ "guard", "\"a\"b\"", "character after a closing quote" },
		{ "guard", "a\"b", "quote inside an unquoted field" },
		{ "reason", "\"never closed", "b.csv:4: quoted field never closed" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		s = make_csv(false, false, 3, bad[i].col, bad[i].val);
		expect_err("b.csv", s, strlen(s), bad[i].want);
		free(s);
	}

	s = make_csv(false, false, 2, NULL, NULL);
	expect_err("t.csv", s, strlen(s) - 10, "t.csv:3: last line has no line end (truncated file?)");
	{
		/* A row cut short but still ending in a line feed. */
		char *cut = strdup(s), *nl = strrchr(cut, '\n');
		char *mid;

		*nl = 0;
		mid = strrchr(cut, '\n') + 40;
		strcpy(mid, "\n");
		expect_err("t.csv", cut, strlen(cut), "t.csv:3: row has ");
		expect_err("t.csv", cut, strlen(cut), "(truncated row?)");
		free(cut);
	}
	free(s);

	/* Files given as literals (their length: some hold a NUL byte): empty, delimiters, binary data, JSON. */
	static const struct { const char *name, *buf; size_t len; const char *want; } lit[] = {
		{ "e.csv", "", 0, "e.csv:1: empty file" },
		{ "e.csv", "\n\n  \n", 4, "e.csv:1: empty file" },
		{ "d.csv", "schema_version;suite;guard\n1;user;tls\n", 38, "d.csv:1: header is not comma-separated (found ';' as delimiter)" },
		{ "d.csv", "schema_version\tsuite\n", 21, "found '\\t' as delimiter" },
		{ "m.csv", "schema_version,suite\n1,user\n", 28, "m.csv:1: required column 'rgbench_version' is missing" },
		{ "h.csv", "schema_version,schema_version\n", 30, "column 'schema_version' appears twice" },
		{ "bin", "abc\0def", 7, "bin:1: binary data (byte 0x00 at offset 3)" },
		{ "bin", "a,b\n\xff\xfe\n", 7, "bin:2: binary data (invalid UTF-8 byte 0xff" },
		{ "bin", "a\xc3", 2, "truncated UTF-8" },
		{ "cr.csv", "a,b\rc\n", 6, "carriage return not followed by a line feed" },
		/* JSON */
		{ "j.json", "{\"schema_version\":1,\"results\":[", 31, "j.json:1: invalid JSON:" },
		{ "j.json", "{\"schema_version\":7,\"results\":[]}", 33, "j.json:1: schema version 7 is not supported" },
		{ "j.json", "{\"results\":[]}", 14, "no 'schema_version'" },
		{ "j.json", "{\"schema_version\":1,\"schema_version\":1,\"results\":[]}", 52, "duplicate object key" },
		{ "j.json", "{\"schema_version\":1,\n\"results\":[\n{\"suite\":\"user\"}]}", 51, "j.json:3: results[0]: required field 'schema_version' is missing" },
		{ "j.json", "{\"schema_version\":1,\"x\":NaN,\"results\":[]}", 41, "invalid JSON" },
		{ "j.json", "[1,2]", 5, "top level is not an object" },
		/* No rows: a header alone, an empty results array (issue 11 item 12). */
		{ "j.json", "{\"schema_version\":1,\"results\":[]}", 33, "j.json:1: no rows ('results' is empty)" },
	};
	for (size_t i = 0; i < sizeof(lit) / sizeof(lit[0]); i++)
		expect_err(lit[i].name, lit[i].buf, lit[i].len, lit[i].want);
	s = make_csv(false, false, 0, NULL, NULL);
	expect_err("h.csv", s, strlen(s), "h.csv:1: no rows (a header and nothing else)");
	free(s);
	/* Control characters in any name or text (tab, LF in quotes, ESC, DEL, C1 NEL). */
	{
		static const char *ctl[] = { "\"tl\ns\"", "\"t\tls\"", "\"tl\r\ns\"", "tl\xc2\x85s" };
		static const char *jctl[] = { "t\\nls", "t\\u001bls", "t\\u007fls", "t\\u0085ls" };

		for (size_t i = 0; i < sizeof(ctl) / sizeof(ctl[0]); i++) {
			s = make_csv(false, false, 1, "guard", ctl[i]);
			expect_err("c.csv", s, strlen(s), "c.csv:2: column 'guard': 't");
			expect_err("c.csv", s, strlen(s), "holds a control character");
			free(s);
		}
		/* JSON escapes reach the same check (raw ESC or DEL bytes are binary data). */
		for (size_t i = 0; i < sizeof(jctl) / sizeof(jctl[0]); i++) {
			char *g;

			s = make_json(3, 3, true);
			g = strstr(s, "\"guard\":\"tls\"");
			t = malloc(strlen(s) + 32);
			snprintf(t, strlen(s) + 32, "%.*s\"guard\":\"%s\"%s", (int)(g - s), s, jctl[i],
				 g + strlen("\"guard\":\"tls\""));
			expect_err("c.json", t, strlen(t), "c.json:2: column 'guard': 't?");
			expect_err("c.json", t, strlen(t), "ls' holds a control character");
			free(t);
			free(s);
		}
		s = make_csv(false, false, 1, "reason", "\"two\nlines\"");
		expect_err("c.csv", s, strlen(s), "column 'reason': 'two?lines' holds a control character");
		free(s);
		s = make_csv(false, false, 1, "guard", "t\xc3\xa9ls");	/* UTF-8 letters are fine */
		expect_ok("u.csv", s, 1);
		free(s);
	}
	test_versions();
}

static void write_file(const char *path, const char *data)
{
	FILE *f = fopen(path, "w");

	CHECK(f && fputs(data, f) >= 0 && !fclose(f), "cannot write %s", path);
}

/* A directory's x.csv and x.json are one run only when their run ids agree (issue 11 item 3). */
static void test_pairs(void)
{
	char dir[] = "/tmp/rg-pairs-XXXXXX", p[256], err[1024] = "", *csv, *json;
	struct rg_rows rows = { 0 };
	struct rg_dir_run *runs;
	size_t n;

	CHECK(mkdtemp(dir), "mkdtemp");
	csv = make_csv(false, false, 1, "run_id", "x");	/* make_json's run id is "x" too */
	json = make_json(3, 3, true);
	snprintf(p, sizeof(p), "%s/r.csv", dir);
	write_file(p, csv);
	snprintf(p, sizeof(p), "%s/r.json", dir);
	write_file(p, json);
	CHECK(!rg_list_dir(dir, &runs, &n, err, sizeof(err)) && n == 1 && runs[0].twin &&
	      strstr(runs[0].path, "/r.json") && strstr(runs[0].twin, "/r.csv"), "list: %s", err);
	if (!err[0])
		rg_list_free(runs, n);
	CHECK(!rg_read_path(dir, &rows, err, sizeof(err)) && rows.n == 1, "matching pair: %s", err);
	rg_rows_free(&rows);
	free(csv);
	/* The CSV of another run beside it: refused, naming both files. */
	csv = make_csv(false, false, 1, "run_id", "20260101T000000Z-0011223344556677");
	snprintf(p, sizeof(p), "%s/r.csv", dir);
	write_file(p, csv);
	CHECK(rg_read_path(dir, &rows, err, sizeof(err)) && strstr(err, "/r.csv: not from the same run as ") &&
	      strstr(err, "(run_id '20260101T000000Z-0011223...' and 'x':"), "mismatch: %s", err);
	rg_rows_free(&rows);
	free(csv);
	/* An old (version 2) CSV beside a version 3 JSON: not one run either. */
	file_version = 2;
	csv = make_csv(false, false, 1, "events", "n/a");
	set_row_versions(csv, '2');
	file_version = RG_SCHEMA_VERSION;
	write_file(p, csv);
	CHECK(rg_read_path(dir, &rows, err, sizeof(err)) && strstr(err, "run_id 'none' and 'x'"),
	      "v2 csv beside v3 json: %s", err);
	rg_rows_free(&rows);
	free(csv);
	free(json);
	unlink(p);
	snprintf(p, sizeof(p), "%s/r.json", dir);
	unlink(p);
	rmdir(dir);
}

/*
 * A stop signal ends a read at the next row, not at the file's end (a file of
 * 40000 rows takes seconds): once report, compare, export or plot have caught
 * one, the reader refuses the next row of a CSV and of a JSON file alike.
 */
static void test_stop(void)
{
	char *csv = make_csv(false, false, 3, NULL, NULL), *json = make_json(3, 3, true);

	expect_ok("before.csv", csv, 3);
	expect_ok("before.json", json, 1);
	CHECK(!rg_cl_catch_stop_signals(NULL), "rg_cl_catch_stop_signals");
	raise(SIGHUP);
	CHECK(rg_cl_signal_status() == 128 + SIGHUP, "the signal's status: %d", rg_cl_signal_status());
	expect_err("stop.csv", csv, strlen(csv), "stop.csv:2: interrupted by SIGHUP");
	expect_err("stop.json", json, strlen(json), "stop.json:2: interrupted by SIGHUP");
	CHECK(!rg_cl_catch_stop_signals(NULL), "rg_cl_catch_stop_signals again");	/* (resets it) */
	expect_ok("after.csv", csv, 3);
	expect_ok("after.json", json, 1);
	/* the defaults back: a later stop signal (a ctest timeout) ends this test again */
	signal(SIGHUP, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	free(csv);
	free(json);
}

int main(void)
{
	test_reader();
	test_stop();
	test_pairs();
	rg_test_failures += unit_mwu_utf8();
	rg_test_failures += unit_headline();
	return rg_test_done("report unit tests");
}
