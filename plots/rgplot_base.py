# SPDX-License-Identifier: MIT
"""rgplot.py's ground: matplotlib's settings, names as drawn, one style per guard, reading
the one document rgbench plot hands over, saving a figure, the helpers every plot uses."""
import json
import math
import os
import re

import matplotlib.pyplot as plt

# Reproducible files: no date, fixed ids. Sizes for a slide or a linked page: the text of a
# 10-inch figure stays readable when the picture is shown a third of a screen wide.
plt.rcParams.update({
    "svg.hashsalt": "rgbench", "font.size": 11, "axes.titlesize": 12, "axes.labelsize": 11,
    "xtick.labelsize": 10, "ytick.labelsize": 10, "legend.fontsize": 9,
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
               "delta_ns", "delta_ci_lo", "delta_ci_hi")


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


