# SPDX-License-Identifier: MIT
"""rgplot.py's plots of one run's rows: ns bars, thread and duty lines, bpf, the latency
CDF, the ladder, the trampolines."""

import math

import matplotlib
import matplotlib.pyplot as plt

import rgplot_base as base
from rgplot_base import (MEASURED, bar_height, color_names, fmt, footer, grouped_hbars,
                         legend_beside, name, ok, ordered, present, save, source_style, spans)


def ns_bars(rows, sources, out, written, suite, kind, title):
    """Each guard's cost over noop per pair (the report's ranking), one bar per source, on a
    linear axis; whiskers: the row's interval; noop itself is the zero line."""
    sel = [r for r in rows if r["suite"] == suite and r["status"] in MEASURED and ok(r["ns_median"])
           and r["duty_ns"] == 0 and (suite != "user" or r["scenario"] == "pair")]
    if suite == "kmod":  # the refscale-style loop (irqs on first); tramp rows have their own plot
        sel = [r for r in sel if r["scenario"].startswith("loop")]
        if any(r["scenario"] == "loop" for r in sel):
            sel = [r for r in sel if r["scenario"] == "loop"]
    if not sel:
        return False
    tmin = min(r["threads"] for r in sel)
    sel = [r for r in sel if r["threads"] == tmin]
    over = base.noop_costs(rows)
    by = {}
    for r in sel:
        by.setdefault((r["guard"], r["source"]), r)  # first batch size wins
    drawn = [r for r in by.values() if r["guard"] != "noop" and ok(over(r)[0])]
    totals = not drawn  # no noop row to subtract (e.g. a module file of one guard): the medians

    def cost(r):
        return (r["ns_median"], math.nan, math.nan) if totals else over(r)
    if totals:
        drawn = list(by.values())
    guards = ordered(r["guard"] for r in sel if (r["guard"], r["source"]) in {(d["guard"], d["source"]) for d in drawn})
    sources = present(sources, drawn)
    keep = {(r["guard"], r["source"]) for r in drawn}

    def value(g, s):
        return cost(by[(g, s)])[0] if (g, s) in keep else None

    def err(g, s):
        _, lo, hi = cost(by[(g, s)])
        return (lo, hi) if ok(lo) and ok(hi) else None

    fig, ax = plt.subplots(figsize=(10.0, bar_height(len(guards), max(1.0, len(drawn) / len(guards)))))
    grouped_hbars(ax, guards, sources, value, err)
    ax.set_yticklabels([name(g) for g in guards])
    color_names(ax, guards)
    ax.axvline(0, color="black", linewidth=1)
    ax.set_xlabel("ns per enter/exit pair (median, lower is better; no noop row to subtract)" if totals else
                  "ns per enter/exit pair over noop (median; 0 = noop, lower is better)")
    ax.set_ylabel("guard")
    unit = "thread" if suite == "user" else "kthread"
    base.titled(fig, title + f", {tmin} {unit}{'s' if tmin > 1 else ''}", sel, ax)
    ax.grid(axis="x", alpha=0.3)
    legend_beside(ax, len(sources), loc="lower right")
    noops = [f"{fmt(by[('noop', s)]['ns_median'])} ns" + (f" ({name(lb)})" if len(sources) > 1 else "")
             for s, lb in sources if ("noop", s) in by]
    footer(fig, "bars: the median ns per pair (no noop row was measured, so no cost over noop and no "
           "interval: no whiskers)" if totals else
           "bars: the guard's cost over noop, as the report ranks it; "
           + base.whisker_caption(drawn, sum(1 for r in drawn if err(r["guard"], r["source"])))
           + (f"; noop itself: {', '.join(noops)} per pair" if noops else ""))
    save(fig, out, kind, written)
    return True


def thin_labels(fig, ax):
    """Many thread counts or duty levels: every one keeps its tick, but a label that would
    run into the one before it is left blank."""
    fig.tight_layout(rect=(0, base.bottom(fig), 1, 1))
    fig.canvas.draw()
    rend = fig.canvas.get_renderer()
    texts, last = [], None
    for t in ax.get_xticklabels():
        box = t.get_window_extent(rend)
        if last is not None and box.x0 < last.x1 + 4:
            texts.append("")
        else:
            texts.append(t.get_text())
            last = box
    ax.set_xticklabels(texts)


def slots(xs):
    """Evenly spaced positions for the levels xs (thread counts, duty levels), labelled with
    their values: a linear axis on which 0, 25 and 400 ns are all readable."""
    return {x: i for i, x in enumerate(sorted(xs))}


