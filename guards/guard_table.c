// SPDX-License-Identifier: MIT
/* rg-guard-table: print the markdown guard tables (README, docs/guards.md), or check a file's copy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/registry.h"

struct table {
	const char *begin, *end;
	void (*print)(FILE *f);
};

static const struct table guards_table = {
	"<!-- guards:begin -->", "<!-- guards:end -->", rg_guard_print_table };
static const struct table kernel_table = {
	"<!-- kernel-table:begin -->", "<!-- kernel-table:end -->", rg_guard_print_kernel_table };

static char *slurp(FILE *f, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);

	while (buf) {
		size_t got = fread(buf + n, 1, cap - n - 1, f);

		n += got;
		if (got == 0)
			break;
		if (n + 1 == cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				return NULL;
			}
			buf = nb;
			cap *= 2;
		}
	}
	if (buf)
		buf[n] = '\0';
	*len = n;
	return buf;
}

static int check(const char *path, const struct table *t)
{
	FILE *f = fopen(path, "r"), *mem;
	char *text, *want = NULL, *b, *e;
	size_t len, wlen = 0;
	int rc;

	if (!f) {
		fprintf(stderr, "rg-guard-table: cannot open %s\n", path);
		return 1;
	}
	text = slurp(f, &len);
	fclose(f);
	mem = open_memstream(&want, &wlen);
	if (!text || !mem) {
		fprintf(stderr, "rg-guard-table: out of memory\n");
		return 1;
	}
	t->print(mem);
	fclose(mem);
	b = strstr(text, t->begin);
	e = b ? strstr(b, t->end) : NULL;
	if (!b || !e) {
		fprintf(stderr, "rg-guard-table: %s has no %s ... %s section\n", path, t->begin, t->end);
		rc = 1;
	} else {
		b += strlen(t->begin);
		while (*b == '\n')
			b++;
		*e = '\0';
		while (e > b && e[-1] == '\n')
			*--e = '\0';
		while (wlen && want[wlen - 1] == '\n')
			want[--wlen] = '\0';
		rc = strcmp(b, want) != 0;
		if (rc)
			fprintf(stderr, "rg-guard-table: the table in %s differs from guards.def; "
				"replace it with:\n%s\n", path, want);
		else
			printf("%s: %s table matches guards.def (%d guards)\n", path,
			       t == &kernel_table ? "kernel-source" : "guard", RG_GUARD__COUNT);
	}
	free(text);
	free(want);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 1) {
		rg_guard_print_table(stdout);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--kernel")) {
		rg_guard_print_kernel_table(stdout);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "--check"))
		return check(argv[2], &guards_table);
	if (argc == 3 && !strcmp(argv[1], "--check-kernel"))
		return check(argv[2], &kernel_table);
	fprintf(stderr, "usage: rg-guard-table [--kernel] [--check README.md] [--check-kernel docs/guards.md]\n");
	return 2;
}
