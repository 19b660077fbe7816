#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The BPF bench in passes: each pass's values, the interval and A/A floor over passes, compare on CPU time.

Usage: test_passes.py BINARY CASE   (CASE: passes takes rgbench-bpf; aa takes rgbench)
Exit 0 pass, 1 fail, 77 skip (not root, or bpf() missing). No timing is asserted: the
values are checked against each other (a pass's median of its samples, the floor's formula).
"""
import json
import math
import os
import re
import statistics
import tempfile

from bpfcheck import C, case_main, check, need_root, num, read_csv, run

# t(0.975, 1): the A/A floor of two passes is t * sqrt(2) * the standard deviation of their values.
T975_DF1 = 12.706204736174707


def close(a, b, rel=2e-5):
    """Equal up to the JSON's 6 significant digits."""
    return a is not None and b is not None and abs(a - b) <= rel * max(abs(a), abs(b), 1e-9)


def start_of(where):
    m = re.fullmatch(r"pass (\d+) of (\d+): (\d+) sample\(s\) from \+([0-9.]+) s", where)
    return m and (int(m[1]), int(m[2]), int(m[3]), float(m[4]))


def case_passes(b):
    """4 samples in 2 passes: each pass holds 2 samples of every row, its median is the run value."""
    need_root()
    with tempfile.TemporaryDirectory() as d:
        c, j = os.path.join(d, "p.csv"), os.path.join(d, "p.json")
        p = run(b, "--mode", "driver", "--attach", "driver-count,raw_tp", "--duration", "0.05",
                "--warmup", "0.02", "--repetitions", "4", "--passes", "2", "--batch", "1000",
                "--out", c, "--json", j)
        check(p.returncode == 0, f"passes: exit 0 (got {p.returncode})")
        if p.returncode:
            return
        # On stderr: "pass 1 of 2", its rows so far, "pass 1 of 2 done (..., ~... left)", "pass 2 of 2".
        check(re.findall(r"^rgbench bpf: pass (\d) of 2(?: done \(\d+ s, ~\d+ s left\))?$", p.stderr, re.M) ==
              ["1", "1", "2"] and p.stdout == "", "passes: 'pass 1 of 2', 'pass 1 of 2 done', 'pass 2 of 2' on stderr")
        rows = read_csv(c)
        with open(j) as f:
            jrows = json.load(f)["results"]
        starts = []
        for x, y in zip(rows, jrows):
            tag = f"{x['guard']}/{x['scenario']}"
            check(x["status"] == "ok", f"{tag}: status {x['status']} {x['reason']}")
            if x["status"] != "ok":
                continue
            cpu, dcpu = y["samples_cpu_ns"], y["samples_cpu_delta_ns"]
            check(int(x["runs"]) == 2 and int(x["repetitions"]) == 4 and len(cpu) == 4 and
                  len(y["runs_ns"]) == 2 and len(y["runs_where"]) == 2,
                  f"{tag}: 2 passes of 4 samples: {x['runs']} {len(cpu)} {y['runs_ns']}")
            check(x["layout"].startswith("2 passes over all rows in one process (not fresh "
                                         "processes); delta_ns and runs_*: producer CPU ns per event"),
                  f"{tag}: layout {x['layout']}")
            check(close(num(x["cpu_ns_median"]), statistics.median(cpu)),
                  f"{tag}: cpu_ns_median {x['cpu_ns_median']} is the samples' median")
            where = [start_of(w) for w in y["runs_where"]]
            check(all(w and w[:3] == (k + 1, 2, 2) for k, w in enumerate(where)),
                  f"{tag}: runs_where {y['runs_where']}")
            starts.append([w[3] if w else math.nan for w in where])
            for k in range(2):
                check(close(y["runs_ns"][k], statistics.median(cpu[2 * k:2 * k + 2])),
                      f"{tag}: pass {k + 1}: {y['runs_ns'][k]} is its samples' median")
            paired = x["guard"] != "driver-kfunc"
            check(bool(dcpu) == paired and bool(y["runs_delta_ns"]) == paired,
                  f"{tag}: CPU deltas {'with' if paired else 'without'} a baseline")
            run_v = y["runs_delta_ns"] if paired else y["runs_ns"]
            if paired and len(dcpu) == 4 and len(run_v) == 2:
                for k in range(2):
                    check(close(run_v[k], statistics.median(dcpu[2 * k:2 * k + 2])),
                          f"{tag}: pass {k + 1}: delta {run_v[k]} is its samples' median")
                check(close(num(x["delta_ns"]), statistics.median(run_v)),
                      f"{tag}: delta_ns {x['delta_ns']} is the passes' median")
                # Two values: no order-statistic interval reaches a level worth stating.
                check(num(x["delta_ci_lo"]) is None and num(x["delta_ci_level"]) is None,
                      f"{tag}: no interval from 2 passes ({x['delta_ci_lo']}, {x['delta_ci_level']})")
            if len(run_v) == 2:
                floor = T975_DF1 * math.sqrt(2) * statistics.stdev(run_v)
                # t x |a - b| of two values read back with 6 digits: each off by 5e-6 of itself.
                tol = T975_DF1 * 2 * 5e-6 * max(abs(v) for v in run_v) + 1e-5 * floor
                got = num(x["aa_floor_ns"])
                check(got is not None and abs(got - floor) <= tol,
                      f"{tag}: aa_floor_ns {x['aa_floor_ns']} == {floor:.6g} (within {tol:.2g})")
        # The rows take turns: every row's first pass comes before any row's second.
        if len(starts) >= 2:
            check(max(s[0] for s in starts) < min(s[1] for s in starts),
                  f"passes interleave the rows: {starts}")
        # --triggers counts once, in one pass: no passes, no CPU samples.
        p = run(b, "--mode", "driver", "--attach", "driver-empty", "--triggers", "2000",
                "--batch", "1000", "--json", j)
        check(p.returncode == 0, f"triggers: exit 0 (got {p.returncode})")
        if p.returncode == 0:
            with open(j) as f:
                y = json.load(f)["results"][0]
            check(y["runs"] == 1 and y["ops"] == 2000 and "samples_cpu_ns" not in y,
                  f"triggers: one pass, exact count: runs {y['runs']} ops {y['ops']}")


