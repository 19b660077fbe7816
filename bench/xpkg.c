// SPDX-License-Identifier: MIT
/* Cross-package rows: per-CPU slots in another package's memory, and false sharing between packages. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rg/loops.h"
#include "rg/percpu.h"
#include "rg/schema.h"
#include "suite.h"
#include "rg/platform.h"
#include "xpkg.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Batches of the guard's pair loop (one call per batch) until min_time has passed: ns per pair. */
static double timed_pairs(const struct rg_loops *L, struct rg_guard *g, uint64_t batch,
			  double min_ns, uint64_t *pairs, uint64_t *refused)
{
	double t0 = now_ns(), t;
	uint64_t n = 0;

	do {
		*refused += L->pair(g, batch);
		n += batch;
		t = now_ns();
	} while (t - t0 < min_ns);
	*pairs += n;
	return (t - t0) / (double)n;
}

struct worker {
	const struct rg_loops *L;
	struct rg_guard *g;
	uint64_t batch;
	double min_ns, ns;
	int cpu;
	pthread_barrier_t *bar;
	uint64_t pairs, refused;
	char err[200];
};

static void *work(void *arg)
{
	struct worker *w = arg;
	int ok = !rg_topo_pin_self(w->cpu, w->err, sizeof(w->err));

	if (ok && rg_percpu_thread_init() != w->cpu) {
		snprintf(w->err, sizeof(w->err), "rg_percpu_thread_init() disagrees with CPU %d", w->cpu);
		ok = 0;
	}
	pthread_barrier_wait(w->bar);
	if (ok)
		w->ns = timed_pairs(w->L, w->g, w->batch, w->min_ns, &w->pairs, &w->refused);
	return NULL;
}

static struct rg_result *new_row(struct rg_resultset *rs, const char *guard, const char *scenario,
				 int threads, const char *cpus, uint64_t batch)
{
	struct rg_result *r = rg_results_add(rs, "user", guard, scenario);

	if (!r)
		return NULL;
	r->threads = threads;
	r->batch = (long)batch;
	snprintf(r->pinning, sizeof(r->pinning), "hwloc");
	snprintf(r->cpus, sizeof(r->cpus), "%s", cpus);
	snprintf(r->counters, sizeof(r->counters), "n/a: not counted in the cross-package rows");
	snprintf(r->events, sizeof(r->events), "n/a: not counted in the cross-package rows");
	for (size_t i = 0; i + 1 < rs->n; i++)	/* the role the suite gave this guard */
		if (!strcmp(rs->rows[i].guard, guard) && strcmp(rs->rows[i].role, "n/a")) {
			snprintf(r->role, sizeof(r->role), "%s", rs->rows[i].role);
			break;
		}
	return r;
}

static int set_row(struct rg_result *r, const double *ns, const double *mops, int n,
		   uint64_t pairs, uint64_t refused)
{
	r->ops = pairs;
	r->refusals = refused;
	return rg_result_set_samples(r, ns, mops, (size_t)n);
}