def lines(rows, sources, out, written, scenario, xkey, kind, title, xlabel):
    """Each guard's cost over noop per pair at each level of xkey (duty or threads): points
    joined by lines on linear axes, the row's interval as whiskers, at most MAX_SERIES
    series a panel (panels by design family), noop the zero line."""
    cost = base.noop_costs(rows)
    sel = [r for r in rows if r["suite"] == "user" and r["scenario"] == scenario and r["status"] in MEASURED
           and ok(r["ns_median"])]
    if scenario == "duty" and sel:
        sel = [r for r in sel if r["threads"] == min(x["threads"] for x in sel)]
    sel = [r for r in sel if r["guard"] != "noop" and ok(cost(r)[0])]
    if not sel or len(set(r[xkey] for r in sel)) < 2:
        return False
    sources = present(sources, sel)
    srcs = [s for s, _ in sources]
    keys = ordered((r["guard"], r["source"]) for r in sel)
    groups = base.panels(keys, lambda k: k[0])
    pos = slots(set(r[xkey] for r in sel))
    ncol = 1 if len(groups) == 1 else 2
    nrow = (len(groups) + ncol - 1) // ncol
    fig, axes = plt.subplots(nrow, ncol, squeeze=False, figsize=(10.0 if ncol == 1 else 14.0, 1.2 + 4.4 * nrow))
    with_ci = 0
    for gi, (fam, ks) in enumerate(groups):
        ax = axes[gi // ncol][gi % ncol]
        for k, (g, src) in enumerate(ks):
            si = srcs.index(src)
            label = dict(sources)[src]
            pts = sorted((r[xkey], *cost(r)) for r in sel if r["guard"] == g and r["source"] == src)
            # the series of a panel side by side around each level, so their whiskers stay apart
            shift = 0.3 * (k / (len(ks) - 1) - 0.5) if len(ks) > 1 else 0.0
            xs = [pos[p[0]] + shift for p in pts]
            ys = [p[1] for p in pts]
            lo = [p[1] - p[2] if ok(p[2]) and ok(p[3]) else math.nan for p in pts]
            hi = [p[3] - p[1] if ok(p[2]) and ok(p[3]) else math.nan for p in pts]
            with_ci += sum(1 for v in lo if ok(v))
            lab = name(g) if len(sources) == 1 else f"{name(g)} ({name(label)})"
            ax.errorbar(xs, ys, yerr=[[max(v, 0) if ok(v) else v for v in lo], [max(v, 0) if ok(v) else v for v in hi]],
                        markersize=5, capsize=2, elinewidth=0.8, label=lab, **source_style(g, si))
        ax.axhline(0, color="black", linewidth=0.8)
        ax.set_xticks(list(pos.values()))
        ax.set_xticklabels([str(x) for x in pos])
        ax.set_xlim(-0.4, len(pos) - 0.6)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("ns per pair over noop (median)")
        ax.set_title(fam, fontsize=11)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="best")
    for k in range(len(groups), nrow * ncol):
        fig.delaxes(axes[k // ncol][k % ncol])
    base.titled(fig, title, sel)
    footer(fig, "points: the guard's cost over noop, as the report ranks it; " + base.whisker_caption(sel, with_ci)
           + "; colour: design family (references and floors grey, dashed)")
    for ax in fig.axes:
        thin_labels(fig, ax)
    save(fig, out, kind, written)
    return True


def bpf(rows, sources, out, written):
    """M events/s per attach type and trigger mode, one bar per source (points on a log axis
    when the rates span more than 30x: a bar's length on a log axis means nothing). A rate
    has no interval: no whiskers."""
    sel = [r for r in rows if r["suite"] == "bpf" and r["status"] in MEASURED and ok(r["mops_median"])]
    if not sel:
        return False
    by = {}
    for r in sel:
        by.setdefault((r["guard"], r["scenario"], r["source"]), r)
    groups = ordered((r["guard"], r["scenario"]) for r in sel)
    sources = present(sources, sel)

    def value(g, s):
        r = by.get((g[0], g[1], s))
        return r["mops_median"] if r else None

    log = spans([r["mops_median"] for r in sel])
    fig, ax = plt.subplots(figsize=(10.0, bar_height(len(groups), len(sources))))
    grouped_hbars(ax, groups, sources, value, lambda g, s: None, dots=log)
    ax.set_yticklabels([f"{name(g)} / {name(m)}" for g, m in groups])
    if log:  # the user-count baseline runs ~100x faster than any BPF row
        ax.set_xscale("log")
        few_log_labels(ax.xaxis)
    ax.set_xlabel("million events per second (median, higher is better)" + ("; log scale" if log else ""))
    ax.set_ylabel("attach type / trigger mode")
    base.titled(fig, "BPF trigger rate per attach type and trigger mode", sel, ax)
    ax.grid(axis="x", alpha=0.3, which="both")
    legend_beside(ax, len(sources), loc="lower right")
    footer(fig, ("points (log axis: the rates span more than 30x)" if log else "bars")
           + ": median rate; no whiskers: a rate has no interval (the report's ns per event over the "
           "baseline has one)")
    save(fig, out, "bpf", written)
    return True


def cdf_points(bins):
    """The CDF of a histogram as points (upper bin edge, fraction at or below), joined by
    straight lines within a bin; the open last bin ends at twice its lower edge."""
    total = sum(c for _, _, c in bins)
    bins = sorted(b for b in bins if b[2] > 0)
    xs, ys, run = [bins[0][0]], [0.0], 0
    for lo, hi, c in bins:
        run += c
        if xs[-1] < lo:  # an empty stretch: flat
            xs.append(lo)
            ys.append(ys[-1])
        xs.append(hi if ok(hi) else 2 * max(lo, 1e-3))
        ys.append(run / total)
    return xs, ys, total


def quantile(xs, ys, q):
    for k in range(1, len(xs)):
        if ys[k] >= q:
            f = (q - ys[k - 1]) / (ys[k] - ys[k - 1]) if ys[k] > ys[k - 1] else 1.0
            return xs[k - 1] + f * (xs[k] - xs[k - 1])
    return xs[-1]


def latency_cdf(hist, out, written, rows=()):
    """Per guard (and source), a row of panels per design family (at most MAX_SERIES curves):
    left the CDF of the per-batch ns per pair on a linear axis zoomed to where the panel's
    curves differ (from their lowest p1 to their highest p99), right the tail, the fraction of batches
    above x on a log scale (log x: the tail runs to interrupts of 1e5 ns and more)."""
    series = {k: cdf_points(b) for k, b in hist.items() if sum(c for _, _, c in b) > 0}
    if not series:
        return False
    srcs = ordered((s, l) for (s, l, _) in series)
    groups = base.panels(list(series), lambda k: k[2])
    fig, axes = plt.subplots(len(groups), 2, squeeze=False, figsize=(14.0, 1.2 + 4.2 * len(groups)))
    for (fam, ks), (ax, axt) in zip(groups, axes):
        # this panel's zoom: from its lowest p1 to its highest p99
        p1 = min(quantile(*series[k][:2], 0.01) for k in ks)
        p99 = max(quantile(*series[k][:2], 0.99) for k in ks)
        pad = 0.05 * max(p99 - p1, 1e-3)
        for key in ks:
            src, label, g = key
            xs, ys, total = series[key]
            si = [s for s, _ in srcs].index(src)
            lab = name(g) if len(srcs) == 1 else f"{name(g)} ({name(label)})"
            style = dict(source_style(g, si), markersize=4)
            vis = [i for i, x in enumerate(xs) if p1 - pad <= x <= p99 + pad]
            ax.plot(xs, ys, label=lab, markevery=vis[::max(1, len(vis) // 5)] or None, **style)
            tail = [max(1.0 - y, 0.5 / total) for y in ys]
            axt.step(xs, tail, where="post", label=lab, markevery=max(1, len(xs) // 6), **style)
        ax.set_xlim(max(p1 - pad, 0), p99 + pad)
        ax.set_ylim(0, 1.0)
        for q in (0.5, 0.99):
            ax.axhline(q, color="grey", linewidth=0.6, alpha=0.5)
        ax.set_xlabel("ns per pair in one timed batch (zoom: lowest p1 to highest p99)")
        ax.set_ylabel("fraction of batches at or below")
        ax.set_title(f"{fam}: CDF", fontsize=11)
        ax.grid(alpha=0.3)
        axt.set_xscale("log")
        axt.set_yscale("log")
        few_log_labels(axt.xaxis)
        for q in (1e-2, 1e-3):
            axt.axhline(q, color="grey", linewidth=0.6, alpha=0.5)
        axt.set_xlabel("ns per pair in one timed batch (log scale)")
        axt.set_ylabel("fraction above (log scale)")
        axt.set_title(f"{fam}: the tail (p99 at 1e-2, p99.9 at 1e-3)", fontsize=11)
        axt.grid(alpha=0.3, which="both")
        legend_beside(axt, len(ks), loc="upper right")
    base.titled(fig, "Latency per guard: timed batches", rows)
    footer(fig, "left: where the curves differ, linear; right: the whole range, log-log; interrupted "
           "batches (ticks, interrupts, preemption) are kept: they are the tail")
    save(fig, out, "latency-cdf", written)
    return True


def few_log_labels(axis):
    """A log axis labels its decades (10^k); under two decades, a few plain numbers between
    them, never the crowded 2..9 x 10^k minor labels."""
    lo, hi = axis.get_view_interval()
    if lo > 0 and hi / lo >= 100:
        axis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    else:
        axis.set_minor_locator(matplotlib.ticker.LogLocator(subs=(2, 5)))
        axis.set_minor_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))


def name_rows(ax, names, title, xlabel, ylabel):
    """A horizontal-bar panel's rows named top to bottom, room for the values beside the bars,
    its title and axis labels."""
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels(names)
    ax.set_ylim(len(names) - 0.5, -0.5)
    ax.margins(x=0.15)
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(title, fontsize=11)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)


# The label of a whisker that is a row's interval moved along (a ladder step's, from the sum
# of the steps before): no legend entry; tests/plots/drawn.py compares its length.
SHIFTED = "_interval shifted"


def ladder_steps(rows, design):
    """A design's ladder in one source's rows: its steps in order (the first against noop,
    each next against the step before, as the baseline column chains them) and the whole."""
    by_base = {r["baseline"]: r for r in rows if r["guard"].startswith(design + "+")}
    steps, base = [], "noop"
    while base in by_base and len(steps) < 32:
        steps.append(by_base[base])
        base = by_base[base]["guard"]
    whole = next((r for r in rows if r["guard"] == design), None)
    return steps, whole


def ladder(rows, sources, out, written):
    """The parts ladder per design and host: a waterfall of what each part adds over the step
    before (interval as whiskers; a step whose interval holds 0 is hatched), then the sum of
    the steps beside the whole design measured in the same rounds. Hosts side by side."""
    sel = [r for r in rows if r["suite"] == "user" and r["scenario"] == "ladder" and r["status"] in MEASURED
           and ok(r["delta_ns"])]
    designs = ordered(r["guard"].split("+")[0] for r in sel if "+" in r["guard"])
    sources = present(sources, sel)
    cells = {}
    for src, _ in sources:
        mine = [r for r in sel if r["source"] == src]
        for d in designs:
            steps, whole = ladder_steps(mine, d)
            if steps:
                cells[(src, d)] = (steps, whole)
    if not cells:
        return False
    designs = [d for d in designs if any((s, d) in cells for s, _ in sources)]
    sources = [s for s in sources if any((s[0], d) in cells for d in designs)]
    heights = [max(len(cells[(s, d)][0]) for s, _ in sources if (s, d) in cells) * 0.42 + 1.6 for d in designs]
    fig, axes = plt.subplots(len(designs), len(sources), squeeze=False,
                             figsize=(max(10.0, 7.0 * len(sources)), min(40.0, sum(heights) + 0.8)),
                             gridspec_kw={"height_ratios": heights})
    for di, d in enumerate(designs):
        st = base.STYLES.of(d)
        for si, (src, label) in enumerate(sources):
            ax = axes[di][si]
            if (src, d) not in cells:
                fig.delaxes(ax)
                continue
            steps, whole = cells[(src, d)]
            names, cum = [], 0.0
            for i, r in enumerate(steps):
                v, lo, hi = r["delta_ns"], r["delta_ci_lo"], r["delta_ci_hi"]
                holds0 = not (ok(lo) and ok(hi)) or lo <= 0 <= hi
                ax.barh(i, v, left=cum, height=0.6, color=st["color"], alpha=0.35 if holds0 else 0.85,
                        hatch="//" if holds0 else None, edgecolor=st["color"])
                if ok(lo) and ok(hi):  # the step's interval, drawn from where the steps before end
                    ax.errorbar([cum + v], [i], xerr=[[max(v - lo, 0)], [max(hi - v, 0)]], color="black",
                                capsize=3, elinewidth=1, linestyle="none", label=SHIFTED)
                ax.annotate(f"{v:+.3g}", (max(cum, cum + v, cum + (hi if ok(hi) else v)), i), xytext=(4, 0),
                            textcoords="offset points", va="center", fontsize=8)
                cum += v
                names.append("+" + name(r["guard"][len(d) + 1:]))
            n = len(steps)
            ax.barh(n, cum, height=0.6, color="#bbbbbb")
            names.append("sum of the steps")
            ax.annotate(f"{cum:+.3g}", (max(cum, 0), n), xytext=(4, 0), textcoords="offset points", va="center",
                        fontsize=8)
            if whole and ok(whole["delta_ns"]):
                w, lo, hi = whole["delta_ns"], whole["delta_ci_lo"], whole["delta_ci_hi"]
                ax.barh(n + 1, w, height=0.6, color=st["color"], alpha=0.85)
                if ok(lo) and ok(hi):
                    ax.errorbar([w], [n + 1], xerr=[[max(w - lo, 0)], [max(hi - w, 0)]], color="black",
                                capsize=3, elinewidth=1, linestyle="none")
                ax.annotate(f"{w:+.3g}", (max(w, hi if ok(hi) else w, 0), n + 1), xytext=(4, 0),
                            textcoords="offset points", va="center", fontsize=8)
                names.append(f"{name(d)} (whole)")
            ax.axvline(0, color="black", linewidth=1)
            name_rows(ax, names, f"{name(label, 60)}: {name(d)}", "ns per pair: each part over the step before",
                      "part added")
    base.titled(fig, "Parts ladder: each design built up one part at a time, in the same rounds",
                [r for r in sel if r["source"] in {s for s, _ in sources}])
    footer(fig, "bars: median of paired per-round differences; whiskers: the row's interval (delta_ci_lo.."
           f"delta_ci_hi, {base.level_text(sel)} confidence), a step's drawn from where the steps before end; "
           "hatched: the interval holds 0; grey: the sum of the steps, beside the whole design")
    save(fig, out, "ladder", written)
    return True


# The module's trampoline paths and the real attach types that take them (report_calib.c).
TRAMP_ATTACH = (("tramp-fentry", ("fentry", "fexit", "fmod_ret")), ("tramp-rawtp", ("raw_tp", "tp_btf")))


def tramp(rows, sources, out, written):
    """The module's trampoline rows (kmod tramp-fentry / tramp-rawtp: the path around a real
    BPF program, per design) beside the real attach of the same host (bpf rows of any of its
    files, ns per event per producer, the driver mode first). One panel per host and path."""
    cells = []
    for host in ordered(r["host"] for r in rows):
        label = host
        for sc, attach in TRAMP_ATTACH:
            mod = [r for r in rows if r["host"] == host and r["suite"] == "kmod" and r["scenario"] == sc
                   and r["status"] in MEASURED and ok(r["ns_median"])]
            if not mod:
                continue
            real = [r for r in rows if r["host"] == host and r["suite"] == "bpf" and r["guard"] in attach
                    and r["status"] in MEASURED and ok(r["ns_median"])]
            real.sort(key=lambda r: (attach.index(r["guard"]), r["scenario"] != "driver", r["threads"]))
            cells.append((label, sc, mod, real[:1]))
    if not cells:
        return False
    heights = [0.42 * (len(m) + len(rl)) + 1.6 for _, _, m, rl in cells]
    fig, axes = plt.subplots(len(cells), 1, squeeze=False, figsize=(10.0, min(40.0, sum(heights) + 0.8)),
                             gridspec_kw={"height_ratios": heights})
    for ax, (label, sc, mod, real) in zip(axes[:, 0], cells):
        names = []
        for i, r in enumerate(mod):
            st = base.STYLES.of(r["guard"])
            ax.barh(i, r["ns_median"], height=0.6, color=st["color"], alpha=st["alpha"])
            ax.annotate(fmt(r["ns_median"]), (r["ns_median"], i), xytext=(4, 0), textcoords="offset points",
                        va="center", fontsize=8)
            names.append(f"{name(r['guard'])} (module)")
        for k, r in enumerate(real):
            y = len(mod) + k
            ax.barh(y, r["ns_median"], height=0.6, color="white", edgecolor="black", hatch="xx")
            ax.annotate(fmt(r["ns_median"]), (r["ns_median"], y), xytext=(4, 0), textcoords="offset points",
                        va="center", fontsize=8)
            names.append(f"real {name(r['guard'])} / {name(r['scenario'])}")
        name_rows(ax, names, f"{name(label, 60)}: {sc}" + ("" if real else " (no real attach measured here)"),
                  "ns per invocation (median)", "design / attach")
        for t, r in zip(ax.get_yticklabels(), mod):
            t.set_color(base.STYLES.label_color(r["guard"]))
    base.titled(fig, "The module's trampoline path per design beside the real attach",
                [r for _, _, m, rl in cells for r in m + rl])
    footer(fig, "coloured: the module's path around a real BPF program under each design; hatched: the "
           "kernel's own attach, ns per event per producer (rgbench bpf)")
    save(fig, out, "tramp", written)
    return True


