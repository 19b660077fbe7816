// SPDX-License-Identifier: MIT
/* `rgbench compare`'s numbers: the metric of a pair of rows, their values as text, the change and the Mann-Whitney U verdict. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"

/* ns figures, and the same after --unit cycles turned them into reference cycles. */
static const struct metric M_NS = { RG_COL_ns_median, RG_COL_ns_stddev, false, "ns", "ns_median" };
static const struct metric M_CYC = { RG_COL_ns_median, RG_COL_ns_stddev, false, "cyc", "ns_median" };

const char *cmp_ns_unit(bool cycles)
{
	return cycles ? M_CYC.unit : M_NS.unit;
}

static bool is_ns(const struct metric *m)
{
	return m->median == RG_COL_ns_median;
}

static const struct metric M_MOPS = { RG_COL_mops_median, RG_COL_mops_stddev, true, "M/s", "mops_median" };
/*
 * bpf rows that kept each sample's producer CPU time (samples_cpu_ns): ns of
 * CPU per event, steady where wall-clock M/s follows the host's load. No
 * column holds its spread: RG_NCOLS, the samples' standard deviation.
 */
static const struct metric M_CPU = { RG_COL_cpu_ns_median, RG_NCOLS, false, "CPU ns/event",
				     "cpu_ns_median" };

/* A metric of ns (a lower figure is better, the A/A floor is in its unit). */
static bool ns_like(const struct metric *m)
{
	return is_ns(m) || m == &M_CPU;
}

static bool has_cpu(const struct rg_row *r)
{
	return r->n_cpu && r->n_cpu == r->n_mops && !isnan(rg_row_d(r, RG_COL_cpu_ns_median));
}

static double spread(const struct rg_row *r, const struct metric *m)
{
	if (m->spread != RG_NCOLS)
		return rg_row_d(r, m->spread);
	return r->n_cpu > 1 ? rg_stat_stddev(r->samples_cpu_ns, r->n_cpu) : NAN;
}

/* Measured: ok, or noisy (values kept from disturbed runs; the verdict says so). */
bool cmp_row_ok(const struct rg_row *r)
{
	return r && (!strcmp(rg_row_s(r, RG_COL_status), "ok") ||
		     !strcmp(rg_row_s(r, RG_COL_status), "noisy"));
}

static bool row_noisy(const struct rg_row *r)
{
	return r && !strcmp(rg_row_s(r, RG_COL_status), "noisy");
}

/* The suite's main metric, or the other one when only that is measured on both sides. */
static const struct metric *pick_metric(const struct rg_row *a, const struct rg_row *b, bool cycles)
{
	const struct rg_row *k = a ? a : b;
	const struct metric *ns = cycles ? &M_CYC : &M_NS;
	const struct metric *main = strcmp(rg_row_s(k, RG_COL_suite), "bpf") ? ns : &M_MOPS;
	const struct metric *alt = main == ns ? &M_MOPS : ns;
	bool main_ok = true, alt_ok = true;

	/* bpf: producer CPU time where every side has it per sample (older files: M/s). */
	if (main == &M_MOPS && (!a || has_cpu(a)) && (!b || has_cpu(b)))
		return &M_CPU;

	for (int i = 0; i < 2; i++) {
		const struct rg_row *r = i ? b : a;

		if (!r)
			continue;
		main_ok &= !isnan(rg_row_d(r, main->median));
		alt_ok &= !isnan(rg_row_d(r, alt->median));
	}
	/* In cycles, a row without the reference shows n/a rather than its M/s. */
	if (main == &M_CYC)
		return main;
	return !main_ok && alt_ok ? alt : main;
}

static void samples(const struct rg_row *r, const struct metric *m, const double **v, size_t *n)
{
	if (is_ns(m)) {
		*v = r->samples_ns;
		*n = r->n_ns;
	} else if (m == &M_CPU) {
		*v = r->samples_cpu_ns;
		*n = r->n_cpu;
	} else {
		*v = r->samples_mops;
		*n = r->n_mops;
	}
}

