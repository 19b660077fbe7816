/* SPDX-License-Identifier: MIT */
/* Tiny assertion helpers shared by the C tests: report file:line and the values, count failures. */
#ifndef RG_TEST_CHECK_H
#define RG_TEST_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

static int rg_test_failures;

#define CHECK(cond, ...)								\
	do {										\
		if (!(cond)) {								\
			rg_test_failures++;						\
			fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);					\
			fputc('\n', stderr);						\
		}									\
	} while (0)

#define CHECK_EQ(a, b)									\
	do {										\
		uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);			\
		CHECK(a_ == b_, "%s = 0x%" PRIx64 ", expected %s = 0x%" PRIx64, #a, a_, #b, b_); \
	} while (0)

static inline int rg_test_done(const char *name)
{
	if (rg_test_failures) {
		fprintf(stderr, "%s: %d check(s) FAILED\n", name, rg_test_failures);
		return 1;
	}
	printf("%s: all checks passed\n", name);
	return 0;
}

/* -1 when the variable is unset, else its integer value. */
static inline int rg_test_env_int(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? atoi(v) : -1;
}

/*
 * Write root/rel holding len bytes of text, creating the directories on the
 * way (fake /proc and /sys trees for the environment and PMU tests); exits on
 * any error.
 */
static inline void rg_test_put_file(const char *root, const char *rel, const char *text,
				    size_t len)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(path, 0755) && errno != EEXIST) {
			perror(path);
			exit(1);
		}
		*p = '/';
	}
	f = fopen(path, "w");
	if (!f || fwrite(text, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* Remove the tree dir names (rm -rf), if it names one: 0, or -1 when that failed. */
static inline int rg_test_rm_tree(const char *dir)
{
	char cmd[1100];

	if (!dir[0])
		return 0;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

/*
 * Make dir (of size len) name a new empty directory made from template
 * ("/tmp/name.XXXXXX"), after removing the tree it named before (the fake
 * roots of the environment and PMU tests); exits on any error.
 */
static inline void rg_test_fresh_dir(char *dir, size_t len, const char *template)
{
	if (rg_test_rm_tree(dir))
		exit(1);
	snprintf(dir, len, "%s", template);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		exit(1);
	}
}

#endif /* RG_TEST_CHECK_H */
