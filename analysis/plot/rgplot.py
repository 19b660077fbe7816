#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Draws rgbench's pictures (PNG, SVG, PDF) from the normalized rows `rgbench plot` validated."""
import os
import signal

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


def stop(sig, _frame):
    """A stop signal (Ctrl-C, or one rgbench plot passed on): exit at once, quietly, 128 +
    the signal; rgbench plot removes what was drawn and says so in one line."""
    os._exit(128 + sig)


# First of all: rgbench plot starts this script with the stop signals blocked, so one that
# came during python's start waits here for the handler (no KeyboardInterrupt traceback).
for _sig in STOP_SIGNALS:
    signal.signal(_sig, stop)
signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)

import argparse  # noqa: E402
import csv  # noqa: E402
import math  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402
import textwrap  # noqa: E402
import warnings  # noqa: E402

# Exit codes `rgbench plot` turns into its own one-line message: 3 no plottable rows,
# 4 matplotlib cannot be imported, 5 drawing failed (this script printed the one line).
try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: E402
    import matplotlib.ticker  # noqa: E402,F401
except Exception:  # ImportError, or a broken install failing inside its import
    sys.exit(4)

# Reproducible files: no date, fixed ids. Sizes for a slide or a linked page: the text of a
# 10-inch figure stays readable when the picture is shown a third of a screen wide.
plt.rcParams.update({
    "svg.hashsalt": "rgbench", "font.size": 11, "axes.titlesize": 12, "axes.labelsize": 11,
    "xtick.labelsize": 10, "ytick.labelsize": 10, "legend.fontsize": 9,
})
# Mathtext stays on: the log axes' tick labels are mathtext (10^k). Names are made safe where
# they are drawn (name() below), so a '$' in a guard, host or file name is no TeX math.

# rgbench plot's own CSV files hold whatever the reader accepted (a file is at most
# 64 MiB): no field limit below that, never csv's default of 128 KiB.
csv.field_size_limit(1 << 27)
METADATA = {"png": {"Software": "rgbench"}, "svg": {"Date": None, "Creator": "rgbench"},
            "pdf": {"Creator": "rgbench", "Producer": "rgbench", "CreationDate": None}}
DPI = 150
COLORS = plt.rcParams["axes.prop_cycle"].by_key()["color"]

# ---- names as drawn -----------------------------------------------------------------------

NAME_MAX = 48  # characters of a name drawn as a label; longer ones are cut (… marks it)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def name(s, limit=NAME_MAX):
    """A name as drawn: a lone surrogate as U+FFFD, a control character as \\xNN, cut to
    limit characters, and every '$' escaped so that no name is ever mathtext."""
    s = _SURROGATE.sub("\ufffd", str(s))
    s = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", s)
    if len(s) > limit:
        s = s[:limit - 1] + "\u2026"
    return s.replace("$", r"\$")


# ---- one style per guard ----------------------------------------------------------------
#
# Colour by design family, line style and marker within the family. A guard's place in its
# family is its place in guards.def (rgbench plot passes the list), then any other name in
# alphabetical order, so a guard looks the same in every plot of a run and in every run.
# Within a family, member k gets shade k % S, line style k % L and marker k % 7, with S, L
# and 7 pairwise coprime: neighbours differ in all three, and no two of the first S*L*7
# members (84 or more) look alike; beyond that the line gets wider.

MARKERS = ["o", "s", "^", "D", "v", "P", "X"]
FAMILIES = {  # family: (what it holds, shades, line styles, alpha)
    "counter": ("counter designs", ["#1f5fa8", "#5a9bd8", "#0b3470", "#8c6bb1", "#00838f"], ["-", "--", "-.", ":"], 1.0),
    "merged": ("merged check", ["#c0392b", "#e67e22", "#7f1d12"], ["-", "--", "-.", ":"], 1.0),
    "rseq": ("rseq", ["#2e8b3a", "#7cb342", "#1b5e20"], ["-", "--", "-.", ":"], 1.0),
    "floor": ("references and floors", ["#555555", "#999999", "#222222", "#777777"], ["--", ":", "-."], 0.7),
    "other": ("other", ["#8d6e63", "#c2185b", "#5d4037"], ["-", "--", "-.", ":"], 1.0),
}
FAMILY_OF_ROLE = {
    "harness-floor": "floor", "thread-floor": "floor", "reference": "floor", "negative-control": "floor",
    "shared-atomic": "floor", "shared-atomic-relaxed": "floor",
    "merged-rctx": "merged", "rseq-rctx": "merged", "rctx-word": "merged",
    "rseq": "rseq",
    "pcpu-atomic": "counter", "pcpu-xchg": "counter", "pcpu-cas": "counter", "n/a": "counter", "": "counter",
}


