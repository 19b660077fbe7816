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
import sys  # noqa: E402
import warnings  # noqa: E402

# Exit codes `rgbench plot` turns into its own one-line message: 3 no plottable rows,
# 4 matplotlib cannot be imported, 5 drawing failed (this script printed the one line).
try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: E402,F401
    import matplotlib.ticker  # noqa: E402,F401
except ModuleNotFoundError as e:  # not installed: rgbench plot says what to install
    if e.name != "matplotlib":
        print(f"rgbench plot: matplotlib cannot be imported: {e}", file=sys.stderr)
        sys.exit(5)
    sys.exit(4)
except Exception as e:  # installed but broken: its own error, in one line
    why = " ".join(f"{type(e).__name__}: {e}".split())
    print(f"rgbench plot: matplotlib is installed but its import fails: {why}", file=sys.stderr)
    sys.exit(5)
# The rest of the script is in its own folder (rgplot_*.py), imported from there whichever
# way the script is started (rgbench plot, runpy); no bytecode is written beside it.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
try:
    import rgplot_base as base  # noqa: E402
    from rgplot_base import METADATA, Styles, Unreadable, first_line, load, name, sources_of  # noqa: E402,F401
    from rgplot_fleet import decision, fleet  # noqa: E402
    from rgplot_runs import bpf, ladder, latency_cdf, lines, ns_bars, tramp  # noqa: E402
except ImportError as e:  # a copy of rgplot.py without its modules: one line
    why = " ".join(str(e).split())
    print(f"rgbench plot: {os.path.abspath(__file__)}: cannot import its own modules: {why}", file=sys.stderr)
    sys.exit(5)


def main():
    warnings.simplefilter("ignore")  # stderr carries notes and at most one error line
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", required=True, help="the JSON document rgbench plot wrote (docs/plots.md)")
    ap.add_argument("--formats", default="png,svg")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    base.FORMATS = tuple(f for f in a.formats.split(",") if f in METADATA) or ("png", "svg")
    try:
        data = load(a.data)
    except (Unreadable, OSError) as e:  # one line, never a traceback
        print(f"rgbench plot: cannot read {e}", file=sys.stderr)
        return 5
    rows, hist, cells, cands = data.rows, data.hist, data.cells, data.cands
    base.STYLES = Styles(data.registry, {r["guard"]: r["role"] for r in rows if r["suite"] != "bpf"})
    sources = sources_of(rows)
    base.EMULATED = any("[EMULATED" in label for _, label in sources)
    written = []
    kinds = [
        ("pair-ns", "no user 'pair' rows with ns values",
         lambda: ns_bars(rows, sources, a.out, written, "user", "pair-ns",
                         "Cost of one guard enter/exit pair, back to back")),
        ("threads", "no user 'threads' rows at two or more thread counts",
         lambda: lines(rows, sources, a.out, written, "threads", "threads", "threads",
                       "Thread scaling: each guard's cost over noop per pair, all threads running",
                       "threads (one per CPU)")),
        ("duty", "no user 'duty' rows at two or more duty values",
         lambda: lines(rows, sources, a.out, written, "duty", "duty_ns", "duty",
                       "Duty cycle: each guard's cost over noop with work between pairs",
                       "work per pair, ns (0: back to back; levels evenly spaced)")),
        ("latency-cdf", "no latency rows with a histogram (lat_hist in the JSON)",
         lambda: latency_cdf(hist, a.out, written,
                             [r for r in rows if r["suite"] == "user" and r["scenario"] == "latency"
                              and r["status"] in base.MEASURED])),
        ("bpf", "no bpf rows with a rate", lambda: bpf(rows, sources, a.out, written)),
        ("fleet", "fewer than two hosts with the role of their kernel's design",
         lambda: fleet(cells, a.out, written, rows)),
        ("decision", "no host with a measured row of its kernel's design and a candidate",
         lambda: decision(cands, a.out, written, rows)),
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
