# SPDX-License-Identifier: MIT
"""Smoke: every scenario for every available guard runs briefly; CSV and JSON parse back with sane values and consistent rounds, CPU/wall times and paired deltas."""
import math
import os
import re
import statistics

import rgtest

a = rgtest.args()
c = rgtest.Checker("bench.smoke")
version, columns = rgtest.schema_columns(a.source)
defs = rgtest.guards_def(a.guards_def)
listed = rgtest.listed_guards(a)
c.check([n for n, _ in defs] == list(listed), f"--list guards {list(listed)} != guards.def")
no_protection = {n for n, needs in defs if "RG_NO_PROTECTION" in needs}
per_cpu = {n for n, needs in defs if "RG_NEEDS_PIN" in needs}
# guards.def's scope column: one counter for the whole process (global-atomic, ref-lock-xadd, ...)
global_scope = {n for n, scope in re.findall(r'RG_GUARD\(\s*\w+\s*,\s*"([^"]+)"(?:(?!RG_GUARD\().)*?'
                                            r'RG_SCOPE_(\w+)', open(a.guards_def).read(), re.S)
                if scope == "GLOBAL"}

allowed = sorted(os.sched_getaffinity(0))
cpus = allowed[:2]
N = len(cpus)
thread_counts = sorted({1, N})
REPS, BATCH, DUTY = 2, 512, [0, 20]

tmp = rgtest.mkdtemp(prefix="rgbench-smoke-")
csv_path, json_path = os.path.join(tmp, "s.csv"), os.path.join(tmp, "s.json")
# One process (--runs 1): the rounds are the samples; bench.runs tests the runs.
r = rgtest.run(a, "--scenarios", "pair,duty,nested,threads,falseshare", "--guards", "all", "--runs", "1",
               "--min-time", "0.001", "--repetitions", str(REPS), "--batch", str(BATCH),
               "--duty", ",".join(map(str, DUTY)), "--threads", ",".join(map(str, thread_counts)),
               "--cpus", ",".join(map(str, cpus)), "--out", csv_path, "--json", json_path,
               cwd=tmp)
c.check(r.returncode == 0, f"rgbench exited {r.returncode}: {r.stderr}")
if r.returncode != 0:
    c.finish()
# Progress: one line per benchmark run.
progress = [l for l in r.stderr.splitlines() if l.startswith("[")]  # progress: stderr
c.check(len(progress) > 0, "no progress lines")

header, rows = rgtest.read_csv(csv_path)
doc = rgtest.read_json(json_path)
c.check(header == columns, f"CSV header {header} != result.h columns")
c.check(doc["schema_version"] == version, "JSON schema_version")
jrows = doc["results"]
c.check(len(jrows) == len(rows), f"JSON has {len(jrows)} rows, CSV {len(rows)}")
c.check(len(progress) == sum(1 for x in rows if x["status"] != "skipped"),
        f"{len(progress)} progress lines for {sum(1 for x in rows if x['status'] != 'skipped')} runs")
machine = doc["machine"]
expect_arch = "aarch64" if "aarch64" in a.emulator else os.uname().machine
c.check(machine["arch"] == expect_arch, f"machine arch {machine['arch']}")
if os.environ.get("RG_EXPECT_LSE") in ("0", "1"):
    c.check(machine["lse"] == int(os.environ["RG_EXPECT_LSE"]), f"lse {machine['lse']}")


def num(s):
    return float("nan") if s == "" else float(s)


# JSON keys beside the columns: per-round samples (CPU ns, Mops/s, wall ns, delta) and work units.
EXTRA_KEYS = {"samples_ns", "samples_mops", "samples_wall_ns", "samples_delta_ns", "work_units"}
# A noisy row's reasons, "; "-separated: disturbed rounds, a moving cycle reference, or too
# little measured work per round (a short --duration on a slow, e.g. emulated, CPU).
_NOISY_ONE = (r"(?:\d+ of \d+ rounds still disturbed after 3 re-runs \(lowest thread CPU/wall "
              r"\d+\.\d\d, up to \d+ involuntary switches\): (?:too few undisturbed rounds to check "
              r"them against|\d+ outside the undisturbed rounds' \d+\.\d{3}-\d+\.\d{3} ns)|"
              r"the cycle reference moved \d+% across the rounds \(more than 10%\)|"
              r"each round measured only \d+ pairs \(\d+ ns\), under the 10 us minimum: raise --duration)")
