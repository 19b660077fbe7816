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
#define RG_NEEDS_BASE		0x10u	/* uses the thread's per-CPU base (rg/percpu.h) */
/*
 * arm64 only: exact only with one thread per CPU. Its plain per-CPU
 * read-modify-write (ldrb/add/strb) is kept from other threads of the CPU
 * only by the modelled preempt_disable() (rg/preempt.h), which in userspace
 * keeps nobody off the CPU (x86-64: the op is one instruction, no effect).
 */
#define RG_NEEDS_OWN_CPU	0x20u
/* scope column of guards.def: what one holder excludes */
#define RG_SCOPE_NONE		0u	/* nothing (noop) */
#define RG_SCOPE_THREAD		1u	/* other enters on the same thread (incl. its signal handlers) */
#define RG_SCOPE_CPU		2u	/* other enters on the same CPU */
#define RG_SCOPE_GLOBAL		3u	/* other enters anywhere in the process */

enum rg_guard_id {
#define RG_GUARD(id, ...) RG_GUARD_##id,
#include "rg/guards.def"
#undef RG_GUARD
	RG_GUARD__COUNT
};

struct rg_guard_info {
	enum rg_guard_id id;
	const char *name;
	const char *summary;
	unsigned int arch;
	unsigned int needs;
	unsigned int scope;		/* RG_SCOPE_* */
	const char *role;		/* result "role" column: ';'-separated, "n/a" for none */
	const char *models;		/* kernel source (file: macro) the loop's instructions come from */
	const char *insns_x86_64;	/* what the pair loop must contain on x86-64 ("-": not there) */
	const char *insns_aarch64;	/* ... on arm64 (tests/guards/asm_check.py checks both) */
	/*
	 * The harness floor (scope none: noop): always measured, the baseline of
	 * every group's rows, and the guard of the cycle reference and the duty
	 * calibration. Callers test this, never an id.
	 */
	bool floor;
	/*
	 * Out-of-line wrappers for tests and other slow generic users. Measured
	 * loops never call these: they include the guard header and inline it.
	 */
	bool (*enter)(struct rg_guard *g);
	void (*exit)(struct rg_guard *g, bool granted);
	/*
	 * The guard's own state outside g (a TLS depth, a fixed word), 0 when
	 * nobody holds the guard: rg_guard_<id>_state() if the guard's header
	 * defines one, else NULL. The tests check it is back to 0.
	 */
	uint32_t (*state)(void);
};

extern const struct rg_guard_info rg_guards[RG_GUARD__COUNT];

/* NULL when no guard has that name. */
const struct rg_guard_info *rg_guard_find(const char *name);
/* The harness floor (the guard with .floor set). */
const struct rg_guard_info *rg_guard_floor(void);

/*
 * Whether the guard can run here (right architecture, LSE, rseq). When it
 * cannot, *why (if not NULL) gets a short reason such as "no LSE".
 */
bool rg_guard_available(const struct rg_guard_info *gi, const char **why);

/* The guard's role (never NULL; "n/a" when it stands for nothing) and scope. */
const char *rg_guard_role(const struct rg_guard_info *gi);
unsigned int rg_guard_scope(const struct rg_guard_info *gi);
/* "none", "thread", "cpu" or "global". */
const char *rg_guard_scope_name(unsigned int scope);

/* The markdown guard table (name, arch, needs, scope, role, summary), one row per guard. */
#include <stdio.h>
void rg_guard_print_table(FILE *f);

/* The markdown table of docs/guards.md: guard, kernel source it models, pair-loop instructions per arch. */
void rg_guard_print_kernel_table(FILE *f);

/*
 * The markdown roles table of docs/guards.md: each role of rg/roles.def with its
 * meaning and the guards that hold it per architecture. rg_guard_roles_check()
 * first: it reports (to err) every guard role missing from rg/roles.def and every
 * listed role no guard has, and returns how many.
 */
void rg_guard_print_roles_table(FILE *f);
int rg_guard_roles_check(FILE *err);

/* The guard lines of `rgbench --list`: name, availability, scope, role, summary. */
void rg_guard_print_list(FILE *f);

#endif /* RG_REGISTRY_H */
