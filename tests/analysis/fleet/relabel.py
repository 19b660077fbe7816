#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Rewrite the identification columns of a result JSON (host, CPU, kernel, virt) and nothing else:
how the fleet fixtures were made from real runs, and how tests/analysis/fleet.py replicates them.
usage: relabel.py IN.json OUT.json column=value..."""
import json
import sys

IDENT = ("host", "arch", "cpu_vendor", "cpu_model", "cpu_part", "kernel", "virt")


def relabel(src, dst, changes):
    doc = json.load(open(src))
    for k in changes:
        if k not in IDENT:
            raise SystemExit(f"relabel.py: {k} is not an identification column ({', '.join(IDENT)})")
    for r in doc["results"]:
        r.update(changes)
    if isinstance(doc.get("machine"), dict):
        doc["machine"].update({k: v for k, v in changes.items() if k in doc["machine"]})
    with open(dst, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    relabel(sys.argv[1], sys.argv[2], dict(a.split("=", 1) for a in sys.argv[3:]))
