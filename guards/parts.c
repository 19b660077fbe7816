// SPDX-License-Identifier: MIT
/* The parts table: one entry per RG_PART line of guards.def, with each step's place in its design's ladder. */
#include <stdio.h>

#include "rg/parts.h"
#include "rg/registry.h"

int rg_ladder_len(unsigned int design)
{
	int n = 0;

	for (int i = 0; i < RG_PART__COUNT; i++)
		n += rg_parts[i].design == design;
	return n;
}

const struct rg_part_info rg_parts[RG_PART__COUNT + 1] = {
#define RG_PART(pdesign, ppart, pname, padds, pmodels, px86, parm)			\
	[RG_PART_##pdesign##__##ppart] = { .design = RG_GUARD_##pdesign, .part = #ppart,	\
					   .name = pname, .adds = padds, .models = pmodels, \
					   .insns_x86_64 = px86, .insns_aarch64 = parm },
#include "rg/parts.def"
#undef RG_PART
	[RG_PART__COUNT] = { .design = RG_GUARD__COUNT },
};

static const unsigned char ladder[RG_GUARD__COUNT + 1] = {
#define RG_LADDER(design, profile) [RG_GUARD_##design] = profile,
#include "rg/guards.def"
#undef RG_LADDER
};

unsigned int rg_ladder_profile(unsigned int design)
{
	return design < RG_GUARD__COUNT ? ladder[design] : 0;
}

int rg_ladder_first(unsigned int design)
{
	for (int i = 0; i < RG_PART__COUNT; i++)
		if (rg_parts[i].design == design)
			return i;
	return -1;
}

int rg_part_step(int i)
{
	int k = 1;

	for (int j = 0; j < i; j++)
		k += rg_parts[j].design == rg_parts[i].design;
	return k;
}

void rg_parts_print_table(FILE *f)
{
	fprintf(f, "| design | step | row (guard column) | adds | kernel source |\n");
	fprintf(f, "|---|---|---|---|---|\n");
	for (int i = 0; i < RG_PART__COUNT; i++) {
		const struct rg_part_info *p = &rg_parts[i];

		fprintf(f, "| `%s` | %d/%d | `%s` | %s | %s |\n", rg_guards[p->design].name, rg_part_step(i),
			rg_ladder_len(p->design), p->name, p->adds, p->models);
	}
}
