#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A schema 6 CSV as databases read it: pandas types every numeric column as numbers, sqlite3's .import averages ns_median right.

  dbimport.py SRC_DIR RGBENCH-REPORT CSV...

For each CSV (written by rgbench's own writer: the fixtures of mkfixtures.c), with Debian's
python3-pandas: pandas.read_csv() gives every column of kind I, U, B or D in
schema/include/rg/schema.h an int64 or float64 dtype, never object, and a missing number reads
as NaN. With sqlite3: `.import --csv` then `avg(NULLIF(ns_median,''))` over the file's rows
(and over its user rows) equals the mean that python's csv module computes over the non-empty
values, and docs/schema.md's per-guard one-liner (`avg(NULLIF(ns_median,''))` over each guard's
one-thread pair row of a run) gives the figure `rgbench report` prints for that guard in its
"Guards ranked by cost over noop" table, to the digits the report shows, for every guard it
ranks (and NULL, never 0, for a guard the run skipped). Either part is skipped, saying why, when
its program is absent; exit 77 when both are.
"""
import csv
import math
import os
import re
import shutil
import subprocess
import sys

SRC, REPORT, FILES = sys.argv[1], sys.argv[2], sys.argv[3:]
fails = []
ran = []


def check(ok, what):
    if not ok:
        fails.append(what)
        print(f"FAIL: {what}")
    return ok


def kinds(src):
    text = open(os.path.join(src, "schema/include/rg/schema.h")).read()
    body = text[text.index("#define RG_RESULT_COLUMNS(X)"):]
    body = body[:body.index("\n\n")]
    return dict(re.findall(r'X\((\w+), ([SIUDB]), \d+, "', body))


KIND = kinds(SRC)
NUMERIC = [c for c, k in KIND.items() if k in "IUDB"]
check(len(NUMERIC) > 30 and "ns_median" in NUMERIC, f"numeric columns of schema.h: {NUMERIC}")


def csv_mean(path, col, where=lambda r: True):
    vals = [float(r[col]) for r in csv.DictReader(open(path, newline="")) if where(r) and r[col] != ""]
    return (sum(vals) / len(vals) if vals else None), len(vals)


try:
    import pandas
except ImportError:
    pandas = None
    print("SKIP pandas part: python3 cannot import pandas (Debian: python3-pandas; scripts/deps.sh test installs it)")

if pandas is not None:
    ran.append("pandas")
    for path in FILES:
        name = os.path.basename(path)
        # Also with the empty field as the only missing value, as a database reads it (pandas
        # alone would take the n/a of versions 1-5 for NaN too).
        strict = pandas.read_csv(path, keep_default_na=False, na_values=[""])
        df = pandas.read_csv(path)
        check(list(df.columns) == list(KIND), f"{name}: columns {list(df.columns)[:5]}...")
        for how, d in (("read_csv", df), ("read_csv(keep_default_na=False)", strict)):
            bad = {c: str(d[c].dtype) for c in NUMERIC if c in d and d[c].dtype.kind not in "if"}
            check(not bad, f"{name}: {how}: numeric columns pandas did not type as numbers: {bad}")
        missing = sum(1 for r in csv.DictReader(open(path, newline="")) if r["ns_median"] == "")
        check(int(df["ns_median"].isna().sum()) == missing,
              f"{name}: {int(df['ns_median'].isna().sum())} NaN ns_median in pandas, {missing} empty fields")
        mean, n = csv_mean(path, "ns_median")
        check(n and math.isclose(float(df["ns_median"].mean()), mean, rel_tol=1e-12),
              f"{name}: pandas mean of ns_median {df['ns_median'].mean()}, csv module {mean}")
        print(f"pandas {name}: {len(df)} rows, {len(NUMERIC)} numeric columns typed "
              f"{sorted({str(df[c].dtype) for c in NUMERIC})}, {missing} missing ns_median as NaN")

sqlite = shutil.which("sqlite3")
if sqlite is None:
    print("SKIP sqlite3 part: no sqlite3 program (Debian: sqlite3; scripts/deps.sh test installs it)")
else:
    ran.append("sqlite3")
    for path in FILES:
        name = os.path.basename(path)
        # The one-liner of docs/schema.md: the header names the columns, every value is text.
        q = ("select avg(NULLIF(ns_median,'')), count(NULLIF(ns_median,'')), count(*) from r; "
             "select avg(NULLIF(ns_median,'')) from r where suite = 'user';")
        p = subprocess.run([sqlite, ":memory:", "-cmd", f".import --csv {path} r", q],
                           capture_output=True, text=True)
        if not check(p.returncode == 0 and not p.stderr, f"{name}: sqlite3 exited {p.returncode}: {p.stderr}"):
            continue
        lines = p.stdout.split("\n")
        avg, cnt, total = lines[0].split("|")
        mean, n = csv_mean(path, "ns_median")
        rows = sum(1 for _ in csv.DictReader(open(path, newline="")))
        check(int(cnt) == n and int(total) == rows, f"{name}: sqlite3 counted {cnt} of {total}, csv {n} of {rows}")
        check(math.isclose(float(avg), mean, rel_tol=1e-12),
              f"{name}: sqlite3 avg(NULLIF(ns_median,'')) {avg}, csv module {mean}")
        umean, un = csv_mean(path, "ns_median", lambda r: r["suite"] == "user")
        check(un and math.isclose(float(lines[1]), umean, rel_tol=1e-12),
              f"{name}: sqlite3 user rows {lines[1]}, csv module {umean}")
        print(f"sqlite3 {name}: avg(NULLIF(ns_median,'')) {float(avg):.6g} over {cnt} of {total} rows "
              f"= the csv module's {mean:.6g}")


# docs/schema.md's per-guard one-liner, word for word but for the file name.
PER_GUARD = ("select host, guard, avg(NULLIF(ns_median,'')), avg(ns_median) from r where suite = 'user' "
             "and scenario = 'pair' and threads = '1' and duty_ns = '0' group by host, guard order by 3")


def report_ranking(path):
    """{(host, guard): ns/pair text} of each "Guards ranked by cost over noop (HOST)" table of rgbench report."""
    p = subprocess.run([REPORT, "report", "--width", "400", path], capture_output=True, text=True)
    check(p.returncode == 0, f"{os.path.basename(path)}: rgbench report exited {p.returncode}: {p.stderr[:300]}")
    got, host = {}, None
    for line in p.stdout.splitlines():
        m = re.match(r"## (?:Guards ranked by cost over noop \((.*)\))?", line)
        if m:
            host = m.group(1)	# None under any other heading
            continue
        # "10  pcpu-llsc-kernel (noisy)     9.74      +9.50  [+9.31, +9.69] 93.8%"
        m = re.match(r"\s*\d+\s+(\S+)(?: \(noisy\))?\s+(\S+)\s", line)
        if host and m:
            got[(host, m.group(1))] = m.group(2)
    return got


def report_fmt(v):
    """The report's ns figure (rp_fmt_ns): 2 decimals under 10, 1 under 100, none from 100."""
    return f"{v:.{2 if abs(v) < 10 else 1 if abs(v) < 100 else 0}f}"


