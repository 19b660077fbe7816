/* SPDX-License-Identifier: MIT */
/* The across-hosts pages' decision: the design each host's kernel runs and the kernel-form candidates as changes against it. */
#ifndef RG_ANALYSIS_ACROSS_H
#define RG_ANALYSIS_ACROSS_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include "rg/across.h"

/* How many kernel-form candidate roles there are (across_decide.c lists them). */
#define NCAND 6

/* One candidate design as a change against the current one. */
struct change {
	const char *role;
	const struct rg_row *r;
	double v, lo, hi;	/* candidate - current, ns per pair; lo/hi NAN without intervals */
};

/* The host's current design and its candidates ranked by change. */
struct decision {
	const char *role;	/* current design's role, NULL when unknown */
	char why[160];
	const char *suite;	/* where the guard rows come from: kmod or user */
	const struct rg_row *cur;
	struct cost kcur;
	struct change c[NCAND];
	size_t n;
};

/* Fill d for h: the current design's row and every candidate's change, cheapest first. */
bool rp_across_decide(const struct host *h, struct decision *d);
/* " cheaper" / " dearer" when the change's interval excludes zero, else "". */
const char *rp_across_verdict(const struct change *c);

/*
 * across_why.c: the decision's two designs on h (guard names): the one its kernel
 * runs and the merged per-context check (or, where the kernel runs that, the
 * cheapest other candidate). False with why set when there is no decision.
 */
bool rp_across_pair(const struct host *h, const char **cur, const char **other, char *why, size_t size);

/* The step of a design's ladder (user rows) that adds the most, and the ladder's sum. */
struct rp_part {
	const char *part;	/* the part's name ("preempt", "reload32", ...) */
	double v, lo, hi;	/* what it adds, ns per pair, and its interval (NAN without) */
	double whole;		/* the sum of every step */
	size_t nsteps;
};
bool rp_across_top_step(const struct host *h, const char *design, struct rp_part *p);

/* across_sections.c: a BPF row whose program runs the trampoline's guard (prog->active). */
bool rp_across_prog_active_row(const struct rg_row *r);

/* ---- the role matrix (across_matrix.c builds it; across_sections.c and its CSV files show it) ---- */

/* One cell of the matrix: a host's row for a role and its cost over noop. */
struct cell {
	const struct rg_row *r;	/* NULL: the host has no such row */
	struct cost k;
	double cyc, cyc_lo, cyc_hi;	/* the same in reference cycles, NAN without ref_ns_per_cycle */
};

/* The hosts shown, the roles measured on any of them, and the cells (role-major). */
struct fleet {
	const struct host **h;
	size_t nh;
	char (*roles)[48];
	size_t nroles;
	struct cell *cells;
	bool any_cycles;
	size_t more_roles;	/* roles beyond MAX_ROLES, not shown */
	char left[600];		/* hosts left out as emulated */
};


static inline struct cell *cell_at(const struct fleet *f, size_t role, size_t host)
{
	return &f->cells[role * f->nh + host];
}

/* At most this many roles: the known ones and others (guards.def's vocabulary is a few dozen). */
#define MAX_ROLES 64

/* A role row with a cell on one of the hosts [from, to) (noop's is 0 by construction: not shown). */
static inline bool role_in(const struct fleet *f, size_t r, size_t from, size_t to)
{
	if (!strcmp(f->roles[r], "harness-floor"))
		return false;
	for (size_t i = from; i < to; i++)
		if (cell_at(f, r, i)->r)
			return true;
	return false;
}

static inline bool role_shown(const struct fleet *f, size_t r)
{
	return role_in(f, r, 0, f->nh);
}

/* Build the matrix: every one-thread user pair row of each host, by role. 0 or -1 (out of memory). */
int rp_across_build(struct fleet *f, const struct host *hosts, size_t nh, bool allow_emulated);
void rp_across_free(struct fleet *f);

#endif /* RG_ANALYSIS_ACROSS_H */