/* Decimals for a figure of about v: 0 from 1000, 1 from 100, 2 from 1, else 3. */
static int decimals(double v)
{
	return v >= 1000 ? 0 : v >= 100 ? 1 : v >= 1 ? 2 : 3;
}

void cmp_fmt_num(char *buf, size_t size, double v)
{
	rg_fmt_fixed(buf, size, v, decimals(v));
}

/* The spread with as many decimals as fmt_num gives the median. */
void cmp_fmt_spread(char *buf, size_t size, double median, double s)
{
	/* A spread small against its median may read 0 ("±0"); a huge one keeps its magnitude. */
	if (fabs(s) >= 1e7)
		rg_fmt_fixed(buf, size, s, decimals(median));
	else
		snprintf(buf, size, "%.*f", decimals(median), s);
}

void cmp_fmt_factor(char *buf, size_t size, double f)
{
	char n[32];

	if (isnan(f) || isinf(f) || f <= 0)	/* a factor of 0 or below compares nothing */
		snprintf(buf, size, "n/a");
	else if (f >= 0.01) {
		rg_fmt_fixed(n, sizeof(n), f, f >= 10 ? 0 : 2);
		snprintf(buf, size, "%sx", n);
	} else
		snprintf(buf, size, "%.2gx", f);
}

static void fmt_change(char *buf, size_t size, double pct)
{
	char n[32];

	if (isnan(pct) || isinf(pct)) {
		snprintf(buf, size, "n/a");
		return;
	}
	if (fabs(pct) < 0.05)
		pct = 0;	/* -0 and -0.04 read +0.0%, never -0.0% */
	/* A change under 0.05% reads +0.0% (no change); a huge one keeps its magnitude. */
	if (fabs(pct) >= 1e7) {
		rg_fmt_fixed(n, sizeof(n), pct, 0);
		snprintf(buf, size, "%s%s%%", pct >= 0 ? "+" : "", n);
	} else {
		snprintf(buf, size, fabs(pct) >= 1000 ? "%+.0f%%" : "%+.1f%%", pct);
	}
}

static void fmt_p(char *buf, size_t size, double p)
{
	if (p < 0.001)
		snprintf(buf, size, "<0.001");
	else
		snprintf(buf, size, "%.3f", p);
}
/* One end of an interval in %: "+2.1", "-0.4" ("+0.0" for a magnitude under 0.05); whole: "+152". */
static void fmt_pct_end(char *buf, size_t size, double pct, bool whole)
{
	if (fabs(pct) < 0.05)
		pct = 0;
	if (fabs(pct) >= 1e7) {
		char n[32];

		rg_fmt_fixed(n, sizeof(n), pct, 0);
		snprintf(buf, size, "%s%s", pct >= 0 ? "+" : "", n);
	} else {
		snprintf(buf, size, whole ? "%+.0f" : "%+.1f", pct);
	}
}

/*
 * The change's interval: [lo, hi] of the tested difference (new - base, in
 * the unit of va) as % of va, with level its actual confidence. Nothing when
 * va is not positive or an end is not a number.
 */
static void set_ci(struct res *r, double lo, double hi, double level)
{
	char a[32], b[32], tag[16];
	bool whole;

	if (!(r->va > 0) || isnan(lo) || isnan(hi) || isnan(level))
		return;
	r->ci_lo = lo / r->va * 100.0;
	r->ci_hi = hi / r->va * 100.0;
	r->ci_level = level;
	/* both ends alike: whole percents once either reaches 100 */
	whole = fabs(r->ci_lo) >= 99.95 || fabs(r->ci_hi) >= 99.95;
	fmt_pct_end(a, sizeof(a), r->ci_lo, whole);
	fmt_pct_end(b, sizeof(b), r->ci_hi, whole);
	snprintf(r->ci, sizeof(r->ci), " [%s, %s]%s", a, b,
		 rg_ci_level_tag(level, tag, sizeof(tag)));
}

/*
 * Welch's interval of the difference of the run values' means, at 95 % (the
 * t quantile of Welch's degrees of freedom), scaled by scale (reference
 * cycles back to the base's ns). Nothing when a side has fewer than two
 * values or neither varies.
 */
