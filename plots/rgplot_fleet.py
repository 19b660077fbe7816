# SPDX-License-Identifier: MIT
"""rgplot.py's plots across hosts: the fleet matrix and the decision per host."""
import math
import textwrap

import matplotlib
import matplotlib.pyplot as plt

import rgplot_base as base
from rgplot_base import footer, name, ok, ordered, save


def wrapped(s, width=28):
    """A long host label over a few lines, so the columns' names do not run into each other."""
    return "\n".join(textwrap.wrap(s, width, break_long_words=True)) or s


def fleet(cells, out, written, rows=()):
    """Heat map, roles down and hosts across: each guard's cost over noop minus that of the
    design the host's kernel runs (0 = that design; below 0 cheaper). Two hosts or more."""
    hosts = ordered(c["label"] for c in cells if c["current_role"])
    if len(hosts) < 2:
        return False
    roles = ordered(c["role"] for c in cells if c["label"] in hosts)
    val = {(c["role"], c["label"]): c["relative_ns"] for c in cells}
    emu = {c["label"] for c in cells if c["emulated"]}
    cur = {c["label"]: c["current_role"] for c in cells}
    nows = {(c["role"], c["label"]) for c in cells if c["now"]}
    grid = [[val.get((r, h), math.nan) for h in hosts] for r in roles]
    finite = [abs(v) for row in grid for v in row if ok(v)]
    if not finite:
        return False
    lim = max(max(finite), 1e-9)
    from matplotlib.colors import SymLogNorm  # noqa: E402
    norm = SymLogNorm(linthresh=max(lim / 100, 0.01), vmin=-lim, vmax=lim, base=10)
    fig, ax = plt.subplots(figsize=(max(8.0, 2.3 * len(hosts) + 4.5), max(4.5, 0.42 * len(roles) + 2.8)))
    masked = [[v if ok(v) else math.nan for v in row] for row in grid]
    im = ax.imshow(masked, cmap="RdYlGn_r", norm=norm, aspect="auto")
    for ri, row in enumerate(grid):
        for hi, v in enumerate(row):
            if not ok(v):
                ax.text(hi, ri, "-", ha="center", va="center", fontsize=9, color="grey")
                continue
            now = (roles[ri], hosts[hi]) in nows  # the current design's row (x86-64: under both this-cpu roles)
            ax.text(hi, ri, "now" if now else f"{v:+.3g}", ha="center", va="center", fontsize=9,
                    weight="bold" if now else "normal")
    ax.set_yticks(range(len(roles)))
    ax.set_yticklabels([name(r) for r in roles])
    ax.set_xticks(range(len(hosts)))
    ax.set_xticklabels([wrapped(name(h, 80) + (" [EMULATED]" if h in emu else "")) + f"\n(now {name(cur[h])})"
                        for h in hosts], fontsize=9)
    for t, h in zip(ax.get_xticklabels(), hosts):
        if h in emu:
            t.set_color("red")
    ax.set_xlabel("host (the design its kernel runs)")
    ax.set_ylabel("role (guard design)")
    # Colour bar ticks: 0 and the decades beyond the linear middle, one label each.
    decades = [10.0 ** k for k in range(math.ceil(math.log10(norm.linthresh * 10)), math.floor(math.log10(lim)) + 1)]
    ticks = [-d for d in reversed(decades)] + [0.0] + decades if decades else [-lim, 0.0, lim]
    fig.colorbar(im, ax=ax, ticks=ticks, format=matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:+g}" if v else "0"),
                 label="ns per pair against the host's current design\n(below 0: cheaper)")
    base.titled(fig, "Guard cost by role and host, relative to each kernel's own design", rows, ax)
    was = base.EMULATED
    base.EMULATED = base.EMULATED or bool(emu)
    save(fig, out, "fleet", written)
    base.EMULATED = was
    return True


def decision(cands, out, written, rows=()):
    """Per host: each candidate design's change against the host's current one, with its
    interval, the zero line marked; left of it is cheaper."""
    hosts = ordered(c["label"] for c in cands)
    if not hosts:
        return False
    per = {h: [c for c in cands if c["label"] == h] for h in hosts}
    heights = [max(len(per[h]), 1) * 0.45 + 1.3 for h in hosts]
    fig, axes = plt.subplots(len(hosts), 1, figsize=(10.0, min(40.0, sum(heights) + 0.6)), squeeze=False,
                             gridspec_kw={"height_ratios": heights})
    for ax, h in zip(axes[:, 0], hosts):
        cs = per[h]
        first = cs[0]
        for i, c in enumerate(cs):
            st = base.STYLES.of(c["guard"])
            # no interval: the point alone (NaN draws no whisker), never a zero-length one
            lo = max(c["change_ns"] - c["lo_ns"], 0) if ok(c["lo_ns"]) and ok(c["hi_ns"]) else math.nan
            hi = max(c["hi_ns"] - c["change_ns"], 0) if ok(c["lo_ns"]) and ok(c["hi_ns"]) else math.nan
            ax.errorbar([c["change_ns"]], [i], xerr=[[lo], [hi]], color=st["color"],
                        marker=st["marker"], markersize=7, capsize=4, linestyle="none")
            verdict = "cheaper" if ok(c["hi_ns"]) and c["hi_ns"] < 0 else \
                "dearer" if ok(c["lo_ns"]) and c["lo_ns"] > 0 else \
                "no interval" if not ok(c["lo_ns"]) else "interval holds 0"
            ax.annotate(f"{c['change_ns']:+.3g} ns, {verdict}", (1.0, i), xycoords=("axes fraction", "data"),
                        xytext=(6, 0), textcoords="offset points", va="center", fontsize=9)
        ax.axvline(0, color="black", linewidth=1.2)
        ax.set_yticks(range(len(cs)))
        ax.set_yticklabels([f"{name(c['role'])} ({name(c['guard'])})" for c in cs])
        for t, c in zip(ax.get_yticklabels(), cs):
            t.set_color(base.STYLES.label_color(c["guard"]))
        ax.set_ylim(len(cs) - 0.5, -0.5)
        lo_all = [c["lo_ns"] if ok(c["lo_ns"]) else c["change_ns"] for c in cs] + [0]
        hi_all = [c["hi_ns"] if ok(c["hi_ns"]) else c["change_ns"] for c in cs] + [0]
        pad = 0.08 * max(max(hi_all) - min(lo_all), 1e-3)
        ax.set_xlim(min(lo_all) - pad, max(hi_all) + pad)
        ax.grid(axis="x", alpha=0.3)
        emu = " [EMULATED]" if first["emulated"] else ""
        ax.set_title(f"{name(h, 80)}{emu}: runs {name(first['current_role'])} "
                     f"({name(first['current_guard'])}, {name(first['suite'])} rows)", fontsize=11,
                     color="red" if emu else "black")
        ax.set_xlabel("change in ns per guard pair against the current design (left of 0: cheaper)")
        ax.set_ylabel("candidate")
    base.titled(fig, "Decision: each candidate design against the host's current one", rows)
    footer(fig, "points: difference of the two costs over noop; bars: the difference of their "
             "intervals (at least 90% for two 95% intervals)")
    was = base.EMULATED
    base.EMULATED = base.EMULATED or any(c["emulated"] for c in cands)
    save(fig, out, "decision", written)
    base.EMULATED = was
    return True


