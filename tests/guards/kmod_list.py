#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The kernel module's guard list and the docs that state it must agree.

usage: kmod_list.py --cc CC --source DIR [--self-test]

The module (kernel/kmod/module/rgbench_kmod.c) keeps its own guard table,
RG_KGUARDS(X) (docs/guards.md says why it is not generated from guards.def).
Its X(id, "name", "role", kind, avail) entries are expanded with the C
preprocessor for each configuration the module builds in (x86-64; arm64
before and since 6.18, where this_cpu_dec() changes), and checked:
  - a name that guards.def also has carries guards.def's role there;
  - docs/kmod.md's guard table has exactly the module's guards, each with the
    module's role, its architectures, whether the user suite has it, and the
    re-entry outcome of its kind (refused / granted / deferred);
  - docs/guards.md's table between <!-- kmod-guards:begin/end --> names
    every guard the module has ("yes", "module only") and nothing else; a
    guard of guards.def it names with "no" has none and says why (one it
    does not name has none either, so adding a guard needs no row);
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

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from asm_check import read_def  # noqa: E402  (the one parser of guards.def)

# (name, #defines): every configuration the module's table depends on.
CONFIGS = [
    ("x86-64", ["CONFIG_X86_64", "CONFIG_X86", "LINUX_VERSION_CODE=0x060100"]),
    ("arm64 6.1", ["CONFIG_ARM64", "LINUX_VERSION_CODE=0x060100"]),
    ("arm64 6.18", ["CONFIG_ARM64", "LINUX_VERSION_CODE=0x061200"]),
]
KIND_OUTCOME = {"RG_CHECK": "refused", "RG_COUNTER": "granted", "RG_IRQOFF": "deferred"}
errors = []


def fail(msg):
    errors.append(msg)


def module_table(cc, src_text, defines):
    """[(name, role, kind)] of RG_KGUARDS(X) and the other-architecture names, for one config."""
    start = src_text.index("#ifdef CONFIG_X86_64\n#define RG_THIS_CPU")
    end = src_text.index("\n", src_text.index("#define RG_KGUARDS(X)"))
    other = re.search(r"static const char \*const rg_other_arch\[\] = \{.*?\};", src_text, re.S)
    snippet = ("#define KERNEL_VERSION(a, b, c) (((a) << 16) + ((b) << 8) + (c))\n"
               + src_text[start:end] + "\n"
               + "#define X(id, name, role, kind, avail) @@ name role kind\n"
               + "RG_KGUARDS(X)\n@@other " + other.group(0) + "\n")
    r = subprocess.run([cc, "-E", "-P", "-x", "c"] + [f"-D{d}" for d in defines] + ["-"],
                       input=snippet, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"kmod_list: {cc} -E failed on the module's table: {r.stderr.strip()}")
    out = " ".join(r.stdout.split())
    head, _, tail = out.partition("@@other")
    entries = [re.fullmatch(r'"([^"]+)" "([^"]+)" (\w+)', e.strip()) for e in head.split("@@")[1:]]
    if not entries or not all(entries):
        sys.exit(f"kmod_list: cannot read the module's RG_KGUARDS(X) entries: {head!r}")
    return [m.groups() for m in entries], re.findall(r'"([^"]+)"', tail)


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


def check(source, cc):
    """The disagreements (errors) and the module's guards: {name: (role, kind, {configs})}."""
    del errors[:]
    src = open(os.path.join(source, "kernel/kmod/module/rgbench_kmod.c")).read()
    defs = {d["name"]: d for d in read_def(os.path.join(source, "guards/include/rg/guards.def")).values()}

    mod = {}		# name -> (role, kind, {configs})
    for cfg, defines in CONFIGS:
        table, other = module_table(cc, src, defines)
        if len({n for n, _, _ in table}) != len(table):
            fail(f"module ({cfg}): a guard name twice in RG_KGUARDS")
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
        if got is None and want == "no":
            continue	# a guard of guards.def the table does not name: no module form
        if got is None:
            fail(f"docs/guards.md: {n} is not in the kmod-guards table (it should say {want!r})")
        elif got[0] != want:
            fail(f"docs/guards.md: {n} says {got[0]!r} in the module column, it is {want!r}")
        elif want != "yes" and not got[1]:
            fail(f"docs/guards.md: {n} ({want}) does not say why")
    for n in said:
        fail(f"docs/guards.md: {n} is in the kmod-guards table but is no guard of guards.def or the module")

    return list(errors), real, defs