static void runs_ci(struct res *r, const double *xa, size_t na, const double *xb, size_t nb,
		    double scale)
{
	double va, vb, se2, df, q, d;

	if (na < 2 || nb < 2)
		return;
	va = rg_stat_stddev(xa, na);
	vb = rg_stat_stddev(xb, nb);
	va = va * va / (double)na;
	vb = vb * vb / (double)nb;
	se2 = va + vb;
	if (!(se2 > 0))
		return;
	df = se2 * se2 / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
	q = rg_stat_t_quantile(0.975, df);
	d = rg_stat_mean(xb, nb) - rg_stat_mean(xa, na);
	if (isnan(q))
		return;
	set_ci(r, (d - q * sqrt(se2)) * scale, (d + q * sqrt(se2)) * scale, 0.95);
}

/*
 * Rows measured in interleaved rounds carry, per round, their difference
 * against the baseline of the same round (samples_delta_ns): the test then
 * compares those, so drift within each run cancels out. Only when both rows
 * were measured that way against the same baseline.
 */
static bool round_paired(const struct rg_row *a, const struct rg_row *b)
{
	/* The baseline's own deltas are all 0: its row is tested on its samples. */
	return a->n_delta && b->n_delta && a->n_delta == a->n_ns && b->n_delta == b->n_ns &&
	       strcmp(rg_row_s(a, RG_COL_guard), rg_row_s(a, RG_COL_baseline)) &&
	       !strcmp(rg_row_s(a, RG_COL_interleave), "rounds") &&
	       !strcmp(rg_row_s(b, RG_COL_interleave), "rounds") &&
	       !strcmp(rg_row_s(a, RG_COL_baseline), rg_row_s(b, RG_COL_baseline));
}

/*
 * bpf rows on CPU time: each sample's CPU difference against its baseline's
 * window of the same sample (samples_cpu_delta_ns), when both rows have one
 * per sample against the same baseline. Their delta_ns is then on CPU time too.
 */
static bool cpu_paired(const struct rg_row *a, const struct rg_row *b)
{
	return a->n_cpu_delta && a->n_cpu_delta == a->n_cpu && b->n_cpu_delta &&
	       b->n_cpu_delta == b->n_cpu &&
	       !strcmp(rg_row_s(a, RG_COL_interleave), "alternating") &&
	       !strcmp(rg_row_s(b, RG_COL_interleave), "alternating") &&
	       !strcmp(rg_row_s(a, RG_COL_baseline), rg_row_s(b, RG_COL_baseline));
}

/* How the paired values are named in a verdict: a bpf row's samples and passes, a user row's rounds and runs. */
static const char *paired_what(const struct res *r, bool runs)
{
	if (r->m == &M_CPU)
		return runs ? ", per-pass CPU deltas" : ", per-sample CPU deltas";
	return runs ? ", per-run deltas" : ", per-round deltas";
}

static void value_text(char *full, size_t fs, char *shrt, size_t ss, const struct rg_row *r,
		       const struct metric *m, double v, double s)
{
	char nv[32], ns[32];

	if (!r) {
		snprintf(full, fs, "-");
		snprintf(shrt, ss, "-");
		return;
	}
	if (!cmp_row_ok(r)) {
		snprintf(full, fs, "%s", rg_row_s(r, RG_COL_status));
		snprintf(shrt, ss, "%s", rg_row_s(r, RG_COL_status));
		return;
	}
	cmp_fmt_num(nv, sizeof(nv), v);
	if (isnan(v)) {
		snprintf(full, fs, "n/a");
		snprintf(shrt, ss, "n/a");
		return;
	}
	cmp_fmt_spread(ns, sizeof(ns), v, s);
	if (isnan(s))
		snprintf(full, fs, "%s %s", nv, m->unit);
	else
		snprintf(full, fs, "%s ±%s %s", nv, ns, m->unit);
	snprintf(shrt, ss, "%s%s", nv, m->unit);
}

/*
 * The U test on the samples xa and xb (r->na, r->nb of them) and the verdict
 * it gives: the p value, faster or slower in the metric's direction (or in
 * the delta's, for per-round differences), and whether a side was noisy.
 */
