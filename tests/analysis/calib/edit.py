#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The hand edits that make the calibration fixtures from real runs (README.md lists each one).
usage: edit.py tramp USER.json OUT.json       user pair rows -> the module's tramp rows
       edit.py fentry BPF.json OUT.json       fentry rows measured: copies of the raw_tp rows
       edit.py kernel IN.json OUT.json REL    the kernel field (rows and machine object)"""
import copy
import json
import sys

# The module's guards (x86-64) and the scenarios of the kmod developer's tramp rows.
TRAMP_GUARDS = ("noop", "pcpu-xadd", "rctx-kernel", "pcpu-lock-xadd")
TRAMP_SCENARIOS = ("tramp-rawtp", "tramp-fentry")


def save(doc, path):
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")


def tramp(src, dst):
    """Each one-thread pair row of the four guards, twice: suite=kmod, scenario=tramp-rawtp or
    tramp-fentry. Every other column (timings, role, delta over noop, interval) as measured."""
    doc = json.load(open(src))
    out = []
    for sc in TRAMP_SCENARIOS:
        for r in doc["results"]:
            if r["suite"] == "user" and r["scenario"] == "pair" and r["guard"] in TRAMP_GUARDS:
                y = copy.deepcopy(r)
                y["suite"], y["scenario"] = "kmod", sc
                out.append(y)
    doc["results"] = out
    save(doc, dst)


def fentry(src, dst):
    """Each skipped fentry row replaced by a copy of the raw_tp row of its mode, guard=fentry."""
    doc = json.load(open(src))
    rows = doc["results"]
    for i, r in enumerate(rows):
        if r["guard"] == "fentry" and r["status"] == "skipped":
            rt = [x for x in rows if x["guard"] == "raw_tp" and x["scenario"] == r["scenario"]
                  and x["threads"] == r["threads"]]
            if rt:
                y = copy.deepcopy(rt[0])
                y["guard"] = "fentry"
                rows[i] = y
    save(doc, dst)


def kernel(src, dst, rel):
    doc = json.load(open(src))
    for r in doc["results"]:
        r["kernel"] = rel
    if isinstance(doc.get("machine"), dict):
        doc["machine"]["kernel"] = rel
    save(doc, dst)


if __name__ == "__main__":
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    {"tramp": tramp, "fentry": fentry, "kernel": kernel}[sys.argv[1]](*sys.argv[2:])
