// SPDX-License-Identifier: MIT
/* rgbench [options]: the userspace suite's command, one step after another: options (cli.c), plan (profile.c, outputs.c), run (run.c). */
#include <stdlib.h>

#include "command.h"
#include "plan.h"
#include "rg/platform.h"

int rg_bench_main(int argc, char **argv, const struct rg_bench_hooks *hooks)
{
	/* Static: reachable (not leaked) on every exit, also the usage errors' exit(2). */
	static struct rg_bench_opts o;
	static struct rg_suite_cfg cfg;
	int rc;

	rc = rg_bench_parse(argc, argv, hooks, &o);
	if (rc < 0)
		rc = rg_bench_place(&o, &cfg);
	if (rc >= 0)
		return rc;
	if (o.list) {
		rg_bench_list(&cfg, hooks);
		return RG_EXIT_OK;
	}
	rc = rg_bench_profile(&o, &cfg, hooks, !o.plan);
	if (rc >= 0)
		return rc;
	if (o.plan) {
		rg_plan_print(stdout, &cfg);
		return RG_EXIT_OK;
	}
	rc = rg_bench_run(&cfg);
	if (rc == RG_EXIT_OK) {
		rg_topo_fini();
		free(o.gb_argv);
	}
	return rc;
}