static void test_verdict(struct res *r, const struct rg_row *a, const struct rg_row *b,
			 const double *xa, const double *xb, const char *alabel, bool ratio_mode)
{
	struct rg_mwu t;
	char p[24];
	bool better;
	double da = r->va, db = r->vb;

	if (!r->na || !r->nb) {
		snprintf(r->verdict, sizeof(r->verdict), "n/a (no samples)");
		snprintf(r->pv, sizeof(r->pv), "n/a");
		return;
	}
	if (r->na < RG_MWU_MIN_SAMPLES || r->nb < RG_MWU_MIN_SAMPLES) {
		snprintf(r->verdict, sizeof(r->verdict), "too few repetitions (%zu vs %zu, need %d)",
			 r->na, r->nb, RG_MWU_MIN_SAMPLES);
		snprintf(r->pv, sizeof(r->pv), "few");
		return;
	}
	if (rg_mwu_test(xa, r->na, xb, r->nb, &t)) {
		snprintf(r->verdict, sizeof(r->verdict), "n/a (test failed)");
		return;
	}
	r->p = t.p;
	r->test = t.exact ? "exact" : "normal";
	{
		struct rg_mwu_ci ci;

		if (!rg_mwu_shift_ci(xa, r->na, xb, r->nb, &ci))
			set_ci(r, ci.lo, ci.hi, ci.level);
	}
	fmt_p(p, sizeof(p), t.p);
	snprintf(r->pv, sizeof(r->pv), "%s", p);
	if (r->paired) {
		/* The direction of the tested quantity: the delta against the baseline. */
		da = rg_row_d(a, RG_COL_delta_ns);
		db = rg_row_d(b, RG_COL_delta_ns);
	}
	better = r->m->higher_better ? db > da : db < da;
	r->called = t.p < ALPHA && db != da;
	if (t.p >= ALPHA)
		snprintf(r->verdict, sizeof(r->verdict), "no significant change (p=%s%s)", p,
			 r->paired ? paired_what(r, false) : "");
	else if (db == da)
		snprintf(r->verdict, sizeof(r->verdict), "differs (p=%s%s)", p,
			 r->paired ? paired_what(r, false) : "");
	else
		snprintf(r->verdict, sizeof(r->verdict), "%s (p%s%s%s)",
			 better ? "faster" : "slower", *p == '<' ? "" : "=", p,
			 r->paired ? paired_what(r, false) : "");
	if (row_noisy(a) || row_noisy(b)) {
		size_t l = strlen(r->verdict);

		snprintf(r->verdict + l, sizeof(r->verdict) - l, "; noisy in %s",
			 row_noisy(a) && row_noisy(b) ? "both" : row_noisy(a) ? alabel
			 : ratio_mode ? "this row" : "new");
	}
}

/*
 * Welch's two-sided t test on run-level values (one value per process: the
 * runs are the replicates, rounds nested in them count once through their
 * run's median). 0 with *p, or -1 when a side has fewer than 2 values or
 * neither side varies.
 */
int cmp_runs_test(const double *xa, size_t na, const double *xb, size_t nb, double *p)
{
	double ma, mb, va, vb, se2, t, df;

	if (na < 2 || nb < 2)
		return -1;
	ma = rg_stat_mean(xa, na);
	mb = rg_stat_mean(xb, nb);
	va = rg_stat_stddev(xa, na);
	vb = rg_stat_stddev(xb, nb);
	va = va * va / (double)na;
	vb = vb * vb / (double)nb;
	se2 = va + vb;
	if (!(se2 > 0)) {
		if (ma == mb)
			return -1;
		*p = 0;	/* no spread on either side and different values */
		return 0;
	}
	t = (mb - ma) / sqrt(se2);
	df = se2 * se2 / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
	*p = fmin(1, 2 * rg_stat_t_sf(fabs(t), df));
	return 0;
}

static long row_runs(const struct rg_row *r)
{
	return rg_row_i(r, RG_COL_runs) > 1 ? (long)rg_row_i(r, RG_COL_runs) : 1;
}

