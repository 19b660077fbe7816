#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`rgbench report`'s why sections, on two fleet hosts (tests/analysis/fleet/: x86-64 and arm64 6.18)
with ladder rows added: each host's two designs side by side, the sum of the steps and the whole,
the one generated sentence (only steps whose interval excludes zero, largest first, exact text),
counters n/a with the rows' reason, the kernel module's ladders after the user suite's, and the
ladders of both hosts side by side; a host without
ladder rows is left out with the reason. usage: why.py RGBENCH-REPORT FLEET-DIR"""
import copy
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "bench")]
import rgtest  # noqa: E402

C = rgtest.Checker("analysis.why")
check = C.check
report, fleet = sys.argv[1], sys.argv[2]

# design -> [(part, delta, lo, hi)]; a NaN-free interval that holds zero is not named
LADDERS = {
    "x86": {
        "pcpu-xadd": (0.49, [("active-load", 0.15, 0.14, 0.16), ("xadd", 0.15, -0.02, 0.31),
                             ("dec", 0.19, 0.17, 0.2)]),
        "rctx-kernel": (4.27, [("preempt", 1.05, 1.02, 1.07), ("level", 0.92, 0.91, 0.97),
                               ("this-cpu-ptr", 0.12, -0.05, 0.2), ("byte-inc-dec", 1.72, 1.6, 1.8),
                               ("reload32", 0.39, 0.35, 0.56)]),
        "rseq": (4.31, [("cs-arm", 0.44, 0.43, 0.45), ("cpu-slot", 0.3, -0.01, 0.32),
                        ("add-commit", 3.64, 3.53, 3.67)]),
    },
    "arm": {
        "pcpu-ldadd-kernel": (6.5, [("preempt", 2.25, 2.0, 2.5), ("this-cpu-ptr", 0.75, 0.5, 1.0),
                                    ("ldadd", 2.5, 2.25, 2.75), ("ldadd-unused", 1.0, -0.5, 1.5)]),
        "rctx-kernel": (5.25, [("preempt", 2.25, 2.0, 2.5), ("level", 0.5, 0.25, 0.75),
                               ("this-cpu-ptr", 0.75, 0.5, 1.0), ("byte-inc-dec", 1.5, 1.25, 1.75),
                               ("reload32", -0.25, -0.5, -0.125)]),
    },
}
REF = 0.25  # ns per reference cycle


def with_ladders(src, ladders):
    doc = json.load(open(src))
    rows = doc["results"]
    pair = {r["guard"]: r for r in rows if r["scenario"] == "pair" and r["suite"] == "user"}

    def add(guard, base, d, lo, hi, role):
        r = copy.deepcopy(pair["noop"] if guard == "noop" else pair[guard.split("+")[0]])
        r.update(guard=guard, scenario="ladder", baseline=base, delta_ns=d, delta_ci_lo=lo,
                 delta_ci_hi=hi, delta_ci_level=0.961, ref_ns_per_cycle=REF, role=role,
                 status="ok", reason="")
        rows.append(r)
    add("noop", "noop", 0.0, 0.0, 0.0, "harness-floor")
    for design, (whole, steps) in ladders.items():
        add(design, "noop", whole, whole - 0.1, whole + 0.1, pair[design]["role"])
        base = "noop"
        for part, d, lo, hi in steps:
            add(f"{design}+{part}", base, d, lo, hi, "n/a")
            base = f"{design}+{part}"
    return doc


def fmt(v):
    a = abs(v)
    s = f"{v:.0f}" if a >= 100 else f"{v:.1f}" if a >= 10 else f"{v:.2f}"
    return ("+" if v >= 0 else "") + s


def sentence(design, whole, steps):
    named = sorted([s for s in steps if s[2] > 0 or s[3] < 0], key=lambda s: -abs(s[1]))
    if not named:
        return f"no step of {design}'s {fmt(whole)} ns has an interval that excludes zero"
    out = f"of {design}'s {fmt(whole)} ns, "
    for i, (part, d, _, _) in enumerate(named):
        sep = "" if i == 0 else " and " if i + 1 == len(named) else ", "
        out += f"{sep}+{part} {'is ' if i == 0 else ''}{fmt(d)} ns"
    return out


def section(text, title):
    m = re.search(r"^## " + re.escape(title) + r".*?$(.*?)(?=^## |\Z)", text, re.M | re.S)
    return m.group(1) if m else None


with tempfile.TemporaryDirectory() as tmp:
    paths = {}
    for key, src in (("x86", "vm-x86.json"), ("arm", "vm-v2.json")):
        paths[key] = os.path.join(tmp, f"{key}.json")
        json.dump(with_ladders(os.path.join(fleet, src), LADDERS[key]), open(paths[key], "w"))
    r = subprocess.run([report, "report", "--width", "200", paths["x86"], paths["arm"]], capture_output=True,
                       text=True, timeout=300)
    check(r.returncode == 0, f"report exited {r.returncode}: {r.stderr}")
    page = r.stdout
    # one why section per host, in file order; both hosts are named "vm", so labelled with arch and model
    labels = re.findall(r"^## Why \((.*)\)$", page, re.M)
    check(len(labels) == 2 and all(l.startswith("vm (") for l in labels), f"why sections {labels}")
    for n, (key, (cur, other)) in enumerate((("x86", ("pcpu-xadd", "rctx-kernel")),
                                             ("arm", ("pcpu-ldadd-kernel", "rctx-kernel")))):
        if n >= len(labels):
            break
        sec = section(page, f"Why ({labels[n]})")
        if not check(sec is not None, f"no why section for {labels[n]}:\n{page}"):
            continue
        flat = " ".join(sec.split())
        want = (f"On {labels[n]}, {sentence(other, *LADDERS[key][other])}; "
                f"{sentence(cur, *LADDERS[key][cur])}.")
        check(want in flat, f"{key}: sentence\n  want {want}\n  in   {flat}")
        table = re.search(r"```\n(.*?)```", sec, re.S)
        lines = table.group(1).splitlines() if table else []
        # one table, the current design's ladder then the other's: design, step, +ns, interval, +ref cyc
        check(lines and lines[0].split() == ["design", "step", "+ns", "interval", "+ref", "cyc"],
              f"{key}: table header {lines[:1]}")
        ncur, noth = len(LADDERS[key][cur][1]), len(LADDERS[key][other][1])
        check(len(lines) == 1 + ncur + 2 + noth + 2, f"{key}: {len(lines)} table lines")
        starts = [i for i, l in enumerate(lines) if l.split() and l.split()[0] in (cur, other)]
        check([lines[i].split()[0] for i in starts] == [cur, other] and starts == [1, 1 + ncur + 2],
              f"{key}: each design's first step names it, current first: {starts}")
        sums = [l for l in lines if l.split()[:4] == ["sum", "of", "the", "steps"]]
        want_sum = [fmt(sum(s[1] for s in LADDERS[key][d][1])) for d in (cur, other)]
        check([l.split()[4] for l in sums] == want_sum, f"{key}: sum rows {sums} want {want_sum}")
        whole = [l for l in lines if l.split()[:3] == ["whole,", "vs", "noop"]]
        check([l.split()[3] for l in whole] == [fmt(LADDERS[key][cur][0]), fmt(LADDERS[key][other][0])],
              f"{key}: whole rows {whole}")
        check(all(len(l) <= 72 for l in lines), f"{key}: the table fits 72 columns: {lines}")
        # step 1 of the current design: its part, delta and interval, and reference cycles
        p, d, lo, hi = LADDERS[key][cur][1][0]
        check(f"{cur} 1 +{p} {fmt(d)} [{fmt(lo)}, {fmt(hi)}] {fmt(d / REF)}" in " ".join(lines[1].split()),
              f"{key}: step 1 {lines[1] if len(lines) > 1 else ''}")
        check("Counts per pair: n/a here" in flat, f"{key}: counters line")
        # a ladder beside the decision's two: its whole, the sum of its steps, its steps
        want = ("Also measured: rseq +4.31 ns over noop, its 3 steps sum to +4.38 ns (+cs-arm +0.44, "
                "+cpu-slot +0.30 ~0, +add-commit +3.64).")
        check((want in flat) == (key == "x86"), f"{key}: other ladders\n  want {want}\n  in   {flat}")
    both = section(page, "Why, every host")
    check(both is not None and all(l in both for l in labels) and
          "+reload32 -0.25" in both and "+this-cpu-ptr +0.12 ~0" in both,
          f"fleet ladders:\n{both}")
    # counters: only the per-pair counts that differ between the two wholes (a version 5 file)
    doc = json.load(open(paths["x86"]))
    doc["schema_version"] = 5
    for x in doc["results"]:
        x["schema_version"] = 5
        x["pmu_table"] = "n/a: no hardware PMU"
        x["prog_runs"] = 0
        x.update(runs=1, aa_floor_ns=None, layout="n/a")
        if x["scenario"] == "ladder" and x["guard"] in ("pcpu-xadd", "rctx-kernel"):
            x2 = x["guard"] == "rctx-kernel"
            x.update(counters="perf", cycles_per_pair=30.0 if x2 else 10.0, instructions_per_pair=21.0 if x2 else 20.0,
                     events=f"LD_BLOCKS:STORE_FORWARD={'1.000' if x2 else '0.000'};MACHINE_CLEARS:MEMORY_ORDERING=0.000",
                     pmu_table="libpfm4 icl")
    v5 = os.path.join(tmp, "x86-v5.json")
    json.dump(doc, open(v5, "w"))
    r = subprocess.run([report, "report", "--width", "200", v5], capture_output=True, text=True, timeout=300)
    flat = " ".join((section(r.stdout, "Why (") or "").split())
    want = ("Counts per pair that differ (pcpu-xadd vs rctx-kernel; events: libpfm4 icl): cycles 10.00 vs "
            "30.00, LD_BLOCKS:STORE_FORWARD 0.00 vs 1.00.")
    check(r.returncode == 0 and want in flat, f"counters: {r.returncode} {r.stderr}\n  want {want}\n  in   {flat}")
    # the kernel module's ladders (suite kmod, rgbench kmod --ladder, two kthreads) follow the user suite's
    KMOD = {"pcpu-xadd": (0.8, [("active-load", 0.1, -0.05, 0.2), ("xadd", 0.5, 0.4, 0.6), ("dec", 0.2, 0.1, 0.3)]),
            "rctx-kernel": (3.5, [("preempt", 1.5, 1.4, 1.6), ("level", 0.5, 0.4, 0.6),
                                  ("this-cpu-ptr", 0.25, -0.1, 0.5), ("byte-inc-dec", 1.0, 0.9, 1.1),
                                  ("reload32", 0.25, 0.2, 0.3)])}
    doc = json.load(open(paths["x86"]))
    extra = []
    for x in doc["results"]:
        if x["scenario"] != "ladder" or x["suite"] != "user":
            continue
        d = x["guard"].split("+")[0]
        if d not in KMOD and d != "noop":
            continue
        k = copy.deepcopy(x)
        k.update(suite="kmod", threads=2, pinning="kthread")
        if "+" in x["guard"]:
            part = x["guard"].split("+", 1)[1]
            _, dl, lo, hi = next(t for t in KMOD[d][1] if t[0] == part)
            k.update(delta_ns=dl, delta_ci_lo=lo, delta_ci_hi=hi)
        elif d != "noop":
            k.update(delta_ns=KMOD[d][0])
        extra.append(k)
    doc["results"] += extra
    km = os.path.join(tmp, "x86-kmod.json")
    json.dump(doc, open(km, "w"))
    r = subprocess.run([report, "report", "--width", "200", km], capture_output=True, text=True, timeout=300)
    lab = re.findall(r"^## Why \((.*)\)$", r.stdout, re.M)
    flat = " ".join((section(r.stdout, "Why (") or "").split())
    want_u = f"On {lab[0] if lab else '?'}, {sentence('rctx-kernel', *LADDERS['x86']['rctx-kernel'])}; "
    want_k = (f"In the kernel module on {lab[0] if lab else '?'}, {sentence('rctx-kernel', *KMOD['rctx-kernel'])}; "
              f"{sentence('pcpu-xadd', *KMOD['pcpu-xadd'])}.")
    check(r.returncode == 0 and want_u in flat and want_k in flat and flat.index(want_u) < flat.index(want_k)
          and flat.count("```") == 4,
          f"kmod ladders: {r.returncode} {r.stderr}\n  want {want_k}\n  in   {flat}")
    # a host without ladder rows: left out with the reason
    r = subprocess.run([report, "report", os.path.join(fleet, "vm-x86.json")], capture_output=True, text=True,
                       timeout=300)
    check(r.returncode == 0 and "no ladder rows for" in " ".join(r.stdout.split()),
          f"no ladder rows: {r.returncode} {r.stdout[-400:]}")
C.finish()
