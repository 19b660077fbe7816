// SPDX-License-Identifier: MIT
/* The reader's entry points: a buffer (told CSV or JSON by content), a regular file, a path. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

int rd_read_file(const char *path, struct rg_rows *out, char *err, size_t errlen)
{
	struct rd_ctx c = { .name = path, .err = err, .errlen = errlen };
	char *buf, why[320];
	size_t len;
	int ret;

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

	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return rd_read_dir(path, out, err, errlen);
	return rd_read_file(path, out, err, errlen);
}
