#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Draws rgbench's pictures (PNG and SVG) from the normalized rows `rgbench plot` validated."""
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
import sys  # noqa: E402
import warnings  # noqa: E402

# Exit codes `rgbench plot` turns into its own one-line message: 3 no plottable rows,
# 4 matplotlib cannot be imported, 5 drawing failed (this script printed the one line).
try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: E402
except ModuleNotFoundError as e:  # not installed: rgbench plot says what to install
    if e.name != "matplotlib":
        print(f"rgbench plot: matplotlib cannot be imported: {e}", file=sys.stderr)
        sys.exit(5)
    sys.exit(4)
except Exception as e:  # installed but broken: its own error, in one line
    why = " ".join(f"{type(e).__name__}: {e}".split())
    print(f"rgbench plot: matplotlib is installed but its import fails: {why}", file=sys.stderr)
    sys.exit(5)

# Reproducible SVGs: no date, fixed ids.
plt.rcParams["svg.hashsalt"] = "rgbench"
plt.rcParams["font.size"] = 10
# Names are drawn as written: a '$' in a guard, host or file name is no TeX math
# (matplotlib < 3.5 has no switch for it: there each '$' is escaped instead).
if "text.parse_math" in plt.rcParams:
    plt.rcParams["text.parse_math"] = False

    def text(s):
        return s
else:
    def text(s):
        return s.replace("$", r"\$")

# rgbench plot's own CSV files hold whatever the reader accepted (a file is at most
# 64 MiB): no field limit below that, never csv's default of 128 KiB.
csv.field_size_limit(1 << 27)
METADATA = {"png": {"Software": "rgbench"}, "svg": {"Date": None, "Creator": "rgbench"}}
COLORS = plt.rcParams["axes.prop_cycle"].by_key()["color"]
STYLES = ["-", "--", ":", "-."]
MARKERS = ["o", "s", "^", "D", "v", "P"]


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
    """The records of one of rgbench plot's CSV files, names ready to draw."""
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        rd = csv.DictReader(f)
        try:
            for r in rd:
                for k in ("label", "guard", "scenario", "role", "current_role"):
                    if k in r:
                        r[k] = text(r[k])
                yield r
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
        except (ValueError, KeyError) as e:
            raise Unreadable(f"{path}: {first_line(e)}") from None
        rows.append(r)
    return rows


def ordered(values):
    """Unique values in order of first appearance (the registry order of the runs)."""
    seen = []
    for v in values:
        if v not in seen:
            seen.append(v)
    return seen


# Set by main() when a source's label says its rows were measured on an emulated CPU.
EMULATED = False


def save(fig, out, name, written):
    fig.tight_layout()
    if EMULATED:  # timings of qemu, not of a machine: say so across the whole figure
        fig.text(0.5, 0.5, "EMULATED", fontsize=60, color="red", alpha=0.25, rotation=25,
                 ha="center", va="center", weight="bold")
    for ext in ("png", "svg"):
        path = os.path.join(out, f"{name}.{ext}")
        fig.savefig(path, dpi=120 if ext == "png" else None, metadata=METADATA[ext])
        written.append(path)
    plt.close(fig)


def grouped_bars(ax, groups, sources, value, err):
    """One group per entry of groups, one bar per source; value/err(group, src) -> number/(lo, hi)."""
    n = len(sources)
    width = 0.8 / max(n, 1)
    for si, (src, label) in enumerate(sources):
        xs, ys, lo, hi = [], [], [], []
        for gi, g in enumerate(groups):
            v = value(g, src)
            if v is None or not ok(v):
                continue
            e = err(g, src)
            xs.append(gi - 0.4 + width * (si + 0.5))
            ys.append(v)
            lo.append(max(v - e[0], 0) if e else 0)
            hi.append(max(e[1] - v, 0) if e else 0)
        bars = ax.bar(xs, ys, width * 0.92, label=label, color=COLORS[si % len(COLORS)],
                      yerr=[lo, hi], capsize=3, error_kw={"elinewidth": 1})
        if len(groups) * n <= 40:
            ax.bar_label(bars, labels=[fmt(y) for y in ys], fontsize=7, padding=2)
    ax.set_xticks(range(len(groups)))
    ax.margins(y=0.12)  # room for the value labels above the tallest whisker


def fmt(v):
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


def maybe_log(ax, values):
    vals = [v for v in values if ok(v) and v > 0]
    if vals and max(vals) / min(vals) > 30:
        ax.set_yscale("log")
        return True
    return False


def present(sources, sel):
    """The sources that have rows in this plot (a file without such rows gets no legend entry)."""
    have = {r["source"] for r in sel}
    return [s for s in sources if s[0] in have]


def width(groups, nsrc):
    """Figure width in inches: room for every bar, within what a README can show."""
    return min(16.0, max(6.5, 1.2 + groups * (0.35 * nsrc + 0.3)))


def sources_of(rows):
    return ordered((r["source"], r["label"]) for r in rows)


