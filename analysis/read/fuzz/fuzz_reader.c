// SPDX-License-Identifier: MIT
/* libFuzzer entry: every input must parse or fail with one clean message, never crash. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rg/results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rg_rows rows = { 0 };
	char err[1024];

	err[0] = 0;
	if (rg_read_buffer("fuzz", (const char *)data, size, &rows, err, sizeof(err))) {
		/* A failure always says something, on one line, naming the input. */
		if (strncmp(err, "fuzz", 4) || strchr(err, '\n'))
			abort();
	}
	rg_rows_free(&rows);
	return 0;
}
