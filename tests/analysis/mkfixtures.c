// SPDX-License-Identifier: MIT
/* Writes the report tests' small, hand-checkable result files through the real writers. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/schema.h"

static void env(struct rg_env *e, const char *host, const char *arch, const char *cpu,
		const char *kernel)
{
	memset(e, 0, sizeof(*e));
	snprintf(e->host, sizeof(e->host), "%s", host);
	snprintf(e->arch, sizeof(e->arch), "%s", arch);
	snprintf(e->cpu_vendor, sizeof(e->cpu_vendor), "%s",
		 strcmp(arch, "aarch64") ? "AuthenticAMD" : "ARM");
	snprintf(e->cpu_model, sizeof(e->cpu_model), "%s", cpu);
	snprintf(e->cpu_part, sizeof(e->cpu_part), "test");
	snprintf(e->kernel, sizeof(e->kernel), "%s", kernel);
	snprintf(e->preempt, sizeof(e->preempt), "voluntary");
	e->lse = !strcmp(arch, "aarch64");
	e->ncpus_online = 2;
}

static void die(const char *what)
{
	fprintf(stderr, "mkfixtures: %s\n", what);
	exit(1);
}

/* One row whose numbers are what m describes (rg_result_fill()). */
static struct rg_result *row_m(struct rg_resultset *rs, const char *suite, const char *guard,
			       const char *scenario, long threads, long duty, long batch,
			       const struct rg_measured *m)
{
	struct rg_result *r = rg_results_add(rs, suite, guard, scenario);

	if (!r)
		die("out of memory");
	r->threads = threads;
	r->duty_ns = duty;
	r->batch = batch;
	r->ops = 1000000;
	if (rg_result_fill(r, m))
		die("out of memory");
	return r;
}

/* One row with ns and/or Mops/s samples (n values each; NULL for none). */
static void row(struct rg_resultset *rs, const char *suite, const char *guard,
		const char *scenario, long threads, long duty, long batch, const double *ns,
		const double *mops, size_t n)
{
	row_m(rs, suite, guard, scenario, threads, duty, batch,
	      &(struct rg_measured){ .n = n, .ns = ns, .mops = mops });
}

static void skip(struct rg_resultset *rs, const char *suite, const char *guard,
		 const char *scenario, const char *why)
{
	if (!rg_results_skip(rs, suite, guard, scenario, "%s", why))
		die("out of memory");
}

static void save(struct rg_resultset *rs, const char *dir, const char *stem)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s/%s.json", dir, stem);
	if (rg_results_write_json(rs, p))
		die(p);
	snprintf(p, sizeof(p), "%s/%s.csv", dir, stem);
	if (rg_results_write_csv(rs, p))
		die(p);
	rg_results_free(rs);
}

#define S(...) ((const double[]){ __VA_ARGS__ })

#define ROWS(t) (sizeof(t) / sizeof((t)[0]))

/* A user row: guard, scenario, threads and its ns samples in each file of a set (0 past the last). */
struct ab_row {
	const char *guard, *scenario;
	long threads;
	double ns[2][5];
};

/*
 * File f of a set: the user rows that have samples in it, then a BPF driver
 * row (Mops/s) and a skipped fentry row when bpf_mops is given.
 */
static void ab_file(const char *dir, const char *stem, const char *host, const char *arch,
		    const char *cpu, const char *kernel, const char *when,
		    const struct ab_row *u, size_t n, int f, const double *bpf_mops)
{
	struct rg_resultset rs;
	struct rg_env e;

	env(&e, host, arch, cpu, kernel);
	rg_results_init(&rs, &e);
	snprintf(rs.timestamp, sizeof(rs.timestamp), "%s", when);
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;

		while (k < 5 && u[i].ns[f][k] != 0)
			k++;
		if (k)
			row(&rs, "user", u[i].guard, u[i].scenario, u[i].threads, 0, 1000, u[i].ns[f],
			    NULL, k);
	}
	if (bpf_mops) {
		row(&rs, "bpf", "raw_tp", "driver", 1, 0, 100, NULL, bpf_mops, 5);
		skip(&rs, "bpf", "fentry", "driver", "fentry: BPF load failed (EPERM)");
	}
	save(&rs, dir, stem);
}

