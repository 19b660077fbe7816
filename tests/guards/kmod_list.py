#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The kernel module's guard list and the docs that state it must agree.

usage: kmod_list.py --cmake CMAKE --source DIR [--extra DIR] [--self-test]

The module's guard list is generated from guards.def and kmod.def (both in
guards/include/rg/) by kernel/kmod/kguards.cmake. This test generates it (as
the build does) and reads it with tests/kmod/kguards.py, for each build the
module has (x86-64; arm64 before and since 6.18, where this_cpu_dec()
changes), and checks:
  - docs/kmod.md's guard table has exactly the module's guards, each with the
    module's role, its architectures, whether the user suite has it, and the
    re-entry outcome of its kind (refused / granted / deferred);
  - docs/guards.md's table between <!-- kmod-guards:begin/end --> names
    every module-only guard ("module only") and no guard the module lacks as
    "yes"; a guard of guards.def it names with "no" has none and says why (one
    it does not name has none either, so adding a guard needs no row there);
  - the names the module accepts as the other architecture's are that
    architecture's guards.
Exit 0 when all agree, 1 with one line per disagreement. --self-test edits
copies of the files in ways each of which must be reported (exit 1 if one is
not), and makes one no-op edit that must pass.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "kmod"))
from asm_check import read_def  # noqa: E402  (the one parser of guards.def)
import kguards  # noqa: E402  (the one reader of the generated module list)

# (name, generated build): every configuration the module's table depends on.
CONFIGS = [("x86-64", ("x86-64", False)), ("arm64 6.1", ("arm64", False)),
           ("arm64 6.18", ("arm64", True))]
KIND_OUTCOME = {"refuse": "refused", "grant": "granted", "defer": "deferred"}
errors = []


def fail(msg):
    errors.append(msg)


def generate(cmake, source, extra=None):
    """The module's list as the build writes it, from source's guards.def and kmod.def
    (and, with extra, a test build's RG_EXTRA_GUARDS directory's lines)."""
    with tempfile.TemporaryDirectory(prefix="rgbench-kguards-") as tmp:
        out = os.path.join(tmp, "rg_kguards.h")
        script = os.path.join(tmp, "gen.cmake")
        defs = os.path.join(tmp, "guards.all.def")
        kdefs = [f"{source}/guards/include/rg/kmod.def"]
        with open(defs, "w") as f:
            f.write(open(f"{source}/guards/include/rg/guards.def").read())
            if extra:
                f.write(open(os.path.join(extra, "guards.def")).read())
                kdefs.append(os.path.join(extra, "kmod.def"))
        with open(script, "w") as f:
            f.write("cmake_minimum_required(VERSION 3.20)\n"
                    f'include("{source}/kernel/kmod/kguards.cmake")\n'
                    f'rg_kmod_guards_header("{out}" "{defs}" '
                    + " ".join(f'"{k}"' for k in kdefs) + ")\n")
        r = subprocess.run([cmake, "-P", script], capture_output=True, text=True)
        if r.returncode:
            fail("generating the module's list: " + " ".join(r.stderr.split())[:300])
            return None
        return kguards.read(out)


def module_table(builds, key):
    """[(name, role, kind)] of one build and the other-architecture names."""
    b = builds[key]
    return [(n, r, k) for _, n, r, k, _ in b["guards"]], b["other"]


