// SPDX-License-Identifier: MIT
/* libFuzzer entry for the module's raw CSV converter (rgbench kmod --from-raw): convert or fail with one line, never crash. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rg/env.h"
#include "rg/kmod.h"
#include "rg/schema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rg_env env;
	struct rg_resultset rs;
	char err[256], *csv;
	int n;

	/* The converter takes a NUL-terminated text, as rg_input_read() gives it. */
	csv = malloc(size + 1);
	if (!csv)
		return 0;
	memcpy(csv, data, size);
	csv[size] = '\0';
	err[0] = '\0';
	rg_results_init(&rs, &env);
	n = rg_kmod_convert(&rs, csv, NULL, err, sizeof(err));
	/* A failure always says something, on one line; success adds that many rows. */
	if (n < 0 && (!err[0] || strchr(err, '\n')))
		abort();
	if (n >= 0 && (size_t)n != rs.n)
		abort();
	rg_results_free(&rs);
	free(csv);
	return 0;
}