NOISY = re.compile(_NOISY_ONE + r"(?:; " + _NOISY_ONE + r")*")


seen = {}
for i, (row, jrow) in enumerate(zip(rows, jrows)):
    key = (row["guard"], row["scenario"], int(row["threads"]), int(row["duty_ns"]))
    where = f"row {i} {key}"
    c.check(key not in seen, f"{where}: duplicate")
    seen[key] = row
    for col in columns:
        c.check(col in jrow, f"{where}: JSON lacks {col}")
        # A missing number is an empty CSV field and null in the JSON (schema 6), and only that;
        # cpus_why stays empty until the user suite says why it chose its CPUs; ab_label outside rgbench ab.
        c.check(row[col] != "" or col in ("reason", "cpus_why", "ab_label") or jrow.get(col, 0) is None or
                row["status"] == "skipped" and col == "cpus", f"{where}: empty {col}")
        c.check(jrow.get(col, 0) is not None or row[col] == "",
                f"{where}: {col} null in the JSON, {row[col]!r} in the CSV")
    c.check(set(jrow) == set(columns) | EXTRA_KEYS,
            f"{where}: JSON keys {sorted(set(jrow) - set(columns))}")
    c.check(int(row["schema_version"]) == version and row["suite"] == "user", f"{where}: identity")
    c.check(row["arch"] == expect_arch, f"{where}: arch {row['arch']}")
    for col in ("guard", "scenario", "status", "cpus", "counters", "events"):
        c.check(str(jrow[col]) == row[col], f"{where}: CSV {col}={row[col]} JSON {jrow[col]}")
    if row["status"] == "skipped":
        c.check(row["reason"] != "", f"{where}: skipped without a reason")
        continue
    # noisy: measured, but some round was still disturbed after the re-runs (this
    # machine is shared); the values are there and the reason says so.
    c.check(row["status"] == "ok" or row["status"] == "noisy" and NOISY.fullmatch(row["reason"]),
            f"{where}: status {row['status']} ({row['reason']})")
    if row["status"] not in ("ok", "noisy"):
        continue
    # The cycle reference of the row's rounds: filled, and the row in reference cycles.
    rns, rcv, rcyc = num(row["ref_ns_per_cycle"]), num(row["ref_cv"]), num(row["ref_cycles_per_pair"])
    c.check(rns > 0 and rcv >= 0 and rcyc > 0, f"{where}: ref columns {rns} {rcv} {rcyc}")
    c.check(math.isclose(rcyc * rns, num(row["ns_median"]), rel_tol=1e-4),
            f"{where}: ref_cycles_per_pair {rcyc} x ref_ns_per_cycle {rns} != ns_median {row['ns_median']}")
    g, sc, t = row["guard"], row["scenario"], int(row["threads"])
    ns = [num(row[k]) for k in ("ns_min", "ns_median", "ns_max", "ns_mean")]
    c.check(all(v > 0 for v in ns), f"{where}: ns {ns}")
    c.check(ns[0] <= ns[1] <= ns[2], f"{where}: min/median/max {ns[:3]}")
    c.check(num(row["mops_median"]) > 0, f"{where}: mops")
    c.check(int(row["repetitions"]) == REPS, f"{where}: repetitions {row['repetitions']}")
    c.check(len(jrow["samples_ns"]) == REPS and len(jrow["samples_mops"]) == REPS,
            f"{where}: samples")
    c.check(math.isclose(min(jrow["samples_ns"]), ns[0], rel_tol=1e-5),
            f"{where}: JSON samples vs ns_min")
    c.check(math.isclose(jrow["ns_median"], ns[1], rel_tol=1e-5), f"{where}: JSON ns_median")
    c.check(int(row["batch"]) == (1 if sc == "pair-native-cxx" else BATCH),
            f"{where}: batch {row['batch']}")
    ops = int(row["ops"])
    c.check(ops > 0 and (sc == "pair-native-cxx" or ops % BATCH == 0), f"{where}: ops {ops}")
    want_t = {"threads": None, "falseshare-packed": N, "falseshare-padded": N}.get(sc, 1)
    if want_t is None:
        c.check(t in thread_counts, f"{where}: threads {t} not asked for")
    else:
        c.check(t == want_t, f"{where}: threads {t}, expected {want_t}")
    c.check(row["pinning"] == "hwloc", f"{where}: pinning {row['pinning']}")
    c.check(row["cpus"] == ",".join(map(str, cpus[:t])), f"{where}: cpus {row['cpus']}")
    if row["counters"] == "perf":
        c.check(num(row["cycles_per_pair"]) > 0 and num(row["instructions_per_pair"]) > 0,
                f"{where}: counters perf but no values")
    else:
        c.check(row["counters"].startswith("n/a"), f"{where}: counters {row['counters']}")
        c.check(row["cycles_per_pair"] == "" and jrow["cycles_per_pair"] is None,
                f"{where}: cycles without counters")
    # events: name=value pairs per pair (the PMU offered some), or n/a: why.
    c.check(row["events"].startswith("n/a") or
            re.fullmatch(r"[A-Za-z0-9_.:-]+=\d+\.\d{3}(;[A-Za-z0-9_.:-]+=\d+\.\d{3})*", row["events"]),
            f"{where}: events {row['events']!r}")
    # pmu_table: the table that encoded them, or the events column's reason
    c.check(row["pmu_table"] == row["events"] if row["events"].startswith("n/a") else
            re.fullmatch(r"(libpfm4|sysfs) \S+", row["pmu_table"]) is not None,
            f"{where}: pmu_table {row['pmu_table']!r} with events {row['events']!r}")
    ref = int(row["refusals"])
    if sc == "nested":
        if g == "noop":
            c.check(ref == 0, f"{where}: noop refused {ref}")
        elif g not in no_protection:
            c.check(ref == ops, f"{where}: {ref} refusals for {ops} nested enters")
    elif g not in global_scope or t == 1:
        # One shared counter refuses across threads; everything else never refuses here.
        c.check(ref == 0, f"{where}: {ref} refusals")

