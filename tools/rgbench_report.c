// SPDX-License-Identifier: MIT
/* rgbench-report: compare, report and check (analysis/) and plot (plots/) without the full rgbench command (tests, scripts). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/compare.h"
#include "rg/export.h"
#include "rg/plots.h"
#include "rg/report.h"
#include "rg/results.h"
#include "rg/cmdline.h"
#include "rg/writer.h"

/* Stop signals and ulimit -f handled from before main (rg/cmdline.h). */
RG_CL_STARTUP_SIGNALS(rg_output_cleanup_signal);
#include "rg/version.h"

/* Hidden helper for the U-test check: "mwu x1,x2,... y1,y2,..." prints U1 p exact. */
static int mwu_main(int argc, char **argv)
{
	double v[2][4096];
	size_t n[2] = { 0 };
	struct rg_mwu t;

	if (argc != 3)
		return 2;
	for (int s = 0; s < 2; s++) {
		char *p = argv[s + 1], *end;

		while (*p && n[s] < 4096) {
			v[s][n[s]++] = strtod(p, &end);
			if (end == p)
				return 2;
			p = *end == ',' ? end + 1 : end;
		}
	}
	if (rg_mwu_test(v[0], n[0], v[1], n[1], &t))
		return 1;
	printf("%.17g %.17g %s\n", t.u1, t.p, t.exact ? "exact" : "normal");
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (rg_version_asked(argc, argv) || (argc > 1 && rg_version_asked(argc - 1, argv + 1)))
		return 0;

	if (!strcmp(cmd, "compare"))
		return rg_compare_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "plot"))
		return rg_plot_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "report"))
		return rg_report_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "export"))
		return rg_export_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "check"))
		return rg_check_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "mwu"))
		return mwu_main(argc - 1, argv + 1);
	fputs("usage: rgbench-report compare|plot|report|export|check ... (see rgbench compare --help)\n", stderr);
	return 2;
}
