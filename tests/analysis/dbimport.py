#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A schema 6 CSV as databases read it: pandas types every numeric column as numbers, sqlite3's .import averages ns_median right.

  dbimport.py SRC_DIR CSV...

For each CSV (written by rgbench's own writer: the fixtures of mkfixtures.c), with Debian's
python3-pandas: pandas.read_csv() gives every column of kind I, U, B or D in
schema/include/rg/schema.h an int64 or float64 dtype, never object, and a missing number reads
as NaN. With sqlite3: `.import --csv` then `avg(NULLIF(ns_median,''))` over the file's rows
(and over its user rows) equals the mean that python's csv module computes over the non-empty
values. Either part is skipped, saying why, when its program is absent; exit 77 when both are.
"""
import csv
import math
import os
import re
import shutil
import subprocess
import sys

SRC, FILES = sys.argv[1], sys.argv[2:]
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

if not ran:
    sys.exit(77)
if fails:
    print(f"dbimport: {len(fails)} failure(s)")
    sys.exit(1)
print(f"dbimport: {len(FILES)} file(s) read right by {' and '.join(ran)}")
