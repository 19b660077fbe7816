// SPDX-License-Identifier: MIT
/* The reader's entry points: a buffer (told CSV or JSON by content), a regular file, a path. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rg/input.h"

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

/*
 * "-": the whole of standard input, once per process (a second "-" would read
 * nothing), capped like a file; a terminal is refused rather than waited on.
 * 0, or 1 with why (2 when over the cap).
 */
static int read_stdin(char **out, size_t *outlen, char *why, size_t whylen)
{
	static bool taken;
	size_t cap = 65536, len = 0;
	char *buf;

	if (taken)
		return snprintf(why, whylen, "standard input is read once: give - only once"), 1;
	taken = true;
	if (isatty(STDIN_FILENO))
		return snprintf(why, whylen, "standard input is a terminal: pipe a result file "
				"into it (rgbench --out - | rgbench report -)"), 1;
	buf = malloc(cap + 1);
	for (;;) {
		ssize_t r;

		if (!buf)
			return snprintf(why, whylen, "out of memory"), 1;
		if (len == cap) {
			char *nb;

			if (cap >= RG_READ_MAX_BYTES) {
				free(buf);
				return snprintf(why, whylen, "standard input holds over %u MiB, the "
						"limit", RG_READ_MAX_BYTES >> 20), 2;
			}
			cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb)
				free(buf);
			buf = nb;
			continue;
		}
		r = read(STDIN_FILENO, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(buf);
			return snprintf(why, whylen, "cannot read standard input: %s", strerror(e)), 1;
		}
		if (!r)
			break;
		len += (size_t)r;
	}
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	return 0;
}

int rd_read_file(const char *path, struct rg_rows *out, char *err, size_t errlen)
{
	struct rd_ctx c = { .name = path, .err = err, .errlen = errlen };
	char *buf, why[320];
	size_t len;
	int ret;

	if (!strcmp(path, "-")) {
		ret = read_stdin(&buf, &len, why, sizeof(why));
		if (ret)
			return rd_fail(&c, 0, "%s", why);
		ret = rg_read_buffer(path, buf, len, out, err, errlen);
		free(buf);
		return ret;
	}
	/* The input policy: never blocks on a FIFO, regular files only, size-capped. */
	ret = rg_input_read(path, RG_READ_MAX_BYTES, RG_IN_OR_DIR, &buf, &len, why, sizeof(why));
	if (ret)
		return rd_fail(&c, ret == RG_IN_ETOOBIG, "%s", why);
	ret = rg_read_buffer(path, buf, len, out, err, errlen);
	free(buf);
	return ret;
}

int rg_read_path(const char *path, struct rg_rows *out, char *err, size_t errlen)
{
	struct stat st;

	/* "-" is standard input (a file named - is ./-), as for cat. */
	if (strcmp(path, "-") && !stat(path, &st) && S_ISDIR(st.st_mode))
		return rd_read_dir(path, out, err, errlen);
	return rd_read_file(path, out, err, errlen);
}