/* The A/B pair: values chosen so change, speedup and p can be checked by hand. */
static void ab(const char *dir)
{
	/* ab-base, then ab-new: rseq has 3 samples in ab-base, global-atomic and pcpu-swp one file each */
	static const struct ab_row rows[] = {
		{ "noop", "pair", 1, { { 0.30, 0.31, 0.29, 0.30, 0.32 }, { 0.30, 0.31, 0.29, 0.30, 0.32 } } },
		{ "tls", "pair", 1, { { 1.0, 1.1, 0.9, 1.0, 1.2 }, { 1.05, 0.95, 1.0, 1.15, 1.1 } } },
		{ "pcpu-stadd", "pair", 1, { { 50, 52, 48, 51, 49 }, { 1.00, 1.05, 0.98, 1.02, 1.04 } } },
		{ "pcpu-ldadd", "pair", 1, { { 2.0, 2.1, 1.9, 2.0, 2.2 }, { 2.5, 2.6, 2.4, 2.5, 2.7 } } },
		{ "rseq", "pair", 1, { { 4.0, 4.1, 3.9 }, { 4.0, 4.2, 3.8, 4.1, 3.9 } } },
		{ "global-atomic", "pair", 1, { { 6, 6, 6, 6, 6 }, { 0 } } },
		{ "pcpu-swp", "pair", 1, { { 0 }, { 3, 3.1, 2.9, 3, 3.2 } } },
		{ "pcpu-lock-xadd", "falseshare-packed", 2, { { 20, 21, 19, 20, 22 }, { 20, 21, 19, 20, 22 } } },
		{ "pcpu-lock-xadd", "falseshare-padded", 2, { { 5, 5.5, 4.5, 5, 6 }, { 4, 4.4, 3.6, 4, 4.8 } } },
	};
	/* The same guards on another machine, for --across-hosts. */
	static const struct ab_row hostb[] = {
		{ "noop", "pair", 1, { { 0.25, 0.26, 0.24, 0.25, 0.27 } } },
		{ "tls", "pair", 1, { { 0.8, 0.85, 0.75, 0.8, 0.9 } } },
		{ "pcpu-stadd", "pair", 1, { { 45, 46, 44, 45, 47 } } },
		{ "pcpu-ldadd", "pair", 1, { { 1.5, 1.6, 1.4, 1.5, 1.7 } } },
	};

	ab_file(dir, "ab-base", "alpha", "x86_64", "AMD EPYC 7B13", "6.1.0-57-amd64",
		"2026-01-01T00:00:00Z", rows, ROWS(rows), 0, S(50, 51, 49, 50, 52));
	ab_file(dir, "ab-new", "alpha", "x86_64", "AMD EPYC 7B13", "6.18.0",
		"2026-01-02T00:00:00Z", rows, ROWS(rows), 1, S(60, 61, 59, 60, 62));
	ab_file(dir, "hostb", "grace", "aarch64", "Neoverse-V2", "6.18.0",
		"2026-01-03T00:00:00Z", hostb, ROWS(hostb), 0, NULL);
}

static void lat_row(struct rg_resultset *rs, const char *guard, const char *role, double p50);

