#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""rgbench export --gbench: Google Benchmark's JSON from result files. Every measured row is
one benchmark of a stable name, one entry per repetition (the row's runs, else its samples)
with the values bit for bit, the aggregates over them, skipped rows left out; Debian's
compare.py (libbenchmark-tools) pairs every measured row of two exports and prints its U test.
usage: export_gbench.py RGBENCH-REPORT FIXTURES"""
import json, math, os, re, shutil, statistics, subprocess, sys, tempfile

R, FX = sys.argv[1], sys.argv[2]
fails = []


def check(ok, what):
    if not ok:
        fails.append(what)
        print("FAIL", what)


def run(*args):
    return subprocess.run([R, "export", *args], capture_output=True, text=True)


def name(r):
    return f"{r['suite']}/{r['guard']}/{r['scenario']}/threads:{r['threads']}/duty_ns:{r['duty_ns']}"


def reps(r):
    """What the export must give per repetition: (real, cpu) pairs."""
    if r.get("runs_ns"):
        return [(v, v) for v in r["runs_ns"]]
    ns, cpu = r.get("samples_ns") or [], r.get("samples_cpu_ns") or []
    if ns and len(cpu) == len(ns):
        return list(zip(ns, cpu))
    if ns:
        return [(v, v) for v in ns]
    if r.get("samples_mops"):
        return [(1e3 * r["threads"] / m, 1e3 * r["threads"] / m) for m in r["samples_mops"]]
    if r.get("ns_median") is not None:
        return [(r["ns_median"], r["ns_median"])]
    return []


with tempfile.TemporaryDirectory() as t:
    for f in ("ab-base.json", "ab-new.json", "ab-base.csv", "report-x86.json"):
        shutil.copy(os.path.join(FX, f), t)
    os.chdir(t)
    # The export of a JSON file: to stdout, nothing else on it, exit 0.
    p = run("--gbench", "ab-base.json")
    check(p.returncode == 0 and p.stderr == "", f"export to stdout: rc {p.returncode}, stderr {p.stderr!r}")
    doc = json.loads(p.stdout)
    src = json.load(open("ab-base.json"))["results"]
    check(doc["context"]["host_name"] == src[0]["host"] and doc["context"]["kernel"] == src[0]["kernel"]
          and doc["context"]["rgbench_run_id"] == src[0]["run_id"], "context: host, kernel and run id of the rows")
    b = doc["benchmarks"]
    measured = [r for r in src if reps(r)]
    skipped = [r for r in src if not reps(r)]
    check(len(skipped) >= 1, "the fixture has a skipped row (fentry)")
    got_names = [x["run_name"] for x in b]
    for r in skipped:
        check(name(r) not in got_names, f"skipped row {name(r)} left out")
    for r in measured:
        want = reps(r)
        it = [x for x in b if x["name"] == name(r) and x["run_type"] == "iteration"]
        check(len(it) == len(want), f"{name(r)}: {len(it)} repetitions, want {len(want)}")
        for k, (x, (wr, wc)) in enumerate(zip(it, want)):
            # Bit for bit: the 17 significant digits read back as the same double.
            check(x["real_time"] == wr and x["cpu_time"] == wc and x["repetition_index"] == k
                  and x["time_unit"] == "ns" and x["repetitions"] == len(want),
                  f"{name(r)} repetition {k}: {x['real_time']!r}/{x['cpu_time']!r} vs {wr!r}/{wc!r}")
        agg = {x["aggregate_name"]: x for x in b if x["run_name"] == name(r) and x["run_type"] == "aggregate"}
        check(sorted(agg) == ["cv", "mean", "median", "stddev"], f"{name(r)}: aggregates {sorted(agg)}")
        reals = [w[0] for w in want]
        if agg.get("median"):
            check(math.isclose(agg["median"]["real_time"], statistics.median(reals), rel_tol=1e-12),
                  f"{name(r)}: median {agg['median']['real_time']} vs {statistics.median(reals)}")
        if agg.get("stddev") and len(reals) > 1:
            check(math.isclose(agg["stddev"]["real_time"], statistics.stdev(reals), rel_tol=1e-9, abs_tol=1e-12),
                  f"{name(r)}: stddev")
        check(all(re.fullmatch(r"[a-z]+/[^/]+/[^/]+/threads:\d+/duty_ns:\d+(_[a-z]+)?", x["name"])
                  for x in it + list(agg.values())), f"{name(r)}: stable names, no iteration counts")
    # A CSV file: no samples, one repetition (the median) per measured row.
    p = run("--gbench", "ab-base.csv")
    d = json.loads(p.stdout) if p.returncode == 0 else {"benchmarks": []}
    one = [x for x in d["benchmarks"] if x["run_type"] == "iteration"]
    check(p.returncode == 0 and len(one) == len({x["name"] for x in one}) > 0, "CSV: one repetition per row")
    # --out: the file whole, its name on a line; the same bytes as stdout.
    p = run("--gbench", "ab-new.json", "--out", "new-gb.json")
    check(p.returncode == 0 and os.path.exists("new-gb.json"), f"--out: rc {p.returncode} {p.stderr!r}")
    check(run("--gbench", "ab-new.json").stdout == open("new-gb.json").read(), "--out holds what stdout gets")
    run("--gbench", "ab-base.json", "--out", "base-gb.json")
    # Bad input: one line, exit 2 (usage) or 1 (a file that cannot be exported).
    for args, rc, what in ((["ab-base.json"], 2, "choose a format"), (["--gbench"], 2, "exactly one"),
                           (["--gbench", "ab-base.json", "ab-new.json"], 2, "exactly one"),
                           (["--gbench", "nosuch.json"], 1, "nosuch.json"),
                           (["--gbench", "--bogus", "ab-base.json"], 2, "bogus")):
        p = run(*args)
        check(p.returncode == rc and p.stdout == "" and len(p.stderr.splitlines()) == 1 and what in p.stderr,
              f"export {args}: rc {p.returncode} (want {rc}), stderr {p.stderr!r}")
    # Google Benchmark's own compare.py pairs every measured row and runs its U test.
    cmp = "/usr/share/benchmark/compare.py"
    if not os.path.exists(cmp):
        print("SKIP compare.py part: no /usr/share/benchmark/compare.py (Debian's libbenchmark-tools)")
    else:
        p = subprocess.run(["/usr/bin/python3", cmp, "--no-color", "benchmarks", "base-gb.json", "new-gb.json"],
                           capture_output=True, text=True)
        if p.returncode != 0 and "scipy" in p.stderr:
            print("SKIP compare.py part: its python has no scipy")
        else:
            check(p.returncode == 0, f"compare.py: rc {p.returncode} {p.stderr[-300:]!r}")
            newnames = {name(r) for r in json.load(open("ab-new.json"))["results"] if reps(r)}
            for r in measured:
                if name(r) not in newnames:
                    continue
                rows = [l for l in p.stdout.splitlines() if l.split() and l.split()[0] == name(r) + "_pvalue"]
                both = min(len(reps(r)), 2) >= 2
                check(len(rows) == (1 if both else 0), f"compare.py: a U test line for {name(r)} ({len(rows)})")
                if rows:
                    pv = float(rows[0].split()[1])
                    check(0 <= pv <= 1, f"compare.py: p of {name(r)} is {pv}")
            print(f"compare.py paired {len(newnames & {name(r) for r in measured})} rows")
print("export:", "FAIL" if fails else "ok", f"({len(fails)} failures)")
sys.exit(1 if fails else 0)
