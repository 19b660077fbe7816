# SPDX-License-Identifier: MIT
"""rgplot.py's ground: matplotlib's settings, names as drawn, one style per guard, reading
the one document rgbench plot hands over, saving a figure, the helpers every plot uses."""
import json
import math
import os
import re
import textwrap

import matplotlib.pyplot as plt

# Reproducible files: no date, fixed ids. Sizes for a slide or a linked page: the text of a
# 10-inch figure stays readable when the picture is shown a third of a screen wide.
plt.rcParams.update({
    "svg.hashsalt": "rgbench", "font.size": 11, "axes.titlesize": 12, "axes.labelsize": 11,
    "xtick.labelsize": 10, "ytick.labelsize": 10, "legend.fontsize": 9,
    # SVG text as text (<text> elements): editable and searchable in a talk's slides.
    "svg.fonttype": "none",
})
# Mathtext stays on: the log axes' tick labels are mathtext (10^k). Names are made safe where
# they are drawn (name() below), so a '$' in a guard, host or file name is no TeX math.

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


def num(v):
    """A number of the document: null (not measured) as NaN."""
    return math.nan if v is None else float(v)


def ok(v):
    return not math.isnan(v)


class Unreadable(Exception):
    """rgbench plot's document cannot be read: FILE: why."""


def first_line(e):
    """An exception as one line: its first non-empty line, else its type (never empty)."""
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    return f"{type(e).__name__}: {lines[0]}" if lines else type(e).__name__


class Data:
    """What rgbench plot hands over, read from its one JSON document (docs/plots.md):
    rows      every source's rows as the reader read them (names as written: name() draws them)
    hist      {(source, label, guard): [(lo_ns, hi_ns, count)]}: measured rows' latency histograms
    registry  [(guard, role)]: guards.def's guards in order
    cells     the heat map: label, emulated, current_role, role, relative_ns, now per host and role
    cands     the decision: label, emulated, current_role, current_guard, suite, role, guard,
              change_ns, lo_ns, hi_ns per host and candidate"""

    def __init__(self, rows, hist, registry, cells, cands):
        self.rows, self.hist, self.registry, self.cells, self.cands = rows, hist, registry, cells, cands


ROW_NUMBERS = ("ns_median", "ns_stddev", "ns_min", "ns_max", "mops_median", "mops_stddev",
               "delta_ns", "delta_ci_lo", "delta_ci_hi", "delta_ci_level")
# The machine's identity of a row, for the titles (a document of an older rgbench lacks them).
ROW_IDENTITY = ("arch", "kernel", "virt", "timestamp")


