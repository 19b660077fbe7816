#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""docs/guards.md's roles table must say what guards.def says.

usage: roles_table.py GUARDS_DEF DOC

The table under "### Roles" has one row per role: | `role` | meaning | x86-64 | arm64 |.
The meaning is the doc's own; the guard columns must be exactly the guards whose
role column (';'-separated) holds that role and that exist on that architecture
("-" for none). The `n/a` row names, in its meaning, every guard without a role (and no other guard).
A role in guards.def without a row, or a row without a guard, fails.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from asm_check import read_def  # noqa: E402

ARCHES = (("x86-64", ("RG_ON_ANY", "RG_ON_X86_64")), ("arm64", ("RG_ON_ANY", "RG_ON_AARCH64")))


def names(cell):
    return set(re.findall(r"`([^`]+)`", cell))


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    defs = read_def(argv[0])
    text = open(argv[1]).read()
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith("### Roles")), None)
    table = []
    if start is not None:
        i = next((j for j in range(start, len(lines)) if lines[j].startswith("|")), len(lines))
        while i < len(lines) and lines[i].startswith("|"):
            table.append(lines[i])
            i += 1
    if len(table) < 3:
        print(f"FAIL: {argv[1]} has no table under '### Roles'")
        return 2
    rows = {}
    for line in table[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        role = cells[0].strip("`")
        rows[role] = cells
    want = {}
    for d in defs.values():
        for role in d["role"].split(";"):
            want.setdefault(role, {a: set() for a, _ in ARCHES})
            for i, (a, ons) in enumerate(ARCHES):
                if d["arch"] in ons:
                    want[role][a].add(d["name"])
    problems = []
    for role, by_arch in sorted(want.items()):
        row = rows.get(role)
        if row is None:
            problems.append(f"role '{role}' ({', '.join(sorted(set().union(*by_arch.values())))}) "
                            f"has no row")
            continue
        if role == "n/a":
            known = {d["name"] for d in defs.values()}
            got, exp = names(row[1]) & known, set().union(*by_arch.values())
            if got != exp:
                problems.append(f"row n/a names {sorted(got)}, guards.def's guards without a role "
                                f"are {sorted(exp)}")
            continue
        for i, (a, _) in enumerate(ARCHES):
            got = names(row[2 + i]) if len(row) > 2 + i else set()
            if got != by_arch[a]:
                problems.append(f"row {role}, {a}: {sorted(got) or '-'}, guards.def says "
                                f"{sorted(by_arch[a]) or '-'}")
    for role in sorted(set(rows) - set(want)):
        problems.append(f"row '{role}' is no guard's role in guards.def")
    for p in problems:
        print(f"FAIL: {p}")
    if not problems:
        print(f"{argv[1]}: roles table matches guards.def ({len(want)} roles, {len(defs)} guards)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