def ns_bars(rows, sources, out, written, suite, name, title):
    """ns per pair per guard, one bar per source, min-max error bars, noop/tls floors."""
    sel = [r for r in rows if r["suite"] == suite and r["status"] in MEASURED and ok(r["ns_median"])
           and r["duty_ns"] == 0 and (suite != "user" or r["scenario"] == "pair")]
    if suite == "kmod" and any(r["scenario"] == "loop" for r in sel):
        sel = [r for r in sel if r["scenario"] == "loop"]  # the refscale-style loop
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

    fig, ax = plt.subplots(figsize=(width(len(guards), len(sources)), 4.6))
    grouped_bars(ax, guards, sources, value, err)
    ax.set_xticklabels(guards, rotation=25, ha="right")
    log = maybe_log(ax, [r["ns_median"] for r in sel])
    # The floors: what the harness costs (noop) and what a plain thread-local guard costs (tls).
    for si, (src, label) in enumerate(sources):
        for floor, style in (("noop", "--"), ("tls", ":")):
            r = by.get((floor, src))
            if r:
                ax.axhline(r["ns_median"], color=COLORS[si % len(COLORS)], linestyle=style, linewidth=1,
                           label=f"{floor} floor ({label})")
    ax.set_ylabel("ns per enter/exit pair (median)" + (", log scale" if log else ""))
    unit = "thread" if suite == "user" else "kthread"
    ax.set_title(title + f", {tmin} {unit}{'s' if tmin > 1 else ''}")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    fig.text(0.01, 0.01, "bars: median; whiskers: min-max over repetitions", fontsize=7, alpha=0.7)
    save(fig, out, name, written)
    return True


def lines(rows, sources, out, written, scenario, xkey, ykey, ekey, name, title, xlabel, ylabel):
    sel = [r for r in rows if r["suite"] == "user" and r["scenario"] == scenario and r["status"] in MEASURED
           and ok(r[ykey])]
    if scenario == "duty":
        sel = [r for r in sel if r["threads"] == min(x["threads"] for x in sel)]
    if not sel or len(set(r[xkey] for r in sel)) < 2:
        return False
    guards = ordered(r["guard"] for r in sel)
    sources = present(sources, sel)
    entries = len(guards) * len(sources)
    vals = [r[ykey] for r in sel if r[ykey] > 0]
    log = bool(vals) and max(vals) / min(vals) > 30
    fig, ax = plt.subplots(figsize=(7.5 if entries <= 8 else 10.0, 4.8))
    for gi, g in enumerate(guards):
        for si, (src, label) in enumerate(sources):
            pts = sorted((r[xkey], r[ykey], r[ekey]) for r in sel if r["guard"] == g and r["source"] == src)
            if not pts:
                continue
            xs = [p[0] for p in pts]
            ys = [p[1] for p in pts]
            hi = [p[2] if ok(p[2]) else 0 for p in pts]
            # On a log axis a whisker cannot reach zero: cut it at 90% below the point.
            lo = [min(e, 0.9 * y) if log else e for e, y in zip(hi, ys)]
            lab = g if len(sources) == 1 else f"{g} ({label})"
            ax.errorbar(xs, ys, yerr=[lo, hi], color=COLORS[gi % len(COLORS)],
                        linestyle=STYLES[si % len(STYLES)], marker=MARKERS[si % len(MARKERS)],
                        markersize=4, capsize=2, elinewidth=0.8, label=lab)
    xs = sorted(set(r[xkey] for r in sel))
    if xkey == "duty_ns":
        pos = [x for x in xs if x > 0]
        ax.set_xscale("symlog", linthresh=min(pos) if pos else 1)
    elif max(xs) / max(min(xs), 1) >= 8:
        ax.set_xscale("log", base=2)
    ax.set_xticks(xs)
    ax.set_xticklabels([str(x) for x in xs])
    if log:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel + (" (log scale)" if log else ""))
    ax.set_title(title)
    ax.grid(alpha=0.3)
    if entries <= 8:
        ax.legend(fontsize=7)
    else:  # many lines: the legend goes beside the axes, not over the data
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0,
                  ncol=2 if entries > 24 else 1)
    fig.text(0.01, 0.01, "points: median; whiskers: standard deviation over repetitions", fontsize=7, alpha=0.7)
    save(fig, out, name, written)
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

    fig, ax = plt.subplots(figsize=(width(len(groups), len(sources)), 4.6))
    grouped_bars(ax, groups, sources, value, err)
    ax.set_xticklabels([f"{g} / {m}" for g, m in groups], rotation=30, ha="right")
    # The user-count baseline runs ~100x faster than any BPF row: log scale keeps both readable.
    log = maybe_log(ax, [r["mops_median"] for r in sel])
    ax.set_ylabel("million events per second (median)" + (", log scale" if log else ""))
    ax.set_title("BPF trigger rate per attach type and trigger mode" +
                 (" (higher is better)"))
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    fig.text(0.01, 0.01, "whiskers: standard deviation over repetitions", fontsize=7, alpha=0.7)
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


