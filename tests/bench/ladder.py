# SPDX-License-Identifier: MIT
"""The ladder scenario: every default-profile design's whole and its steps in one group, in guards.def's order, each step paired against the step before (exact per-round differences), names and roles as the description says."""
import math
import os
import re

import rgtest

a = rgtest.args()
c = rgtest.Checker("bench.ladder")
listed = rgtest.listed_guards(a)
text = re.sub(r"/\*.*?\*/", "", open(a.guards_def).read(), flags=re.S)
ids = dict(re.findall(r'^RG_GUARD\((\w+),\s*"([^"]+)"', text, re.M))
profile = dict(re.findall(r"^RG_LADDER\((\w+),\s*(RG_LADDER_\w+)\)", text, re.M))
steps = {}
for d, name in re.findall(r'^RG_PART\((\w+),\s*\w+,\s*"([^"]+)"', text, re.M):
    steps.setdefault(ids[d], []).append(name)
default = [ids[d] for d, p in profile.items() if p == "RG_LADDER_DEFAULT"]
full_only = [ids[d] for d, p in profile.items() if p == "RG_LADDER_FULL"]
c.check(default and set(steps) == {ids[d] for d in profile}, f"ladders {profile} parts {steps}")

tmp = rgtest.mkdtemp(prefix="rgbench-ladder-")
csv_path, json_path = os.path.join(tmp, "l.csv"), os.path.join(tmp, "l.json")
REPS = 3
r = rgtest.run(a, "--scenarios", "ladder", "--min-time", "0.001", "--repetitions", str(REPS), "--runs", "1",
               "--batch", "512", "-qq", "--no-bpf", "--out", csv_path, "--json", json_path, cwd=tmp)
c.check(r.returncode == 0, f"rgbench exited {r.returncode}: {r.stderr}")
if r.returncode != 0:
    c.finish()
rows = rgtest.read_json(json_path)["results"]
by = {j["guard"]: j for j in rows}
c.check(all(j["scenario"] == "ladder" for j in rows), "a row outside the ladder scenario")
c.check("noop" in by, "no noop row in the ladder group")
# Default profile: the RG_LADDER_DEFAULT designs, none of the --full ones.
for g in full_only:
    c.check(g not in by and not any(n in by for n in steps[g]), f"{g}: a --full ladder ran by default")
for g in default:
    names = [g] + steps[g]
    for n in names:
        if not c.check(n in by, f"{g}: no row {n}"):
            continue
        j = by[n]
        if listed.get(g) is not None:
            c.check(j["status"] == "skipped" and j["reason"] == listed[g],
                    f"{n}: {j['status']} {j['reason']!r}, --list says {listed[g]!r}")
            continue
        c.check(j["status"] in ("ok", "noisy"), f"{n}: {j['status']} {j['reason']}")
        c.check(j["role"] == ("n/a" if n != g else j["role"]) and (n == g or j["role"] == "n/a"),
                f"{n}: role {j['role']}")
        c.check(j["refusals"] == 0 and j["threads"] == 1, f"{n}: refusals {j['refusals']}")
    if listed.get(g) is not None or not all(n in by for n in names):
        continue
    # the whole against noop; step 1 against noop, step k against step k-1
    for k, n in enumerate(names):
        base = "noop" if k <= 1 else names[k - 1]
        j, b = by[n], by[base]
        c.check(j["baseline"] == base, f"{n}: baseline {j['baseline']}, expected {base}")
        c.check(len(j["samples_ns"]) == len(b["samples_ns"]) == len(j["samples_delta_ns"]) == REPS,
                f"{n}: rounds")
        for i, (x, y, d) in enumerate(zip(j["samples_ns"], b["samples_ns"], j["samples_delta_ns"])):
            c.check(math.isclose(d, x - y, rel_tol=1e-4, abs_tol=1e-5 * max(x, y)),
                    f"{n}: round {i}: delta {d} != {x} - {y}")
print(f"bench.ladder: {len(rows)} rows; default ladders {default}; --full only {full_only}")
c.finish()
