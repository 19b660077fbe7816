// SPDX-License-Identifier: GPL-2.0
/*
 * The ladder scenario: with ladder=1, every step of the selected composite
 * designs (rg_kladder, ladder.h) joins the selection, so the timed kthreads
 * run each step's loop in the same shuffled rounds as the guards; its rows
 * (scenario ladder: noop, then per design the whole and its steps in
 * order) follow the guards'. `rgbench kmod` pairs each step with the step
 * before it (the first with noop) from guards.def's RG_PART order.
 */
#include "kmod.h"

bool ladder;
module_param(ladder, bool, 0444);
MODULE_PARM_DESC(ladder, "also time every part of rctx-kernel and the this_cpu forms, one loop per step, in the same rounds (scenario ladder; back to back only)");

bool rg_ladder_step(unsigned int s)
{
	const struct rg_kguard *g = rg_sel[s].g;

	return g && g >= rg_kladder && g < rg_kladder + rg_nkladder;
}

/* The selection of step's design (the name before '+': its loop row), or -1 when not selected. */
static int rg_design_of(const char *step)
{
	size_t len = strcspn(step, "+");
	unsigned int s;

	for (s = 0; s < rg_nsel; s++)
		if (rg_sel[s].g && !rg_sel[s].g->scenario && !rg_ladder_step(s) &&
		    strlen(rg_sel[s].name) == len &&
		    !strncmp(rg_sel[s].name, step, len))
			return s;
	return -1;
}

int rg_ladder_select(unsigned int max)
{
	unsigned int i;
	int d;

	if (!ladder)
		return 0;
	if (duty_ns) {
		pr_err("ladder=1 times the steps back to back only: not with duty_ns\n");
		return -EINVAL;
	}
	if (!rg_want_loop) {
		pr_err("ladder=1 runs beside the loop scenario: not with scenarios=tramp alone\n");
		return -EINVAL;
	}
	for (i = 0; i < rg_nkladder; i++) {
		d = rg_design_of(rg_kladder[i].name);
		if (d < 0)
			continue;
		if (rg_nsel == max)
			return -E2BIG;
		rg_sel[rg_nsel].g = &rg_kladder[i];
		rg_sel[rg_nsel].name = rg_kladder[i].name;
		rg_sel[rg_nsel].skip = rg_sel[d].skip;	/* e.g. no LSE: none of its steps run */
		rg_nsel++;
	}
	return 0;
}

/* noop, then per design with steps its whole and its steps, all in scenario ladder. */
void rg_ladder_format(void)
{
	unsigned int s;
	int last = -1, d;

	for (s = 0; s < rg_nsel && ladder; s++) {
		if (rg_sel[s].g && !rg_sel[s].g->scenario && !strcmp(rg_sel[s].name, "noop")) {
			rg_format_timed(s, "ladder");
			break;
		}
	}
	for (s = 0; s < rg_nsel; s++) {
		if (!rg_ladder_step(s))
			continue;
		d = rg_design_of(rg_sel[s].name);
		if (d != last)
			rg_format_timed(d, "ladder");
		last = d;
		rg_format_timed(s, "ladder");
	}
}