def family_of(role):
    first = (role or "").split(";")[0]
    if first in FAMILY_OF_ROLE:
        return FAMILY_OF_ROLE[first]
    return "counter" if first.startswith("this-cpu") else "other"


class Styles:
    """The style of every guard of a run: registry = [(guard, role)] in guards.def order;
    roles = {guard: role} of the run's rows for names the registry lacks."""

    def __init__(self, registry, roles):
        role_of = dict(roles)
        role_of.update(dict(registry))
        known = [g for g, _ in registry]
        extra = sorted(g for g in role_of if g not in dict(registry))
        self.family = {g: family_of(role_of[g]) for g in known + extra}
        self.index = {}
        for fam in FAMILIES:
            for k, g in enumerate(g for g in known + extra if self.family[g] == fam):
                self.index[g] = k

    def of(self, guard):
        fam = self.family.get(guard, "other")
        k = self.index.get(guard, 0)
        _, shades, styles, alpha = FAMILIES[fam]
        period = len(shades) * len(styles) * len(MARKERS)
        return {"color": shades[k % len(shades)], "linestyle": styles[k % len(styles)],
                "marker": MARKERS[k % len(MARKERS)], "alpha": alpha, "linewidth": 1.6 + 0.8 * (k // period)}

    def label_color(self, guard):
        return FAMILIES[self.family.get(guard, "other")][1][0]


STYLES = Styles([], {})
# A second, third... file: the same guard's line with hollow, half-filled markers.
FILLS = ["full", "none", "left", "right", "bottom", "top"]


def source_style(guard, si):
    st = dict(STYLES.of(guard))
    st["fillstyle"] = FILLS[si % len(FILLS)]
    return st


# Rows with a measured value: `noisy` rows were measured too (some rounds stayed
# disturbed after the re-runs, docs/bench.md); skipped and error rows were not.
MEASURED = ("ok", "noisy")


def num(s):
    return float(s) if s not in ("", "n/a") else math.nan


def ok(v):
    return not math.isnan(v)


class Unreadable(Exception):
    """One of rgbench plot's CSV files cannot be read: FILE:LINE: why."""


def read_csv(path):
    """The records of one of rgbench plot's CSV files (names as written: name() draws them)."""
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        rd = csv.DictReader(f)
        try:
            yield from rd
        except (csv.Error, ValueError, KeyError) as e:
            raise Unreadable(f"{path}:{rd.line_num}: {first_line(e)}") from None


def first_line(e):
    """An exception as one line: its first non-empty line, else its type (never empty)."""
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    return f"{type(e).__name__}: {lines[0]}" if lines else type(e).__name__


def load(path):
    rows = []
    for r in read_csv(path):
        try:
            for k in ("source", "threads", "duty_ns", "batch"):
                r[k] = int(r[k])
            for k in ("ns_median", "ns_stddev", "ns_min", "ns_max", "mops_median", "mops_stddev"):
                r[k] = num(r[k])
            for k in ("delta_ns", "delta_ci_lo", "delta_ci_hi"):  # older staging files lack them
                r[k] = num(r.get(k) or "")
            r.setdefault("role", "")
            r["baseline"] = r.get("baseline") or ""
        except (ValueError, KeyError) as e:
            raise Unreadable(f"{path}: {first_line(e)}") from None
        rows.append(r)
    return rows


def load_registry(path):
    """guards.def's guards in order, with their roles: [(guard, role)] ([] without the file)."""
    if not path or not os.path.exists(path):
        return []
    try:
        return [(r["guard"], r["role"]) for r in read_csv(path)]
    except KeyError as e:
        raise Unreadable(f"{path}: {first_line(e)}") from None


def ordered(values):
    """Unique values in order of first appearance (the registry order of the runs)."""
    seen = {}
    for v in values:
        seen.setdefault(v, None)
    return list(seen)


# Set by main(): whether a source's label says its rows were measured on an emulated CPU,
# and the formats to write.
EMULATED = False
FORMATS = ("png", "svg")


def footer(fig, text):
    """The line under a figure that says what its marks are (room kept for it by save())."""
    fig.text(0.01, 0.004, text, fontsize=8, alpha=0.7, va="bottom")


def save(fig, out, kind, written):
    fig.tight_layout(rect=(0, min(0.1, 0.25 / fig.get_figheight()), 1, 1))
    if EMULATED:  # timings of qemu, not of a machine: say so across the whole figure
        fig.text(0.5, 0.5, "EMULATED", fontsize=60, color="red", alpha=0.25, rotation=25,
                 ha="center", va="center", weight="bold")
    for ext in FORMATS:
        path = os.path.join(out, f"{kind}.{ext}")
        fig.savefig(path, dpi=DPI if ext == "png" else None, metadata=METADATA[ext])
        written.append(path)
    plt.close(fig)


def legend_beside(ax, entries, **kw):
    """A legend over the axes for a few entries, beside them (outside the data) for many."""
    if entries <= 8:
        ax.legend(**kw)
    else:
        kw.pop("loc", None)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0,
                  ncol=2 if entries > 24 else 1, **kw)


def grouped_hbars(ax, groups, sources, value, err):
    """One group per entry of groups, top to bottom, one horizontal bar per source;
    value/err(group, src) -> number/(lo, hi)."""
    n = len(sources)
    height = 0.8 / max(n, 1)
    for si, (src, label) in enumerate(sources):
        ys, xs, lo, hi = [], [], [], []
        for gi, g in enumerate(groups):
            v = value(g, src)
            if v is None or not ok(v):
                continue
            e = err(g, src)
            ys.append(gi - 0.4 + height * (si + 0.5))
            xs.append(v)
            lo.append(max(v - e[0], 0) if e else 0)
            hi.append(max(e[1] - v, 0) if e else 0)
        bars = ax.barh(ys, xs, height * 0.92, label=name(label), color=COLORS[si % len(COLORS)],
                       hatch="//" if si >= len(COLORS) else None,
                       xerr=[lo, hi], capsize=2, error_kw={"elinewidth": 1})
        if len(groups) * n <= 60:
            ax.bar_label(bars, labels=[fmt(x) for x in xs], fontsize=8, padding=3)
    ax.set_yticks(range(len(groups)))
    ax.set_ylim(len(groups) - 0.5, -0.5)  # the first group on top
    ax.margins(x=0.15)  # room for the value labels beyond the longest whisker


def fmt(v):
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


def spans(values, factor=30):
    vals = [v for v in values if ok(v) and v > 0]
    return bool(vals) and max(vals) / min(vals) > factor


def present(sources, sel):
    """The sources that have rows in this plot (a file without such rows gets no legend entry)."""
    have = {r["source"] for r in sel}
    return [s for s in sources if s[0] in have]


def bar_height(groups, nsrc):
    """Figure height in inches: room for every bar and its name."""
    return min(30.0, max(4.5, 1.6 + groups * (0.22 * nsrc + 0.12)))


def sources_of(rows):
    return ordered((r["source"], r["label"]) for r in rows)


def color_names(ax, groups):
    """Guard names in their family's colour, as their lines are in the line plots."""
    for t, g in zip(ax.get_yticklabels(), groups):
        t.set_color(STYLES.label_color(g))


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


def load_lat(path):
    hist = {}
    if not path or not os.path.exists(path):
        return hist
    for r in read_csv(path):
        try:
            key = (int(r["source"]), r["label"], r["guard"])
            hist.setdefault(key, []).append((float(r["lo_ns"]), num(r["hi_ns"]), int(r["count"])))
        except (ValueError, KeyError) as e:
            raise Unreadable(f"{path}: {first_line(e)}") from None
    return hist


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


def load_fleet(path):
    """The matrix `rgbench plot` wrote: label, emulated, current_role, role, relative_ns per line."""
    if not path or not os.path.exists(path):
        return []
    try:
        return [dict(r, relative_ns=num(r["relative_ns"]), emulated=r["emulated"] == "1", now=r["now"] == "1")
                for r in read_csv(path)]
    except (ValueError, KeyError) as e:
        raise Unreadable(f"{path}: {first_line(e)}") from None


def wrapped(s, width=28):
    """A long host label over a few lines, so the columns' names do not run into each other."""
    return "\n".join(textwrap.wrap(s, width, break_long_words=True)) or s


def fleet(cells, out, written):
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
    ax.set_title("Guard cost by role and host, relative to each kernel's own design")
    global EMULATED
    was, EMULATED = EMULATED, EMULATED or bool(emu)
    save(fig, out, "fleet", written)
    EMULATED = was
    return True


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
        st = STYLES.of(d)
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
            st = STYLES.of(r["guard"])
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
            t.set_color(STYLES.label_color(r["guard"]))
    fig.suptitle("The module's trampoline path per design beside the real attach")
    footer(fig, "coloured: the module's path around a real BPF program under each design; hatched: the "
           "kernel's own attach, ns per event per producer (rgbench bpf)")
    save(fig, out, "tramp", written)
    return True


def load_decision(path):
    """Per host and candidate: label, emulated, current_role, current_guard, suite, role, guard,
    change_ns, lo_ns, hi_ns (the report's decision table)."""
    if not path or not os.path.exists(path):
        return []
    try:
        return [dict(r, change_ns=num(r["change_ns"]), lo_ns=num(r["lo_ns"]), hi_ns=num(r["hi_ns"]),
                     emulated=r["emulated"] == "1") for r in read_csv(path)]
    except (ValueError, KeyError) as e:
        raise Unreadable(f"{path}: {first_line(e)}") from None


def decision(cands, out, written):
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
            st = STYLES.of(c["guard"])
            lo = c["change_ns"] - c["lo_ns"] if ok(c["lo_ns"]) else 0
            hi = c["hi_ns"] - c["change_ns"] if ok(c["hi_ns"]) else 0
            ax.errorbar([c["change_ns"]], [i], xerr=[[max(lo, 0)], [max(hi, 0)]], color=st["color"],
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
            t.set_color(STYLES.label_color(c["guard"]))
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
    fig.suptitle("Decision: each candidate design against the host's current one")
    footer(fig, "points: difference of the two costs over noop; bars: the difference of their "
             "intervals (at least 90% for two 95% intervals)")
    global EMULATED
    was, EMULATED = EMULATED, EMULATED or any(c["emulated"] for c in cands)
    save(fig, out, "decision", written)
    EMULATED = was
    return True


def main():
    warnings.simplefilter("ignore")  # stderr carries notes and at most one error line
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", required=True)
    ap.add_argument("--lat", default="")
    ap.add_argument("--fleet", default="")
    ap.add_argument("--decision", default="")
    ap.add_argument("--guards", default="")
    ap.add_argument("--formats", default="png,svg")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    global FORMATS, STYLES, EMULATED
    FORMATS = tuple(f for f in a.formats.split(",") if f in METADATA) or ("png", "svg")
    try:
        hist = load_lat(a.lat)
        cells = load_fleet(a.fleet)
        cands = load_decision(a.decision)
        registry = load_registry(a.guards)
        rows = load(a.data)
    except (Unreadable, OSError) as e:  # one line, never a traceback
        print(f"rgbench plot: cannot read {e}", file=sys.stderr)
        return 5
    STYLES = Styles(registry, {r["guard"]: r["role"] for r in rows if r["suite"] != "bpf"})
    sources = sources_of(rows)
    EMULATED = any("[EMULATED" in label for _, label in sources)
    written = []
    kinds = [
        ("pair-ns", "no user 'pair' rows with ns values",
         lambda: ns_bars(rows, sources, a.out, written, "user", "pair-ns",
                         "Cost of one guard enter/exit pair, back to back")),
        ("threads", "no user 'threads' rows at two or more thread counts",
         lambda: lines(rows, sources, a.out, written, "threads", "threads", "mops_median", "mops_stddev",
                       "threads", "Thread scaling: all threads together",
                       "threads (one per CPU)", "million pairs per second (median)")),
        ("duty", "no user 'duty' rows at two or more duty values",
         lambda: lines(rows, sources, a.out, written, "duty", "duty_ns", "ns_median", "ns_stddev",
                       "duty", "Duty cycle: cost per pair with work between pairs",
                       "work per pair, ns (0: back to back)", "ns per pair incl. work (median)")),
        ("latency-cdf", "no latency rows with a histogram (lat_hist in the JSON)",
         lambda: latency_cdf(hist, a.out, written)),
        ("bpf", "no bpf rows with a rate", lambda: bpf(rows, sources, a.out, written)),
        ("fleet", "fewer than two hosts with the role of their kernel's design",
         lambda: fleet(cells, a.out, written)),
        ("decision", "no host with a measured row of its kernel's design and a candidate",
         lambda: decision(cands, a.out, written)),
        ("ladder", "no user 'ladder' rows (rgbench --scenarios ladder)",
         lambda: ladder(rows, sources, a.out, written)),
        ("tramp", "no kmod tramp-fentry or tramp-rawtp rows (rgbench kmod --scenarios tramp)",
         lambda: tramp(rows, sources, a.out, written)),
        ("kmod-ns", "no kmod rows with ns values",
         lambda: ns_bars(rows, sources, a.out, written, "kmod", "kmod-ns",
                         "In-kernel cost of one guard enter/exit pair (kthread loop)")),
    ]
    notes = []
    for kind, why, fn in kinds:
        try:
            drawn = fn()
        except Exception as e:  # one line, never a traceback, never an empty reason
            print(f"rgbench plot: cannot draw {kind}: {first_line(e)}", file=sys.stderr)
            return 5
        if not drawn:
            notes.append(f"note: {kind}: skipped, {why}")
    for n in notes:
        print(n, file=sys.stderr)
    if not written:
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
