// SPDX-License-Identifier: MIT
/* The reader's entry points: a buffer (told CSV or JSON by content), a regular file, a path. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader.h"

/* ---- entry points ---------------------------------------------------------- */

int rg_read_buffer(const char *name, const char *buf, size_t len,
		   struct rg_rows *out, char *err, size_t errlen)
{
	struct rd_ctx c = { .name = name, .err = err, .errlen = errlen, .out = out };
	size_t from = out->n, i = 0;

	if (rd_add_file(out, name, &c.file))
		return rd_fail(&c, 1, "out of memory");
	if (len > RG_READ_MAX_BYTES)
		return rd_fail(&c, 1, "file is %zu bytes, over the %u MiB limit", len,
			    RG_READ_MAX_BYTES >> 20);
	if (rd_check_text(&c, buf, len))
		return -1;
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3)) {
		buf += 3;	/* UTF-8 byte order mark */
		len -= 3;
	}
	while (i < len && strchr(" \t\r\n", buf[i]))
		i++;
	if (i == len)
		return rd_fail(&c, 1, "empty file");
	if (buf[i] == '{' || buf[i] == '[') {
		if (rd_read_json(&c, buf, len))
			return -1;
	} else if (rd_read_csv(&c, buf, len)) {
		return -1;
	}
	return rg_rows_check_unique(out, from, err, errlen);
}

static const char *kind_of(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" :
	       S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "not a file";
}

int rd_read_file(const char *path, struct rg_rows *out, char *err, size_t errlen)
{
	struct rd_ctx c = { .name = path, .err = err, .errlen = errlen };
	struct stat st;
	char *buf;
	size_t len = 0;
	int fd, ret;

	/*
	 * Only regular files are read: look before opening (opening a FIFO for
	 * reading blocks until a writer comes; a device may act on open), and open
	 * without blocking in case it changed in between.
	 */
	if (stat(path, &st))
		return rd_fail(&c, 0, "cannot open: %s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return rd_fail(&c, 0, "not a regular file or directory (%s)", kind_of(st.st_mode));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return rd_fail(&c, 0, "cannot open: %s", strerror(errno));
	if (fstat(fd, &st)) {
		ret = rd_fail(&c, 0, "cannot stat: %s", strerror(errno));
		close(fd);
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return rd_fail(&c, 0, "not a regular file or directory (%s)", kind_of(st.st_mode));
	}
	if ((unsigned long long)st.st_size > RG_READ_MAX_BYTES) {
		close(fd);
		return rd_fail(&c, 1, "file is %lld bytes, over the %u MiB limit",
			    (long long)st.st_size, RG_READ_MAX_BYTES >> 20);
	}
	/* One byte more than the size, to notice a file that grows while we read. */
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return rd_fail(&c, 0, "out of memory");
	}
	while (len < (size_t)st.st_size + 1) {
		ssize_t r = read(fd, buf + len, (size_t)st.st_size + 1 - len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = rd_fail(&c, 0, "read error: %s", strerror(errno));
			free(buf);
			close(fd);
			return ret;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	if (len != (size_t)st.st_size) {
		free(buf);
		close(fd);
		return rd_fail(&c, 0, "file changed size while being read");
	}
	close(fd);
	ret = rg_read_buffer(path, buf, len, out, err, errlen);
	free(buf);
	return ret;
}

int rg_read_path(const char *path, struct rg_rows *out, char *err, size_t errlen)
{
	struct stat st;

	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return rd_read_dir(path, out, err, errlen);
	return rd_read_file(path, out, err, errlen);
}
