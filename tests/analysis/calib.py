#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`rgbench report`'s calibration sections on tests/analysis/calib/ (real runs of this build, edits
listed in its README): the module's tramp row of the running design beside the real raw_tp (fentry
refused) or fentry hook with the model's error, every other design predicted as real + tramp(design)
- tramp(current) with its interval and the rows named, the guard-row prediction labelled as the
fallback, and two kernels of one machine: the base's prediction beside the patched kernel's
measurement, per attach type, from the tramp rows or the fallback. Every figure is recomputed here
from the rows. usage: calib.py RGBENCH-REPORT CALIB-DIR"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "bench")]
import rgtest  # noqa: E402

C = rgtest.Checker("analysis.calib")
check = C.check
R, D = sys.argv[1], sys.argv[2]


def f(name):
    return os.path.join(D, name)


def rows_of(name):
    return json.load(open(f(name) if not os.path.isabs(name) else name))["results"]


def report(*files, width=72):
    p = subprocess.run([R, "report", "--width", str(width)] + list(files), capture_output=True,
                       text=True, timeout=120)
    check(p.returncode == 0 and not p.stderr, f"report {' '.join(os.path.basename(x) for x in files)}: "
          f"exit {p.returncode} {p.stderr.strip()}")
    return p.stdout


section = rgtest.md_section
fenced = rgtest.md_fenced_all


def flat(s):
    return " ".join((s or "").split())


def one(rows, **kw):
    got = [r for r in rows if all(r[k] == v for k, v in kw.items())]
    return got[0] if got else None


def close(a, b, tol=0.006):
    return abs(float(a) - b) <= tol * max(1.0, abs(b))


def fits(text, width, what):
    for b in fenced(text):
        for line in b:
            check(len(line) <= width and "~" not in line, f"{what}: table line fits {width} unclipped: {line!r}")


bpf, tramp = rows_of("base-bpf.json"), rows_of("base-tramp.json")
xadd = {sc: one(tramp, scenario=sc, guard="pcpu-xadd") for sc in ("tramp-rawtp", "tramp-fentry")}


def check_predictions(sec, attach, scenario, real_rows):
    """The prediction table: measured line, then real + tramp(design) - tramp(current) per design."""
    lines = [l for b in fenced(sec) for l in b]
    cur = xadd[scenario]
    for e in real_rows:
        head = "%s/%s p=%d" % (attach, e["scenario"], e["threads"])
        i = next((k for k, l in enumerate(lines) if l.strip() == head), None)
        if not check(i is not None, f"prediction table has {head}"):
            continue
        now = lines[i + 1].split()
        check(now[:2] == ["this-cpu-6.18", "(pcpu-xadd)"] and now[2] == "%.2f" % e["ns_median"]
              and now[3] == "measured", f"{head}: the running design is the measurement: {now}")
        designs = [r for r in tramp if r["scenario"] == scenario and r["guard"] not in ("noop", "pcpu-xadd")]
        for k, d in enumerate(designs):
            l = lines[i + 2 + k].split()
            want = e["ns_median"] + d["delta_ns"] - cur["delta_ns"]
            lo = e["ns_median"] + d["delta_ci_lo"] - cur["delta_ci_hi"]
            hi = e["ns_median"] + d["delta_ci_hi"] - cur["delta_ci_lo"]
            check(l[1] == "(%s)" % d["guard"] and l[0] == d["role"].split(";")[0],
                  f"{head}: design line names role and guard: {l}")
            check(close(l[2], want), f"{head} {d['guard']}: {l[2]} = real + tramp(design) - tramp(current) = {want:.2f}")
            iv = re.match(r"\[([-\d.]+), ([-\d.]+)\]", " ".join(l[3:5]))
            check(iv and close(iv[1], lo) and close(iv[2], hi), f"{head} {d['guard']}: interval {l[3:5]} = [{lo:.2f}, {hi:.2f}]")
            check(close(l[5], e["mops_median"] * e["ns_median"] / want, 0.002), f"{head} {d['guard']}: M/s scaled by 1/ns")


def check_model_error(sec, attach, real_rows):
    cur = xadd["tramp-rawtp" if attach == "raw_tp" else "tramp-fentry"]
    lines = [l.split() for b in fenced(sec) for l in b]
    for e in real_rows:
        l = next((x for x in lines if x and x[0] == "%s/%s" % (attach, e["scenario"])), None)
        if not check(l is not None, f"model error line for {attach}/{e['scenario']}"):
            continue
        err = 100 * (cur["ns_median"] - e["delta_ns"]) / e["delta_ns"]
        check(l[2] == "%.2f" % e["delta_ns"] and l[3] == "%.2f" % cur["ns_median"] and l[4] == "%+.1f%%" % err,
              f"{attach}/{e['scenario']}: real hook {e['delta_ns']:.2f}, module {cur['ns_median']:.2f}, error {err:+.1f}%: {l}")


