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
	if (rc < 0 && o.check) {	/* the options as a run's, nothing more (rgbench fleet) */
		if (o.list || o.plan || o.child[0] >= 0)
			return rg_cl_usage_error("'%s' makes no run", o.list ? "--list" :
						 o.plan ? "--plan" : "--run-child");
		return RG_EXIT_OK;
	}
	if (rc < 0)
		rc = rg_bench_place(&o, &cfg);
	if (rc >= 0)
		return rc;
	if (o.list) {
		rg_bench_list(&cfg, hooks);
		return RG_EXIT_OK;
	}
	cfg.argc = argc;
	cfg.argv = argv;
	/* A run of a --runs parent (runs.c) neither names nor locks the outputs: the parent writes them. */
	rc = rg_bench_profile(&o, &cfg, hooks, !o.plan && o.child[0] < 0);
	if (rc >= 0)
		return rc;
	if (cfg.run_child >= 0)
		return rg_suite_run_child(&cfg);
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
