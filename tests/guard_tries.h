/* SPDX-License-Identifier: MIT */
/* Counted guard enters for the stress and migration tests: attempts, grants and refusals per path. */
#ifndef RG_TEST_GUARD_TRIES_H
#define RG_TEST_GUARD_TRIES_H

#include <stdbool.h>
#include <stdint.h>

#include "rg/guard.h"
#include "rg/rseq.h"

/* What one path (a thread's own loop, or its signal handler) asked of the guard. */
struct rg_tries {
	uint64_t attempts, grants, refusals;
};

/* Enter g, counting the attempt and its outcome; the caller exits with the result. */
static inline bool rg_tries_enter(struct rg_tries *t, const struct rg_guard_info *gi,
				  struct rg_guard *g)
{
	bool ok;

	t->attempts++;
	ok = gi->enter(g);
	if (ok)
		t->grants++;
	else
		t->refusals++;
	return ok;
}

/* The same from a signal handler: first into the signal's context level (rctx) ... */
static inline bool rg_tries_enter_signal(struct rg_tries *t, const struct rg_guard_info *gi,
					 struct rg_guard *g)
{
	rg_rctx_enter_signal();
	return rg_tries_enter(t, gi, g);
}

/* ... and out of it last, after the exit. */
static inline void rg_tries_exit_signal(const struct rg_guard_info *gi, struct rg_guard *g, bool ok)
{
	gi->exit(g, ok);
	rg_rctx_exit_signal();
}

static inline void rg_tries_add(struct rg_tries *sum, const struct rg_tries *t)
{
	sum->attempts += t->attempts;
	sum->grants += t->grants;
	sum->refusals += t->refusals;
}

#endif /* RG_TEST_GUARD_TRIES_H */
