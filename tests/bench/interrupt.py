# SPDX-License-Identifier: MIT
"""Interrupted runs: SIGINT/SIGTERM/SIGHUP/SIGQUIT mid-run stop cleanly, leave the old results
(--benchmark_out's too) untouched, no temp or lock files, and no results/ a first run made; a
closed progress pipe does not stop a run."""
import os
import signal
import subprocess
import time

import rgtest

a = rgtest.args()
c = rgtest.Checker("bench.interrupt")
ncpus = min(2, len(os.sched_getaffinity(0)))

for sig, scenarios in ((signal.SIGINT, "threads"), (signal.SIGTERM, "pair,duty,nested"),
                       (signal.SIGHUP, "pair"), (signal.SIGQUIT, "pair")):
    tmp = rgtest.mkdtemp(prefix="rgbench-int-")
    out_csv, out_json = os.path.join(tmp, "r.csv"), os.path.join(tmp, "r.json")
    gb_out = os.path.join(tmp, "gb.json")
    for p in (out_csv, out_json, gb_out):
        with open(p, "w") as f:
            f.write("OLD\n")
    # Long enough that the signal lands mid-run: 50 repetitions of 50 ms per benchmark.
    cmd = rgtest.command(a, "--scenarios", scenarios, "--min-time", "0.05", "--repetitions", "50",
                         "--threads", str(ncpus), "--out", out_csv, "--json", out_json,
                         "--benchmark_out=" + gb_out)
    p = subprocess.Popen(cmd, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # Wait for the first benchmark to start (the header line, on stderr, precedes it), then signal.
    first = p.stderr.readline()
    c.check(first.startswith("rgbench "), f"{sig.name}: first line {first!r}")
    time.sleep(0.3)
    p.send_signal(sig)
    try:
        out, err = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        c.check(False, f"{sig.name}: rgbench did not stop within 120 s")
    c.check(p.returncode == 128 + sig.value,
            f"{sig.name}: exit {p.returncode}, expected {128 + sig.value} (stderr {err!r})")
    c.check(f"interrupted by {sig.name}; no results written" in err, f"{sig.name}: stderr {err!r}")
    for path in (out_csv, out_json, gb_out):
        c.check(open(path).read() == "OLD\n", f"{sig.name}: {path} changed")
    c.check(sorted(os.listdir(tmp)) == ["gb.json", "r.csv", "r.json"],
            f"{sig.name}: left {os.listdir(tmp)}")


def start(tmp, *extra):
    cmd = rgtest.command(a, "--scenarios", "pair", "--guards", "tls", "--min-time", "0.05",
                         "--repetitions", "20", *extra)
    return subprocess.Popen(cmd, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


# An interrupted first run in a fresh directory leaves no empty results/ behind.
tmp = rgtest.mkdtemp(prefix="rgbench-int-")
p = start(tmp)
first = p.stderr.readline()
time.sleep(0.3)
p.send_signal(signal.SIGINT)
out, err = p.communicate(timeout=120)
c.check(p.returncode == 130 and os.listdir(tmp) == [],
        f"first run: exit {p.returncode}, left {os.listdir(tmp)} ({err!r})")

# rgbench ... 2>&1 | head -1: the progress pipe (stderr) closes after one line; the run still
# writes its results, and its stdout (the data's, empty here) has nothing to report.
tmp = rgtest.mkdtemp(prefix="rgbench-int-")
out_csv = os.path.join(tmp, "r.csv")
# One repetition (its 6 runs a second or more per benchmark here): the pipe closes long before
# the second progress line. (Three took 3 times as long and proved nothing more.)
p = start(tmp, "--out", out_csv, "--benchmark_min_time=0.001", "--repetitions", "1")
first = p.stderr.readline()
p.stderr.close()
try:
    p.wait(timeout=300)
    out = p.stdout.read()
except subprocess.TimeoutExpired:
    p.kill()
    out = None
c.check(p.returncode == 0 and first.startswith("rgbench ") and out == "",
        f"2>&1 | head -1: exit {p.returncode}, stdout {out!r}")
rows = rgtest.read_csv(out_csv)[1] if os.path.exists(out_csv) else []
c.check(len(rows) >= 2, f"| head -1: {len(rows)} rows written")
c.check(sorted(os.listdir(tmp)) == ["r.csv"], f"| head -1: left {os.listdir(tmp)}")
c.finish()
