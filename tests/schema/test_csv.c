// SPDX-License-Identifier: MIT
/* The CSV splitter (rg/csv.h) and the raw atomic writer (rg_output_write): exact fields, errors, lines and files. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rg/csv.h"
#include "rg/schema.h"
#include "../check.h"

/*
 * Split text and compare with want: records separated by '\n', fields by '|'
 * ("" is one empty field). Then the final status: 0 (end) or the error text and line.
 */
static void split_is(const char *text, unsigned int flags, const char *want, const char *err,
		     int err_line)
{
	struct rg_csv s;
	char got[512] = "";
	size_t o = 0;
	int r;

	rg_csv_init(&s, text, strlen(text), flags);
	while ((r = rg_csv_next(&s, NULL)) > 0) {
		for (size_t i = 0; i < s.nf; i++)
			o += snprintf(got + o, sizeof(got) - o, "%s%s", i ? "|" : "", s.f[i]);
		o += snprintf(got + o, sizeof(got) - o, "\n");
	}
	CHECK(!strcmp(got, want), "'%s': records '%s', want '%s'", text, got, want);
	if (err) {
		CHECK(r < 0 && s.err && !strcmp(s.err, err) && s.err_line == err_line,
		      "'%s': r %d error '%s' at %d, want '%s' at %d", text, r, s.err ? s.err : "-",
		      s.err_line, err, err_line);
	} else {
		CHECK(r == 0, "'%s': ended with %d (%s)", text, r, s.err ? s.err : "-");
	}
	rg_csv_free(&s);
}

static void splitter(void)
{
	struct rg_csv s;
	int start = 0;

	split_is("a,b,c\n1,2,3\n", RG_CSV_NEED_EOL, "a|b|c\n1|2|3\n", NULL, 0);
	split_is("a,b\r\n,\r\n", RG_CSV_NEED_EOL, "a|b\n|\n", NULL, 0);
	split_is("x\n\ny\n", 0, "x\n\ny\n", NULL, 0);	/* a blank line: one empty field */
	split_is("\"a,b\",\"say \"\"hi\"\"\",\"\"\n", 0, "a,b|say \"hi\"|\n", NULL, 0);
	split_is(" a , b\n", 0, " a | b\n", NULL, 0);	/* nothing trimmed */
	split_is("a,b", 0, "a|b\n", NULL, 0);		/* the end of input ends the record */
	split_is("a,b", RG_CSV_NEED_EOL, "", "last line has no line end (truncated file?)", 1);
	split_is("h\na,", 0, "h\na|\n", NULL, 0);
	split_is("h\n\"two\nlines\",x\ny,\"open\n", 0, "h\ntwo\nlines|x\n",
		 "quoted field never closed (truncated file?)", 4);
	split_is("h\n\"q\"x\n", 0, "h\n", "character after a closing quote", 2);
	split_is("h\nab\"c\n", 0, "h\n", "quote inside an unquoted field", 2);
	split_is("h\na\rb\n", 0, "h\n", "carriage return not followed by a line feed", 2);
	split_is("", 0, "", NULL, 0);

	/* The start line of a record whose quoted field spans lines; fields are copies. */
	rg_csv_init(&s, "\"1\n2\",b\nc\n", 10, 0);
	CHECK(rg_csv_next(&s, &start) == 1 && start == 1 && s.nf == 2 && s.line == 3,
	      "first record: start %d nf %zu line %d", start, s.nf, s.line);
	CHECK(rg_csv_next(&s, &start) == 1 && start == 3 && s.nf == 1 && !strcmp(s.f[0], "c"),
	      "second record: start %d", start);
	CHECK(rg_csv_next(&s, &start) == 0 && s.nf == 0, "end");
	rg_csv_free(&s);

	/* 70 fields: more than the first allocation of 64. */
	{
		char text[256] = "";

		for (int i = 0; i < 70; i++)
			strcat(text, i ? ",7" : "7");
		strcat(text, "\n");
		rg_csv_init(&s, text, strlen(text), RG_CSV_NEED_EOL);
		CHECK(rg_csv_next(&s, NULL) == 1 && s.nf == 70 && !strcmp(s.f[69], "7"), "70 fields: %zu",
		      s.nf);
		rg_csv_free(&s);
	}
}

static void numbers(void)
{
	unsigned long long v = 7;

	CHECK(rg_csv_u64("0", &v) && v == 0, "0");
	CHECK(rg_csv_u64("18446744073709551615", &v) && v == 18446744073709551615ull, "max");
	CHECK(!rg_csv_u64("18446744073709551616", &v), "overflow accepted");
	for (const char *bad[] = { "", "-1", "+1", " 1", "1 ", "1x", "0x10", "n/a", NULL }, **p = bad;
	     *p; p++)
		CHECK(!rg_csv_u64(*p, &v), "'%s' accepted", *p);
}

static void raw_writer(void)
{
	char dir[] = "/tmp/rg-csv-XXXXXX", path[PATH_MAX], sub[PATH_MAX], err[PATH_MAX + 64];
	char buf[64] = "";
	FILE *f;
	size_t n;

	CHECK(mkdtemp(dir), "mkdtemp");
	snprintf(path, sizeof(path), "%s/raw.csv", dir);
	CHECK(!rg_output_write(path, "old\n", 4, err, sizeof(err)), "write: %s", err);
	CHECK(!rg_output_write(path, "new,1\n", 6, err, sizeof(err)), "rewrite: %s", err);
	f = fopen(path, "r");
	n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	CHECK(n == 6 && !strcmp(buf, "new,1\n"), "content '%s'", buf);
	/* A directory is never replaced; the message names the path; nothing left behind. */
	snprintf(sub, sizeof(sub), "%s/d", dir);
	CHECK(!mkdir(sub, 0755), "mkdir");
	CHECK(rg_output_write(sub, "x", 1, err, sizeof(err)) < 0 && strstr(err, "cannot write ") &&
	      strstr(err, "/d: Is a directory"), "directory: '%s'", err);
	snprintf(sub, sizeof(sub), "%s/no/such/x.csv", dir);
	CHECK(rg_output_write(sub, "x", 1, err, sizeof(err)) < 0 &&
	      strstr(err, "No such file or directory"), "missing directory: '%s'", err);
	snprintf(sub, sizeof(sub), "rm -f '%s/raw.csv' && rmdir '%s/d' '%s'", dir, dir, dir);
	CHECK(system(sub) == 0, "stray files in %s (a temporary file left behind?)", dir);
}

int main(void)
{
	splitter();
	numbers();
	raw_writer();
	return rg_test_done("schema.csv");
}