/* The row's run-level values of the tested quantity (per-run deltas when paired), or none. */
static size_t run_values(const struct rg_row *r, bool paired, const double **v)
{
	*v = paired ? r->runs_delta_ns : r->runs_ns;
	return paired ? r->n_runs_delta : r->n_runs_ns;
}

/* The verdict's wording once the test said p (or the floor said called). */
static void say(struct res *r, const char *alabel, bool ratio_mode, const struct rg_row *a,
		const struct rg_row *b, bool called, const char *how)
{
	double da = r->va, db = r->vb;
	bool better;

	if (r->paired) {
		da = rg_row_d(a, RG_COL_delta_ns);
		db = rg_row_d(b, RG_COL_delta_ns);
	}
	better = r->m->higher_better ? db > da : db < da;
	r->called = called && db != da;
	if (!called)
		snprintf(r->verdict, sizeof(r->verdict), "%s", how);
	else if (db == da)
		snprintf(r->verdict, sizeof(r->verdict), "differs (%s)", how);
	else
		snprintf(r->verdict, sizeof(r->verdict), "%s (%s)", better ? "faster" : "slower", how);
	if (row_noisy(a) || row_noisy(b)) {
		size_t l = strlen(r->verdict);

		snprintf(r->verdict + l, sizeof(r->verdict) - l, "; noisy in %s",
			 row_noisy(a) && row_noisy(b) ? "both" : row_noisy(a) ? alabel
			 : ratio_mode ? "this row" : "new");
	}
}

/*
 * The cycle reference of both rows when they come from one machine (host and
 * CPU model; the kernel may differ: base and patched): its add chain runs in
 * the same rounds as the guards, so a row over it is a ratio within one run,
 * and a change of the whole machine between two commands (load, frequency)
 * divides out. An A/A series of default runs here (10 pairs) called 12.3 % of identical
 * user rows different on ns and 5.4 % in reference cycles (docs/bench.md). False
 * when either row lacks the reference or the machines differ.
 */
static bool same_machine_refs(const struct rg_row *a, const struct rg_row *b, double *ra,
			      double *rb)
{
	*ra = rg_row_d(a, RG_COL_ref_ns_per_cycle);
	*rb = rg_row_d(b, RG_COL_ref_ns_per_cycle);
	return *ra > 0 && *rb > 0 && isfinite(*ra) && isfinite(*rb) &&
	       !strcmp(rg_row_s(a, RG_COL_host), rg_row_s(b, RG_COL_host)) &&
	       !strcmp(rg_row_s(a, RG_COL_cpu_model), rg_row_s(b, RG_COL_cpu_model));
}

/*
 * Several runs per side: the test on run-level values. Otherwise, one run
 * on a side: a change only beyond the A/A floor either file measured on its
 * host (aa_floor_ns), else "within run-to-run noise". True when it gave the
 * verdict; false for files without runs or floor (v4 and older, --runs 1
 * on both sides), which keep the per-round test, said to be one run's.
 */
