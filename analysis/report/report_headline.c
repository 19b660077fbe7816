// SPDX-License-Identifier: MIT
/* The headline tables' lines: roles.def's kernel designs and guards.def's instruction-only twins of them. */
#include <stdio.h>
#include <string.h>

#include "rg/registry.h"
#include "report.h"

/* The designs the kernel form is weighed against, and the instructions alone. */
#define KERNEL_BY "merged-rctx"
#define BARE_BY "pcpu-atomic"

static unsigned int arch_bit(const char *arch)
{
	return !strcmp(arch, "aarch64") ? RG_ON_AARCH64 : !strcmp(arch, "x86_64") ? RG_ON_X86_64 : 0;
}

/* Line of t that name or row r has, or t->n. */
static size_t line_of(const struct hl_table *t, const char *name, const struct rg_row *r)
{
	for (size_t i = 0; i < t->n; i++)
		if (r ? t->l[i].r == r : !strcmp(t->l[i].name, name))
			return i;
	return t->n;
}

/*
 * Add a line (what: its design) or, when it is there, add what to its design,
 * without the '-'-ended start they share: "this-cpu-pre-6.18/6.18".
 */
static size_t line_add(struct hl_table *t, const char *name, const struct rg_row *r, const char *what)
{
	size_t i = line_of(t, name, r);

	if (i < t->n) {
		const char *w = t->l[i].what, *rest = what;
		size_t l = strlen(w);

		for (size_t j = 0; w[j] && w[j] == what[j]; j++)
			if (w[j] == '-')
				rest = what + j + 1;
		snprintf(t->l[i].what + l, sizeof(t->l[i].what) - l, "/%s", rest);
		return i;
	}
	if (t->n == RP_HL_MAX)
		return SIZE_MAX;
	t->l[i].r = r;
	snprintf(t->l[i].name, sizeof(t->l[i].name), "%s", name);
	snprintf(t->l[i].what, sizeof(t->l[i].what), "%s", what);
	t->n++;
	return i;
}

/* Whether a guard of guards.def on arch stands for role. */
static bool role_on_arch(const char *role, unsigned int arch)
{
	for (int i = 0; i < RG_GUARD__COUNT; i++)
		if ((rg_guards[i].arch & arch) && rg_role_has(rg_guard_role(&rg_guards[i]), role))
			return true;
	return false;
}

void rp_headline_kernel(const struct host *h, const char *const *roles, struct hl_table *t)
{
	unsigned int arch = arch_bit(h->arch);

	memset(t, 0, sizeof(*t));
	t->by = SIZE_MAX;
	for (size_t k = 0; roles[k]; k++) {
		const struct rg_row *r = rp_by_role(h, roles[k]);
		size_t i;

		if (!r && !role_on_arch(roles[k], arch))
			continue;	/* no guard of this arch stands for it: not missing */
		i = line_add(t, roles[k], r, roles[k]);
		if (!strcmp(roles[k], KERNEL_BY))
			t->by = i;
	}
}

/* The first one-thread pair row of guard name. */
static const struct rg_row *guard_row(const struct host *h, const char *name)
{
	for (size_t i = 0; i < h->n; i++)
		if (rp_is_pair1(h->rows[i]) && !strcmp(rg_row_s(h->rows[i], RG_COL_guard), name))
			return h->rows[i];
	return NULL;
}

/*
 * A kernel design's guard, its instructions alone: NAME-kernel's twin NAME
 * when guards.def has it with role n/a or pcpu-atomic (roles.def: the bare
 * rows beside their -kernel twin); a guard without "-kernel" runs the
 * kernel's sequence with nothing around it (x86's this_cpu ops), so it is its
 * own twin; NULL when there is none (rctx-kernel: rctx is the rseq design).
 */
static const struct rg_guard_info *twin(const struct rg_guard_info *g)
{
	size_t n = strlen(g->name), s = strlen("-kernel");
	const struct rg_guard_info *t;
	char bare[64];

	if (n <= s || strcmp(g->name + n - s, "-kernel"))
		return g;
	snprintf(bare, sizeof(bare), "%.*s", (int)(n - s), g->name);
	t = rg_guard_find(bare);
	return t && (rg_role_has(rg_guard_role(t), "n/a") || rg_role_has(rg_guard_role(t), BARE_BY)) ? t : NULL;
}

void rp_headline_bare(const struct host *h, const char *const *roles, struct hl_table *t)
{
	unsigned int arch = arch_bit(h->arch);

	memset(t, 0, sizeof(*t));
	t->by = SIZE_MAX;
	for (size_t k = 0; roles[k]; k++)
		for (int i = 0; i < RG_GUARD__COUNT; i++) {
			const struct rg_guard_info *g = &rg_guards[i], *b;

			if ((g->arch & arch) && rg_role_has(rg_guard_role(g), roles[k]) && (b = twin(g)))
				line_add(t, b->name, NULL, roles[k]);
		}
	for (int i = 0; i < RG_GUARD__COUNT; i++)
		if ((rg_guards[i].arch & arch) && rg_role_has(rg_guard_role(&rg_guards[i]), BARE_BY))
			t->by = line_add(t, rg_guards[i].name, NULL, BARE_BY);
	for (size_t i = 0; i < t->n; i++)
		t->l[i].r = guard_row(h, t->l[i].name);
}