/* Every plot kind, two machines. */
static void plots(const char *dir)
{
	static const char *guards[] = { "noop", "tls", "pcpu-ldadd", "pcpu-stadd", "rseq" };
	static const double pair_ns[2][5] = { { 0.3, 1.0, 2.0, 6.0, 3.0 },
					      { 0.25, 0.8, 1.5, 45.0, 2.0 } };
	static const char *bpf_guard[] = { "raw_tp", "tp", "tp_btf" };
	struct rg_resultset rs;
	struct rg_env e;

	for (int m = 0; m < 2; m++) {
		if (m == 0)
			env(&e, "alpha", "x86_64", "AMD EPYC 7B13", "6.18.0");
		else
			env(&e, "grace", "aarch64", "Neoverse-V2", "6.18.0");
		rg_results_init(&rs, &e);
		snprintf(rs.timestamp, sizeof(rs.timestamp), "2026-01-01T00:00:00Z");
		for (int g = 0; g < 5; g++) {
			double base = pair_ns[m][g], ns[5], mops[5];

			for (int i = 0; i < 5; i++) {
				ns[i] = base * (1.0 + 0.02 * (i - 2));
				mops[i] = 1000.0 / ns[i];
			}
			row(&rs, "user", guards[g], "pair", 1, 0, 1000, ns, mops, 5);
			for (long t = 1; t <= 8; t *= 2) {
				for (int i = 0; i < 5; i++) {
					/* shared-nothing guards scale, the rest less */
					double eff = g == 3 ? 1.0 / (1.0 + 0.3 * (double)(t - 1)) : 1.0;

					ns[i] = base * (1.0 + 0.02 * (i - 2)) / eff;
					mops[i] = 1000.0 / ns[i] * (double)t;
				}
				row(&rs, "user", guards[g], "threads", t, 0, 1000, ns, mops, 5);
			}
			for (long d = 0; d <= 400; d = d ? d * 2 : 25) {
				for (int i = 0; i < 5; i++) {
					/* a far atomic hurts less when there is work between pairs */
					double cost = g == 3 ? base / (1.0 + (double)d / 50.0) + 1.0 : base;

					ns[i] = (cost + (double)d) * (1.0 + 0.01 * (i - 2));
					mops[i] = 1000.0 / ns[i];
				}
				row(&rs, "user", guards[g], "duty", 1, d, 1000, ns, mops, 5);
			}
			for (int i = 0; i < 5; i++)
				ns[i] = base * 3 * (1.0 + 0.02 * (i - 2));
			row(&rs, "kmod", guards[g], "loop", 1, 0, 10000, ns, NULL, 5);
			lat_row(&rs, guards[g], "n/a", base);
		}
		for (int b = 0; b < 3; b++) {
			for (int mode = 0; mode < 2; mode++) {
				double mops[5];

				for (int i = 0; i < 5; i++)
					mops[i] = (40.0 + 10 * b + 5 * mode + 8 * m) * (1.0 + 0.01 * (i - 2));
				row(&rs, "bpf", bpf_guard[b], mode ? "syscall" : "driver", 1, 0, 100, NULL,
				    mops, 5);
			}
		}
		skip(&rs, "bpf", "fentry", "driver", "fentry: BPF load failed (EPERM)");
		save(&rs, dir, m ? "plot-b" : "plot-a");
	}
}

/* One user row with a role and, unless it is noop, a paired difference against noop's samples. */
static struct rg_result *role_row(struct rg_resultset *rs, const char *guard, const char *role,
				  const char *scenario, long threads, long duty, double ns,
				  const double *noop)
{
	double x[5], mops[5];
	struct rg_result *r;

	for (int i = 0; i < 5; i++) {
		x[i] = ns * (1.0 + 0.01 * (i - 2)) + (noop ? noop[i] : 0);
		mops[i] = 1000.0 / x[i] * (double)threads;
	}
	r = row_m(rs, "user", guard, scenario, threads, duty, 1000,
		  &(struct rg_measured){ .n = 5, .ns = x, .mops = mops, .baseline = noop ? "noop" : NULL,
					 .base = noop, .nbase = 5 });
	snprintf(r->role, sizeof(r->role), "%s", role);
	snprintf(r->interleave, sizeof(r->interleave), "rounds");
	return r;
}