def md_table(text, header):
    """Rows (lists of cells) of the markdown table whose header line starts with header."""
    i = text.index(header)
    rows = []
    for line in text[i:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return rows


def names(cell):
    return re.findall(r"`([^`]+)`", cell)


def check(source, cmake, extra=None):
    """The disagreements (errors) and the module's guards: {name: (role, kind, {configs})}."""
    del errors[:]
    defs = {d["name"]: d for d in read_def(os.path.join(source, "guards/include/rg/guards.def")).values()}
    if extra:
        defs.update({d["name"]: d for d in read_def(os.path.join(extra, "guards.def")).values()})
    builds = generate(cmake, source, extra)
    if builds is None:
        return list(errors), {}, defs

    mod = {}		# name -> (role, kind, {configs})
    for cfg, key in CONFIGS:
        table, other = module_table(builds, key)
        if len({n for n, _, _ in table}) != len(table):
            fail(f"module ({cfg}): a guard name twice in the generated list")
        for name, role, kind in table:
            if name in mod and mod[name][:2] != (role, kind):
                fail(f"module: {name} has role/kind {mod[name][:2]} and {(role, kind)} in different builds")
            mod.setdefault(name, (role, kind, set()))[2].add(cfg)
            if name in defs and defs[name]["role"] != role:
                fail(f"module ({cfg}): {name} has role {role!r}, guards.def {defs[name]['role']!r}")
        arch = "x86" if cfg.startswith("x86") else "arm64"
        for name in other:	# accepted as the other architecture's: not built here, built there
            if name in {n for n, _, _ in table}:
                fail(f"module ({cfg}): {name} is both built and 'not this architecture'")
        mod.setdefault("@other:" + arch, (None, None, set()))[2].update(other)

    # docs/kmod.md: one row per guard or a group of them, roles one for all or one each.
    kmd = open(os.path.join(source, "docs/kmod.md")).read()
    documented = {}
    for row in md_table(kmd, "| guard | arch | user suite | role | enter / exit | re-entry |"):
        ns, roles = names(row[0]), [r.strip() for r in row[3].split(",")]
        if len(roles) not in (1, len(ns)):
            fail(f"docs/kmod.md: row {row[0]}: {len(roles)} roles for {len(ns)} guards")
            continue
        for i, n in enumerate(ns):
            documented[n] = dict(arch=row[1], user=row[2], role=roles[i if len(roles) > 1 else 0],
                                 outcome=row[5])
    real = {n: v for n, v in mod.items() if not n.startswith("@")}
    for n in sorted(set(real) - set(documented)):
        fail(f"docs/kmod.md: the module's {n} is not in the guard table")
    for n in sorted(set(documented) - set(real)):
        fail(f"docs/kmod.md: {n} is in the guard table, but the module has no such guard")
    for n in sorted(set(real) & set(documented)):
        role, kind, cfgs = real[n]
        d = documented[n]
        if d["role"] != role:
            fail(f"docs/kmod.md: {n} role {d['role']!r}, the module says {role!r}")
        want = "any" if len(cfgs) == len(CONFIGS) else ("x86" if cfgs == {"x86-64"} else "arm64")
        if not d["arch"].startswith(want):
            fail(f"docs/kmod.md: {n} arch {d['arch']!r}, the module builds it on {want}")
        if (d["user"] == "-") != (n not in defs):
            fail(f"docs/kmod.md: {n} user-suite column {d['user']!r}, but guards.def "
                 f"{'has' if n in defs else 'has no'} {n}")
        if KIND_OUTCOME[kind] not in d["outcome"]:
            fail(f"docs/kmod.md: {n} re-entry {d['outcome']!r}, the module's kind is {kind} "
                 f"({KIND_OUTCOME[kind]})")
    for arch, cfg_names in (("x86", {"x86-64"}), ("arm64", {"arm64 6.1", "arm64 6.18"})):
        theirs = {n for n, (_, _, c) in real.items() if c <= cfg_names}
        other = mod.get("@other:" + ("arm64" if arch == "x86" else "x86"), (0, 0, set()))[2]
        if theirs != other:
            fail(f"module: the other-architecture names {sorted(other)} are not the {arch} "
                 f"guards {sorted(theirs)}")

    # docs/guards.md: every guard of guards.def, yes or no (with why), and the module-only ones.
    gmd = open(os.path.join(source, "docs/guards.md")).read()
    m = re.search(r"<!-- kmod-guards:begin -->\n(.*?)<!-- kmod-guards:end -->", gmd, re.S)
    if not m:
        fail("docs/guards.md: no <!-- kmod-guards:begin --> ... <!-- kmod-guards:end --> table")
        rows = []
    else:
        rows = md_table(m.group(1), "| guard |")
    said = {}
    for row in rows:
        for n in names(row[0]):
            said[n] = (row[1], row[2])
    for n in list(defs) + sorted(set(real) - set(defs)):
        want = "yes" if n in defs and n in real else ("no" if n in defs else "module only")
        got = said.pop(n, None)
        if got is None and want in ("no", "yes"):
            continue	# unnamed: no module form, or one docs/kmod.md's table states
        if got is None:
            fail(f"docs/guards.md: {n} is not in the kmod-guards table (it should say {want!r})")
        elif got[0] != want:
            fail(f"docs/guards.md: {n} says {got[0]!r} in the module column, it is {want!r}")
        elif want != "yes" and not got[1]:
            fail(f"docs/guards.md: {n} ({want}) does not say why")
    for n in said:
        fail(f"docs/guards.md: {n} is in the kmod-guards table but is no guard of guards.def or the module")

    return list(errors), real, defs


# --self-test: each edit, made to a copy of the files, must be reported.
KMOD_DEF = "guards/include/rg/kmod.def"
MUTATIONS = [
    (KMOD_DEF, 'RG_KMOD_ONLY(local_t, "local-t", RG_ON_ANY, "n/a"', 'RG_KMOD_ONLY(local_t, "local-t", RG_ON_ANY, "pcpu-atomic"',
     "docs/kmod.md: local-t role"),
    (KMOD_DEF, 'RG_KMOD(rctx_word, RG_CHECK, NULL)', 'RG_KMOD(rctx_word, RG_COUNTER, NULL)',
     "docs/kmod.md: rctx-word re-entry"),
    (KMOD_DEF, 'RG_KMOD(pcpu_llsc, RG_CHECK, NULL)\n',
     'RG_KMOD(pcpu_llsc, RG_CHECK, NULL)\nRG_KMOD_ONLY(pcpu_new, "pcpu-new", RG_ON_AARCH64, "n/a", RG_CHECK, NULL)\n',
     "docs/kmod.md: the module's pcpu-new is not in the guard table"),
    (KMOD_DEF, 'RG_KMOD(rctx_kernel, RG_CHECK, NULL)\n', '', "docs/kmod.md: rctx-kernel is in the guard table, but the module has no such guard"),
    ("docs/kmod.md", "| `irqsave` | any |", "| `irqsave` | x86 |", "docs/kmod.md: irqsave arch"),
    ("docs/kmod.md", "| `local-t` | any | - | n/a |", "| `local-t` | any | - | n/a |", None),
    ("docs/guards.md", "| `irqsave` | module only |", "| `irqsave` | yes |", "docs/guards.md: irqsave says 'yes'"),
    ("docs/guards.md", "| `tls` | no |", "| `tls`, `pcpu-xadd` | no |", "docs/guards.md: pcpu-xadd says 'no'"),
]
FILES = ("guards/include/rg/guards.def", KMOD_DEF, "kernel/kmod/kguards.cmake", "docs/kmod.md",
         "docs/guards.md")


def self_test(source, cmake):
    import shutil
    import tempfile
    bad = 0
    for path, old, new, want in MUTATIONS:
        with tempfile.TemporaryDirectory(prefix="rgbench-kmod-list-") as tmp:
            for f in FILES:
                os.makedirs(os.path.dirname(os.path.join(tmp, f)), exist_ok=True)
                shutil.copy(os.path.join(source, f), os.path.join(tmp, f))
            text = open(os.path.join(tmp, path)).read()
            if old not in text:
                print(f"kmod_list self-test: {path}: {old!r} not found (update the self-test)")
                bad += 1
                continue
            open(os.path.join(tmp, path), "w").write(text.replace(old, new, 1))
            errs = check(tmp, cmake)[0]
            ok = any(want in e for e in errs) if want else not errs
            print(f"kmod_list self-test: {path}: {new.strip()!r}: "
                  f"{'ok' if ok else 'MISSED'}{(': ' + errs[0]) if errs else ''}")
            bad += not ok
    print(f"kmod_list self-test: {len(MUTATIONS) - bad} of {len(MUTATIONS)} as expected")
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cmake", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--extra", help="a test build's RG_EXTRA_GUARDS directory (guards.def, kmod.def)")
    ap.add_argument("--self-test", action="store_true",
                    help="edit copies of the files in ways that must be reported")
    a = ap.parse_args()
    if a.self_test:
        return self_test(a.source, a.cmake)
    errs, real, defs = check(a.source, a.cmake, a.extra)
    for e in errs:
        print("kmod_list:", e)
    if errs:
        return 1
    print(f"kmod_list: the module's {len(real)} guards ({len(set(real) & set(defs))} shared with "
          f"guards.def, {len(set(real) - set(defs))} module-only) in {len(CONFIGS)} builds agree "
          f"with docs/kmod.md and docs/guards.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