# --- raw_tp calibrated where fentry is refused -------------------------------------------------
t = report(f("base-bpf.json"), f("base-tramp.json"))
sec = section(t, "Calibration against the real trampoline")
fe = one(bpf, guard="fentry", status="skipped")
check(fe is not None, "the real run has fentry refused (skipped)")
check("calibrated attach type: raw_tp" in flat(sec) and ("fentry refused: " + fe["reason"]) in flat(sec),
      f"raw_tp is calibrated and fentry's refusal is named: {flat(sec)[:300]}")
raw = [r for r in bpf if r["guard"] == "raw_tp" and r["status"] == "ok"]
check(len(raw) == 2, "raw_tp rows in syscall and driver mode")
check_model_error(sec, "raw_tp", raw)
check_predictions(sec, "raw_tp", "tramp-rawtp", raw)
check(re.search(r"Rows used: real: bpf raw_tp rows \(\S*base-bpf\.json\); module: kmod tramp-rawtp "
                r"this-cpu-6\.18=pcpu-xadd, pcpu-atomic=pcpu-lock-xadd, merged-rctx=rctx-kernel \(\S*base-tramp\.json\)",
                flat(sec)) is not None, f"the rows used are named: {flat(sec)[-300:]}")
pred = section(t, "Prediction")
check("the fallback, used for a host without the module's tramp rows" in flat(pred) and
      "vm: predicted from its module tramp rows" in flat(pred), f"the guard-row prediction is the labelled fallback: {flat(pred)}")
fits(sec, 72, "calibration")

# --- fentry calibrated where it is measured ------------------------------------------------------
t = report(f("base-bpf-fentry.json"), f("base-tramp.json"))
sec = section(t, "Calibration against the real trampoline")
fen = [r for r in rows_of("base-bpf-fentry.json") if r["guard"] == "fentry" and r["status"] == "ok"]
check(len(fen) == 2 and "calibrated attach type: fentry (the JITed trampoline" in flat(sec) and "refused" not in flat(sec),
      f"fentry is calibrated when measured: {flat(sec)[:200]}")
check_model_error(sec, "fentry", fen)
check_predictions(sec, "fentry", "tramp-fentry", fen)
check("kmod tramp-fentry this-cpu-6.18=pcpu-xadd" in flat(sec), "fentry: tramp-fentry rows used")

# --- no module rows: calibration left out, the fallback predicts --------------------------------
t = report(f("base-user.json"), f("base-bpf.json"))
check(section(t, "Calibration against the real trampoline") is None,
      "no tramp rows: no calibration section (the fallback prediction says why)")
check("PREDICTION, not a measurement" in flat(section(t, "Prediction")) and "Two kernels" not in t,
      "the fallback prediction runs; one kernel: no two-kernel section")

# --- two kernels of one machine ------------------------------------------------------------------
user, pbpf = rows_of("base-user.json"), rows_of("patched-bpf.json")
ux, ur = one(user, guard="pcpu-xadd", scenario="pair"), one(user, guard="rctx-kernel", scenario="pair")
check(all(r["kernel"].endswith("-rctx") for r in pbpf + rows_of("patched-user.json")), "patched files: kernel naming rctx")


