/* SPDX-License-Identifier: MIT */
/* The guard registry generated from guards.def: names, needs, availability, slow-path calls. */
#ifndef RG_REGISTRY_H
#define RG_REGISTRY_H

#include <stdbool.h>
#include "rg/guard.h"

/* arch column of guards.def */
#define RG_ON_ANY		0x3u
#define RG_ON_X86_64		0x1u
#define RG_ON_AARCH64		0x2u
/* needs column of guards.def */
#define RG_NEEDS_LSE		0x1u	/* aarch64 only: LSE atomics (ignored on x86) */
#define RG_NEEDS_RSEQ		0x2u	/* glibc-registered rseq */
#define RG_NEEDS_PIN		0x4u	/* per-CPU: enter/exit must stay on one CPU */
#define RG_NO_PROTECTION	0x8u	/* claims no recursion protection */

enum rg_guard_id {
#define RG_GUARD(id, name, arch, needs, summary) RG_GUARD_##id,
#include "guards.def"
#undef RG_GUARD
	RG_GUARD__COUNT
};

struct rg_guard_info {
	enum rg_guard_id id;
	const char *name;
	const char *summary;
	unsigned int arch;
	unsigned int needs;
	/*
	 * Out-of-line wrappers for tests and other slow generic users. Measured
	 * loops never call these: they include the guard header and inline it.
	 */
	bool (*enter)(struct rg_guard *g);
	void (*exit)(struct rg_guard *g, bool granted);
};

extern const struct rg_guard_info rg_guards[RG_GUARD__COUNT];

/* NULL when no guard has that name. */
const struct rg_guard_info *rg_guard_find(const char *name);

/*
 * Whether the guard can run here (right architecture, LSE, rseq). When it
 * cannot, *why (if not NULL) gets a short reason such as "no LSE".
 */
bool rg_guard_available(const struct rg_guard_info *gi, const char **why);

/* The markdown guard table (name, arch, needs, summary), one row per guard. */
#include <stdio.h>
void rg_guard_print_table(FILE *f);

#endif /* RG_REGISTRY_H */