int rg_xpkg_run(const struct rg_suite_cfg *cfg, struct rg_resultset *rs)
{
	const bool test = getenv("RGBENCH_XPKG_TEST") && !strcmp(getenv("RGBENCH_XPKG_TEST"), "1");
	const int reps = cfg->repetitions > 0 ? cfg->repetitions : 5;
	const double min_ns = (cfg->min_time > 0 ? cfg->min_time : 0.02) * 1e9;
	const uint64_t batch = cfg->batch ? cfg->batch : 4096;
	struct rg_topo_where w0, w;
	int a = cfg->cpus[0], b = -1, nrows = 0;
	char err[200], cpus_a[16], cpus_ab[32];

	if (rg_topo_count(0) < 2 && !test)
		return 0;
	if (rg_topo_where(a, &w0))
		return 0;
	for (int i = 1; i < cfg->ncpus && b < 0; i++)
		if (!rg_topo_where(cfg->cpus[i], &w) && !w.smt && (w.package != w0.package || test))
			b = cfg->cpus[i];
	snprintf(cpus_a, sizeof(cpus_a), "%d", a);
	snprintf(cpus_ab, sizeof(cpus_ab), "%d,%d", a, b);
	for (int id = 0; id < RG_GUARD__COUNT && !*cfg->stop; id++) {
		const struct rg_guard_info *gi = &rg_guards[id];
		const struct rg_loops *L = &rg_loops[id];
		double lns[64], rns[64], lm[64], rm[64];
		uint64_t lp = 0, rp = 0, lref = 0, rref = 0;
		struct rg_guard g;
		struct rg_result *rl, *rr;
		const char *why = NULL;
		size_t bytes;
		char *local, *remote;
		int node = -1, n = reps < 64 ? reps : 64;

		if (!cfg->guard[id] || !(gi->needs & RG_NEEDS_PIN) || !rg_guard_available(gi, &why))
			continue;
		/* remote-slots: the same guard, its slots swapped for memory on another package */
		if (rg_guard_init(&g, 0))
			return -1;
		bytes = (size_t)g.ncpus * g.stride;
		local = g.pcpu;
		remote = rg_topo_alloc_other_package(a, bytes, &node, test);
		if (!remote || rg_topo_pin_self(a, err, sizeof(err))) {
			/* both rows, so that a file always has the pair (or says why not) */
			for (int k = 0; k < 2; k++)
				if (!rg_results_skip(rs, "user", gi->name, k ? "remote-slots" : "local-slots", "%s",
						     remote ? err : "cannot bind memory to another package's NUMA node"))
					return -1;
			rg_topo_free_mem(remote, bytes);
		} else {
			memset(remote, 0, bytes);
			rg_percpu_thread_init();
			for (int k = 0; k < n; k++) {
				g.pcpu = local;
				lns[k] = timed_pairs(L, &g, batch, min_ns, &lp, &lref);
				g.pcpu = remote;
				rns[k] = timed_pairs(L, &g, batch, min_ns, &rp, &rref);
				lm[k] = 1e3 / lns[k];
				rm[k] = 1e3 / rns[k];
			}
			g.pcpu = local;
			rg_topo_free_mem(remote, bytes);
			rl = new_row(rs, gi->name, "local-slots", 1, cpus_a, batch);
			if (!rl || set_row(rl, lns, lm, n, lp, lref))
				return -1;
			rr = new_row(rs, gi->name, "remote-slots", 1, cpus_a, batch);
			if (!rr || set_row(rr, rns, rm, n, rp, rref))
				return -1;
			snprintf(rr->interleave, sizeof(rr->interleave), "alternating");
			if (rg_result_set_delta(rr, "local-slots", rns, lns, (size_t)n))
				return -1;
			nrows += 2;
			if (cfg->progress)
				fprintf(cfg->progress, "[xpkg] %-16s slots local %.3f ns/pair, on node %d (%s) %.3f ns/pair\n",
					gi->name, rl->ns_median, node,
					test ? "RGBENCH_XPKG_TEST: any node" : "another package", rr->ns_median);
		}
		rg_guard_fini(&g);
		rg_topo_unpin_self();
		/* falseshare-xpkg: two threads on two packages, one cache line of packed slots or not */
		for (int packed = 1; packed >= 0; packed--) {
			const char *sc = packed ? "falseshare-xpkg-packed" : "falseshare-xpkg-padded";
			double ns[64], mops[64];
			uint64_t pairs = 0, refused = 0;
			bool failed = false;

			if (b < 0) {
				if (!rg_results_skip(rs, "user", gi->name, sc, "%s", "no core on another package"))
					return -1;
				continue;
			}
			if (rg_guard_init(&g, packed ? sizeof(uint32_t) : RG_CACHELINE))
				return -1;
			for (int k = 0; k < n && !failed; k++) {
				pthread_barrier_t bar;
				pthread_t th[2];
				struct worker wk[2];

				pthread_barrier_init(&bar, NULL, 2);
				for (int t = 0; t < 2; t++) {
					wk[t] = (struct worker){ .L = L, .g = &g, .batch = batch, .min_ns = min_ns,
								 .cpu = t ? b : a, .bar = &bar };
					if (pthread_create(&th[t], NULL, work, &wk[t])) {
						snprintf(err, sizeof(err), "pthread_create failed");
						failed = true;
						if (t)
							pthread_join(th[0], NULL);
						break;
					}
				}
				if (failed) {
					pthread_barrier_destroy(&bar);
					break;
				}
				pthread_join(th[0], NULL);
				pthread_join(th[1], NULL);
				pthread_barrier_destroy(&bar);
				for (int t = 0; t < 2 && !failed; t++)
					if (wk[t].err[0]) {
						snprintf(err, sizeof(err), "%s", wk[t].err);
						failed = true;
					}
				/* ns per pair per thread (as the threads scenario), pairs per second of both */
				ns[k] = (wk[0].ns + wk[1].ns) / 2;
				mops[k] = 1e3 / wk[0].ns + 1e3 / wk[1].ns;
				pairs += wk[0].pairs + wk[1].pairs;
				refused += wk[0].refused + wk[1].refused;
			}
			rg_guard_fini(&g);
			if (failed) {
				struct rg_result *r = new_row(rs, gi->name, sc, 2, cpus_ab, batch);

				if (!r)
					return -1;
				snprintf(r->status, sizeof(r->status), "error");
				snprintf(r->reason, sizeof(r->reason), "%s", err);
				continue;
			}
			rr = new_row(rs, gi->name, sc, 2, cpus_ab, batch);
			if (!rr || set_row(rr, ns, mops, n, pairs, refused))
				return -1;
			nrows++;
			if (cfg->progress)
				fprintf(cfg->progress, "[xpkg] %-16s %s on CPUs %s: %.3f ns/pair per thread\n",
					gi->name, sc, cpus_ab, rr->ns_median);
		}
	}
	return nrows;
}
