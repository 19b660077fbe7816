// SPDX-License-Identifier: MIT
/* `rgbench report`'s answer, first on the page: per host the decision, what it predicts per event, the part that makes most of it, and what limits the verdict, in a few lines. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "across.h"

/* "+1.10 [+0.99, +1.21]", or "+1.10 (no interval)". */
static void fmt_change(char *buf, size_t size, double v, double lo, double hi)
{
	char a[24], b[24], x[24];

	rp_fmt_signed(x, sizeof(x), v);
	if (isnan(lo) || isnan(hi)) {
		snprintf(buf, size, "%s (no interval)", x);
		return;
	}
	rp_fmt_signed(a, sizeof(a), lo);
	rp_fmt_signed(b, sizeof(b), hi);
	snprintf(buf, size, "%s [%s, %s]", x, a, b);
}

/* The change of the candidate guard other in d, or NULL. */
static const struct change *change_of(const struct decision *d, const char *other)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(rg_row_s(d->c[i].r, RG_COL_guard), other))
			return &d->c[i];
	return NULL;
}

/*
 * The per-event line: the BPF row that runs prog->active where the guard weighs most, the
 * cheapest event (a driver-triggered row before a syscall-triggered one, whose syscall
 * dwarfs the guard), measured and predicted.
 */
static void event_line(struct ctx *c, const struct host *h, const struct change *ch)
{
	const struct rg_row *e = NULL;
	char a[24], b[24], pct[24];
	double ns, v;

	for (size_t k = 0; k < h->n; k++) {
		const struct rg_row *r = h->rows[k];
		bool drv, edrv;

		if (!rp_across_prog_active_row(r))
			continue;
		drv = !strcmp(rg_row_s(r, RG_COL_scenario), "driver");
		edrv = e && !strcmp(rg_row_s(e, RG_COL_scenario), "driver");
		if (!e || (drv && !edrv) || (drv == edrv && rg_row_d(r, RG_COL_ns_median) <
							    rg_row_d(e, RG_COL_ns_median)))
			e = r;
	}
	if (!e) {
		rp_subbullet(c, "per event: no BPF row runs prog->active here (rgbench bpf as root)");
		return;
	}
	ns = rg_row_d(e, RG_COL_ns_median);
	v = ns + ch->v;
	rg_fmt_fixed(a, sizeof(a), ns, 2);
	rg_fmt_fixed(b, sizeof(b), v, 2);
	rp_fmt_signed(pct, sizeof(pct), 100 * ch->v / ns);
	rp_subbullet(c, "per event (%s/%s): %s -> %s ns, %s%%, predicted",
		  rp_md(rg_row_s(e, RG_COL_guard)), rp_md(rg_row_s(e, RG_COL_scenario)), a, b, pct);
}

/* What limits the verdict: emulation, noisy rows, one run per row. */
static void limits_line(struct ctx *c, const struct host *h, const struct decision *d,
			const struct change *ch)
{
	char buf[400] = "";
	size_t l = 0, user = 0, noisy = 0;
	long long runs = rg_row_i(d->cur, RG_COL_runs);

	for (size_t k = 0; k < h->n; k++) {
		const struct rg_row *r = h->rows[k];

		if (strcmp(rg_row_s(r, RG_COL_suite), "user") || !rp_row_ok(r))
			continue;
		user++;
		noisy += !strcmp(rg_row_s(r, RG_COL_status), "noisy");
	}
	if (h->emulated)
		l += (size_t)snprintf(buf + l, sizeof(buf) - l, "%semulated CPU: timings are the emulator's",
				      l ? "; " : "");
	if (noisy && l < sizeof(buf))
		l += (size_t)snprintf(buf + l, sizeof(buf) - l, "%s%zu of %zu user rows noisy", l ? "; " : "",
				      noisy, user);
	if (runs <= 1 && l < sizeof(buf))
		l += (size_t)snprintf(buf + l, sizeof(buf) - l, "%sone run per row (--runs 2 or more)",
				      l ? "; " : "");
	if (isnan(ch->lo) && l < sizeof(buf))
		l += (size_t)snprintf(buf + l, sizeof(buf) - l, "%sno interval", l ? "; " : "");
	if (l)
		rp_subbullet(c, "limits: %s", buf);
	else
		rp_subbullet(c, "limits: none seen (%lld runs per row, no noisy user row)", runs);
}

void rp_sec_answer(struct ctx *c, const struct host *hosts, size_t nh, bool allow_emulated)
{
	size_t shown = 0;

	rp_heading(c, "Answer");
	for (size_t i = 0; i < nh; i++) {
		const struct host *h = &hosts[i];
		const char *cur, *other, *dearer;
		const struct change *ch;
		struct decision d;
		struct rp_part p;
		char why[200], x[96], y[96];

		if (h->emulated && !allow_emulated) {
			rp_bullet(c, "%s: left out, its CPU was emulated (--allow-emulated shows it)", rp_md(h->name));
			continue;
		}
		if (!rp_across_pair(h, &cur, &other, why, sizeof(why)) || !rp_across_decide(h, &d) ||
		    !(ch = change_of(&d, other))) {
			rp_bullet(c, "%s: no answer (%s)", rp_md(h->name), rp_md(why));
			continue;
		}
		fmt_change(x, sizeof(x), ch->v, ch->lo, ch->hi);
		rp_bullet(c, "%s%s, kernel %s, runs %s (%s): %s %s ns per pair,%s", rp_md(h->name),
			  h->emulated ? " [EMULATED]" : "", rp_md(h->kernel), rp_md(d.role), rp_md(cur), rp_md(ch->role), x,
			  h->emulated ? " not called (emulated)" : *rp_across_verdict(ch) ?
			  rp_across_verdict(ch) : " no clear difference");
		event_line(c, h, ch);
		/* The dearer design's largest part, else the other's where only it has a ladder. */
		dearer = ch->v > 0 ? other : cur;
		if (!rp_across_top_step(h, dearer, &p) && rp_across_top_step(h, dearer == cur ? other : cur, &p))
			dearer = dearer == cur ? other : cur;
		if (p.part) {
			fmt_change(y, sizeof(y), p.v, p.lo, p.hi);
			rp_fmt_signed(x, sizeof(x), p.whole);
			rp_subbullet(c, "largest part: %s's +%s, %s of its %s ns", rp_md(dearer), rp_md(p.part), y, x);
		} else {
			rp_subbullet(c, "largest part: not known (no ladder rows)");
		}
		limits_line(c, h, &d, ch);
		shown++;
	}
	fputc('\n', c->f);
	if (shown)
		rp_para(c, "The design the kernel runs against the candidate, ns per enter/exit pair with the interval of the difference (sections below: Decision, Why, Prediction).");
}