# --self-test: each edit, made to a copy of the three files, must be reported.
MUTATIONS = [
    ("kernel/kmod/module/rgbench_kmod.c", 'X(local_t, "local-t", "n/a"', 'X(local_t, "local-t", "pcpu-atomic"',
     "docs/kmod.md: local-t role"),
    ("kernel/kmod/module/rgbench_kmod.c", 'X(rctx_word, "rctx-word", "rctx-word"', 'X(rctx_word, "rctx-word", "merged-rctx"',
     "module (x86-64): rctx-word has role 'merged-rctx', guards.def 'rctx-word'"),
    ("kernel/kmod/module/rgbench_kmod.c", '\tX(pcpu_llsc, "pcpu-llsc", "n/a", RG_CHECK, NULL)\n',
     '\tX(pcpu_llsc, "pcpu-llsc", "n/a", RG_CHECK, NULL) \\\n\tX(pcpu_new, "pcpu-new", "n/a", RG_CHECK, NULL)\n',
     "docs/kmod.md: the module's pcpu-new is not in the guard table"),
    ("docs/kmod.md", "| `irqsave` | any |", "| `irqsave` | x86 |", "docs/kmod.md: irqsave arch"),
    ("docs/kmod.md", "| `local-t` | any | - | n/a |", "| `local-t` | any | - | n/a |", None),
    ("docs/guards.md", "| `irqsave` | module only |", "| `irqsave` | yes |", "docs/guards.md: irqsave says 'yes'"),
    ("docs/guards.md", "| `tls` | no |", "| `tls`, `pcpu-xadd` | no |", "docs/guards.md: pcpu-xadd says 'no'"),
]


def self_test(source, cc):
    import shutil
    import tempfile
    bad = 0
    for path, old, new, want in MUTATIONS:
        with tempfile.TemporaryDirectory(prefix="rgbench-kmod-list-") as tmp:
            for f in ("kernel/kmod/module/rgbench_kmod.c", "guards/include/rg/guards.def",
                      "docs/kmod.md", "docs/guards.md"):
                os.makedirs(os.path.dirname(os.path.join(tmp, f)), exist_ok=True)
                shutil.copy(os.path.join(source, f), os.path.join(tmp, f))
            text = open(os.path.join(tmp, path)).read()
            if old not in text:
                print(f"kmod_list self-test: {path}: {old!r} not found (update the self-test)")
                bad += 1
                continue
            open(os.path.join(tmp, path), "w").write(text.replace(old, new, 1))
            errs = check(tmp, cc)[0]
            ok = any(want in e for e in errs) if want else not errs
            print(f"kmod_list self-test: {path}: {new.strip()!r}: "
                  f"{'ok' if ok else 'MISSED'}{(': ' + errs[0]) if errs else ''}")
            bad += not ok
    print(f"kmod_list self-test: {len(MUTATIONS) - bad} of {len(MUTATIONS)} as expected")
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cc", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--self-test", action="store_true",
                    help="edit copies of the files in ways that must be reported")
    a = ap.parse_args()
    if a.self_test:
        return self_test(a.source, a.cc)
    errs, real, defs = check(a.source, a.cc)
    for e in errs:
        print("kmod_list:", e)
    if errs:
        return 1
    print(f"kmod_list: the module's {len(real)} guards ({len(set(real) & set(defs))} shared with "
          f"guards.def, {len(set(real) - set(defs))} module-only) in {len(CONFIGS)} builds agree "
          f"with guards.def's roles, docs/kmod.md and docs/guards.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
