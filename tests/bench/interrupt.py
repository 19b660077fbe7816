# SPDX-License-Identifier: MIT
"""Interrupted runs: SIGINT/SIGTERM mid-run stop cleanly, leave the old result untouched and no temp files."""
import os
import signal
import subprocess
import time

import rgtest

a = rgtest.args()
c = rgtest.Checker("bench.interrupt")
ncpus = min(2, len(os.sched_getaffinity(0)))

for sig, scenarios in ((signal.SIGINT, "threads"), (signal.SIGTERM, "pair,duty,nested")):
    tmp = rgtest.mkdtemp(prefix="rgbench-int-")
    out_csv, out_json = os.path.join(tmp, "r.csv"), os.path.join(tmp, "r.json")
    for p in (out_csv, out_json):
        with open(p, "w") as f:
            f.write("OLD\n")
    # Long enough that the signal lands mid-run: 50 repetitions of 50 ms per benchmark.
    cmd = rgtest.command(a, "--scenarios", scenarios, "--min-time", "0.05", "--repetitions", "50",
                         "--threads", str(ncpus), "--out", out_csv, "--json", out_json)
    p = subprocess.Popen(cmd, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # Wait for the first benchmark to start (the header line precedes it), then signal.
    first = p.stdout.readline()
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
    for path in (out_csv, out_json):
        c.check(open(path).read() == "OLD\n", f"{sig.name}: {path} changed")
    c.check(sorted(os.listdir(tmp)) == ["r.csv", "r.json"], f"{sig.name}: left {os.listdir(tmp)}")
c.done()
