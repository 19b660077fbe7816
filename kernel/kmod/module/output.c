// SPDX-License-Identifier: GPL-2.0
/* The results as CSV: one row per guard, run and CPU, the re-entry rows, the cycle reference. */
#include "kmod.h"

static const char rg_csv_header[] =
	"suite,guard,role,scenario,threads,cpus,cpu,run,batch,duty_ns,duty_units,duty_in_ns,duty_in_units,irqs_off,"
	"ns_total,ns_per_pair,cycles_total,ops,refusals,granted,while_held,at_level,"
	"disturbed,discarded,expect,status,reason,prog_runs\n";

char *rg_csv;
size_t rg_csv_len;
static size_t rg_csv_cap;

__printf(1, 2) void rg_out(const char *fmt, ...)
{
	va_list ap;
	int n;

	if (rg_csv_len >= rg_csv_cap)
		return;
	va_start(ap, fmt);
	n = vsnprintf(rg_csv + rg_csv_len, rg_csv_cap - rg_csv_len, fmt, ap);
	va_end(ap);
	rg_csv_len = min_t(size_t, rg_csv_len + n, rg_csv_cap);
}

/* What this mode should give for a guard of this kind. */
static const char *rg_expect(enum rg_kind kind, int mode)
{
	if (kind == RG_IRQOFF)
		return mode == RG_M_NMI ? "refuse" : "defer";
	return rg_kind_name[kind];
}

/* The re-entry row of guard s in mode m: scenario, checks, status. */
static void rg_format_reentry(unsigned int s, int m)
{
	const struct rg_re_result *x = &rg_re_results[s * RG_M__COUNT + m];
	const char *name = rg_sel[s].name, *ex = rg_expect(rg_sel[s].g->kind, m);
	bool defer = !strcmp(ex, "defer");
	char scen[64], why[200] = "";

	snprintf(scen, sizeof(scen), "%s%s%s-%s", rg_sel[s].g->scenario ?: "",
		 rg_sel[s].g->scenario ? "-" : "", rg_mode_name[m], defer ? "deferred" : "recursion");
	if (x->skip) {
		rg_out("kmod,%s,%s,%s,1,,,,%u,0,0,,,0,,,,0,0,,,,,,%s,skipped,\"%s\",\n", name,
		       rg_sel[s].g->role, scen, irq_iters, ex, x->skip);
		return;
	}
	if (x->timeouts)
		snprintf(why, sizeof(why), "%llu of %llu %s attempts never ran", x->timeouts,
			 x->attempts + x->timeouts, rg_mode_name[m]);
	else if (x->attempts != irq_iters || x->at_level != x->attempts)
		snprintf(why, sizeof(why), "%llu of %u attempts ran, %llu at context level %d",
			 x->attempts, irq_iters, x->at_level, rg_mode_level[m]);
	else if (x->holder_refused)
		snprintf(why, sizeof(why), "the holder was refused %llu times", x->holder_refused);
	else if (!x->idle)
		snprintf(why, sizeof(why), "guard state not back to 0 afterwards");
	else if (!strcmp(ex, "refuse") &&
		 (x->refused != x->attempts || x->while_held != x->attempts))
		snprintf(why, sizeof(why),
			 "expected every re-entry refused: %llu refused, %llu while held",
			 x->refused, x->while_held);
	else if (!strcmp(ex, "grant") &&
		 (x->granted != x->attempts || x->while_held != x->attempts))
		snprintf(why, sizeof(why),
			 "expected every re-entry granted: %llu granted, %llu while held",
			 x->granted, x->while_held);
	else if (defer && (x->while_held != 0 || x->granted != x->attempts))
		snprintf(why, sizeof(why),
			 "expected the %s deferred to exit: %llu while held, %llu granted",
			 rg_mode_name[m], x->while_held, x->granted);
	rg_out("kmod,%s,%s,%s,1,\"%d\",%d,0,%u,0,0,,,0,,,,%llu,%llu,%llu,%llu,%llu,,,%s,%s,\"%s\",\n",
	       name, rg_sel[s].g->role, scen, x->cpu, x->cpu, irq_iters, x->attempts,
	       x->refused, x->granted, x->while_held, x->at_level, ex,
	       why[0] ? "error" : "ok", why);
}

/*
 * The re-entry rows of selection s: none for a tramp shape without them,
 * skipped rows saying why where the guard (or the program) cannot run.
 */
static void rg_format_reentries(unsigned int s, const char *role)
{
	const struct rg_kguard *g = rg_sel[s].g;
	const char *why = rg_sel[s].skip;
	int m;

	if (!irq_iters || (g && !g->enter))
		return;
	if (!why && g && g->prog)
		why = rg_tramp_unavailable();
	for (m = 0; m < RG_M__COUNT; m++)
		if (rg_reenters(s))
			rg_format_reentry(s, m);
		else
			rg_out("kmod,%s,%s,%s%s%s-recursion,1,,,,%u,0,0,,,0,,,,0,0,,,,,,,skipped,\"%s\",\n",
			       rg_sel[s].name, role, g && g->scenario ? g->scenario : "",
			       g && g->scenario ? "-" : "", rg_mode_name[m], irq_iters, why);
}

