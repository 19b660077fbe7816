#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The latency scenario: ordered percentiles, a histogram whose counts are the batches,
the counter's rate, resolution and overhead in the JSON, and a skipped row with the reason
when the counter is unusable (forced with RG_TEST_LATENCY_UNUSABLE)."""
import json
import os
import subprocess
import tempfile

import rgtest

C = rgtest.Checker("latency")
check = C.check


def run(a, d, env_extra, stem):
    env = dict(os.environ, **env_extra)
    csv_path, js = os.path.join(d, stem + ".csv"), os.path.join(d, stem + ".json")
    r = subprocess.run(rgtest.command(a, "--scenarios", "latency", "--guards", "tls", "--runs", "1", "--repetitions", "1",
                                      "--out", csv_path, "--json", js),
                       capture_output=True, text=True, env=env, timeout=300)
    return r, csv_path, js


def main():
    a = rgtest.args()
    with tempfile.TemporaryDirectory() as d:
        r, csv_path, js = run(a, d, {}, "lat")
        check(r.returncode == 0, f"latency run exit {r.returncode}: {r.stderr.strip()}")
        if r.returncode:
            return 1
        check("latency timer:" in r.stderr and "overhead" in r.stderr and "resolution" in r.stderr,
              "the timer's resolution and overhead are printed")
        doc = json.load(open(js))
        t = doc.get("timer")
        check(isinstance(t, dict) and t["hz"] > 1e6 and t["overhead_ns"] >= 0 and t["resolution_ns"] > 0,
              f"JSON 'timer' with hz, resolution_ns, overhead_ns: {t}")
        rows = [x for x in doc["results"] if x["scenario"] == "latency"]
        check(sorted(x["guard"] for x in rows) == ["noop", "tls"], f"latency rows: {[x['guard'] for x in rows]}")
        _, crows = rgtest.read_csv(csv_path)
        clat = {x["guard"]: x for x in crows if x["scenario"] == "latency"}
        for x in rows:
            g = x["guard"]
            check(x["status"] == "ok", f"{g}: status {x['status']} ({x['reason']})")
            if x["status"] != "ok":
                continue
            p = [x["lat_p50_ns"], x["lat_p90_ns"], x["lat_p99_ns"], x["lat_p999_ns"], x["lat_max_ns"]]
            check(all(v is not None for v in p) and p == sorted(p),
                  f"{g}: p50 <= p90 <= p99 <= p99.9 <= max: {p}")
            check(x["ns_median"] == x["lat_p50_ns"], f"{g}: ns_median is the p50")
            nb = x["repetitions"]
            check(nb == 20000, f"{g}: 1 repetition: 20000 batches, got {nb}")
            check(16 <= x["batch"] <= 65536 and x["batch"] & (x["batch"] - 1) == 0,
                  f"{g}: batch a power of two from 16: {x['batch']}")
            check(x["ops"] == nb * x["batch"], f"{g}: ops = batches x batch")
            h = x.get("lat_hist")
            check(isinstance(h, list) and h and sum(b[2] for b in h) == nb,
                  f"{g}: histogram counts sum to the {nb} batches: {h and sum(b[2] for b in h)}")
            if h:
                los = [b[0] for b in h]
                check(los == sorted(los) and all(b[1] is None or b[1] > b[0] for b in h),
                      f"{g}: bins ascending, lo < hi")
                # the percentiles fall in bins that hold batches
                check(any(b[0] <= x["lat_max_ns"] and (b[1] is None or x["lat_max_ns"] < b[1]) for b in h),
                      f"{g}: max {x['lat_max_ns']} in a non-empty bin")
            check(g in clat and clat[g]["lat_p50_ns"] not in ("", "n/a"), f"{g}: CSV has lat_p50_ns")
            check("latency scenario" in x["counters"], f"{g}: counters says why not counted: {x['counters']}")

        r, csv_path, js = run(a, d, {"RG_TEST_LATENCY_UNUSABLE": "rdtsc not invariant (test)"}, "skip")
        check(r.returncode == 0, f"forced-unusable run exit {r.returncode}: {r.stderr.strip()}")
        if r.returncode == 0:
            doc = json.load(open(js))
            rows = [x for x in doc["results"] if x["scenario"] == "latency"]
            check(len(rows) == 2 and all(x["status"] == "skipped" for x in rows),
                  f"unusable counter: every latency row skipped: {[(x['guard'], x['status']) for x in rows]}")
            check(all("rdtsc not invariant (test)" in x["reason"] for x in rows),
                  f"the reason says why: {[x['reason'] for x in rows]}")
            check(all(x["lat_p50_ns"] is None and "lat_hist" not in x for x in rows),
                  "skipped rows carry no percentiles and no histogram")
            check("timer" not in doc, "no timer block when the counter was not used")


if __name__ == "__main__":
    C.finish(main())
