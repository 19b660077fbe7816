#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""compare and report --unit cycles on fixture rows that carry ref_ns_per_cycle: exact values, the unit named, n/a with its reason once."""
import csv
import io
import subprocess
import sys

R, FX = sys.argv[1], sys.argv[2]
errors = []


def check(cond, msg):
    if not cond:
        errors.append(msg)


def run(*args):
    return subprocess.run([R, *args], capture_output=True, text=True, cwd=FX)


base, new = "cyc-base.json", "cyc-new.json"

# compare: ns by default (the core ran half as fast: every ns doubled) ...
p = run("compare", "--csv", base, new)
rows = {r["guard"]: r for r in csv.DictReader(io.StringIO(p.stdout))}
x = rows.get("pcpu-xadd", {})
check(p.returncode == 0 and x.get("unit") == "ns" and x.get("base_median") == "1"
      and x.get("new_median") == "2" and x.get("change_pct") == "100", f"ns: {p.returncode} {x}")
# ... in reference cycles the same: ns / ref_ns_per_cycle on each side.
p = run("compare", "--csv", "--unit", "cycles", base, new)
rows = {r["guard"]: r for r in csv.DictReader(io.StringIO(p.stdout))}
for g, want in (("noop", "1.2"), ("pcpu-xadd", "4"), ("pcpu-lock-xadd", "20")):
    r = rows.get(g, {})
    check(r.get("unit") == "cyc" and r.get("metric") == "ns_median" and r.get("base_median") == want
          and r.get("new_median") == want and r.get("change_pct") == "0"
          and r.get("verdict", "").startswith("no significant change"), f"cycles {g}: {r}")
t = rows.get("tls", {})
check(t.get("base_median") == "3.2" and t.get("new_median") == "" and t.get("verdict") == "n/a (not measured)",
      f"cycles tls (no reference in new): {t}")
p = run("compare", "--unit", "cycles", "--width", "100", base, new)
head = p.stdout.split("\n\n")[0].splitlines()
check(p.returncode == 0 and "unit: reference cycles (cyc): each row's ns / its ref_ns_per_cycle" in head
      and "note: 1 row shows n/a in cycles: no cycle reference (ref_ns_per_cycle n/a)" in head
      and p.stdout.count("no cycle reference") == 1, f"text header: {head}")
check("4.00 ±0.06 cyc" in p.stdout, f"text value with its unit: {p.stdout}")
p = run("compare", "--unit", "ns", base, new)
check(p.returncode == 0 and "unit: ns" in p.stdout.splitlines() and "1.00 ±0.01 ns" in p.stdout,
      f"--unit ns: {p.stdout[:400]}")
p = run("compare", base, new)
check(p.returncode == 0 and "unit:" not in p.stdout, "default: no unit line")
p = run("compare", "--baseline", "noop", "--unit", "cycles", "--csv", new)
rows = {r["guard"]: r for r in csv.DictReader(io.StringIO(p.stdout))}
check(rows.get("pcpu-xadd", {}).get("new_median") == "4" and rows.get("pcpu-xadd", {}).get("ratio") == "3.33333",
      f"--baseline in cycles: {rows.get('pcpu-xadd')}")

# report: the unit named once at the top, tables and prose in cycles, tls n/a.
p = run("report", "--width", "400", "--unit", "cycles", new)
page = p.stdout
check(p.returncode == 0 and "Unit: reference cycles (cyc)" in page
      and "1 measured row has no cycle reference (ref_ns_per_cycle n/a): its figures show n/a." in page
      and page.count("no cycle reference") == 1, f"report unit paragraphs: {page[:900]}")
rank = page.split("## Guards ranked")[1].split("```")[1] if "## Guards ranked" in page else ""
lines = {l.split()[1]: l.split() for l in rank.splitlines()[2:] if len(l.split()) > 3}
check("cyc/pair" in rank and "ns/pair" not in rank, f"ranking header: {rank}")
check(lines.get("noop", [])[2:4] == ["1.20", "+0.00"] and lines.get("pcpu-xadd", [])[2:4] == ["4.00", "+2.80"]
      and lines.get("pcpu-lock-xadd", [])[2:4] == ["20.0", "+18.8"] and lines.get("tls", [])[2] == "n/a",
      f"ranking in cycles: {lines}")
check("reference cycles per enter/exit pair" in page and "ns per enter/exit pair" not in page,
      "ranking prose in cycles")
p = run("report", new)
check(p.returncode == 0 and "Unit:" not in p.stdout and "ns/pair" in p.stdout, "report default: ns")

# Bad input: one line, exit 2, nothing on stdout.
for args in (["compare", "--unit", "ms", base, new], ["report", "--unit", "cycle", new],
             ["compare", "--unit", base, new]):
    p = run(*args)
    check(p.returncode == 2 and p.stdout == "" and len(p.stderr.splitlines()) == 1
          and p.stderr.startswith(f"rgbench {args[0]}: "), f"{args}: {p.returncode} {p.stderr!r}")

for e in errors:
    print("units:", e, file=sys.stderr)
print(f"analysis.units: {len(errors)} problem(s)")
sys.exit(1 if errors else 0)
