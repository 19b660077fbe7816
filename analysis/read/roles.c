// SPDX-License-Identifier: MIT
/* Roles: what a guard stands for across architectures (the role column), for pairing rows of different machines. */
#include <stdio.h>
#include <string.h>

#include "rg/results.h"

/*
 * Files written before guards.def carried roles (schema 1 and 2, and schema
 * 3 rows whose role is n/a) get the role of the guard of that name at the
 * time: the vocabulary of guards.def, applied to the names those files used.
 * A row with a role column never uses this table, with one exception: user
 * rows of guard rctx written before rctx-kernel existed carry role
 * merged-rctx, but measured the rseq form, so they read as rseq-rctx (and
 * never pair with a machine's rctx-kernel).
 */
static const struct {
	const char *arch;	/* NULL: any */
	const char *guard;
	const char *role;
} legacy[] = {
	{ NULL, "noop", "harness-floor" },
	{ NULL, "tls", "thread-floor" },
	{ NULL, "global-atomic", "shared-atomic" },
	{ "aarch64", "pcpu-stadd", "this-cpu-pre-6.18" },
	{ "aarch64", "pcpu-ldadd", "this-cpu-6.18" },	/* then: LDADD entry and LDADD exit */
	{ "aarch64", "pcpu-prfm-stadd", "this-cpu-prfm-stadd" },
	{ "aarch64", "pcpu-llsc", "this-cpu-llsc" },
	{ "x86_64", "pcpu-xadd", "this-cpu-pre-6.18;this-cpu-6.18" },
	{ "x86_64", "pcpu-lock-xadd", "pcpu-atomic" },
	{ NULL, "pcpu-swp", "pcpu-xchg" },
	{ NULL, "pcpu-cas", "pcpu-cas" },
	{ NULL, "rseq", "rseq" },
	{ NULL, "rctx", "rseq-rctx" },	/* the rseq form; the kernel form is rctx-kernel */
	{ NULL, "racy-percpu", "negative-control" },
};

const char *rg_row_role(const struct rg_row *r, bool *from_table)
{
	const char *role = rg_row_s(r, RG_COL_role);

	if (from_table)
		*from_table = false;
	if (role && *role && strcmp(role, "n/a")) {
		if (!strcmp(role, "merged-rctx") && !strcmp(rg_row_s(r, RG_COL_guard), "rctx") &&
		    !strcmp(rg_row_s(r, RG_COL_suite), "user")) {
			if (from_table)
				*from_table = true;
			return "rseq-rctx";
		}
		return role;
	}
	if (strcmp(rg_row_s(r, RG_COL_suite), "user"))
		return "";
	for (size_t i = 0; i < sizeof(legacy) / sizeof(legacy[0]); i++) {
		if (strcmp(legacy[i].guard, rg_row_s(r, RG_COL_guard)))
			continue;
		if (legacy[i].arch && strcmp(legacy[i].arch, rg_row_s(r, RG_COL_arch)))
			continue;
		if (from_table)
			*from_table = true;
		return legacy[i].role;
	}
	return "";
}

bool rg_role_has(const char *list, const char *role)
{
	size_t n = strlen(role);

	if (!*role)
		return false;
	for (const char *p = list; p && *p; ) {
		const char *e = strchr(p, ';');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (len == n && !strncmp(p, role, n))
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

bool rg_roles_common(const char *a, const char *b, char *common, size_t size)
{
	for (const char *p = a; p && *p; ) {
		const char *e = strchr(p, ';');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char one[64];

		snprintf(one, sizeof(one), "%.*s", (int)(len < sizeof(one) ? len : sizeof(one) - 1), p);
		if (*one && rg_role_has(b, one)) {
			if (common)
				snprintf(common, size, "%s", one);
			return true;
		}
		p = e ? e + 1 : NULL;
	}
	return false;
}

/* roles.def's order: every role of the vocabulary, "n/a" (no role) included. */
const char *const rp_role_order[] = {
#define RG_ROLE(role, meaning) role,
#include "rg/roles.def"
#undef RG_ROLE
	NULL,
};

const char *const rp_kernel_roles[] = {
#define RG_ROLE(role, meaning)
#define RG_KROLE(role, meaning) role,
#include "rg/roles.def"
#undef RG_KROLE
#undef RG_ROLE
	NULL,
};
