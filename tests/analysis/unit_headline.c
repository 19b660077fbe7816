// SPDX-License-Identifier: MIT
/* The headline tables' lines on fake hosts: every RG_KROLE of roles.def has its line, with no list to edit. */
#include <stdio.h>
#include <string.h>

#include "rg/registry.h"
#include "report.h"

#include "check.h"
#include "unit.h"

#define NROWS 32

struct fake {
	struct host h;
	struct rg_row row[NROWS];
	const struct rg_row *rows[NROWS];
};

static void fake_init(struct fake *f, const char *arch)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->h.arch, sizeof(f->h.arch), "%s", arch);
	f->h.rows = f->rows;
}

/* A user one-thread pair row of guard with role. */
static const struct rg_row *fake_row(struct fake *f, const char *guard, const char *role)
{
	struct rg_row *r = &f->row[f->h.n];

	r->v[RG_COL_suite].s = "user";
	r->v[RG_COL_scenario].s = "pair";
	r->v[RG_COL_status].s = "ok";
	r->v[RG_COL_guard].s = (char *)guard;
	r->v[RG_COL_role].s = (char *)role;
	r->v[RG_COL_threads].i = 1;
	f->rows[f->h.n++] = r;
	return r;
}

/* The roles.def kernel designs, expanded here: a new RG_KROLE line is checked with no edit. */
static const char *const kroles[] = {
#define RG_ROLE(role, meaning)
#define RG_KROLE(role, meaning) role,
#include "rg/roles.def"
#undef RG_KROLE
#undef RG_ROLE
};
#define NK (sizeof(kroles) / sizeof(kroles[0]))

/* Every RG_KROLE with a row has its line, in roles.def's order, on either arch, guards.def or not. */
static void test_every_krole(const char *arch)
{
	static struct fake f;
	const struct rg_row *want[NK + 1];
	const char *roles[NK + 2];
	char guard[NK + 1][32];
	struct hl_table t;

	fake_init(&f, arch);
	for (size_t k = 0; k < NK; k++) {
		snprintf(guard[k], sizeof(guard[k]), "fake-%zu", k);
		want[k] = fake_row(&f, guard[k], kroles[k]);
		roles[k] = kroles[k];
	}
	/* A role roles.def does not have yet, as if its line were added: it appears too. */
	snprintf(guard[NK], sizeof(guard[NK]), "fake-new");
	want[NK] = fake_row(&f, guard[NK], "this-cpu-new");
	roles[NK] = "this-cpu-new";
	roles[NK + 1] = NULL;

	CHECK(rp_kernel_roles[NK] == NULL, "rp_kernel_roles has %zu roles, roles.def %zu RG_KROLE lines", NK, NK);
	for (size_t k = 0; k < NK; k++)
		CHECK(rp_kernel_roles[k] && !strcmp(rp_kernel_roles[k], kroles[k]),
		      "rp_kernel_roles[%zu] is not roles.def's %s", k, kroles[k]);
	rp_headline_kernel(&f.h, roles, &t);
	CHECK_EQ(t.n, NK + 1);
	for (size_t k = 0; k < NK + 1 && k < t.n; k++) {
		CHECK(t.l[k].r == want[k], "%s: line %zu has not the row of %s", arch, k, roles[k]);
		CHECK(!strcmp(t.l[k].what, roles[k]), "%s: line %zu is '%s', not %s", arch, k, t.l[k].what, roles[k]);
	}
	CHECK(t.by < t.n && !strcmp(t.l[t.by].name, "merged-rctx"), "%s: not divided by merged-rctx", arch);
}

/* x86-64: pcpu-xadd stands for both this_cpu roles: one line; its instructions are its own twin. */
static void test_x86(void)
{
	static struct fake f;
	const struct rg_row *xadd, *rctx, *lock;
	struct hl_table t;

	fake_init(&f, "x86_64");
	xadd = fake_row(&f, "pcpu-xadd", "this-cpu-pre-6.18;this-cpu-6.18");
	rctx = fake_row(&f, "rctx-kernel", "merged-rctx");
	lock = fake_row(&f, "pcpu-lock-xadd", "pcpu-atomic");
	fake_row(&f, "rctx", "rseq-rctx");

	rp_headline_kernel(&f.h, rp_kernel_roles, &t);
	CHECK_EQ(t.n, 2);
	CHECK(t.n == 2 && t.l[0].r == xadd && !strcmp(t.l[0].what, "this-cpu-pre-6.18/6.18"),
	      "x86 kernel line 0: '%s'", t.l[0].what);
	CHECK(t.n == 2 && t.l[1].r == rctx && t.by == 1, "x86 kernel: rctx-kernel is not line 1 and the divisor");

	rp_headline_bare(&f.h, rp_kernel_roles, &t);
	CHECK_EQ(t.n, 2);
	CHECK(t.n == 2 && t.l[0].r == xadd && t.l[1].r == lock && t.by == 1,
	      "x86 bare: not pcpu-xadd, then pcpu-lock-xadd dividing");
	CHECK(t.n == 2 && !strcmp(t.l[1].what, "pcpu-atomic"), "x86 bare line 1: '%s'", t.l[1].what);
}

/* arm64 with no rows: a missing line per design an arm64 guard stands for; the bare ones instruction-only guards. */
static void test_arm_missing(void)
{
	static struct fake f;
	struct hl_table t;

	const char *on_arm[NK];
	size_t n = 0;

	/* the kernel designs an arm64 guard of guards.def stands for, each missing */
	for (size_t k = 0; k < NK; k++)
		for (int i = 0; i < RG_GUARD__COUNT; i++)
			if ((rg_guards[i].arch & RG_ON_AARCH64) && rg_role_has(rg_guard_role(&rg_guards[i]), kroles[k])) {
				on_arm[n++] = kroles[k];
				break;
			}
	fake_init(&f, "aarch64");
	rp_headline_kernel(&f.h, rp_kernel_roles, &t);
	CHECK_EQ(t.n, n);
	for (size_t i = 0; i < t.n && i < n; i++)
		CHECK(!t.l[i].r && !strcmp(t.l[i].name, on_arm[i]), "arm kernel line %zu: %s", i, t.l[i].name);

	rp_headline_bare(&f.h, rp_kernel_roles, &t);
	CHECK(t.n >= 2, "arm bare: %zu lines", t.n);
	for (size_t i = 0; i < t.n; i++) {
		const struct rg_guard_info *g = rg_guard_find(t.l[i].name);
		char kernel[80];

		snprintf(kernel, sizeof(kernel), "%s-kernel", t.l[i].name);
		CHECK(g && !t.l[i].r && (g->arch & RG_ON_AARCH64), "arm bare line %zu: %s", i, t.l[i].name);
		CHECK(g && (!strcmp(rg_guard_role(g), "n/a") || !strcmp(rg_guard_role(g), "pcpu-atomic")),
		      "arm bare line %zu: %s is not instructions alone", i, t.l[i].name);
		CHECK(rg_guard_find(kernel) || !strcmp(t.l[i].what, "pcpu-atomic"),
		      "arm bare line %zu: %s has no -kernel twin", i, t.l[i].name);
	}
	CHECK(t.by < t.n && !strcmp(rg_guard_role(rg_guard_find(t.l[t.by].name)), "pcpu-atomic"),
	      "arm bare: not divided by the pcpu-atomic guard");
}

int unit_headline(void)
{
	test_every_krole("aarch64");
	test_every_krole("x86_64");
	test_x86();
	test_arm_missing();
	return rg_test_failures;
}