/* Selection s's timed rows in scenario scen (one per run and CPU), or its skipped row. */
void rg_format_timed(unsigned int s, const char *scen)
{
	const struct rg_kguard *g = rg_sel[s].g;
	const char *name = rg_sel[s].name;
	const char *role = g ? g->role : "n/a";
	char din[12] = "", dinu[12] = "";	/* the duty split; empty: the pair loop ran */
	unsigned int r, t;

	if (duty_ns) {
		snprintf(din, sizeof(din), "%u", rg_inside_ns());
		snprintf(dinu, sizeof(dinu), "%u", rg_units_in);
	}
	if (!g || rg_timed_skip(s)) {
		rg_out("kmod,%s,%s,%s,%u,\"%*pbl\",,,%lu,%u,,%s,,%d,,,,0,0,,,,,,,skipped,\"%s\",\n",
		       name, role, scen, rg_ncpus, cpumask_pr_args(rg_cpus), loops,
		       duty_ns, din, !irqs_on, rg_timed_skip(s));
		return;
	}
	for (r = 0; r < runs; r++) {
		for (t = 0; t < rg_ncpus; t++) {
			struct rg_sample *x = rg_sample_at(s, r, t);
			u64 milli = x->loops ? div64_u64(x->ns * 1000, x->loops) : 0;
			char cyc[24] = "", pr[24] = "";

			if (RG_HAVE_CYCLES)
				snprintf(cyc, sizeof(cyc), "%llu", x->cycles);
			if (g->prog)
				snprintf(pr, sizeof(pr), "%llu", x->prog_runs);
			rg_out("kmod,%s,%s,%s,%u,\"%*pbl\",%d,%u,%llu,%u,%u,%s,%s,%d,%llu,%llu.%03llu,%s,%llu,%llu,,,,%d,%u,,ok,,%s\n",
			       name, role, scen, rg_ncpus, cpumask_pr_args(rg_cpus),
			       rg_cpu_of[t], r, x->loops, duty_ns, rg_units_in + rg_units_out,
			       din, dinu, !irqs_on,
			       x->ns, div_u64(milli, 1000), milli % 1000, cyc,
			       x->loops, x->refused, x->disturbed, rg_discarded[s], pr);
		}
	}
}

int rg_format(void)
{
	const char *scen = irqs_on ? "loop" : "loop-irqsoff";
	/* every selection's rows, and room for ladder=1's noop and wholes again */
	size_t rows = (size_t)(2 * rg_nsel + 1) * (runs * rg_ncpus + RG_M__COUNT + 1) + 4;
	unsigned int s, r, t;

	kvfree(rg_csv);
	rg_csv_len = 0;
	rg_csv_cap = rows * 360 + sizeof(rg_csv_header);
	rg_csv = kvmalloc(rg_csv_cap, GFP_KERNEL);
	if (!rg_csv)
		return -ENOMEM;
	rg_out("%s", rg_csv_header);
	for (s = 0; s < rg_nsel; s++) {
		const struct rg_kguard *g = rg_sel[s].g;

		if (rg_ladder_step(s))
			continue;	/* rg_ladder_format() */
		rg_format_timed(s, g && g->scenario ? g->scenario : scen);
		rg_format_reentries(s, g ? g->role : "n/a");
	}
	rg_ladder_format();
	/* The cycle reference: guard and scenario cycle-ref, batch and ops in adds, ns_per_pair per add. */
	for (r = 0; r < runs; r++) {
		for (t = 0; t < rg_ncpus; t++) {
			struct rg_sample *x = &rg_ref[r * rg_ncpus + t];
			u64 adds = x->loops * RG_REF_ADDS;
			u64 milli = adds ? div64_u64(x->ns * 1000, adds) : 0;

			rg_out("kmod,cycle-ref,n/a,cycle-ref,%u,\"%*pbl\",%d,%u,%llu,%u,,,,%d,%llu,%llu.%03llu,,%llu,0,,,,%d,%u,,ok,,\n",
			       rg_ncpus, cpumask_pr_args(rg_cpus), rg_cpu_of[t], r, adds, duty_ns,
			       !irqs_on, x->ns, div_u64(milli, 1000), milli % 1000, adds,
			       x->disturbed, rg_ref_discarded);
		}
	}
	if (rg_csv_len >= rg_csv_cap) {
		pr_err("result buffer too small\n");
		return -ENOSPC;
	}
	return 0;
}

void rg_format_free(void)
{
	kvfree(rg_csv);
	rg_csv = NULL;
	rg_csv_len = 0;
}