def case_aa(rgbench):
    """compare of a bpf file with itself: on CPU ns per event, over passes, nothing called."""
    need_root()
    with tempfile.TemporaryDirectory() as d:
        j = os.path.join(d, "a.json")
        p = run(rgbench, "bpf", "--mode", "driver", "--attach", "driver-count,raw_tp",
                "--duration", "0.05", "--warmup", "0.02", "--repetitions", "3", "--batch", "1000",
                "--json", j, "-qq")
        check(p.returncode == 0, f"aa: rgbench bpf exit 0 (got {p.returncode})")
        if p.returncode:
            return
        with open(j) as f:
            n = sum(r["status"] == "ok" for r in json.load(f)["results"])
        # every line (--all), the A/A line on one line (--width 400: the lines above the table wrap)
        p = run(rgbench, "compare", "--all", "--width", "400", j, j)
        check(p.returncode == 0, f"aa: compare exit 0 (got {p.returncode})")
        m = re.search(r"A/A check .*: (\d+) rows tested \((\d+) on runs, .*seen (\d+) \(", p.stdout)
        check(m is not None and int(m[1]) == n == int(m[2]) and int(m[3]) == 0,
              f"aa: {n} rows tested on passes, 0 called: {m and m[0]}")
        lines = [ln for ln in p.stdout.splitlines() if ln.startswith("bpf ")]
        check(len(lines) == n and all("CPU ns/event" in ln and "3 vs 3 passes" in ln for ln in lines),
              f"aa: every bpf line on CPU ns/event over 3 vs 3 passes: {lines}")
        # Both rows have a baseline (driver-empty, driver-kfunc).
        check(sum("per-pass CPU deltas" in ln for ln in lines) == n,
              "aa: the paired rows tested on their per-pass CPU deltas")
        p = run(rgbench, "compare", "--csv", j, j)
        metrics = {ln.split(",")[6] for ln in p.stdout.splitlines()[1:] if ln.startswith("bpf,")}
        check(p.returncode == 0 and metrics == {"cpu_ns_median"}, f"aa: --csv metric {metrics}")


if __name__ == "__main__":
    C.finish(case_main(globals()))