if sqlite is not None:
    for path in FILES:
        name = os.path.basename(path)
        p = subprocess.run([sqlite, ":memory:", "-cmd", f".import --csv {path} r", PER_GUARD],
                           capture_output=True, text=True)
        if not check(p.returncode == 0 and not p.stderr, f"{name}: sqlite3 exited {p.returncode}: {p.stderr}"):
            continue
        sql = {}
        for line in p.stdout.splitlines():
            host, guard, avg, plain = line.split("|")
            sql[(host, guard)] = (avg, plain)
        ranked = report_ranking(path)
        check(ranked, f"{name}: no 'Guards ranked by cost over noop' table in rgbench report's output")
        for key, shown in ranked.items():
            avg = sql.get(key, ("", ""))[0]
            check(avg != "" and report_fmt(float(avg)) == shown,
                  f"{name}: {key}: sqlite3 avg(NULLIF(ns_median,'')) {avg!r}, rgbench report shows {shown}")
        # a guard the run did not measure: NULL with NULLIF (the report does not rank it), 0 without
        for key, (avg, plain) in sql.items():
            check(key in ranked or avg == "", f"{name}: {key}: sqlite3 gives {avg!r}, the report does not rank it")
        unmeasured = [k for k, (avg, plain) in sql.items() if avg == ""]
        check(all(float(sql[k][1]) == 0 for k in unmeasured), f"{name}: avg(ns_median) of {unmeasured}")
        print(f"sqlite3 {name}: the per-guard avg(NULLIF(ns_median,'')) of {len(ranked)} guards = rgbench "
              f"report's ranking figures; {len(unmeasured)} unmeasured guard(s) NULL (0 without NULLIF)")

if not ran:
    sys.exit(77)
if fails:
    print(f"dbimport: {len(fails)} failure(s)")
    sys.exit(1)
print(f"dbimport: {len(FILES)} file(s) read right by {' and '.join(ran)}")