# Coverage: every scenario for every guard, in the state --list announced.
for g, why in listed.items():
    want = [("pair", 1, 0), ("nested", 1, 0)] + [("duty", 1, d) for d in DUTY] + \
           [("threads", t, 0) for t in thread_counts] + \
           [("falseshare-packed", N, 0), ("falseshare-padded", N, 0)]
    for sc, t, d in want:
        row = seen.get((g, sc, t, d))
        if not c.check(row is not None, f"no row for {g} {sc} threads={t} duty={d}"):
            continue
        if why is not None:
            c.check(row["status"] == "skipped" and row["reason"] == why,
                    f"{g} {sc}: unavailable guard has status {row['status']} reason {row['reason']!r}")
        elif sc.startswith("falseshare") and (N < 2 or (g not in per_cpu and g != "noop")):
            c.check(row["status"] == "skipped", f"{g} {sc}: should be skipped")
        else:
            c.check(row["status"] in ("ok", "noisy"), f"{g} {sc}: {row['status']} {row['reason']}")

# The timing model, on every measured row: interleaved rounds, CPU time as ns/pair
# with wall time beside it, and the paired difference against the noop of the
# same group (scenario, threads, duty) computed from the same rounds.
def group(j):
    sc = "pair" if j["scenario"] == "pair-native-cxx" else j["scenario"]
    return (sc, j["threads"], j["duty_ns"])