/* A latency row: percentiles and a two-bin histogram whose counts sum to the batches. */
static void lat_row(struct rg_resultset *rs, const char *guard, const char *role, double p50)
{
	struct rg_result *r = rg_results_add(rs, "user", guard, "latency");
	double lo[3] = { p50 * 0.9, p50 * 1.1, p50 * 8 }, hi[3] = { p50 * 1.1, p50 * 1.3, p50 * 9 };
	uint64_t cnt[3] = { 90000, 9900, 100 };

	if (!r)
		die("out of memory");
	snprintf(r->role, sizeof(r->role), "%s", role);
	r->batch = 32;
	r->repetitions = 100000;
	r->ops = 3200000;
	r->ns_median = r->lat_p50_ns = p50;
	r->lat_p90_ns = p50 * 1.05;
	r->lat_p99_ns = p50 * 1.2;
	r->lat_p999_ns = p50 * 8.5;
	r->lat_max_ns = p50 * 9;
	if (rg_result_fill(r, &(struct rg_measured){ .hist_lo = lo, .hist_hi = hi, .hist_count = cnt,
						     .nhist = 3 }))
		die("out of memory");
}

/* `rgbench report`: an arm64 and an x86-64 machine with roles, every section on one or the other. */
static void report_fx(const char *dir)
{
	static const struct { const char *g, *role; double arm, x86; } G[] = {
		{ "noop", "harness-floor", 0, 0 },
		{ "tls", "thread-floor", 0.55, 0.25 },
		{ "pcpu-stadd-kernel", "this-cpu-pre-6.18", 45.0, -1 },
		{ "pcpu-ldadd-kernel", "this-cpu-6.18", 8.0, -1 },
		{ "pcpu-llsc-kernel", "this-cpu-llsc", 9.5, -1 },
		{ "pcpu-prfm-stadd-kernel", "this-cpu-prfm-stadd", 8.2, -1 },
		{ "pcpu-xadd", "this-cpu-pre-6.18;this-cpu-6.18", -1, 3.2 },
		{ "rctx-kernel", "merged-rctx", 7.0, 2.1 },
		{ "rctx", "rseq-rctx", 2.0, 1.4 },
		{ "pcpu-ldadd", "pcpu-atomic", 5.0, -1 },
		{ "pcpu-lock-xadd", "pcpu-atomic", -1, 9.5 },
		{ "rseq", "rseq", -1, 0.7 },
		{ "global-atomic", "shared-atomic", 6.0, 9.1 },
		{ "racy-percpu", "negative-control", 0.35, 0.66 },
	};
	const double noop_arm[5] = { 0.25, 0.26, 0.24, 0.25, 0.27 };
	const double noop_x86[5] = { 0.30, 0.31, 0.29, 0.30, 0.32 };
	struct rg_resultset rs;
	struct rg_env e;

	for (int m = 0; m < 2; m++) {
		const double *noop = m ? noop_x86 : noop_arm;

		if (m == 0)
			env(&e, "grace", "aarch64", "Neoverse-V2", "6.18.0");
		else
			env(&e, "xeon", "x86_64", "Intel Xeon", "6.18.0");
		snprintf(e.virt, sizeof(e.virt), "none");
		e.rseq = 1;
		rg_results_init(&rs, &e);
		snprintf(rs.timestamp, sizeof(rs.timestamp), "2026-02-01T00:00:00Z");
		snprintf(rs.run_id, sizeof(rs.run_id), "20260201T000000Z-%s", m ? "x86" : "arm");
		for (size_t i = 0; i < sizeof(G) / sizeof(G[0]); i++) {
			double v = m ? G[i].x86 : G[i].arm;

			if (v < 0)
				continue;
			if (!strcmp(G[i].g, "noop")) {
				role_row(&rs, "noop", G[i].role, "pair", 1, 0, 0, noop);
				rs.rows[rs.n - 1].delta_ns = NAN;
				snprintf(rs.rows[rs.n - 1].baseline, sizeof(rs.rows[0].baseline), "n/a");
			} else {
				role_row(&rs, G[i].g, G[i].role, "pair", 1, 0, v, noop);
				/* one noisy row in a headline table: marked, left out unless --include-noisy */
				if (!m && !strcmp(G[i].g, "pcpu-llsc-kernel"))
					snprintf(rs.rows[rs.n - 1].status, sizeof(rs.rows[0].status), "noisy");
			}
			/* duty: the work swamps the differences from 200 ns on */
			for (long d = 50; d <= 800; d *= 4)
				role_row(&rs, G[i].g, G[i].role, "duty", 1, d,
					 (double)d + v / (d >= 200 ? 10.0 : 1.0), NULL);
			lat_row(&rs, G[i].g, G[i].role, v + (m ? 0.30 : 0.25));
			/* threads only on arm64 (x86's section is left out) */
			for (long t = 1; t <= 144 && !m; t = t == 128 ? 144 : t * 2)
				role_row(&rs, G[i].g, G[i].role, "threads", t, 0,
					 !strcmp(G[i].g, "global-atomic") ? v * (double)t : v + 0.25, NULL);
		}
		/* the other architecture's guard, skipped with the same key as the measured rows */
		skip(&rs, "user", m ? "pcpu-stadd-kernel" : "pcpu-xadd", "pair", m ? "arm64 only" : "x86-64 only");
		rs.rows[rs.n - 1].batch = 1000;
		if (m) {
			row(&rs, "bpf", "raw_tp", "driver", 1, 0, 100, S(45.5, 46, 45, 45.5, 46.5),
			    S(17, 17.2, 16.8, 17, 17.4), 5);
			skip(&rs, "bpf", "fentry", "driver", "EPERM: fentry load refused by kernel policy");
		} else {
			row(&rs, "kmod", "this_cpu_inc_return", "loop", 144, 0, 10000,
			    S(44, 45, 43, 44, 46), NULL, 5);
		}
		rs.timer.hz = m ? 2.3e9 : 1e9;
		rs.timer.resolution_ns = m ? 0.43 : 1.0;
		rs.timer.overhead_ns = m ? 20 : 30;
		snprintf(rs.timer.source, sizeof(rs.timer.source), "%s", m ? "rdtsc (invariant TSC)" : "cntvct_el0");
		save(&rs, dir, m ? "report-x86" : "report-arm");
	}
}

