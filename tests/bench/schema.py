# SPDX-License-Identifier: MIT
"""Schema: the columns may only change together with RG_SCHEMA_VERSION; the writers emit exactly them."""
import os

import rgtest

# One entry per schema version: add a new list when bumping the version.
EXPECTED = {
    1: ["schema_version", "rgbench_version", "timestamp", "host", "arch", "cpu_vendor",
        "cpu_model", "cpu_part", "kernel", "lse", "rseq", "preempt", "pinning", "cpus",
        "suite", "guard", "scenario", "threads", "batch", "duty_ns", "repetitions",
        "ns_median", "ns_mean", "ns_stddev", "ns_min", "ns_max", "ns_cv", "mops_median",
        "mops_mean", "mops_stddev", "mops_per_thread", "cycles_per_pair",
        "instructions_per_pair", "counters", "refusals", "ops", "status", "reason"],
    2: ["schema_version", "rgbench_version", "timestamp", "host", "arch", "cpu_vendor",
        "cpu_model", "cpu_part", "kernel", "lse", "rseq", "preempt", "pinning", "cpus",
        "suite", "guard", "scenario", "threads", "batch", "duty_ns", "repetitions",
        "ns_median", "ns_mean", "ns_stddev", "ns_min", "ns_max", "ns_cv", "mops_median",
        "mops_mean", "mops_stddev", "mops_per_thread", "cycles_per_pair",
        "instructions_per_pair", "events", "counters", "refusals", "ops", "status", "reason"],
    3: ["schema_version", "rgbench_version", "run_id", "timestamp", "host", "arch", "cpu_vendor",
        "cpu_model", "cpu_part", "kernel", "virt", "lse", "rseq", "preempt", "pinning", "cpus",
        "suite", "guard", "role", "scenario", "threads", "batch", "duty_ns", "repetitions",
        "ns_median", "ns_mean", "ns_stddev", "ns_min", "ns_max", "ns_cv", "baseline",
        "interleave", "delta_ns", "delta_ci_lo", "delta_ci_hi", "cpu_ns_median",
        "wall_ns_median", "discarded", "lat_p50_ns", "lat_p90_ns", "lat_p99_ns", "lat_p999_ns",
        "lat_max_ns", "mops_median", "mops_mean", "mops_stddev", "mops_per_thread",
        "cycles_per_pair", "instructions_per_pair", "events", "counters", "refusals", "ops",
        "status", "reason"],
    4: ["schema_version", "rgbench_version", "run_id", "timestamp", "host", "arch", "cpu_vendor",
        "cpu_model", "cpu_part", "kernel", "virt", "lse", "rseq", "preempt", "pinning", "cpus",
        "suite", "guard", "role", "scenario", "threads", "batch", "duty_ns", "duty_in_ns",
        "repetitions", "ns_median", "ns_mean", "ns_stddev", "ns_min", "ns_max", "ns_cv", "baseline",
        "interleave", "delta_ns", "delta_ci_lo", "delta_ci_hi", "delta_ci_level", "cpu_ns_median",
        "wall_ns_median", "discarded", "lat_p50_ns", "lat_p90_ns", "lat_p99_ns", "lat_p999_ns",
        "lat_max_ns", "mops_median", "mops_mean", "mops_stddev", "mops_per_thread",
        "cycles_per_pair", "instructions_per_pair", "ref_ns_per_cycle", "ref_cv",
        "ref_cycles_per_pair", "events", "counters", "refusals", "ops", "status", "reason"],
}
# Version 5: runs after repetitions, aa_floor_ns and layout after delta_ci_level (runs),
# pmu_table after events, prog_runs after ops.
EXPECTED[5] = [x for c in EXPECTED[4] for x in ([c, "runs"] if c == "repetitions" else
                                                [c, "aa_floor_ns", "layout"] if c == "delta_ci_level" else
                                                [c, "pmu_table"] if c == "events" else
                                                [c, "prog_runs"] if c == "ops" else [c])]
# Version 6: ab_label and ab_boot after run_id, cpus_why after cpus, unit before ns_median.
EXPECTED[6] = [x for c in EXPECTED[5] for x in ([c, "ab_label", "ab_boot"] if c == "run_id" else
                                                [c, "cpus_why"] if c == "cpus" else
                                                ["unit", c] if c == "ns_median" else [c])]

a = rgtest.args()
c = rgtest.Checker("bench.schema")
version, columns = rgtest.schema_columns(a.source)
if not c.check(version in EXPECTED,
               f"RG_SCHEMA_VERSION {version} has no expected column list in tests/bench/schema.py"):
    c.finish()
c.check(columns == EXPECTED[version],
        f"result.h columns changed without a schema version bump (still {version}):\n"
        f"  added   {[x for x in columns if x not in EXPECTED[version]]}\n"
        f"  removed {[x for x in EXPECTED[version] if x not in columns]}")

tmp = rgtest.mkdtemp(prefix="rgbench-schema-")
out_csv, out_json = os.path.join(tmp, "x.csv"), os.path.join(tmp, "x.json")
r = rgtest.run(a, "--guards", "noop", "--scenarios", "pair", "--duration", "1ms",
               "--repetitions", "1", "-qq", "--out", out_csv, "--json", out_json, cwd=tmp)
c.check(r.returncode == 0, f"rgbench exited {r.returncode}: {r.stderr}")
if r.returncode == 0:
    header, rows = rgtest.read_csv(out_csv)
    c.check(header == EXPECTED[version], f"CSV header {header}")
    c.check(all(int(x["schema_version"]) == version for x in rows), "schema_version column")
    doc = rgtest.read_json(out_json)
    c.check(doc["schema_version"] == version, "JSON schema_version")
    c.check(doc.get("run_id") and all(x["run_id"] == doc["run_id"] for x in rows),
            f"run id: JSON {doc.get('run_id')!r}, CSV {[x['run_id'] for x in rows]}")
    for k in ("host", "arch", "cpu_vendor", "cpu_model", "cpu_part", "kernel", "virt", "lse",
              "rseq", "preempt", "ncpus_online"):
        c.check(k in doc["machine"], f"JSON machine lacks {k}")
    for row in doc["results"]:
        c.check(list(row)[:len(columns)] == EXPECTED[version], f"JSON row keys {list(row)}")
    # noop (C binding) and the native C++ noop: the two rows the overhead claim compares.
    c.check([(x["guard"], x["scenario"]) for x in rows] ==
            [("noop", "pair-native-cxx"), ("noop", "pair")], f"rows {rows}")
c.finish()