def check_boots(t, base_bpf, via):
    sec = section(t, "Two kernels of one machine: prediction against measurement")
    if not check(sec is not None, f"{via}: the two-kernel section"):
        return
    check(re.search(r"base kernel (\S+) \(runs this-cpu-6\.18\), patched kernel \1-rctx \(runs merged-rctx\)", flat(sec)) is not None,
          f"{via}: base and patched kernels and their designs: {flat(sec)[:200]}")
    lines = [l.split() for b in fenced(sec) for l in b]
    for e in base_bpf:
        if e["status"] != "ok" or e["guard"] not in ("fentry", "raw_tp", "tp_btf"):
            continue
        ev = "%s/%s" % (e["guard"], e["scenario"])
        l = next((x for x in lines if x and x[0] == ev), None)
        if not check(l is not None, f"{via}: line for {ev}"):
            continue
        if via == "tramp":
            sc = "tramp-rawtp" if e["guard"] != "fentry" else "tramp-fentry"
            d, c = one(tramp, scenario=sc, guard="rctx-kernel"), xadd[sc]
        else:
            d, c = ur, ux
        want = e["ns_median"] + d["delta_ns"] - c["delta_ns"]
        m = one(pbpf, guard=e["guard"], scenario=e["scenario"], status="ok")
        check(l[2] == "%.2f" % e["ns_median"] and close(l[3], want), f"{via} {ev}: base {l[2]}, predicted {l[3]} = {want:.2f}")
        iv = re.match(r"\[([-\d.]+), ([-\d.]+)\]", " ".join(l[4:6]))
        check(iv and close(iv[1], e["ns_median"] + d["delta_ci_lo"] - c["delta_ci_hi"]) and
              close(iv[2], e["ns_median"] + d["delta_ci_hi"] - c["delta_ci_lo"]), f"{via} {ev}: interval {l[4:6]}")
        if m:
            err = 100 * (float(l[3]) - m["ns_median"]) / m["ns_median"]
            check(l[6] == "%.2f" % m["ns_median"] and l[7] == "%+.1f%%" % err,
                  f"{via} {ev}: patched measured {m['ns_median']:.2f}, error {err:+.1f}%: {l}")
        else:
            check(l[6:8] == ["n/a", "n/a"], f"{via} {ev}: not measured on the patched kernel: n/a")
    return sec


sec = check_boots(report(f("base-user.json"), f("base-bpf.json"), f("patched-user.json"), f("patched-bpf.json")),
                  bpf, "fallback")
check(sec and re.search(r"raw_tp, tp_btf: fallback: user pair rows merged-rctx=rctx-kernel, this-cpu-6\.18=pcpu-xadd "
                        r"\(\S*base-user\.json\)", flat(sec)) is not None, f"fallback: the guard rows are named: {flat(sec)[-400:]}")
fits(sec, 72, "two kernels")
sec = check_boots(report(f("base-user.json"), f("base-bpf-fentry.json"), f("base-tramp.json"), f("patched-user.json"),
                         f("patched-bpf.json")), rows_of("base-bpf-fentry.json"), "tramp")
check(sec and "fentry: tramp-fentry: kmod tramp-fentry merged-rctx=rctx-kernel, this-cpu-6.18=pcpu-xadd" in flat(sec)
      and "raw_tp, tp_btf: tramp-rawtp: kmod tramp-rawtp merged-rctx=rctx-kernel" in flat(sec),
      f"tramp: each attach type names its path's rows: {flat(sec)[-400:]}")

# --- the fallback takes both designs' rows from one place: module loop rows, else user pair rows ---
with tempfile.TemporaryDirectory() as tmp:
    def loop_file(name, guards):
        doc = json.load(open(f("base-tramp.json")))
        doc["results"] = [dict(r, scenario="loop", threads=2) for r in doc["results"]
                          if r["scenario"] == "tramp-rawtp" and r["guard"] in guards]
        path = os.path.join(tmp, name)
        json.dump(doc, open(path, "w"))
        return path
    only = loop_file("only-rctx.json", ("rctx-kernel",))
    sec = section(report(f("base-user.json"), f("base-bpf.json"), only, f("patched-user.json"), f("patched-bpf.json")),
                  "Two kernels of one machine")
    check(sec and "fallback: user pair rows merged-rctx=rctx-kernel, this-cpu-6.18=pcpu-xadd" in flat(sec),
          f"a module loop row of one design only: both rows from the user suite, never mixed: {flat(sec)[-300:]}")
    both = loop_file("both.json", ("rctx-kernel", "pcpu-xadd"))
    sec = section(report(f("base-user.json"), f("base-bpf.json"), both, f("patched-user.json"), f("patched-bpf.json")),
                  "Two kernels of one machine")
    check(sec and "fallback: kmod loop rows merged-rctx=rctx-kernel, this-cpu-6.18=pcpu-xadd" in flat(sec),
          f"module loop rows of both designs (2 kthreads): preferred to the user rows: {flat(sec)[-300:]}")

# --- two kernels that run the same design: nothing to predict -----------------------------------
with tempfile.TemporaryDirectory() as tmp:
    other = os.path.join(tmp, "other.json")
    doc = json.load(open(f("patched-bpf.json")))
    for r in doc["results"]:
        r["kernel"] = "6.19.0"
    doc["machine"]["kernel"] = "6.19.0"
    json.dump(doc, open(other, "w"))
    sec = section(report(f("base-bpf.json"), other), "Two kernels of one machine")
    check(sec is not None and re.search(r"kernels \S+ and 6\.19\.0: both run this-cpu-6\.18, nothing to predict", flat(sec)) is not None,
          f"same design on both kernels: said, nothing predicted: {flat(sec)}")
C.finish()
