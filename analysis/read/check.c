// SPDX-License-Identifier: MIT
/* `rgbench-report check`: run the reader over files and summarize them (tests, fuzz corpus). */
#include <stdio.h>
#include <string.h>

#include "rg/cmdline.h"
#include "rg/results.h"
#include "rg/text.h"

int rg_check_main(int argc, char **argv)
{
	rg_cl_set_prog("rgbench-report check");
	if (argc == 2 && !strcmp(argv[1], "--help")) {
		puts("usage: rgbench-report check FILE|DIR...\n"
		     "Reads each with the strict reader; one summary line per argument.");
		return RG_EXIT_OK;
	}
	if (argc < 2)
		return rg_cl_usage_error("needs at least one result FILE or DIR");
	for (int i = 1; i < argc; i++) {
		struct rg_rows rows = { 0 };
		size_t n[3] = { 0 }, skipped = 0, samples = 0;
		char err[1024], name[4096];

		if (rg_read_path(argv[i], &rows, err, sizeof(err))) {
			rg_cl_error("%s", err);
			rg_rows_free(&rows);
			return RG_EXIT_FAIL;
		}
		for (size_t k = 0; k < rows.n; k++) {
			const struct rg_row *r = &rows.v[k];
			const char *s = rg_row_s(r, RG_COL_suite);

			n[!strcmp(s, "user") ? 0 : !strcmp(s, "bpf") ? 1 : 2]++;
			skipped += strcmp(rg_row_s(r, RG_COL_status), "ok") != 0;
			samples += r->n_ns || r->n_mops;
		}
		rg_str_printable(name, sizeof(name), argv[i]);	/* the terminal's sanitizer */
		printf("%s: %zu rows (user %zu, bpf %zu, kmod %zu; %zu not ok; %zu with samples)\n",
		       name, rows.n, n[0], n[1], n[2], skipped, samples);
		rg_rows_free(&rows);
	}
	return RG_EXIT_OK;
}
