# SPDX-License-Identifier: MIT
"""The module's guard list as the build generated it (rg_kguards.h, from guards.def and
kmod.def by kernel/kmod/kguards.cmake): the one list the tests read.

read(path) -> {(arch, since_6_18): build}, arch "x86-64" or "arm64", build a dict:
  own     the id of the kernel's own this_cpu guard (RG_KGUARD_OWN)
  guards  [(id, name, role, kind, avail)] in output order (kind: refuse, grant, defer)
  other   [name] of the other architecture's guards (accepted, reported skipped)
  tramp   [(id, name, role, kind, avail)] the tramp scenario's designs (RG_KTRAMP)
  ladder  [(design, part, "step name", step, last)] the ladder scenario's steps (RG_KLADDER)
"""
import re

KIND = {"RG_CHECK": "refuse", "RG_COUNTER": "grant", "RG_IRQOFF": "defer"}
_COND = re.compile(r"^#(?:el)?if defined\(CONFIG_(X86_64|ARM64)\) && "
                   r"LINUX_VERSION_CODE (<|>=) KERNEL_VERSION\(6, 18, 0\)$")
_X = re.compile(r'^\tX\((\w+), "([^"]*)", "([^"]*)", (RG_\w+), (\w+)\)')
_Y = re.compile(r'^\tY\("([^"]*)"\)')
_L = re.compile(r'^\tX\((\w+), (\w+), "([^"]*)", (\d+), ([01])\)')


def read(path):
    builds, cur, into = {}, None, "guards"
    for line in open(path):
        m = _COND.match(line)
        if m:
            cur = builds.setdefault(("x86-64" if m.group(1) == "X86_64" else "arm64",
                                     m.group(2) == ">="),
                                    {"own": None, "guards": [], "other": [], "tramp": [],
                                     "ladder": []})
            continue
        if line.startswith("#else"):
            cur = None
        if cur is None:
            continue
        m = re.match(r"^#define RG_KGUARD_OWN (\w+)$", line)
        if m:
            cur["own"] = m.group(1)
        m = re.match(r"^#define (RG_KGUARDS|RG_KTRAMP)\(X\)", line)
        if m:
            into = "guards" if m.group(1) == "RG_KGUARDS" else "tramp"
        m = _X.match(line)
        if m:
            i, n, r, k, a = m.groups()
            cur[into].append((i, n, r, KIND[k], None if a == "NULL" else a))
        m = _L.match(line)
        if m:
            d, p, n, k, last = m.groups()
            cur["ladder"].append((d, p, n, int(k), last == "1"))
        m = _Y.match(line)
        if m:
            cur["other"].append(m.group(1))
    if len(builds) != 4 or not all(b["own"] and b["guards"] for b in builds.values()):
        raise SystemExit(f"kguards: {path} is not a generated module guard list")
    return builds
