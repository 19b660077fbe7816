# SPDX-License-Identifier: MIT
"""rgplot.py's plots of one run's rows: ns bars, thread and duty lines, bpf, the latency
CDF, the ladder, the trampolines."""

import matplotlib
import matplotlib.pyplot as plt

import rgplot_base as base
from rgplot_base import (COLORS, MEASURED, bar_height, color_names, fmt, footer, grouped_hbars,
                         legend_beside, name, ok, ordered, present, save, source_style, spans)


def ns_bars(rows, sources, out, written, suite, kind, title):
    """ns per pair per guard, one bar per source, min-max whiskers, noop/tls floors."""
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
    by = {}
    for r in sel:
        by.setdefault((r["guard"], r["source"]), r)  # first batch size wins
    guards = ordered(r["guard"] for r in sel)
    sources = present(sources, sel)

    def value(g, s):
        r = by.get((g, s))
        return r["ns_median"] if r else None

    def err(g, s):
        r = by[(g, s)]
        if ok(r["ns_min"]) and ok(r["ns_max"]):
            return (r["ns_min"], r["ns_max"])
        if ok(r["ns_stddev"]):
            return (r["ns_median"] - r["ns_stddev"], r["ns_median"] + r["ns_stddev"])
        return None

    fig, ax = plt.subplots(figsize=(10.0, bar_height(len(guards), len(sources))))
    grouped_hbars(ax, guards, sources, value, err)
    ax.set_yticklabels([name(g) for g in guards])
    color_names(ax, guards)
    log = spans([r["ns_median"] for r in sel])
    if log:
        ax.set_xscale("log")
    # The floors: what the harness costs (noop) and what a plain thread-local guard costs (tls).
    for si, (src, label) in enumerate(sources):
        for floor, style in (("noop", "--"), ("tls", ":")):
            r = by.get((floor, src))
            if r:
                ax.axvline(r["ns_median"], color=COLORS[si % len(COLORS)], linestyle=style, linewidth=1.2,
                           label=f"{floor} floor ({name(label)})")
    ax.set_xlabel("ns per enter/exit pair (median, lower is better)" + ("; log scale" if log else ""))
    ax.set_ylabel("guard")
    unit = "thread" if suite == "user" else "kthread"
    ax.set_title(title + f", {tmin} {unit}{'s' if tmin > 1 else ''}")
    ax.grid(axis="x", alpha=0.3, which="both")
    legend_beside(ax, 3 * len(sources), loc="lower right")
    footer(fig, "bars: median; whiskers: min-max over repetitions; names coloured by design family")
    save(fig, out, kind, written)
    return True


def thin_labels(fig, ax):
    """Many thread counts or duty levels: every one keeps its tick, but a label that would
    run into the one before it is left blank."""
    fig.tight_layout(rect=(0, min(0.1, 0.25 / fig.get_figheight()), 1, 1))
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


def log_axis(axis_set, values):
    """Log scale when the values span more than 30x; True when it did."""
    if spans(values):
        axis_set("log")
        return True
    return False


def lines(rows, sources, out, written, scenario, xkey, ykey, ekey, kind, title, xlabel, ylabel):
    sel = [r for r in rows if r["suite"] == "user" and r["scenario"] == scenario and r["status"] in MEASURED
           and ok(r[ykey])]
    if scenario == "duty":
        sel = [r for r in sel if r["threads"] == min(x["threads"] for x in sel)]
    if not sel or len(set(r[xkey] for r in sel)) < 2:
        return False
    guards = ordered(r["guard"] for r in sel)
    sources = present(sources, sel)
    entries = len(guards) * len(sources)
    log = spans([r[ykey] for r in sel])
    fig, ax = plt.subplots(figsize=(10.0 if entries <= 8 else 12.0, 5.6))
    for g in guards:
        for si, (src, label) in enumerate(sources):
            pts = sorted((r[xkey], r[ykey], r[ekey]) for r in sel if r["guard"] == g and r["source"] == src)
            if not pts:
                continue
            xs = [p[0] for p in pts]
            ys = [p[1] for p in pts]
            hi = [p[2] if ok(p[2]) else 0 for p in pts]
            # On a log axis a whisker cannot reach zero: cut it at 90% below the point.
            lo = [min(e, 0.9 * y) if log else e for e, y in zip(hi, ys)]
            lab = name(g) if len(sources) == 1 else f"{name(g)} ({name(label)})"
            ax.errorbar(xs, ys, yerr=[lo, hi], markersize=5, capsize=2, elinewidth=0.8, label=lab,
                        **source_style(g, si))
    xs = sorted(set(r[xkey] for r in sel))
    if xkey == "duty_ns":
        pos = [x for x in xs if x > 0]
        ax.set_xscale("symlog", linthresh=min(pos) if pos else 1)
    elif max(xs) / max(min(xs), 1) >= 8:
        ax.set_xscale("log", base=2)
    ax.set_xticks(xs)
    ax.set_xticklabels([str(x) for x in xs])
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    if log:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel + (" (log scale)" if log else ""))
    ax.set_title(title)
    ax.grid(alpha=0.3, which="both")
    legend_beside(ax, entries)
    footer(fig, "points: median; whiskers: standard deviation over repetitions; "
             "colour: design family (references and floors grey, dashed)")
    thin_labels(fig, ax)
    save(fig, out, kind, written)
    return True


