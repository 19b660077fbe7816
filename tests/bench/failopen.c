// SPDX-License-Identifier: MIT
/*
 * LD_PRELOAD fault injection for bench.badinput: every open of a path that ends
 * with $RG_FAILOPEN_SUFFIX fails with EMFILE, as when the process has run out of
 * descriptors at that point, whatever this host's sysfs holds. Covers the
 * entries glibc and libstdc++ (std::ifstream) open files through.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hit(const char *path)
{
	const char *want = getenv("RG_FAILOPEN_SUFFIX");
	size_t n, w;

	if (!path || !want || !*want)
		return 0;
	n = strlen(path);
	w = strlen(want);
	if (n < w || strcmp(path + n - w, want))
		return 0;
	errno = EMFILE;
	return 1;
}

#define NEXT(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(ap, int) : 0;
}

/* open() and open64(): the mode only when the flags ask for one. */
#define RG_OPEN(name)								\
	int name(const char *path, int flags, ...)				\
	{									\
		va_list ap;							\
		mode_t m;							\
										\
		va_start(ap, flags);						\
		m = mode_arg(flags, ap);					\
		va_end(ap);							\
		return hit(path) ? -1 : NEXT(name)(path, flags, m);		\
	}
RG_OPEN(open)
RG_OPEN(open64)

int openat(int dir, const char *path, int flags, ...)
{
	va_list ap;
	mode_t m;

	va_start(ap, flags);
	m = mode_arg(flags, ap);
	va_end(ap);
	return hit(path) ? -1 : NEXT(openat)(dir, path, flags, m);
}

FILE *fopen(const char *path, const char *mode)
{
	return hit(path) ? NULL : NEXT(fopen)(path, mode);
}

FILE *fopen64(const char *path, const char *mode)
{
	return hit(path) ? NULL : NEXT(fopen64)(path, mode);
}