static bool runs_verdict(struct res *r, const struct rg_row *a, const struct rg_row *b,
			 const char *alabel, bool ratio_mode, bool cycles)
{
	const double *xa, *xb;
	size_t na = run_values(a, r->paired, &xa), nb = run_values(b, r->paired, &xb);
	long ra = row_runs(a), rb = row_runs(b);
	double fa = rg_row_d(a, RG_COL_aa_floor_ns), fb = rg_row_d(b, RG_COL_aa_floor_ns), floor;
	double da = r->paired ? rg_row_d(a, RG_COL_delta_ns) : r->va;
	double db = r->paired ? rg_row_d(b, RG_COL_delta_ns) : r->vb;
	char how[200], p[24];

	if (ra > 1 && rb > 1 && na > 1 && nb > 1) {
		double ca[RG_MAX_RUNS_CMP], cb[RG_MAX_RUNS_CMP], refa, refb;
		bool in_cyc = !cycles && is_ns(r->m) && na <= RG_MAX_RUNS_CMP && nb <= RG_MAX_RUNS_CMP &&
			      same_machine_refs(a, b, &refa, &refb);

		if (in_cyc) {
			for (size_t i = 0; i < na; i++)
				ca[i] = xa[i] / refa;
			for (size_t i = 0; i < nb; i++)
				cb[i] = xb[i] / refb;
			xa = ca;
			xb = cb;
		}
		if (cmp_runs_test(xa, na, xb, nb, &r->p)) {
			snprintf(r->pv, sizeof(r->pv), "n/a");
			say(r, alabel, ratio_mode, a, b, false, "no change: the runs do not vary");
			return true;
		}
		r->na = na;
		r->nb = nb;
		r->test = "runs";
		runs_ci(r, xa, na, xb, nb, in_cyc ? refa : 1.0);
		fmt_p(p, sizeof(p), r->p);
		snprintf(r->pv, sizeof(r->pv), "%s", p);
		snprintf(how, sizeof(how), "p%s%s, %zu vs %zu %s%s%s", *p == '<' ? "" : "=", p, na, nb,
			 r->m == &M_CPU ? "passes" : "runs", r->paired ? paired_what(r, true) : "",
			 in_cyc ? " in reference cycles" : "");
		if (r->p >= ALPHA) {
			char h2[220];

			snprintf(h2, sizeof(h2), "no significant change (%s)", how);
			say(r, alabel, ratio_mode, a, b, false, h2);
		} else {
			say(r, alabel, ratio_mode, a, b, true, how);
		}
		return true;
	}
	floor = fmax(isnan(fa) ? -1 : fa, isnan(fb) ? -1 : fb);
	if (!(floor >= 0) || !ns_like(r->m))
		return false;
	r->test = "floor";
	snprintf(r->pv, sizeof(r->pv), "floor");
	/* the floor is the 95 % bound of two single runs' difference: the difference plus or minus it */
	set_ci(r, db - da - floor, db - da + floor, 1.0 - RG_AA_ALPHA);
	snprintf(r->note_short, sizeof(r->note_short), "floor");
	if (fabs(db - da) > floor) {
		snprintf(how, sizeof(how), "%+.3g %s beyond the A/A floor of %.3g; one run %s",
			 db - da, r->m->unit, floor, ra == 1 && rb == 1 ? "per side" : "on a side");
		say(r, alabel, ratio_mode, a, b, true, how);
	} else {
		snprintf(how, sizeof(how), "within run-to-run noise (A/A floor %.3g %s; one run %s)",
			 floor, r->m->unit, ra == 1 && rb == 1 ? "per side" : "on a side");
		say(r, alabel, ratio_mode, a, b, false, how);
	}
	return true;
}

/*
 * A user row with one run on each side and no A/A floor in either file
 * (--runs 1, --quick, files before version 5) whose rounds differ at the 5 %
 * level: the rounds of one process cannot see what moves between processes
 * (docs/bench.md: rounds called 15-40 % of identical rows), so their p is
 * shown but nothing is called, and the line says how to get a verdict.
 */
static void one_run_verdict(struct res *r, const char *alabel, const struct rg_row *a,
			    const struct rg_row *b)
{
	char p[24];

	fmt_p(p, sizeof(p), r->p);
	r->called = false;
	r->test = "rounds";
	snprintf(r->verdict, sizeof(r->verdict),
		 "not called: one run per side and no A/A floor (rounds: p%s%s; measure with --runs 2 or more)",
		 *p == '<' ? "" : "=", p);
	if (row_noisy(a) || row_noisy(b)) {
		size_t l = strlen(r->verdict);

		snprintf(r->verdict + l, sizeof(r->verdict) - l, "; noisy in %s",
			 row_noisy(a) && row_noisy(b) ? "both" : row_noisy(a) ? alabel : "new");
	}
}