/*
 * --unit cycles: the same guards on one host whose core ran half as fast in
 * the second run (ref_ns_per_cycle 0.25 then 0.5): every ns doubles, the
 * cycles stay; tls has no cycle reference in the second run.
 */
static void cycles_fx(const char *dir)
{
	static const char *guards[] = { "noop", "tls", "pcpu-xadd", "pcpu-lock-xadd" };
	static const double ns[] = { 0.30, 0.80, 1.0, 5.0 };
	struct rg_resultset rs;
	struct rg_env e;

	for (int run = 0; run < 2; run++) {
		double k = run ? 0.5 : 0.25;

		env(&e, "zen", "x86_64", "AMD EPYC 9B14", "6.18.0");
		rg_results_init(&rs, &e);
		snprintf(rs.timestamp, sizeof(rs.timestamp), "2026-01-0%dT00:00:00Z", run + 4);
		for (int g = 0; g < 4; g++) {
			double v = ns[g] * (run ? 2 : 1);

			row(&rs, "user", guards[g], "pair", 1, 0, 1000, S(v, v * 1.02, v * 0.98, v, v * 1.01),
			    NULL, 5);
			if (!(run && g == 1))
				rs.rows[rs.n - 1].ref_ns_per_cycle = k;
		}
		save(&rs, dir, run ? "cyc-new" : "cyc-base");
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fputs("usage: mkfixtures DIR\n", stderr);
		return 2;
	}
	ab(argv[1]);
	plots(argv[1]);
	report_fx(argv[1]);
	cycles_fx(argv[1]);
	return 0;
}