measured = [j for j in jrows if j["status"] in ("ok", "noisy")]
noops = {group(j): j for j in measured if j["guard"] == "noop" and j["scenario"] != "pair-native-cxx"}
rounds = {}
for j in measured:
    where = f"timing {j['guard']} {j['scenario']} t={j['threads']} d={j['duty_ns']}"
    n = j["repetitions"]
    c.check(j["interleave"] == "rounds", f"{where}: interleave {j['interleave']}")
    c.check(len(j["samples_ns"]) == len(j["samples_wall_ns"]) == len(j["samples_delta_ns"]) == n,
            f"{where}: {n} rounds but {len(j['samples_ns'])}/{len(j['samples_wall_ns'])}/"
            f"{len(j['samples_delta_ns'])} samples")
    rounds.setdefault(group(j), set()).add(n)
    c.check(j["cpu_ns_median"] == j["ns_median"], f"{where}: ns_median is not the CPU-time median")
    c.check(j["wall_ns_median"] is not None and j["wall_ns_median"] > 0, f"{where}: wall")
    if j["wall_ns_median"]:
        c.check(math.isclose(j["wall_ns_median"], statistics.median(j["samples_wall_ns"]),
                             rel_tol=1e-5), f"{where}: wall_ns_median is not the samples' median")
    c.check(isinstance(j["discarded"], int) and j["discarded"] >= 0, f"{where}: discarded")
    c.check(j["work_units"] > 0 if j["scenario"] == "duty" and j["duty_ns"] > 0
            else j["work_units"] == 0, f"{where}: work_units {j['work_units']}")
    # The duty split: --duty NS is half inside the guarded region; n/a off duty.
    c.check(j["duty_in_ns"] == (j["duty_ns"] // 2 if j["scenario"] == "duty" else None),
            f"{where}: duty_in_ns {j['duty_in_ns']}")
    base = noops.get(group(j))
    if not c.check(base is not None, f"{where}: no noop row in its group"):
        continue
    c.check(j["baseline"] == "noop", f"{where}: baseline {j['baseline']}")
    lo, d, hi = j["delta_ci_lo"], j["delta_ns"], j["delta_ci_hi"]
    nr = len(j["samples_ns"])
    if nr >= 3:     # RG_CI_MIN_SAMPLES: the order-statistic interval and its exact level
        c.check(None not in (lo, d, hi) and lo <= d <= hi, f"{where}: delta {d} outside [{lo}, {hi}]")
    else:           # 1 or 2 rounds: the median difference, no interval, no level
        c.check(d is not None and lo is None and hi is None and j["delta_ci_level"] is None,
                f"{where}: {nr} rounds: delta {d} [{lo}, {hi}] level {j['delta_ci_level']}")
    for i, (x, b, dd) in enumerate(zip(j["samples_ns"], base["samples_ns"], j["samples_delta_ns"])):
        c.check(math.isclose(dd, x - b, rel_tol=1e-4, abs_tol=1e-5 * max(x, b)),
                f"{where}: round {i}: delta {dd} != {x} - {b}")
    if j is base:
        c.check(d == 0 and (lo, hi) == ((0, 0) if nr >= 3 else (None, None)),
                f"{where}: noop against itself {d} [{lo}, {hi}]")
for g, ns in rounds.items():
    c.check(ns == {REPS}, f"group {g}: round counts {ns}")
print(f"bench.smoke: {len(rows)} rows, {sum(1 for x in rows if x['status'] == 'ok')} ok, "
      f"{sum(1 for x in rows if x['status'] == 'skipped')} skipped; guards {list(listed)}")
c.check(("noop", "pair-native-cxx", 1, 0) in seen, "no native C++ noop row")
c.check(sum(1 for l in r.stdout.splitlines() if "skipping" in l) <=
        sum(1 for w in listed.values() if w) + len(listed), "skip reasons printed more than once")


def counted_run(env, stem, what):
    """tls pair,threads with the counters env sets up: its ok rows ([] when the run failed)."""
    out = os.path.join(tmp, stem + ".csv")
    r = rgtest.subprocess.run(rgtest.command(a, "--guards", "tls", "--scenarios", "pair,threads",
                                             "--min-time", "0.001", "--repetitions", "2",
                                             "--threads", ",".join(map(str, thread_counts)),
                                             "--cpus", ",".join(map(str, cpus)), "-qq",
                                             "--out", out),
                              cwd=tmp, env=env, capture_output=True, text=True, timeout=600)
    if not c.check(r.returncode == 0, f"{what} run: exit {r.returncode} {r.stderr}"):
        return []
    ok = [x for x in rgtest.read_csv(out)[1] if x["status"] in ("ok", "noisy")]
    c.check(len(ok) == 3 + 2 * len(thread_counts), f"{len(ok)} ok rows with {what}")
    return ok


# The counter path (open, enable, read, sum over threads) with software events,
# which work without a PMU: natively as root or with perf_event_paranoid <= 2.
try:
    paranoid = int(open("/proc/sys/kernel/perf_event_paranoid").read())
except OSError:
    paranoid = 3
# Under qemu-user there is no perf_event_open: through the emulator prefix (cross build),
# or natively inside an emulated arm64 system (tests/arm64: its cpuinfo is the host's).
emulated = bool(a.emulator) or (os.uname().machine == "aarch64" and
                                "CPU implementer" not in open("/proc/cpuinfo").read())
expect_sw = not emulated and (os.geteuid() == 0 or paranoid <= 2)
for x in counted_run(dict(os.environ, RG_TEST_COUNTERS_SOFTWARE="1"), "sw", "software counters"):
    where = f"software counters {x['guard']} {x['scenario']} t={x['threads']}"
    if expect_sw:
        c.check(x["counters"].startswith("perf-software-test"), f"{where}: {x['counters']}")
        c.check(num(x["cycles_per_pair"]) > 0 and num(x["instructions_per_pair"]) > 0,
                f"{where}: {x['cycles_per_pair']} {x['instructions_per_pair']}")
    else:
        c.check(x["counters"].startswith("n/a") and x["cycles_per_pair"] == "",
                f"{where}: {x['counters']}")
# The `events` column through the same path: a fake sysfs tree (RG_TEST_SYSFS_ROOT)
# whose "arm64 core PMU" has the software PMU's type (1), so mem_access and
# ll_cache_miss_rd are discovered as cpu-clock (0) and task-clock (1).
fake = os.path.join(tmp, "sysfs")
pmu = os.path.join(fake, "sys/bus/event_source/devices/armv8_pmuv3_0")
for d in ("events", "format"):
    os.makedirs(os.path.join(pmu, d), exist_ok=True)
for rel, text in (("type", "1\n"), ("format/event", "config:0-15\n"),
                  ("events/mem_access", "event=0x0\n"), ("events/ll_cache_miss_rd", "event=0x01\n"),
                  ("events/cpu_cycles", "event=0x11\n")):
    with open(os.path.join(pmu, rel), "w") as f:
        f.write(text)
for x in counted_run(dict(os.environ, RG_TEST_SYSFS_ROOT=fake), "ev", "fake-sysfs events"):
    where = f"fake-sysfs events {x['guard']} {x['scenario']} t={x['threads']}"
    if expect_sw:
        m = re.fullmatch(r"mem_access=(\d+\.\d{3});ll_cache_miss_rd=(\d+\.\d{3})", x["events"])
        c.check(m is not None and float(m[1]) > 0 and float(m[2]) > 0,
                f"{where}: events {x['events']!r}")
        # the table: the fake tree's PMU through the sysfs reader (libpfm4 is not asked under a test root)
        c.check(x["pmu_table"] == "sysfs armv8_pmuv3_0", f"{where}: pmu_table {x['pmu_table']!r}")
    elif emulated:
        c.check(x["events"] == "n/a: perf_event_open not implemented here (ENOSYS)",
                f"{where}: events {x['events']!r}")
    else:
        c.check(x["events"].startswith("n/a: perf_event_paranoid="), f"{where}: {x['events']!r}")
c.finish()
