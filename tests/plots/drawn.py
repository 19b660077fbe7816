#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""What `rgbench plot` draws, checked through matplotlib's own objects (never pixels): every
tick label is a number or a name (a label parsed as mathtext is a number such as 10^k; no
other label shows '$' that is not a name's own, nor '\\mathdefault', nor a control
character), no two tick labels of one axis overlap (their extents in the drawn figure), no
two entries of one legend share colour and style, every plot has a title and axis labels;
and that they read at a glance (issue 39): no bar on a log axis, at most 8 series in one
panel, every whisker one row's interval (delta_ci_lo..delta_ci_hi, or the decision table's)
with its level named in the caption, the duty and threads plots the cost over noop on linear
axes, the machines' host and kernel in the titles, SVG text as <text>.

  drawn.py RGBENCH_REPORT FIXTURES_DIR SOURCE_DIR ANALYSIS_DIR    the test: plot several
        inputs (a real default run in SOURCE_DIR/drawn, the plot and report fixtures, the
        calibration and fleet runs of tests/analysis, hostile names) with this file as
        RG_PYTHON and check what it logged
  drawn.py RGPLOT_PY ARGS...                          (RG_DRAWN_LOG set) rgbench plot's
        interpreter: run rgplot.py, checking every figure as it is saved"""
import json
import os
import re
import subprocess
import sys
import tempfile

NUMBER = re.compile(r"^[-\u2212]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$")
# A mathtext number: 10^{k}, m x 10^{k}, a plain or signed number, in \mathdefault{...}.
MATH_NUMBER = re.compile(r"^\$\\mathdefault\{([-\u2212]|\\minus|\\!-)?(\d+(\.\d*)?(\\times)?)?"
                         r"(10\^\{[-\u2212]?\d+(\.\d+)?\})?\}\$$")
# Any control character but the line breaks the plots put between parts of a label.
CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


# ---- inside rgbench plot: check each figure as rgplot.py saves it ---------------------------

def label_problems(where, t):
    """What is wrong with one drawn text t (a matplotlib Text): [] when it is a number or a name."""
    raw = t.get_text()
    if not raw.strip():
        return []
    shown, math = t._preprocess_math(raw)
    if math:
        if not MATH_NUMBER.match(raw.replace("\n", "")):
            return [f"{where}: {raw!r} is drawn as mathtext but is not a number"]
        return []
    out = []
    if "\\mathdefault" in shown and "\\$" not in raw:  # a name may hold it, escaped
        out.append(f"{where}: {shown!r} shows raw TeX")
    if shown.count("$") != raw.count("\\$"):
        out.append(f"{where}: {shown!r} shows a '$' that is not a name's own")
    if CONTROL.search(shown):
        out.append(f"{where}: {shown!r} holds a control character or a lone surrogate")
    return out


def visible_ticklabels(axis):
    ticks = axis._update_ticks()  # the ticks drawn: inside the view, labels formatted
    return [t.label1 for t in ticks if t.label1.get_visible() and t.label1.get_text().strip()] + \
           [t.label2 for t in ticks if t.label2.get_visible() and t.label2.get_text().strip()]


def overlaps(a, b):
    w = min(a.x1, b.x1) - max(a.x0, b.x0)
    h = min(a.y1, b.y1) - max(a.y0, b.y0)
    return w > 0.5 and h > 0.5


def style_key(h):
    """Colour and style of a legend handle, as a reader tells entries apart."""
    from matplotlib.colors import to_rgba
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    if isinstance(h, Line2D):
        return ("line", to_rgba(h.get_color(), h.get_alpha()), str(h.get_linestyle()), str(h.get_marker()),
                h.get_fillstyle(), round(h.get_linewidth(), 2))
    if isinstance(h, Patch):
        return ("patch", to_rgba(h.get_facecolor()), h.get_hatch())
    return (type(h).__name__, id(h))


def close(a, b):
    return abs(a - b) <= 1e-6 * max(abs(a), abs(b)) + 1e-9


def whisker_problems(where, ax, intervals):
    """Every whisker of ax is one of intervals ((lo, hi) pairs): its two ends, or (a ladder
    step's, labelled '_interval shifted') its length. Returns (problems, whiskers seen)."""
    from matplotlib.container import ErrorbarContainer
    out, n = [], 0
    for c in ax.containers:
        if not isinstance(c, ErrorbarContainer):
            continue
        shifted = (c.get_label() or "").startswith("_interval shifted")
        for col in c.lines[2]:
            for seg in col.get_segments():
                if len(seg) != 2:
                    continue
                (x0, y0), (x1, y1) = seg
                a, b = sorted((y0, y1) if close(x0, x1) else (x0, x1))
                n += 1
                if shifted:
                    good = any(close(b - a, hi - lo) for lo, hi in intervals)
                else:
                    good = any(close(a, lo) and close(b, hi) for lo, hi in intervals)
                if not good:
                    out.append(f"{where}: a whisker {a:g}..{b:g} is no row's interval")
    return out, n


def check_figure(fig, kind, intervals=()):
    fig.canvas.draw()
    rend = fig.canvas.get_renderer()
    problems, nticks, nlegend, texts = [], 0, 0, []
    suptitle = fig._suptitle.get_text() if fig._suptitle else ""
    titles = [suptitle] + [ax.get_title() for ax in fig.axes]
    footers = [t.get_text() for t in fig.texts]
    scales, series, whiskers = [], [], 0
    from matplotlib.container import BarContainer
    for ai, ax in enumerate(fig.axes):
        where = f"{kind} axes {ai}"
        colorbar = hasattr(ax, "_colorbar")
        if colorbar:
            if not (ax.get_ylabel() or ax.get_xlabel()):
                problems.append(f"{where}: colour bar without a label")
        else:
            if not (ax.get_title() or suptitle):
                problems.append(f"{where}: no title")
            if not ax.get_xlabel():
                problems.append(f"{where}: no x axis label")
            if not ax.get_ylabel():
                problems.append(f"{where}: no y axis label")
        if not colorbar:
            bars = any(isinstance(c, BarContainer) for c in ax.containers)
            scales.append([ax.get_xscale(), ax.get_yscale(), bars, ax.get_ylabel()])
            if bars and "log" in (ax.get_xscale(), ax.get_yscale()):
                problems.append(f"{where}: bars on a log axis")
            labels = {lb for lb in ax.get_legend_handles_labels()[1] if not lb.startswith("_")}
            series.append(len(labels))
            if len(labels) > 8:
                problems.append(f"{where}: {len(labels)} series in one panel (at most 8)")
            wp, nw = whisker_problems(where, ax, intervals)
            problems += wp
            whiskers += nw
        for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            labels = visible_ticklabels(axis)
            nticks += len(labels)
            boxes = []
            for t in labels:
                problems += label_problems(f"{where} {name} tick", t)
                texts.append(t._preprocess_math(t.get_text())[0])
                boxes.append((t.get_window_extent(rend), t.get_text()))
            for i in range(len(boxes)):
                for k in range(i + 1, len(boxes)):
                    if overlaps(boxes[i][0], boxes[k][0]):
                        problems.append(f"{where} {name} ticks {boxes[i][1]!r} and {boxes[k][1]!r} overlap")
        for t in (ax.title, ax.xaxis.label, ax.yaxis.label):
            problems += label_problems(f"{where} title/label", t)
            texts.append(t._preprocess_math(t.get_text())[0])
        for t in ax.texts:
            problems += label_problems(f"{where} text", t)
            texts.append(t._preprocess_math(t.get_text())[0])
        leg = ax.get_legend()
        if leg:
            handles = getattr(leg, "legend_handles", None) or getattr(leg, "legendHandles", [])
            seen = {}
            for h, t in zip(handles, leg.get_texts()):
                nlegend += 1
                problems += label_problems(f"{where} legend", t)
                texts.append(t._preprocess_math(t.get_text())[0])
                key = style_key(h)
                if key in seen:
                    problems.append(f"{where} legend: {t.get_text()!r} looks like {seen[key]!r}")
                seen.setdefault(key, t.get_text())
    if whiskers and kind != "decision" and not any("confidence" in t for t in footers):
        problems.append(f"{kind}: whiskers drawn but the caption names no confidence level")
    for t in footers:
        if re.search(r"min-max|standard deviation", t):
            problems.append(f"{kind}: the caption names another whisker: {t!r}")
    return {"kind": kind, "problems": problems, "ticks": nticks, "legend": nlegend, "texts": texts + footers,
            "titles": titles, "scales": scales, "series": series, "whiskers": whiskers}


def intervals_of(path):
    """The intervals a whisker may be: every row's [delta_ci_lo, delta_ci_hi] and every
    decision's [lo_ns, hi_ns], from the document rgbench plot handed over."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    out = [(r["delta_ci_lo"], r["delta_ci_hi"]) for r in doc["rows"]
           if r.get("delta_ci_lo") is not None and r.get("delta_ci_hi") is not None]
    out += [(c["lo_ns"], c["hi_ns"]) for c in doc.get("decision", [])
            if c.get("lo_ns") is not None and c.get("hi_ns") is not None]
    return out


def run_script():
    import runpy
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure
    log = os.environ["RG_DRAWN_LOG"]
    save = Figure.savefig
    intervals = intervals_of(sys.argv[sys.argv.index("--data") + 1])

    def checked_save(self, fname, *a, **kw):
        kind = os.path.splitext(os.path.basename(str(fname)))[0]
        # Checked once per figure (saved as png and svg): marked on the figure itself. Not by
        # id(): a figure closed and freed leaves its id to the next one (seen with Debian 13's
        # matplotlib, where the fleet's decision figure took the freed fleet figure's id).
        if not getattr(self, "_rg_drawn_checked", False):
            self._rg_drawn_checked = True
            with open(log, "a") as f:
                f.write(json.dumps(check_figure(self, kind, intervals)) + "\n")
        return save(self, fname, *a, **kw)
    Figure.savefig = checked_save
    sys.argv = sys.argv[1:]
    runpy.run_path(sys.argv[0], run_name="__main__")


# ---- the test ----------------------------------------------------------------------------

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL", what)


def plot_case(R, what, args, kinds, T, expect_texts=(), titles=()):
    """rgbench plot ARGS with this file as its python: every kind in kinds drawn, no problem;
    every figure's title shows each text of titles (the inputs' host, kernel, date); every
    SVG holds its text as <text>; duty and threads: the cost over noop, linear axes."""
    log = os.path.join(T, f"{what}.log")
    out = os.path.join(T, f"{what}-out")
    env = dict(os.environ, RG_PYTHON=os.path.abspath(__file__), RG_DRAWN_LOG=log)
    p = subprocess.run([R, "plot", *args, "--out", out], capture_output=True, text=True, env=env, timeout=600)
    check(p.returncode == 0 and "Traceback" not in p.stderr, f"{what}: exit {p.returncode} {p.stderr[-400:]!r}")
    # matplotlib's and numpy's warnings (a deprecation, a layout that did not fit) name a class
    check(not re.search(r"\w+Warning: ", p.stderr), f"{what}: warnings: {p.stderr[-600:]!r}")
    figs = [json.loads(x) for x in open(log)] if os.path.exists(log) else []
    got = {f["kind"] for f in figs}
    check(set(kinds) <= got, f"{what}: drew {sorted(got)}, expected {sorted(kinds)}")
    for f in figs:
        for pr in f["problems"]:
            check(False, f"{what}: {pr}")
        check(f["ticks"] > 0, f"{what}: {f['kind']} has no tick labels")
    shown = [t for f in figs for t in f["texts"]]
    for s in expect_texts:
        check(any(s in t for t in shown), f"{what}: no drawn text shows {s!r}")
    for f in figs:
        for s in titles if f["kind"] in kinds else ():
            check(any(s in t for t in f["titles"]), f"{what}: {f['kind']}'s title does not show {s!r}")
        if f["kind"] in ("duty", "threads", "pair-ns", "kmod-ns"):
            check(all(x == "linear" and y == "linear" for x, y, _, _ in f["scales"]),
                  f"{what}: {f['kind']} has a log axis: {f['scales']}")
        if f["kind"] in ("duty", "threads"):
            check(all("over noop" in lb for _, _, _, lb in f["scales"]),
                  f"{what}: {f['kind']} does not draw the cost over noop: {f['scales']}")
    svgs = [os.path.join(out, k) for k in os.listdir(out) if k.endswith(".svg")] if os.path.isdir(out) else []
    check(len(svgs) == len(figs), f"{what}: {len(svgs)} SVG files for {len(figs)} figures")
    for k in svgs:
        with open(k, encoding="utf-8") as f:
            check("<text" in f.read(), f"{what}: {os.path.basename(k)} holds no <text> (text drawn as paths)")
    n = sum(f["ticks"] for f in figs), sum(f["legend"] for f in figs)
    print(f"{what}: {len(figs)} figures, {n[0]} tick labels, {n[1]} legend entries checked")
    return figs


def edit_json(src, dst, fn):
    with open(src) as f:
        d = json.load(f)
    for r in d["results"]:
        fn(r)
    if "machine" in d:
        fn(d["machine"])
    with open(dst, "w") as f:
        json.dump(d, f)


def direct(T):
    """Names the reader refuses (a control character; a lone surrogate cannot even be written
    to a UTF-8 file) driven straight into rgplot.py: drawn escaped, never a traceback."""
    script = os.path.join(os.path.dirname(sys.argv[1]), "rgplot.py")
    rows = os.path.join(T, "direct.json")
    with open(rows, "w", encoding="utf-8") as f:  # rgbench plot's one document (docs/plots.md)
        json.dump({"format": "rgbench-plot-1", "guards": [], "heat": [], "decision": [], "rows": [
            {"source": 0, "label": "a\tb$x$", "host": "h", "cpu_model": "m", "suite": "user", "guard": g,
             "role": "n/a", "scenario": "pair", "threads": 1, "duty_ns": 0, "batch": 1000, "status": "ok",
             "ns_median": v, "ns_stddev": None, "ns_min": v * 0.9, "ns_max": v * 1.1, "mops_median": None,
             "mops_stddev": None}
            for g, v in (("noop", 0.3), ("be\x07ll", 1.5), ("\x1b[31mred", 4.0), ("nl\u0085c1", 9.0))]}, f)
    log = os.path.join(T, "direct.log")
    out = os.path.join(T, "direct-out")
    os.mkdir(out)
    p = subprocess.run([os.path.abspath(__file__), script, "--data", rows, "--out", out], capture_output=True,
                       text=True, env=dict(os.environ, RG_DRAWN_LOG=log), timeout=300)
    figs = [json.loads(x) for x in open(log)] if os.path.exists(log) else []
    check(p.returncode == 0 and [f["kind"] for f in figs] == ["pair-ns"], f"direct: exit {p.returncode} {p.stderr[-300:]!r}")
    for f in figs:
        for pr in f["problems"]:
            check(False, f"direct: {pr}")
    shown = [t for f in figs for t in f["texts"]]
    for s in ("be\\x07ll", "\\x1b[31mred", "nl\\x85c1", "a\\x09b$x$"):
        check(any(s in t for t in shown), f"direct: no drawn text shows {s!r}")
    # A lone surrogate (a str, never a file's bytes) becomes U+FFFD.
    p = subprocess.run(["/usr/bin/python3", "-c", "import sys, runpy; "
                        f"m = runpy.run_path({script!r}); print(ascii(m['name']('a\\ud800b$')))"],
                       capture_output=True, text=True, timeout=120)
    check(p.stdout.strip() == "'a\\ufffdb\\\\$'", f"direct: name() of a lone surrogate: {p.stdout!r} {p.stderr[-200:]!r}")
    print(f"direct: {len(figs)} figure, names with control characters and a lone surrogate")


def main():
    R, FX, S, A = sys.argv[1:5]
    default = os.path.join(S, "drawn", "default-x86.json")
    with tempfile.TemporaryDirectory(prefix="rgbench-drawn-") as T:
        # A real default run (--quick, this VM, see drawn/README.md): the duty, threads and
        # latency plots whose log axes printed raw TeX, and 14 guards that shared 10 colours.
        # Its identity is the fixture's (drawn/README.md), never this machine's.
        figs = plot_case(R, "default", [default], ["pair-ns", "duty", "threads", "latency-cdf", "decision"], T,
                         titles=["vm \u00b7 ", "kernel 6.18.44-fixture-v1045", "2026-12-02"])
        for f in figs:
            if f["kind"] in ("duty", "threads"):  # 14 guards: noop is the zero line, 13 series in panels
                check(f["legend"] >= 13, f"default: {f['kind']} legend has {f['legend']} entries, not every guard")
                check(len(f["series"]) >= 2, f"default: {f['kind']}: 13 series in {len(f['series'])} panel")
            if f["kind"] in ("pair-ns", "duty", "threads", "decision"):  # its rows have intervals: drawn
                want = 1 if f["kind"] == "decision" else 10
                check(f["whiskers"] >= want, f"default: {f['kind']}: {f['whiskers']} whiskers")
            if f["kind"] == "latency-cdf":  # left: a linear zoom; right: the log-log tail
                check(all(sc[:2] == ["linear", "linear"] for sc in f["scales"][0::2]) and
                      all(sc[:2] == ["log", "log"] for sc in f["scales"][1::2]),
                      f"default: latency-cdf scales {f['scales']}")
        # Two machines, every kind of row (the plot fixtures), and two hosts of two arches.
        plot_case(R, "fixtures", [os.path.join(FX, "plot-a.json"), os.path.join(FX, "plot-b.json")],
                  ["pair-ns", "duty", "threads", "latency-cdf", "bpf", "kmod-ns", "fleet", "decision"], T,
                  titles=["alpha \u00b7 AMD EPYC 7B13 \u00b7 kernel 6.18.0 \u00b7 2026-01-01",
                          "grace \u00b7 Neoverse-V2 \u00b7 kernel 6.18.0 \u00b7 2026-01-01"])
        plot_case(R, "report", [os.path.join(FX, "report-x86.json"), os.path.join(FX, "report-arm.json")],
                  ["pair-ns", "decision", "fleet"], T, titles=["xeon \u00b7 Intel Xeon", "grace \u00b7 Neoverse-V2"],
                  # its module rows have no noop to subtract: kmod-ns draws the medians and says so
                  expect_texts=["no noop row was measured"])
        # A real ladder run (--quick --scenarios pair,ladder, drawn/README.md) beside a copy of
        # it as a second host: the parts ladders of two hosts side by side.
        lad = os.path.join(S, "drawn", "ladder-x86.json")
        other = os.path.join(T, "ladder-b.json")
        edit_json(lad, other, lambda r: r.update(host="other") if "host" in r else None)
        figs = plot_case(R, "ladder", [lad, other], ["pair-ns", "ladder", "decision"], T,
                         expect_texts=["+reload32", "rctx-kernel (whole)", "sum of the steps"])
        check(any(f["kind"] == "ladder" and f["ticks"] >= 2 * 19 for f in figs),
              "ladder: three designs on two hosts, every step named")
        # The calibration fixtures: the module's tramp rows beside the real attach of one host.
        plot_case(R, "tramp", [os.path.join(A, "calib", "base-tramp.json"), os.path.join(A, "calib", "base-bpf-fentry.json")],
                  ["tramp", "bpf"], T, expect_texts=["real fentry / driver", "rctx-kernel (module)"])
        # The fleet fixtures: five machines, three named vm, one emulated.
        plot_case(R, "fleet", [os.path.join(A, "fleet")], ["pair-ns", "fleet", "decision", "bpf"], T,
                  expect_texts=["vm (aarch64, Neoverse-V2)"])

        # Hostile names: TeX in a guard and a host, a 4,000-character guard, a '$' in file names.
        hostile = os.path.join(T, "hostile.json")

        def names(r):
            if r.get("guard") == "tls":
                r["guard"] = "t$\\mathdefault{10^{1}}$s"
            if r.get("guard") == "rseq":
                r["guard"] = "r" * 4000
            if "host" in r:
                r["host"] = "h$\\x$st"
        edit_json(default, hostile, names)
        figs = plot_case(R, "hostile", [hostile, os.path.join(FX, "plot-b.json")],
                         ["pair-ns", "duty", "threads", "latency-cdf"], T,
                         expect_texts=["t$\\mathdefault{10^{1}}$s", "h$\\x$st", "r" * 47 + "\u2026"])
        check(not any("r" * 48 in t for f in figs for t in f["texts"]), "hostile: the 4,000-character name drawn whole")
        d = os.path.join(T, "a$b$\\x")
        os.mkdir(d)
        for k in ("a$1$.json", "b$\\y$.json"):
            with open(os.path.join(FX, "plot-a.json")) as s, open(os.path.join(d, k), "w") as o:
                o.write(s.read())
        plot_case(R, "files", [os.path.join(d, "a$1$.json"), os.path.join(d, "b$\\y$.json")],
                  ["pair-ns", "duty", "threads"], T, expect_texts=["a$1$", "b$\\y$"])
        direct(T)
    print("drawn: all passed" if not failures else f"drawn: {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    if os.environ.get("RG_DRAWN_LOG") and len(sys.argv) > 1 and sys.argv[1].endswith(".py"):
        run_script()
    else:
        sys.exit(main())
