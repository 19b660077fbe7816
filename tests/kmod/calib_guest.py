# SPDX-License-Identifier: MIT
"""check_tramp.py's case K: the guest's real trigger bench (k_bpf.json) and its tramp rows
(t.json, case T) from one boot, given to `rgbench report` on this host. Checks that the
calibration table is printed, which attach type it calibrated, that the rows used are named
and every figure is a finite number; never a timing (TCG)."""
import json
import math
import os
import re
import subprocess

SECTION = "Calibration against the real trampoline"


def _section(text, title):
    m = re.search(r"^## " + re.escape(title) + r".*?$(.*?)(?=^## |\Z)", text or "", re.M | re.S)
    return m.group(1) if m else None


def _finite(s):
    try:
        return math.isfinite(float(s.rstrip("%")))
    except ValueError:
        return False


def check_k(out, read, check, notes, report, arch, lse):
    if not check(read("rc_k").strip() == "0", "K: rgbench-bpf exit " + read("rc_k").strip() + ": " + read("k.err")):
        return
    files = [os.path.join(out, "k_bpf.json"), os.path.join(out, "t.json")]
    p = subprocess.run(report + ["report", "--width", "100"] + files, capture_output=True, text=True, timeout=300)
    with open(os.path.join(out, "report.txt"), "w") as f:
        f.write(p.stdout + p.stderr)
    if not check(p.returncode == 0, f"K: rgbench report exit {p.returncode}: {p.stderr.strip()[:300]}"):
        return
    sec = _section(p.stdout, SECTION)
    if not check(sec is not None, f"K: no '{SECTION}' section in the report (report.txt)"):
        return
    flat = " ".join(sec.split())
    m = re.search(r"calibrated attach type: (\S+) \(", flat)
    # A CPU without LSE (arm64 -cpu cortex-a72): its kernel runs LDXR/STXR, so the running
    # design is this-cpu-llsc (the lse column), whose tramp rows the module measured there.
    if not lse:
        check(re.search(r"this-cpu-llsc", flat) is not None,
              f"K: without LSE the running design is this-cpu-llsc: {flat[:300]}")
    # fentry where the guest ran it (x86-64 6.1), else raw_tp with fentry's refusal named
    # (arm64 6.1 has no fentry: the kernel says ENOTSUPP).
    real = json.load(open(files[0]))["results"]
    fen = [r for r in real if r["guard"] == "fentry" and r["status"] == "ok"]
    attach = "fentry" if fen else "raw_tp"
    if not check(m is not None and m[1] == attach, f"K: want {attach} calibrated: {flat[:300]}"):
        return
    if not fen:
        why = next((r["reason"] for r in real if r["guard"] == "fentry" and r["status"] == "skipped"), None)
        check(why is not None and f"fentry refused: {why}" in flat,
              f"K: fentry neither measured nor refused with its reason: {flat[:300]}")
    scen = "tramp-fentry" if attach == "fentry" else "tramp-rawtp"
    # one line per measured row of that attach type (6.1 has no raw_tp driver trigger: 6.10+)
    nreal = sum(1 for r in real if r["guard"] == attach and r["status"] == "ok")
    blocks = re.findall(r"```\n(.*?)```", sec, re.S)
    lines = [l.split() for b in blocks for l in b.splitlines()]
    # "ATTACH/syscall p=1  real-ns module-ns error%" (the prediction table's event lines have 2 words)
    err = [l for l in lines if len(l) == 5 and re.fullmatch(re.escape(attach) + r"/(syscall|driver)", l[0])]
    check(nreal >= 1 and len(err) == nreal and all(_finite(l[2]) and _finite(l[3]) and _finite(l[4])
                                and l[4].endswith("%") for l in err),
          f"K: model error lines ({attach}/syscall, {attach}/driver; real ns, module ns, error %): {err}")
    used = re.search(r"Rows used: real: bpf " + re.escape(attach) + r" rows \(\S*k_bpf\.json\); module: kmod "
                     + scen + r" (\S+)=(\S+?)(,| \()", flat)
    check(used is not None and "t.json" in flat, f"K: the rows used are not named: {flat[-400:]}")
    # The prediction table: per real row a measured line, then one line per other design.
    pred = [l for l in lines if len(l) >= 4 and l[1].startswith("(") and l[1].endswith(")")]
    check(pred and all(_finite(l[2]) for l in pred)
          and sum(1 for l in pred if l[3] == "measured") == nreal,
          f"K: prediction lines (design (guard) ns interval M/s) not finite: {pred}")
    if used:
        notes.append(f"K: calibrated {attach} against kmod {scen} {used[1]}={used[2]}; "
                     f"model error {', '.join(l[0] + ' ' + l[4] for l in err)} (TCG: the figures mean nothing)")