def latency_cdf(hist, sources, out, written):
    """Per guard (and source): the CDF of the per-batch ns per pair (left) and its tail,
    the fraction of batches above x on a log scale (right); log x on both."""
    if not hist:
        return False
    guards = ordered(g for (_, _, g) in hist)
    srcs = ordered((s, l) for (s, l, _) in hist)
    n = len(hist)
    fig, (ax, axt) = plt.subplots(1, 2, figsize=(12.0 if n <= 10 else 14.0, 4.8))
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
        lab = g if len(srcs) == 1 else f"{g} ({label})"
        style = dict(color=COLORS[guards.index(g) % len(COLORS)], linestyle=STYLES[si % len(STYLES)])
        ax.step(xs, ys, where="post", label=lab, **style)
        # above x: 1 - CDF, down to one batch in total
        tail = [max(1.0 - y, 0.5 / total) for y in ys]
        axt.step(xs, tail, where="post", label=lab, **style)
    for a_ in (ax, axt):
        a_.set_xscale("log")
        a_.set_xlabel("ns per pair in one timed batch (log scale)")
        a_.grid(alpha=0.3, which="both")
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
    if n <= 10:
        ax.legend(fontsize=7, loc="lower right")
    else:
        axt.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0,
                   ncol=2 if n > 24 else 1)
    fig.text(0.01, 0.01, "interrupted batches (ticks, interrupts, preemption) are kept: they are the tail",
             fontsize=7, alpha=0.7)
    save(fig, out, "latency-cdf", written)
    return True


def load_fleet(path):
    """The matrix `rgbench plot` wrote: label, emulated, current_role, role, relative_ns per line."""
    if not path or not os.path.exists(path):
        return []
    try:
        return [dict(r, relative_ns=num(r["relative_ns"]), emulated=r["emulated"] == "1", now=r["now"] == "1")
                for r in read_csv(path)]
    except (ValueError, KeyError) as e:
        raise Unreadable(f"{path}: {first_line(e)}") from None


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
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(hosts) + 3), max(4, 0.45 * len(roles) + 2)))
    masked = [[v if ok(v) else math.nan for v in row] for row in grid]
    im = ax.imshow(masked, cmap="RdYlGn_r", norm=norm, aspect="auto")
    for ri, row in enumerate(grid):
        for hi, v in enumerate(row):
            if not ok(v):
                ax.text(hi, ri, "-", ha="center", va="center", fontsize=8, color="grey")
                continue
            now = (roles[ri], hosts[hi]) in nows  # the current design's row (x86-64: under both this-cpu roles)
            ax.text(hi, ri, "now" if now else f"{v:+.3g}", ha="center", va="center", fontsize=8,
                    weight="bold" if now else "normal")
    ax.set_yticks(range(len(roles)))
    ax.set_yticklabels(roles)
    ax.set_xticks(range(len(hosts)))
    ax.set_xticklabels([h + (" [EMULATED]" if h in emu else "") + f"\n(now {cur[h]})" for h in hosts],
                       rotation=20, ha="right", fontsize=8)
    for t, h in zip(ax.get_xticklabels(), hosts):
        if h in emu:
            t.set_color("red")
    fig.colorbar(im, ax=ax, label="ns per pair against the host's current design (below 0: cheaper)")
    ax.set_title("Guard cost by role and host, relative to each kernel's own design")
    global EMULATED
    was, EMULATED = EMULATED, EMULATED or bool(emu)
    save(fig, out, "fleet", written)
    EMULATED = was
    return True


def main():
    warnings.simplefilter("ignore")  # stderr carries notes and at most one error line
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", required=True)
    ap.add_argument("--lat", default="")
    ap.add_argument("--fleet", default="")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    try:
        hist = load_lat(a.lat)
        cells = load_fleet(a.fleet)
        rows = load(a.data)
    except (Unreadable, OSError) as e:  # one line, never a traceback
        print(f"rgbench plot: cannot read {e}", file=sys.stderr)
        return 5
    sources = sources_of(rows)
    global EMULATED
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
                       "work between pairs, ns (0: back to back)", "ns per pair incl. work (median)")),
        ("latency-cdf", "no latency rows with a histogram (lat_hist in the JSON)",
         lambda: latency_cdf(hist, sources, a.out, written)),
        ("bpf", "no bpf rows with a rate", lambda: bpf(rows, sources, a.out, written)),
        ("fleet", "fewer than two hosts with the role of their kernel's design",
         lambda: fleet(cells, a.out, written)),
        ("kmod-ns", "no kmod rows with ns values",
         lambda: ns_bars(rows, sources, a.out, written, "kmod", "kmod-ns",
                         "In-kernel cost of one guard enter/exit pair (kthread loop)")),
    ]
    notes = []
    for name, why, fn in kinds:
        try:
            drawn = fn()
        except Exception as e:  # one line, never a traceback, never an empty reason
            print(f"rgbench plot: cannot draw {name}: {first_line(e)}", file=sys.stderr)
            return 5
        if not drawn:
            notes.append(f"note: {name}: skipped, {why}")
    for n in notes:
        print(n, file=sys.stderr)
    if not written:
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