def bpf(rows, sources, out, written):
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

    def err(g, s):
        r = by[(g[0], g[1], s)]
        sd = r["mops_stddev"]
        return (r["mops_median"] - sd, r["mops_median"] + sd) if ok(sd) else None

    fig, ax = plt.subplots(figsize=(10.0, bar_height(len(groups), len(sources))))
    grouped_hbars(ax, groups, sources, value, err)
    ax.set_yticklabels([f"{name(g)} / {name(m)}" for g, m in groups])
    # The user-count baseline runs ~100x faster than any BPF row: log scale keeps both readable.
    log = log_axis(ax.set_xscale, [r["mops_median"] for r in sel])
    ax.set_xlabel("million events per second (median, higher is better)" + ("; log scale" if log else ""))
    ax.set_ylabel("attach type / trigger mode")
    ax.set_title("BPF trigger rate per attach type and trigger mode")
    ax.grid(axis="x", alpha=0.3, which="both")
    legend_beside(ax, len(sources), loc="lower right")
    footer(fig, "whiskers: standard deviation over repetitions")
    save(fig, out, "bpf", written)
    return True


def latency_cdf(hist, out, written):
    """Per guard (and source): the CDF of the per-batch ns per pair (left) and its tail,
    the fraction of batches above x on a log scale (right); log x on both."""
    if not hist:
        return False
    srcs = ordered((s, l) for (s, l, _) in hist)
    n = len(hist)
    fig, (ax, axt) = plt.subplots(1, 2, figsize=(14.0 if n <= 10 else 16.0, 5.6))
    for (src, label, g), bins in hist.items():
        total = sum(c for _, _, c in bins)
        if not total:
            continue
        bins = sorted(bins)
        xs, ys, run = [max(bins[0][0], 1e-3)], [0.0], 0
        for lo, hi, c in bins:
            # the bin's upper edge (its lower edge doubled for the open last bin)
            run += c
            xs.append(max(hi if ok(hi) else 2 * max(lo, 1e-3), 1e-3))
            ys.append(run / total)
        si = [s for s, _ in srcs].index(src)
        lab = name(g) if len(srcs) == 1 else f"{name(g)} ({name(label)})"
        style = dict(source_style(g, si), markersize=4, markevery=max(1, len(xs) // 6))
        ax.step(xs, ys, where="post", label=lab, **style)
        # above x: 1 - CDF, down to one batch in total
        tail = [max(1.0 - y, 0.5 / total) for y in ys]
        axt.step(xs, tail, where="post", label=lab, **style)
    for a_ in (ax, axt):
        a_.set_xscale("log")
        a_.set_xlabel("ns per pair in one timed batch (log scale)")
        a_.grid(alpha=0.3, which="both")
        few_log_labels(a_.xaxis)
    ax.set_ylim(0, 1.0)
    for q in (0.5, 0.99):
        ax.axhline(q, color="grey", linewidth=0.6, alpha=0.5)
    ax.set_ylabel("fraction of batches at or below")
    ax.set_title("Latency per guard: CDF of timed batches")
    axt.set_yscale("log")
    for q in (1e-2, 1e-3):
        axt.axhline(q, color="grey", linewidth=0.6, alpha=0.5)
    axt.set_ylabel("fraction of batches above (log scale)")
    axt.set_title("The tail: p99 at 1e-2, p99.9 at 1e-3")
    legend_beside(axt, n, loc="upper right")
    footer(fig, "interrupted batches (ticks, interrupts, preemption) are kept: they are the tail")
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
                if ok(lo) and ok(hi):
                    ax.errorbar([cum + v], [i], xerr=[[max(v - lo, 0)], [max(hi - v, 0)]], color="black",
                                capsize=3, elinewidth=1, linestyle="none")
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
    fig.suptitle("Parts ladder: each design built up one part at a time, in the same rounds")
    footer(fig, "bars: median of paired per-round differences; whiskers: their interval; hatched: the "
           "interval holds 0; grey: the sum of the steps, beside the whole design")
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
    fig.suptitle("The module's trampoline path per design beside the real attach")
    footer(fig, "coloured: the module's path around a real BPF program under each design; hatched: the "
           "kernel's own attach, ns per event per producer (rgbench bpf)")
    save(fig, out, "tramp", written)
    return True


