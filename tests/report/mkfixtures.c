// SPDX-License-Identifier: MIT
/* Writes the report tests' small, hand-checkable result files through the real writers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rg/result.h"

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

/* One row with ns and/or Mops/s samples (n values each; NULL for none). */
static void row(struct rg_resultset *rs, const char *suite, const char *guard,
		const char *scenario, long threads, long duty, long batch, const double *ns,
		const double *mops, size_t n)
{
	struct rg_result *r = rg_results_add(rs, suite, guard, scenario);

	if (!r)
		die("out of memory");
	r->threads = threads;
	r->duty_ns = duty;
	r->batch = batch;
	r->ops = 1000000;
	if (rg_result_set_samples(r, ns, mops, n))
		die("out of memory");
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

/* The A/B pair: values chosen so change, speedup and p can be checked by hand. */
static void ab(const char *dir)
{
	struct rg_resultset rs;
	struct rg_env e;

	env(&e, "alpha", "x86_64", "AMD EPYC 7B13", "6.1.0-57-amd64");
	rg_results_init(&rs, &e);
	snprintf(rs.timestamp, sizeof(rs.timestamp), "2026-01-01T00:00:00Z");
	row(&rs, "user", "noop", "pair", 1, 0, 1000, S(0.30, 0.31, 0.29, 0.30, 0.32), NULL, 5);
	row(&rs, "user", "tls", "pair", 1, 0, 1000, S(1.0, 1.1, 0.9, 1.0, 1.2), NULL, 5);
	row(&rs, "user", "pcpu-stadd", "pair", 1, 0, 1000, S(50, 52, 48, 51, 49), NULL, 5);
	row(&rs, "user", "pcpu-ldadd", "pair", 1, 0, 1000, S(2.0, 2.1, 1.9, 2.0, 2.2), NULL, 5);
	row(&rs, "user", "rseq", "pair", 1, 0, 1000, S(4.0, 4.1, 3.9), NULL, 3);
	row(&rs, "user", "global-atomic", "pair", 1, 0, 1000, S(6, 6, 6, 6, 6), NULL, 5);
	row(&rs, "user", "pcpu-lock-xadd", "falseshare-packed", 2, 0, 1000, S(20, 21, 19, 20, 22), NULL, 5);
	row(&rs, "user", "pcpu-lock-xadd", "falseshare-padded", 2, 0, 1000, S(5, 5.5, 4.5, 5, 6), NULL, 5);
	row(&rs, "bpf", "raw_tp", "driver", 1, 0, 100, NULL, S(50, 51, 49, 50, 52), 5);
	skip(&rs, "bpf", "fentry", "driver", "fentry: BPF load failed (EPERM)");
	save(&rs, dir, "ab-base");

	env(&e, "alpha", "x86_64", "AMD EPYC 7B13", "6.18.0");
	rg_results_init(&rs, &e);
	snprintf(rs.timestamp, sizeof(rs.timestamp), "2026-01-02T00:00:00Z");
	row(&rs, "user", "noop", "pair", 1, 0, 1000, S(0.30, 0.31, 0.29, 0.30, 0.32), NULL, 5);
	row(&rs, "user", "tls", "pair", 1, 0, 1000, S(1.05, 0.95, 1.0, 1.15, 1.1), NULL, 5);
	row(&rs, "user", "pcpu-stadd", "pair", 1, 0, 1000, S(1.00, 1.05, 0.98, 1.02, 1.04), NULL, 5);
	row(&rs, "user", "pcpu-ldadd", "pair", 1, 0, 1000, S(2.5, 2.6, 2.4, 2.5, 2.7), NULL, 5);
	row(&rs, "user", "rseq", "pair", 1, 0, 1000, S(4.0, 4.2, 3.8, 4.1, 3.9), NULL, 5);
	row(&rs, "user", "pcpu-swp", "pair", 1, 0, 1000, S(3, 3.1, 2.9, 3, 3.2), NULL, 5);
	row(&rs, "user", "pcpu-lock-xadd", "falseshare-packed", 2, 0, 1000, S(20, 21, 19, 20, 22), NULL, 5);
	row(&rs, "user", "pcpu-lock-xadd", "falseshare-padded", 2, 0, 1000, S(4, 4.4, 3.6, 4, 4.8), NULL, 5);
	row(&rs, "bpf", "raw_tp", "driver", 1, 0, 100, NULL, S(60, 61, 59, 60, 62), 5);
	skip(&rs, "bpf", "fentry", "driver", "fentry: BPF load failed (EPERM)");
	save(&rs, dir, "ab-new");

	/* The same guards on another machine, for --across-hosts. */
	env(&e, "grace", "aarch64", "Neoverse-V2", "6.18.0");
	rg_results_init(&rs, &e);
	snprintf(rs.timestamp, sizeof(rs.timestamp), "2026-01-03T00:00:00Z");
	row(&rs, "user", "noop", "pair", 1, 0, 1000, S(0.25, 0.26, 0.24, 0.25, 0.27), NULL, 5);
	row(&rs, "user", "tls", "pair", 1, 0, 1000, S(0.8, 0.85, 0.75, 0.8, 0.9), NULL, 5);
	row(&rs, "user", "pcpu-stadd", "pair", 1, 0, 1000, S(45, 46, 44, 45, 47), NULL, 5);
	row(&rs, "user", "pcpu-ldadd", "pair", 1, 0, 1000, S(1.5, 1.6, 1.4, 1.5, 1.7), NULL, 5);
	save(&rs, dir, "hostb");
}

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

int main(int argc, char **argv)
{
	if (argc != 2) {
		fputs("usage: mkfixtures DIR\n", stderr);
		return 2;
	}
	ab(argv[1]);
	plots(argv[1]);
	return 0;
}
