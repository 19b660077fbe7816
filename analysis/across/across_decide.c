// SPDX-License-Identifier: MIT
/* The across-hosts pages' decision: which design each host's kernel runs, and every kernel-form candidate as a change against it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/schema.h"
#include "across.h"

/* The kernel-form candidates for the trampoline's guard: roles.def's kernel designs (RG_KROLE). */
static const char *const candidates[] = {
#define RG_ROLE(role, meaning)
#define RG_KROLE(role, meaning) role,
#include "rg/roles.def"
#undef RG_KROLE
#undef RG_ROLE
};
_Static_assert(sizeof(candidates) / sizeof(candidates[0]) == NCAND, "NCAND is the number of RG_KROLE lines");

/* ---- the design each host's kernel runs ---------------------------------------------- */

/*
 * The role of the guard the host's kernel runs in the BPF trampoline, from
 * the arch and the kernel release: x86-64 this_cpu_inc_return (one xadd
 * %gs:, every release); arm64 before 6.18 the STADD exit, 6.18 and later
 * the LDADD exit, and from 7.0 (or a release naming bpf-next) the merged
 * per-context check; on either arch a release naming rctx (a kernel patched
 * to run the merged check) runs it. NULL when the release cannot be read (why says so).
 */
/* 0 when h's rows say its CPU has no LSE atomics (lse column 0 in every row that says), 1 when one says it has, -1 unknown. */
static int host_lse(const struct host *h)
{
	int lse = -1;

	for (size_t i = 0; i < h->n; i++) {
		long long v = rg_row_i(h->rows[i], RG_COL_lse);

		if (v == 1)
			return 1;
		if (v == 0)
			lse = 0;
	}
	return lse;
}

const char *rp_across_current_role(const struct host *h, char *why, size_t size)
{
	int major = 0, minor = 0;
	bool v618;

	/* A kernel patched to run the merged check, named so (e.g. LOCALVERSION=-rctx), on either arch. */
	if (strstr(h->kernel, "rctx")) {
		snprintf(why, size, "%s %s: the merged per-context check (a release naming rctx)", h->arch, h->kernel);
		return "merged-rctx";
	}
	if (strcmp(h->arch, "x86_64") && strcmp(h->arch, "aarch64")) {
		snprintf(why, size, "arch '%s' has no known kernel design", h->arch);
		return NULL;
	}
	if (sscanf(h->kernel, "%d.%d", &major, &minor) != 2) {
		snprintf(why, size, "kernel release '%s' is not MAJOR.MINOR...", h->kernel);
		return NULL;
	}
	v618 = major > 6 || (major == 6 && minor >= 18);
	if (!strcmp(h->arch, "x86_64")) {
		/* One instruction sequence before and from 6.18: the role follows the release. */
		snprintf(why, size, "x86-64 %s: this_cpu_inc_return, xadd %%gs:", h->kernel);
		return v618 ? "this-cpu-6.18" : "this-cpu-pre-6.18";
	}
	if (strstr(h->kernel, "bpf-next") || major >= 7) {
		snprintf(why, size, "arm64 %s: the merged per-context check (bpf-next, 7.0+)", h->kernel);
		return "merged-rctx";
	}
	if (host_lse(h) == 0) {
		/* Without LSE the kernel's this_cpu ops are LDXR/STXR both ways, in any release. */
		snprintf(why, size, "arm64 %s without LSE atomics: LDXR/STXR", h->kernel);
		return "this-cpu-llsc";
	}
	if (v618) {
		snprintf(why, size, "arm64 %s: LDADD exit (6.18+)", h->kernel);
		return "this-cpu-6.18";
	}
	snprintf(why, size, "arm64 %s: STADD exit (before 6.18)", h->kernel);
	return "this-cpu-pre-6.18";
}

/* The row of a role in a suite: kmod loop rows (irqs on first), or user one-thread pair rows. */
static const struct rg_row *guard_row(const struct host *h, const char *suite, const char *role)
{
	const struct rg_row *best = NULL;

	if (!strcmp(suite, "user"))
		return rp_by_role(h, role);
	for (size_t i = 0; i < h->n; i++) {
		const struct rg_row *r = h->rows[i];
		const char *sc = rg_row_s(r, RG_COL_scenario);

		if (!rp_row_ok(r) || strcmp(rg_row_s(r, RG_COL_suite), "kmod") ||
		    (strcmp(sc, "loop") && strcmp(sc, "loop-irqsoff")) ||
		    !rg_role_has(rg_row_role(r, NULL), role))
			continue;
		if (!best || (!strcmp(sc, "loop") && strcmp(rg_row_s(best, RG_COL_scenario), "loop")) ||
		    (!strcmp(sc, rg_row_s(best, RG_COL_scenario)) &&
		     rg_row_i(r, RG_COL_threads) < rg_row_i(best, RG_COL_threads)))
			best = r;
	}
	return best;
}

static int cmp_change(const void *a, const void *b)
{
	const struct change *x = a, *y = b;

	return x->v < y->v ? -1 : x->v > y->v;
}

/* Fill d for h. False when there is nothing to decide (d->why says why). */
bool rp_across_decide(const struct host *h, struct decision *d)
{
	memset(d, 0, sizeof(*d));
	d->role = rp_across_current_role(h, d->why, sizeof(d->why));
	if (!d->role)
		return false;
	for (int s = 0; s < 2 && !d->cur; s++) {
		d->suite = s ? "user" : "kmod";
		d->cur = guard_row(h, d->suite, d->role);
		/* x86-64's one this_cpu sequence carries both this-cpu roles, kmod's only the older one */
		if (!d->cur && !strcmp(h->arch, "x86_64"))
			d->cur = guard_row(h, d->suite, "this-cpu-pre-6.18");
	}
	if (!d->cur) {
		size_t l = strlen(d->why);

		snprintf(d->why + l, sizeof(d->why) - l, "; no measured row has role %s", d->role);
		return false;
	}
	d->kcur = rp_cost_of(h, d->cur);
	for (size_t i = 0; i < NCAND; i++) {
		const struct rg_row *r = guard_row(h, d->suite, candidates[i]);
		struct cost k;

		if (!r || r == d->cur || !strcmp(candidates[i], d->role))
			continue;
		k = rp_cost_of(h, r);
		if (isnan(k.v) || isnan(d->kcur.v))
			continue;
		d->c[d->n] = (struct change){ candidates[i], r, k.v - d->kcur.v, NAN, NAN };
		if (!isnan(k.lo) && !isnan(k.hi) && !isnan(d->kcur.lo) && !isnan(d->kcur.hi)) {
			d->c[d->n].lo = k.lo - d->kcur.hi;
			d->c[d->n].hi = k.hi - d->kcur.lo;
		}
		d->n++;
	}
	qsort(d->c, d->n, sizeof(d->c[0]), cmp_change);
	return true;
}

/* "cheaper" / "dearer" when the interval excludes zero, else "". */
const char *rp_across_verdict(const struct change *c)
{
	if (isnan(c->lo) || isnan(c->hi))
		return "";
	return c->hi < 0 ? " cheaper" : c->lo > 0 ? " dearer" : "";
}

