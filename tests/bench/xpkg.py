#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The cross-package rows: none on a one-package machine (then the run writes nothing, keeps the
files it would have replaced and exits 77: a command that produces nothing replaces nothing); with RG_TEST_XPKG=1 (another core
and any NUMA node stand in for another package) the mechanics: rows, threads, CPUs, samples, the
remote row's paired difference against the local one."""
import json
import os
import subprocess
import tempfile

import rgtest

C = rgtest.Checker("xpkg")
check = C.check


def main():
    a = rgtest.args()
    with tempfile.TemporaryDirectory() as d:
        js = os.path.join(d, "x.json")
        base = ["--scenarios", "xpkg", "--guards", "racy-percpu", "--runs", "1", "--repetitions", "3",
                "--min-time", "0.002", "--out", os.path.join(d, "x.csv"), "--json", js]
        env = {k: v for k, v in os.environ.items() if k != "RG_TEST_XPKG"}
        # A previous run's files: a run that selects nothing must leave them as they are.
        old = {p: f"OLD {p}\n" for p in (os.path.join(d, "x.csv"), js)}
        for p, text in old.items():
            with open(p, "w") as f:
                f.write(text)
        r = subprocess.run(rgtest.command(a, *base), capture_output=True, text=True, env=env, timeout=300)
        ncpu = len(os.sched_getaffinity(0))
        lst = rgtest.run(a, "--list").stdout
        one_pkg = "1 package(s)" in lst
        if one_pkg:
            err = [ln for ln in r.stderr.splitlines() if ln.startswith("rgbench: nothing")]
            check(r.returncode == 77 and err == [
                "rgbench: nothing to measure here: the selection has no benchmark this machine can "
                f"run; no results written ({os.path.join(d, 'x.csv')} left as it was)"],
                f"one package: nothing selected, exit 77 and one line: exit {r.returncode} {r.stderr.strip()}")
            for p, text in old.items():
                check(open(p).read() == text, f"one package: {p} replaced by a run that measured nothing")
            check(sorted(os.listdir(d)) == ["x.csv", "x.json"], f"one package: files left {os.listdir(d)}")
        else:
            check(r.returncode == 0, f"xpkg run: exit {r.returncode} {r.stderr.strip()}")
        if ncpu < 2:
            print("xpkg: one CPU, mechanics not tested")
            return 77
        r = subprocess.run(rgtest.command(a, *base), capture_output=True, text=True,
                           env=dict(env, RG_TEST_XPKG="1"), timeout=300)
        check(r.returncode == 0, f"xpkg test run: exit {r.returncode} {r.stderr.strip()}")
        if r.returncode == 0:
            rows = {x["scenario"]: x for x in json.load(open(js))["results"]}
            check(sorted(rows) == ["falseshare-xpkg-packed", "falseshare-xpkg-padded", "local-slots", "remote-slots"],
                  f"four rows: {sorted(rows)}")
            loc, rem = rows.get("local-slots"), rows.get("remote-slots")
            if loc and rem:
                if rem["status"] in ("ok", "noisy"):
                    check(loc["status"] in ("ok", "noisy") and loc["threads"] == 1 and len(loc["samples_ns"]) == 3,
                          f"local-slots: ok, 1 thread, 3 samples: {loc['status']} {loc['reason']}")
                    check(rem["baseline"] == "local-slots" and rem["interleave"] == "rounds" and
                          rem["delta_ns"] is not None and len(rem["samples_ns"]) == 3,
                          f"remote-slots: paired against local-slots: {rem['baseline']} {rem['delta_ns']}")
                else:
                    check(bool(a.emulator.strip()) and "cannot bind memory" in rem["reason"] and
                          loc["status"] == "skipped" and loc["reason"] == rem["reason"],
                          f"slots rows skipped (both, same reason) only under an emulator without mbind: {rem['reason']}")
            for sc in ("falseshare-xpkg-packed", "falseshare-xpkg-padded"):
                x = rows.get(sc)
                if not x:
                    continue
                cpus = x["cpus"].split(",")
                check(x["status"] in ("ok", "noisy") and x["threads"] == 2 and len(cpus) == 2 and cpus[0] != cpus[1],
                      f"{sc}: ok on two different CPUs: {x['status']} {x['cpus']} {x['reason']}")
                check(x["ops"] > 0 and x["refusals"] == 0 and len(x["samples_ns"]) == 3,
                      f"{sc}: pairs counted, no refusal on per-CPU slots, 3 samples")


if __name__ == "__main__":
    C.finish(main())
