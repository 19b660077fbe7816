// SPDX-License-Identifier: MIT
/* rg-guard-table: print the markdown tables generated from guards.def (docs/guards.md), check a file's copy, or rewrite it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rg/parts.h"
#include "rg/registry.h"

struct table {
	const char *option, *what, *begin, *end;
	void (*print)(FILE *f);
};

static const struct table tables[] = {
	{ "--check", "guard", "<!-- guards:begin -->", "<!-- guards:end -->", rg_guard_print_table },
	{ "--check-kernel", "kernel-source", "<!-- kernel-table:begin -->", "<!-- kernel-table:end -->",
	  rg_guard_print_kernel_table },
	{ "--check-roles", "roles", "<!-- roles-table:begin -->", "<!-- roles-table:end -->",
	  rg_guard_print_roles_table },
	{ "--check-parts", "parts", "<!-- parts-table:begin -->", "<!-- parts-table:end -->",
	  rg_parts_print_table },
};
#define NTABLES (sizeof(tables) / sizeof(tables[0]))

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	size_t cap = 4096, n = 0;
	char *buf;

	if (!f)
		return NULL;
	buf = malloc(cap);
	while (buf) {
		size_t got = fread(buf + n, 1, cap - n - 1, f);

		n += got;
		if (got == 0)
			break;
		if (n + 1 == cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (buf)
		buf[n] = '\0';
	*len = n;
	return buf;
}

/* The table as printed, without trailing line ends. NULL on ENOMEM. */
static char *render(const struct table *t)
{
	char *want = NULL;
	size_t wlen = 0;
	FILE *mem = open_memstream(&want, &wlen);

	if (!mem)
		return NULL;
	t->print(mem);
	fclose(mem);
	while (wlen && want[wlen - 1] == '\n')
		want[--wlen] = '\0';
	return want;
}

/* The first m in text that starts a line (a marker quoted in prose is not one). */
static const char *marker(const char *text, const char *from, const char *m)
{
	for (const char *p = from; (p = strstr(p, m)); p++)
		if (p == text || p[-1] == '\n')
			return p;
	return NULL;
}

/*
 * The copy of t in text, searched from `from`: [*b, *e) between the markers
 * (each at the start of a line), line ends around it left out.
 */
static int find(const char *text, const char *from, const struct table *t,
		const char **b, const char **e)
{
	*b = marker(text, from, t->begin);
	*e = *b ? marker(text, *b, t->end) : NULL;
	if (!*b || !*e)
		return -1;
	*b += strlen(t->begin);
	while (**b == '\n')
		(*b)++;
	while (*e > *b && (*e)[-1] == '\n')
		(*e)--;
	return 0;
}

static int check(const char *path, const struct table *t)
{
	size_t len;
	char *text = slurp(path, &len), *want = render(t);
	const char *b, *e;
	int rc = 1;

	if (!text)
		fprintf(stderr, "rg-guard-table: cannot read %s: %s\n", path, strerror(errno));
	else if (!want)
		fprintf(stderr, "rg-guard-table: out of memory\n");
	else if (find(text, text, t, &b, &e))
		fprintf(stderr, "rg-guard-table: %s has no %s ... %s section\n", path, t->begin, t->end);
	else if ((size_t)(e - b) != strlen(want) || memcmp(b, want, (size_t)(e - b)))
		fprintf(stderr, "rg-guard-table: the %s table in %s differs from guards.def; "
			"regenerate it with `cmake --build build --target tables`, or replace it with:\n%s\n",
			t->what, path, want);
	else {
		printf("%s: %s table matches guards.def (%d guards)\n", path, t->what, RG_GUARD__COUNT);
		rc = 0;
	}
	free(text);
	free(want);
	return rc;
}

/* Rewrite every table section path holds, through a temporary file renamed over it. */
static int write_tables(const char *path)
{
	size_t len;
	char *text = slurp(path, &len), tmp[4096];
	int n = 0, rc = 1;
	FILE *f;

	if (!text) {
		fprintf(stderr, "rg-guard-table: cannot read %s: %s\n", path, strerror(errno));
		return 1;
	}
	snprintf(tmp, sizeof(tmp), "%s.rg-guard-table.%ld.tmp", path, (long)getpid());
	f = fopen(tmp, "wx");
	if (!f) {
		fprintf(stderr, "rg-guard-table: cannot create %s: %s\n", tmp, strerror(errno));
		free(text);
		return 1;
	}
	for (const char *p = text;;) {
		const struct table *next = NULL;
		const char *nb = NULL, *ne = NULL;

		for (size_t i = 0; i < NTABLES; i++) {
			const char *b, *e;

			if (!find(text, p, &tables[i], &b, &e) && (!nb || b < nb)) {
				next = &tables[i];
				nb = b;
				ne = e;
			}
		}
		if (!next) {
			fputs(p, f);
			break;
		}
		char *want = render(next);

		if (!want)
			goto out;
		fwrite(p, 1, (size_t)(nb - p), f);
		fputs(want, f);
		free(want);
		p = ne;
		n++;
	}
	if (fflush(f) || ferror(f))
		goto out;
	if (rename(tmp, path)) {
		fprintf(stderr, "rg-guard-table: cannot replace %s: %s\n", path, strerror(errno));
		goto out;
	}
	printf("%s: %d table(s) written from guards.def\n", path, n);
	rc = 0;
out:
	fclose(f);
	if (rc)
		unlink(tmp);
	free(text);
	return rc;
}

int main(int argc, char **argv)
{
	if (rg_guard_roles_check(stderr))
		return 1;
	if (argc == 1) {
		rg_guard_print_table(stdout);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--kernel")) {
		rg_guard_print_kernel_table(stdout);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--roles")) {
		rg_guard_print_roles_table(stdout);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--parts")) {
		rg_parts_print_table(stdout);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "--write")) {
		int rc = 0;

		for (int i = 2; i < argc; i++)
			rc |= write_tables(argv[i]);
		return rc;
	}
	for (size_t i = 0; argc == 3 && i < NTABLES; i++)
		if (!strcmp(argv[1], tables[i].option))
			return check(argv[2], &tables[i]);
	fprintf(stderr, "usage: rg-guard-table [--kernel | --roles | --parts] [--check docs/guards.md] "
		"[--check-kernel docs/guards.md] [--check-roles docs/guards.md] "
		"[--check-parts docs/guards.md] [--write FILE...]\n");
	return 2;
}