/* A line that cannot be tested: a side missing or not measured. True when it said why. */
static bool untestable(struct res *r, const struct rg_row *a, const struct rg_row *b,
		       const char *alabel, bool ratio_mode)
{
	if (!a || !b) {
		if (ratio_mode)
			snprintf(r->verdict, sizeof(r->verdict), "no %s row", alabel);
		else
			snprintf(r->verdict, sizeof(r->verdict), "only in %s", a ? "base" : "new");
		snprintf(r->chg, sizeof(r->chg), "%s", ratio_mode ? "-" : a ? "removed" : "added");
		return true;
	}
	if (!cmp_row_ok(a) || !cmp_row_ok(b)) {
		const struct rg_row *s = !cmp_row_ok(a) ? a : b;

		snprintf(r->verdict, sizeof(r->verdict), "%s in %s%s%s", rg_row_s(s, RG_COL_status),
			 !cmp_row_ok(a) && !cmp_row_ok(b) ? "both"
			 : s == a ? alabel : (ratio_mode ? "this row" : "new"),
			 *rg_row_s(s, RG_COL_reason) ? ": " : "", rg_row_s(s, RG_COL_reason));
		snprintf(r->chg, sizeof(r->chg), "%s", rg_row_s(s, RG_COL_status));
		return true;
	}
	if (isnan(r->va) || isnan(r->vb)) {
		snprintf(r->verdict, sizeof(r->verdict), "n/a (not measured)");
		return true;
	}
	return false;
}

void cmp_compute(const struct cmp *c, const char *alabel, bool ratio_mode, bool cycles,
		 struct res *r)
{
	const struct rg_row *a = c->a, *b = c->b;
	const double *xa = NULL, *xb = NULL;

	memset(r, 0, sizeof(*r));
	r->m = pick_metric(a, b, cycles);
	r->va = r->vb = r->sa = r->sb = r->change = r->factor = r->p = NAN;
	r->ci_lo = r->ci_hi = r->ci_level = NAN;
	r->test = "";
	if (a) {
		r->va = rg_row_d(a, r->m->median);
		r->sa = spread(a, r->m);
		samples(a, r->m, &xa, &r->na);
	}
	if (b) {
		r->vb = rg_row_d(b, r->m->median);
		r->sb = spread(b, r->m);
		samples(b, r->m, &xb, &r->nb);
	}
	value_text(r->a, sizeof(r->a), r->a_short, sizeof(r->a_short), a, r->m, r->va, r->sa);
	value_text(r->b, sizeof(r->b), r->b_short, sizeof(r->b_short), b, r->m, r->vb, r->sb);
	snprintf(r->chg, sizeof(r->chg), "-");
	snprintf(r->fac, sizeof(r->fac), "-");
	snprintf(r->pv, sizeof(r->pv), "-");
	if (untestable(r, a, b, alabel, ratio_mode))
		return;
	if (r->va > 0) {
		r->change = (r->vb - r->va) / r->va * 100.0;
		fmt_change(r->chg, sizeof(r->chg), r->change);
	}
	if (ratio_mode)
		r->factor = r->va > 0 ? r->vb / r->va : NAN;
	else if (r->m->higher_better)
		r->factor = r->va > 0 ? r->vb / r->va : NAN;
	else
		r->factor = r->vb > 0 ? r->va / r->vb : NAN;
	cmp_fmt_factor(r->fac, sizeof(r->fac), r->factor);
	if (!ratio_mode && is_ns(r->m) && round_paired(a, b)) {
		xa = a->samples_delta_ns;
		xb = b->samples_delta_ns;
		r->na = a->n_delta;
		r->nb = b->n_delta;
		r->paired = true;
	} else if (!ratio_mode && r->m == &M_CPU && cpu_paired(a, b)) {
		xa = a->samples_cpu_delta_ns;
		xb = b->samples_cpu_delta_ns;
		r->na = a->n_cpu_delta;
		r->nb = b->n_cpu_delta;
		r->paired = true;
	}
	if (!ratio_mode && runs_verdict(r, a, b, alabel, ratio_mode, cycles))
		return;
	test_verdict(r, a, b, xa, xb, alabel, ratio_mode);
	if (!ratio_mode && r->test[0] && !strcmp(rg_row_s(a, RG_COL_suite), "user")) {
		size_t l = strlen(r->verdict);

		r->one_run = true;
		if (r->called) {
			one_run_verdict(r, alabel, a, b);
			return;
		}
		/* No runs, no floor: the rounds of one process, blind to what moves between processes. */
		snprintf(r->verdict + l, sizeof(r->verdict) - l, "; one run per side, no A/A floor");
	}
}
