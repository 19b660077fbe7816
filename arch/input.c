// SPDX-License-Identifier: MIT
/* The input policy (rg/input.h): one non-blocking, type-checked, size-capped way to read a file. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rg/input.h"

static const char *kind_of(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" :
	       S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" :
	       S_ISDIR(m) ? "a directory" : "not a file";
}

static unsigned int mib(size_t max)
{
	return (unsigned int)(max >> 20);
}

static void too_big(unsigned long long size, size_t max, char *why, size_t whylen)
{
	if (max >= (1u << 20))
		snprintf(why, whylen, "file is %llu bytes, over the %u MiB limit", size, mib(max));
	else
		snprintf(why, whylen, "file is %llu bytes, over the %zu byte limit", size, max);
}

int rg_input_open(const char *path, size_t max, unsigned int flags, char *why, size_t whylen)
{
	struct stat st;
	int fd, e, ret;

	if (!*path) {	/* the one wording (rg_cl_file's), not ": cannot open: No such file" */
		snprintf(why, whylen, "an empty file name");
		errno = ENOENT;
		return RG_IN_EOPEN;
	}
	/* Non-blocking: opening a FIFO for reading would wait for a writer. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		e = errno;
		/* A socket cannot be opened (ENXIO): name what it is, as for a FIFO. */
		if (!stat(path, &st) && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
			snprintf(why, whylen, "not a regular file%s (%s)",
				 flags & RG_IN_OR_DIR ? " or directory" : "", kind_of(st.st_mode));
		else
			snprintf(why, whylen, "cannot open: %s", strerror(e));
		errno = e;
		return RG_IN_EOPEN;
	}
	if (fstat(fd, &st)) {
		e = errno;
		snprintf(why, whylen, "cannot stat: %s", strerror(e));
		ret = RG_IN_EOPEN;
	} else if (!S_ISREG(st.st_mode)) {
		e = EINVAL;
		snprintf(why, whylen, "not a regular file%s (%s)",
			 flags & RG_IN_OR_DIR ? " or directory" : "", kind_of(st.st_mode));
		ret = RG_IN_EOPEN;
	} else if (!(flags & RG_IN_PSEUDO) && (unsigned long long)st.st_size > max) {
		e = EFBIG;
		too_big((unsigned long long)st.st_size, max, why, whylen);
		ret = RG_IN_ETOOBIG;
	} else {
		return fd;
	}
	close(fd);
	errno = e;
	return ret;
}

int rg_input_read(const char *path, size_t max, unsigned int flags, char **out, size_t *outlen,
		  char *why, size_t whylen)
{
	bool pseudo = flags & RG_IN_PSEUDO;
	size_t cap, len = 0;
	struct stat st;
	char *buf;
	int fd, ret = RG_IN_EOPEN;

	fd = rg_input_open(path, max, flags, why, whylen);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st))
		st.st_size = 0;
	/* A regular file of size 0 may be a pseudo-file (/proc/cpuinfo): read it to its end. */
	pseudo |= st.st_size == 0;
	cap = pseudo ? 65536 : (size_t)st.st_size;
	if (cap > max)
		cap = max;
	/* One byte more than cap to notice a file that grows, one for the NUL. */
	buf = malloc(cap + 2);
	if (!buf) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	for (;;) {
		ssize_t r;

		if (len == cap + 1) {
			size_t ncap = cap * 2 > max ? max : cap * 2;
			char *nb;

			if (!pseudo || cap >= max)
				break;
			nb = realloc(buf, ncap + 2);
			if (!nb) {
				snprintf(why, whylen, "out of memory");
				goto out;
			}
			buf = nb;
			cap = ncap;
		}
		r = read(fd, buf + len, cap + 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(why, whylen, "cannot read: %s", strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	if (len > max) {
		too_big((unsigned long long)len, max, why, whylen);
		ret = RG_IN_ETOOBIG;
		goto out;
	}
	if (!pseudo && len != (size_t)st.st_size) {
		snprintf(why, whylen, "file changed size while being read");
		goto out;
	}
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	buf = NULL;
	ret = 0;
out:
	free(buf);
	close(fd);
	return ret;
}
