#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Streams (issue 39): stdout carries only what was asked for (--out -: the CSV, alone; the
reader parses it with exactly the run's rows), progress and the 'wrote' lines go to stderr,
-q keeps the 'wrote' lines and -qq/--silent drops them, report/compare read - as stdin, and a
bad use of - is one line with the documented exit code."""
import csv
import io
import json
import os
import re
import shlex
import subprocess

import rgtest

C = rgtest.Checker("bench.streams")
check = C.check
SMALL = ["--guards", "tls", "--scenarios", "pair", "--no-bpf", "--runs", "1", "--repetitions", "2",
         "--min-time", "0.002"]
# A row's progress line: "[  2/3] user/pair/tls/t1 ... (1 s, ~0 s left)".
PROGRESS = re.compile(r"^\[ *(\d+)/(\d+)\] (\S+) .* \((\d+ s|\d+m\d\ds), ~(\d+ s|\d+m\d\ds) left\)$")


def parse_csv(text):
    rd = csv.reader(io.StringIO(text, newline=""))
    header = next(rd, [])
    return header, [dict(zip(header, r)) for r in rd if len(r) == len(header)], text.count("\n")


def main():
    a = rgtest.args()
    if a.emulator:
        # A whole --quick run under qemu-user takes many minutes, and its rows are emulated
        # (refused by report): the streams are the same code, tested by the native build.
        print("SKIP: bench.streams runs natively only")
        return 77
    columns = rgtest.schema_columns(a.source)[1]
    sh = " ".join(shlex.quote(x) for x in rgtest.command(a))
    d = rgtest.mkdtemp(prefix="rgbench-streams-")
    js = os.path.join(d, "r.json")

    # 1. The pipeline, as a shell runs it: --out - | report -; the run's JSON beside (a
    #    file), its stdout kept by tee, its stderr in a file.
    #    Two designs over pair and duty with two rounds: the streams are the same code in a
    #    whole --quick run, which took 160 s of the suite's time here.
    small = "--guards tls,pcpu-xadd --scenarios pair,duty --no-bpf --runs 1 --repetitions 2 --min-time 0.002"
    cmd = (f"{sh} {small} --out - --json {shlex.quote(js)} 2>run.err | tee run.csv | "
           f"{sh} report - >report.md 2>report.err; echo \"${{PIPESTATUS[0]}} ${{PIPESTATUS[2]}}\"")
    r = subprocess.run(["bash", "-c", cmd], cwd=d, capture_output=True, text=True, timeout=1200)
    codes = r.stdout.split()
    check(codes == ["0", "0"], f"--out - | report -: exits {codes} ({rgtest.read_text(os.path.join(d, 'run.err'))[-400:]!r}"
          f" {rgtest.read_text(os.path.join(d, 'report.err'))!r})")
    out = rgtest.read_text(os.path.join(d, "run.csv"))
    err = rgtest.EMULATED_WARNING.sub("", rgtest.read_text(os.path.join(d, "run.err")))
    header, rows, nlines = parse_csv(out)
    check(header == columns, f"stdout starts with the schema's header: {header[:4]}")
    check(nlines == len(rows) + 1 and rows, f"stdout is the CSV and nothing else: {nlines} lines, {len(rows)} rows")
    doc = rgtest.read_json(js) if os.path.exists(js) else {"results": []}
    jrows = doc["results"]
    check([(x["guard"], x["scenario"], x["threads"]) for x in rows] ==
          [(x["guard"], x["scenario"], str(x["threads"])) for x in jrows] and
          all(x["run_id"] == doc.get("run_id") for x in rows),
          f"stdout holds exactly the run's rows ({len(rows)} CSV, {len(jrows)} in its JSON)")
    prog = [m for m in map(PROGRESS.match, err.splitlines()) if m]
    measured = [x for x in rows if x["status"] != "skipped"]
    check(len(prog) == len(measured) > 0,
          f"stderr: one progress line per measured row, with the time and what is left "
          f"({len(prog)} for {len(measured)})")
    check([int(m[1]) for m in prog] == list(range(1, len(prog) + 1)), "progress lines count the rows in order")
    check(err.rstrip("\n").endswith(f"rgbench: wrote {len(rows)} rows to standard output\n"
                                    f"rgbench: wrote {js}".rstrip("\n")),
          f"stderr ends with the files written: {err[-200:]!r}")
    rep = rgtest.read_text(os.path.join(d, "report.md"))
    check(rep.startswith("# rgbench report") and rgtest.read_text(os.path.join(d, "report.err")) == "",
          f"report - read the run from stdin: {rep[:80]!r}")
    # The same rows through a file give the same report.
    r = rgtest.run(a, "report", "run.csv", cwd=d)
    check(r.returncode == 0 and r.stdout.replace("file run.csv:", "file -:") == rep,
          "report - == report FILE of the same bytes (but for the name)")

    # 2. --json -: the JSON alone on stdout (the CSV a file); -q: only the 'wrote' lines on stderr.
    r = rgtest.run(a, *SMALL, "-q", "--out", "s.csv", "--json", "-", cwd=d, timeout=300)
    try:
        sdoc = json.loads(r.stdout)
    except ValueError:
        sdoc = {}
    check(r.returncode == 0 and len(sdoc.get("results", [])) == len(rgtest.read_csv(os.path.join(d, "s.csv"))[1]) > 0,
          f"--json -: the JSON on stdout, the CSV's rows: exit {r.returncode} {r.stdout[:100]!r}")
    check(r.stderr == "rgbench: wrote 2 rows to s.csv\nrgbench: wrote the JSON to standard output\n" or
          re.fullmatch(r"rgbench: wrote \d+ rows to s\.csv\nrgbench: wrote the JSON to standard output\n", r.stderr),
          f"-q: stderr is the lines naming what was written: {r.stderr!r}")
    # -qq and --silent: nothing on stderr; stdout still the data.
    for q in (["-qq"], ["--silent"], ["--quiet", "--quiet"]):
        r = rgtest.run(a, *SMALL, *q, "--out", "-", cwd=d, timeout=300)
        h, rr, n = parse_csv(r.stdout)
        check(r.returncode == 0 and r.stderr == "" and h == columns and n == len(rr) + 1,
              f"{q}: exit {r.returncode}, stderr {r.stderr!r}, {n} lines on stdout")
    # Without -: stdout is empty, the file line names the default file on stderr under -q.
    r = rgtest.run(a, *SMALL, "-q", cwd=d, timeout=300)
    m = re.fullmatch(r"rgbench: wrote \d+ rows to (results/\S+\.csv)\nrgbench: wrote (results/\S+\.json)\n", r.stderr)
    check(r.returncode == 0 and r.stdout == "" and m and os.path.exists(os.path.join(d, m[1])) and
          os.path.exists(os.path.join(d, m[2])), f"-q, default names on stderr: {r.stdout!r} {r.stderr!r}")

    # 3. Bad uses of -: one line, exit 2, nothing on stdout, nothing written.
    bad = rgtest.mkdtemp(prefix="rgbench-streams-bad-")
    for argv, want in (([*SMALL, "--out", "-", "--json", "-"], "-: two outputs to standard output"),
                       ([*SMALL, "--json", "-", "--benchmark_out=-"], "-: two outputs to standard output"),
                       ([*SMALL, "--out", "-", "--json"], "--json alone writes the JSON beside the CSV"),
                       ([*SMALL, "--out", "-", "--benchmark_format=json"], "--benchmark_format prints")):
        r = rgtest.run(a, *argv, cwd=bad, timeout=120)
        check(r.returncode == 2 and r.stdout == "" and len(r.stderr.splitlines()) == 1 and
              r.stderr.startswith("rgbench: ") and want in r.stderr and os.listdir(bad) == [],
              f"{argv[-3:]}: exit {r.returncode} {r.stderr!r} {os.listdir(bad)}")
    # The readers: - twice is one line, exit 1; nothing on stdout.
    csvp = os.path.join(d, "run.csv")
    with open(csvp) as f:
        r = subprocess.run(rgtest.command(a, "compare", "-", "-"), stdin=f, capture_output=True, text=True,
                           timeout=120)
    check(r.returncode == 1 and r.stdout == "" and
          r.stderr == "rgbench compare: -: standard input is read once: give - only once\n",
          f"compare - -: exit {r.returncode} {r.stderr!r}")
    with open(csvp) as f:
        r = subprocess.run(rgtest.command(a, "compare", "-", csvp), stdin=f, capture_output=True, text=True,
                           timeout=120)
    check(r.returncode == 0 and r.stdout and r.stderr == "", f"compare - FILE: exit {r.returncode} {r.stderr!r}")
    r = subprocess.run(rgtest.command(a, "report", "-"), stdin=subprocess.DEVNULL, capture_output=True,
                       text=True, timeout=120)
    check(r.returncode == 1 and r.stdout == "" and len(r.stderr.splitlines()) == 1 and "empty file" in r.stderr,
          f"report - of nothing: exit {r.returncode} {r.stderr!r}")

    # 4. kmod --from-raw: the table is the result on stdout, or on stderr when --out - takes stdout.
    raw = os.path.join(a.source, "tests", "kmod", "data", "raw_v3.csv")
    r = rgtest.run(a, "kmod", "--from-raw", raw, "--out", "k.csv", cwd=d, timeout=120)
    if "kmod (not built)" not in rgtest.run(a, "--list").stdout and r.returncode != 77:
        check(r.returncode == 0 and r.stdout.startswith("guard ") and
              r.stderr.endswith("rows to k.csv\n"), f"kmod --from-raw: table on stdout: {r.returncode} {r.stderr!r}")
        r2 = rgtest.run(a, "kmod", "--from-raw", raw, "--out", "-", cwd=d, timeout=120)
        h, rr, n = parse_csv(r2.stdout)
        check(r2.returncode == 0 and h == columns and n == len(rr) + 1 and
              len(rr) == len(rgtest.read_csv(os.path.join(d, "k.csv"))[1]) and
              r2.stderr.startswith("guard ") and r2.stderr.endswith("rows to standard output\n"),
              f"kmod --from-raw --out -: CSV alone on stdout, table on stderr: {r2.returncode} {r2.stderr[-200:]!r}")
        r3 = rgtest.run(a, "kmod", "--from-raw", raw, "-qq", "--out", "-", cwd=d, timeout=120)
        check(r3.returncode == 0 and r3.stderr == "" and len(parse_csv(r3.stdout)[1]) == len(rr) > 0,
              f"kmod -qq --out -: the CSV, nothing on stderr: {r3.stderr!r}")
    return 0


if __name__ == "__main__":
    C.finish(main())