def load(path):
    """The document rgbench plot wrote into path, as Data; Unreadable when it is not one."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            doc = json.load(f)
        rows, hist = [], {}
        for r in doc["rows"]:
            r = dict(r)
            for k in ("source", "threads", "duty_ns", "batch"):
                r[k] = int(r[k])
            for k in ROW_NUMBERS:
                r[k] = num(r.get(k))
            r["role"] = r.get("role") or ""
            for k in ROW_IDENTITY:
                r[k] = r.get(k) or ""
            r["baseline"] = r.get("baseline") or ""
            lat = r.pop("lat", None)
            if lat and r["status"] in MEASURED:
                key = (r["source"], r["label"], r["guard"])
                hist.setdefault(key, []).extend((float(lo), num(hi), int(c)) for lo, hi, c in lat)
            rows.append(r)
        registry = [(g["guard"], g["role"]) for g in doc.get("guards", [])]
        cells = [dict(c, relative_ns=num(c["relative_ns"]), emulated=bool(c["emulated"]), now=bool(c["now"]))
                 for c in doc.get("heat", [])]
        cands = [dict(c, change_ns=num(c["change_ns"]), lo_ns=num(c["lo_ns"]), hi_ns=num(c["hi_ns"]),
                      emulated=bool(c["emulated"])) for c in doc.get("decision", [])]
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise Unreadable(f"{path}: {first_line(e)}") from None
    return Data(rows, hist, registry, cells, cands)


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
    """The lines under a figure that say what its marks are, wrapped to its width (room kept
    for them by save())."""
    lines = textwrap.wrap(text, max(60, int(fig.get_figwidth() * 15)))
    fig._rg_footer_lines = len(lines)
    fig.text(0.01, 0.004, "\n".join(lines), fontsize=8, alpha=0.7, va="bottom")


def bottom(fig):
    """The figure fraction kept under the axes for the footer."""
    return min(0.2, (0.13 + 0.14 * getattr(fig, "_rg_footer_lines", 1)) / fig.get_figheight())


def top(fig):
    """The figure fraction under the suptitle (its lines), where the panels end."""
    lines = getattr(fig, "_rg_title_lines", 0)
    return 1.0 if not lines else max(0.5, 1.0 - 0.05 * lines / fig.get_figheight())


def save(fig, out, kind, written):
    fig.tight_layout(rect=(0, bottom(fig), 1, top(fig)))
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


def grouped_hbars(ax, groups, sources, value, err, dots=False):
    """One group per entry of groups, top to bottom, one horizontal bar per source;
    value/err(group, src) -> number/(lo, hi) (the row's interval, drawn as it is) or None.
    dots: points instead of bars (for a log axis, where a bar's length means nothing)."""
    n = len(sources)
    # each group's bars share its slot: a source without a value there takes no room
    have = [[s for s, _ in sources if value(g, s) is not None and ok(value(g, s))] for g in groups]
    for si, (src, label) in enumerate(sources):
        ys, xs, lo, hi = [], [], [], []
        for gi, g in enumerate(groups):
            v = value(g, src)
            if v is None or not ok(v):
                continue
            e = err(g, src)
            height = 0.8 / len(have[gi])
            ys.append(gi - 0.4 + height * (have[gi].index(src) + 0.5))
            xs.append(v)
            # no interval: no whisker (NaN draws nothing), never a zero-length one
            lo.append(max(v - e[0], 0) if e else math.nan)
            hi.append(max(e[1] - v, 0) if e else math.nan)
        color = COLORS[si % len(COLORS)]
        if dots:
            ax.plot(xs, ys, linestyle="none", marker=MARKERS[si % len(MARKERS)], markersize=7, color=color,
                    label=name(label))
            continue
        bars = ax.barh(ys, xs, [0.8 * 0.92 / len(have[round(y)]) for y in ys], label=name(label), color=color,
                       hatch="//" if si >= len(COLORS) else None,
                       xerr=[lo, hi], capsize=2, error_kw={"elinewidth": 1, "ecolor": "black"})
        if len(groups) * n <= 60:
            ax.bar_label(bars, labels=[fmt(x) for x in xs], fontsize=8, padding=3)
    ax.set_yticks(range(len(groups)))
    ax.set_ylim(len(groups) - 0.5, -0.5)  # the first group on top
    ax.margins(x=0.15)  # room for the value labels beyond the longest whisker


def fmt(v):
    a = abs(v)
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
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




# ---- what every figure says: the machine, the cost over noop, its interval ------------------

IDENTITY_LINES = 4  # hosts named one a line in a title; more are counted


def identity(rows):
    """The machines the rows were measured on, one line each: host, CPU, kernel and the
    date(s) of the runs (from the rows' own columns, never this machine's)."""
    seen = {}
    for r in rows:
        key = (r["host"], r.get("cpu_model", ""), r.get("kernel", ""))
        day = (r.get("timestamp") or "")[:10]
        seen.setdefault(key, set())
        if day:
            seen[key].add(day)
    lines = []
    for (host, cpu, kernel), days in seen.items():
        days = sorted(days)
        when = days[0] if len(days) == 1 else f"{days[0]}..{days[-1]}" if days else "date n/a"
        lines.append(f"{name(host, 40)} \u00b7 {name(cpu or 'CPU n/a', 48)} \u00b7 kernel "
                     f"{name(kernel or 'n/a', 40)} \u00b7 {when}")
    if len(lines) > IDENTITY_LINES:
        more = len(lines) - (IDENTITY_LINES - 1)
        lines = lines[:IDENTITY_LINES - 1] + [f"and {more} more machines"]
    return lines


def titled(fig, title, rows, ax=None):
    """The figure's title and, under it, the machines it shows: on ax for a one-panel
    figure, as the figure's suptitle otherwise."""
    text = "\n".join([title] + identity(rows))
    if ax is not None:
        ax.set_title(text)
    else:
        fig.suptitle(text, fontsize=12)
        fig._rg_title_lines = text.count("\n") + 1


def noop_costs(rows):
    """cost(r) -> (ns over noop, lo, hi): the row's paired difference against noop and its
    interval when it has one (delta_ns, delta_ci_lo, delta_ci_hi), else its median minus the
    median of noop's row of the same file, suite, scenario, threads and duty (no interval),
    as the report's tables rank them (rp_cost_of)."""
    noop = {(r["source"], r["suite"], r["scenario"], r["threads"], r["duty_ns"]): r["ns_median"]
            for r in rows if r["guard"] == "noop" and r["status"] in MEASURED and ok(r["ns_median"])}

    def cost(r):
        if r["baseline"] == "noop" and ok(r["delta_ns"]):
            return r["delta_ns"], r["delta_ci_lo"], r["delta_ci_hi"]
        if r["guard"] == "noop":
            return 0.0, math.nan, math.nan
        n = noop.get((r["source"], r["suite"], r["scenario"], r["threads"], r["duty_ns"]))
        return (r["ns_median"] - n if n is not None and ok(r["ns_median"]) else math.nan), math.nan, math.nan
    return cost


def level_text(rows):
    """The confidence of the rows' intervals as a caption says it: '96.1%', '93.5-96.1%', or
    'level not recorded' (files before schema 4)."""
    lv = sorted({round(100 * r["delta_ci_level"], 1) for r in rows if ok(r["delta_ci_level"])})
    if not lv:
        return "level not recorded"
    return f"{lv[0]:g}%" if len(lv) == 1 else f"{lv[0]:g}-{lv[-1]:g}%"


def whisker_caption(rows, intervals):
    """The footer's words for the one whisker every plot draws: the row's interval."""
    rows = list(rows)
    if not intervals:
        return "no whiskers: these rows have no paired rounds (no interval), each value a difference of medians"
    s = f"whiskers: the row's interval of its paired difference (delta_ci_lo..delta_ci_hi, {level_text(rows)} confidence)"
    if intervals < len(rows):
        s += "; no whisker: no paired rounds, a difference of medians"
    return s


MAX_SERIES = 8  # series drawn in one panel; more are split into panels by design family


def panels(keys, guard_of):
    """Series keys in panels of at most MAX_SERIES, a design family to a panel where it fits
    (small families share one, in FAMILIES order; a family larger than a panel is cut)."""
    by = {}
    for k in keys:
        by.setdefault(STYLES.family.get(guard_of(k), "other"), []).append(k)
    out = []
    for fam in FAMILIES:
        ks = by.get(fam, [])
        for i in range(0, len(ks), MAX_SERIES):
            chunk = ks[i:i + MAX_SERIES]
            if out and len(out[-1][1]) + len(chunk) <= MAX_SERIES and i == 0:
                out[-1] = (out[-1][0] + [fam], out[-1][1] + chunk)
            else:
                out.append(([fam], chunk))
    return [(" + ".join(FAMILIES[f][0] for f in ordered(fams)), ks) for fams, ks in out]
