#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Adding a guard is one header plus one line: prove it on a throwaway guard.

usage: check.py --source DIR --work DIR --cmake CMAKE --rgbench RGBENCH [--generator G]

Configures a separate build of the tree with -DRG_EXTRA_GUARDS=<this directory>
(its guards.def line + include/rg/guards/throwaway.h; nothing else in the tree
is edited), builds only what the checks need, and asserts that the new guard:
  - appears in `rgbench --list` (and not in the ordinary build's, RGBENCH);
  - passes test_guards (granted, nested refused, its own state back to 0);
  - is checked by the asm test: rg_loop_pair_throwaway is found and matches its
    guards.def expectation, and the asm test FAILS when that expectation is
    wrong or the line is missing (natively on the whole loops library, and for
    aarch64, when the cross compiler is installed, on throwaway's loop object
    compiled as the cross build would);
  - runs in the stress test (RG_STRESS_GUARDS=throwaway) with exact totals;
  - is reported missing by the docs/guards.md guard table check and docs/guards.md's kernel
    and roles table checks (all driven by guards.def);
  - with its module form (kmod.def's lines + kmod_guards.h's body, the only
    module files a guard adds): is in the module's generated guard list for
    every build (x86-64, arm64; before and since 6.18), is reported missing
    from docs/kmod.md's guard table, its RG_KMOD_ASM line is in the module asm
    test's generated expectations, and (x86-64 hosts with Debian's
    linux-headers-amd64) the module builds with it, the module's asm test
    checks its pair and duty loops, and FAILS when that line is missing;
  - is in the arm64 guest check's guard list (read from guards.def), which
    fails on guest rows without throwaway's pair rows.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)
    return ok


def run(cmd, env=None, timeout=900):
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       env=e, timeout=timeout)
    return r.returncode, r.stdout


def build(a, bdir, targets, extra_args):
    args = [a.cmake, "-S", a.source, "-B", bdir, "-DCMAKE_BUILD_TYPE=Release",
            f"-DRG_EXTRA_GUARDS={HERE}", "-DRG_WITH_BPF=OFF",
            "-DRG_LIBPERF=OFF"] + extra_args
    if a.generator:
        args += ["-G", a.generator]
    t0 = time.time()
    rc, out = run(args)
    if not check(rc == 0, f"configure {bdir} with RG_EXTRA_GUARDS"):
        print(out)
        return False
    if not targets:
        return True
    rc, out = run([a.cmake, "--build", bdir, f"-j{os.cpu_count() or 2}", "--target"] + targets)
    if not check(rc == 0, f"build {' '.join(targets)} ({time.time() - t0:.0f} s)"):
        print(out[-4000:])
        return False
    return True


def wrong_def(all_def, path, column, expectation):
    """A copy of the combined guards.def with throwaway's expectation for one
    architecture (column 8 x86-64, 9 arm64) replaced, or (column None) its line removed."""
    text, m = throwaway_line(all_def)
    line = m.group(0)
    if column is None:
        new = ""
    else:
        strings = list(re.finditer(r'"((?:[^"\\]|\\.)*)"', line))
        s = strings[column - 4]		# strings: name, summary, role, models, x86, arm
        new = line[:s.start()] + '"' + expectation + '"' + line[s.end():]
    open(path, "w").write(text[:m.start()] + new + text[m.end():])
    return path


def throwaway_line(all_def):
    text = open(all_def).read()
    m = re.search(r"^RG_GUARD\(throwaway,.*?\n(?=\S|\Z)", text, re.M | re.S)
    assert m, "no throwaway line in " + all_def
    return text, m


def compile_one(bdir, source_suffix):
    """Compile one translation unit of a configured build exactly as the build would
    (its compile_commands.json entry); returns the object's path or None."""
    try:
        entries = json.load(open(os.path.join(bdir, "compile_commands.json")))
    except (OSError, ValueError) as e:
        check(False, f"read {bdir}/compile_commands.json: {e}")
        return None
    for e in entries:
        if e["file"].endswith(source_suffix):
            argv = e["arguments"] if "arguments" in e else shlex.split(e["command"])
            out = argv[argv.index("-o") + 1]
            # Makefiles make the object's folder at configure time, Ninja only when building.
            os.makedirs(os.path.dirname(os.path.join(e["directory"], out)), exist_ok=True)
            r = subprocess.run(argv, cwd=e["directory"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=300)
            if not check(r.returncode == 0, f"compile {source_suffix} in {bdir}"):
                print(r.stdout[-3000:])
                return None
            return os.path.join(e["directory"], out)
    check(False, f"{source_suffix} is not in {bdir}/compile_commands.json")
    return None


def asm_checks(a, bdir, objdump, arch, wrong, obj=None):
    """The asm test on the build's loops library, or (obj) on throwaway's loop object
    alone against a guards.def of its line alone (the other guards' loops are the
    ordinary cross build's guards.asm.* tests)."""
    lib = obj or os.path.join(bdir, "guards", "librg_loops.a")
    all_def = os.path.join(bdir, "guards", "gen", "guards.all.def")
    if obj:
        _, m = throwaway_line(all_def)
        all_def = os.path.join(bdir, "throwaway_only.def")
        open(all_def, "w").write(m.group(0))
    nguards = len(re.findall(r"^RG_GUARD\(", open(all_def).read(), re.M))
    checker = os.path.join(a.source, "tests", "guards", "asm_check.py")
    base = [sys.executable, checker, objdump, lib, "--def"]
    rc, out = run(base + [all_def, "--expect-functions", str(3 * nguards)])
    check(rc == 0 and "rg_loop_pair_throwaway" not in out,
          f"{arch}: asm test passes with throwaway's guards.def line ({nguards} guards)")
    if rc:
        print(out)
    if not obj:
        rc, out = run(base + [all_def, "--mutations"])
        check(rc == 0, f"{arch}: asm test's mutations are caught with throwaway in the list")
        # its family's first step loop is checked against the family's line
        text = open(all_def).read()
        col = '"!atomic ; !not ; !neg"' if arch == "x86_64" else '"!atomic ; !mvn ; !neg"'
        bad = os.path.join(bdir, "wrong_step.def")
        open(bad, "w").write(re.sub(r'^(RG_PART\(throwaway, load, .*?)' + re.escape(col),
                                    lambda m: m.group(1) + '"' + wrong + '"', text, count=1, flags=re.M | re.S))
        rc, out = run(base + [bad, "--expect-functions", str(3 * nguards)])
        check(rc == 1 and "rg_loop_step_throwaway__load" in out,
              f"{arch}: asm test FAILS on throwaway's load-store step when its expectation is wrong")
    column = 8 if arch == "x86_64" else 9
    bad = wrong_def(all_def, os.path.join(bdir, "wrong_expectation.def"), column, wrong)
    rc, out = run(base + [bad, "--expect-functions", str(3 * nguards)])
    check(rc == 1 and re.search(r"FAIL: rg_loop_pair_throwaway.*" + re.escape(wrong), out),
          f"{arch}: asm test FAILS on throwaway when its expectation is wrong ('{wrong}')")
    print("\n".join("     (as it must) " + l for l in out.splitlines() if "throwaway" in l))
    bad = wrong_def(all_def, os.path.join(bdir, "no_line.def"), None, None)
    rc, out = run(base + [bad, "--expect-functions", str(3 * (nguards - 1))])
    check(rc == 1 and "rg_loop_pair_throwaway: no guard" in out,
          f"{arch}: asm test FAILS on a loop whose guards.def line is missing")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--source", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--cmake", required=True)
    p.add_argument("--rgbench", required=True, help="the ordinary build's rgbench")
    p.add_argument("--generator", default="")
    a = p.parse_args()
    t0 = time.time()
    bdir = os.path.join(a.work, "native")

    # the ordinary build knows nothing of it
    rc, out = run([a.rgbench, "--list"])
    check(rc == 0 and re.search(r"^\s+tls\s", out, re.M) and "throwaway" not in out,
          "ordinary build: rgbench --list has no throwaway")

    if not build(a, bdir, ["rgbench", "test_guards", "test_parts", "test_stress", "rg_loops",
                           "rg-guard-table"], []):
        return 1

    rc, out = run([os.path.join(bdir, "tools", "rgbench"), "--list"])
    check(rc == 0 and re.search(r"^\s+throwaway\s+available\s+thread\s+n/a\s+TEST ONLY", out, re.M),
          "rgbench --list shows throwaway (available, scope thread, its summary)")

    rc, out = run([os.path.join(bdir, "tests", "guards", "test_guards")])
    check(rc == 0 and re.search(r"^throwaway\s+ok \(padded and packed slots\), scope thread", out, re.M),
          "test_guards: throwaway granted, nested refused, its own state back to 0")
    if rc:
        print(out[-3000:])

    # Its ladder, two parts from the family throwaway_steps (RG_PARTS): in the C parts table
    # (rgbench's plan), the test of every ladder, and the generated step list the scripts read.
    rc, out = run([os.path.join(bdir, "tools", "rgbench"), "--plan", "--full", "--scenarios", "ladder",
                   "--guards", "throwaway"])
    steps = re.findall(r"^\s+user/ladder/(throwaway\S*)/t1\s", out, re.M)
    check(rc == 0 and steps == ["throwaway", "throwaway+load-store", "throwaway+not-neg"],
          f"rgbench --plan --scenarios ladder: throwaway, then its family's two steps ({steps})")
    rc, out = run([os.path.join(bdir, "tests", "guards", "test_parts")])
    check(rc == 0, "test_parts passes with throwaway's ladder")
    if rc:
        print(out[-3000:])
    all_def_text = open(os.path.join(bdir, "guards", "gen", "guards.all.def")).read()
    check(re.findall(r'^RG_PART\(throwaway, (\w+), "([^"]+)"', all_def_text, re.M) ==
          [("load", "throwaway+load-store"), ("step", "throwaway+not-neg")],
          "guards.all.def (the scripts' list) has throwaway's two RG_PART lines, expanded from the family")

    objdump = shutil.which("objdump") or "objdump"
    asm_checks(a, bdir, objdump, "x86_64" if os.uname().machine == "x86_64" else "aarch64",
               "bswap" if os.uname().machine == "x86_64" else "rev")

    iters, over = 100000, 25000
    rc, out = run([os.path.join(bdir, "tests", "guards", "test_stress"), str(iters), str(over), "5"],
                  env={"RG_STRESS_GUARDS": "throwaway"})
    rows = re.findall(r"^(pinned|oversub|oversub-loop|mixed)\s+throwaway\s+attempts\s+(\d+) grants\s+(\d+)"
                      r" refused\s+(\d+) .*double-grants (\d+) lost (\S+) counters!=0 (\d+)$", out, re.M)
    others = re.findall(r"^\S+\s+(?!throwaway)([a-z][-a-z0-9]*)\s+attempts", out, re.M)
    m = re.search(r"^pinned: (\d+) threads", out, re.M)
    npinned = int(m.group(1)) if m else 0
    pinned = [r for r in rows if r[0] == "pinned"]
    check(rc == 0 and len(pinned) == 1 and int(pinned[0][1]) == npinned * iters
          and int(pinned[0][2]) == npinned * iters
          and all(r[4] == "0" and r[5] in ("0", "n/a") and r[6] == "0" for r in rows)
          and {r[0] for r in rows} >= {"pinned", "oversub", "oversub-loop"} and not others,
          f"test_stress RG_STRESS_GUARDS=throwaway: exact totals in {len(rows)} modes, no other guard run")
    if rc or not rows:
        print(out[-3000:])

    rc, out = run([os.path.join(bdir, "guards", "rg-guard-table"), "--check",
                   os.path.join(a.source, "docs", "guards.md")])
    check(rc == 1 and "differs from guards.def" in out and re.search(r"^\|\s*`?throwaway", out, re.M),
          "docs/guards.md guard table check fails and shows the throwaway row to add")
    rc, out = run([os.path.join(bdir, "guards", "rg-guard-table"), "--check-kernel",
                   os.path.join(a.source, "docs", "guards.md")])
    check(rc == 1 and re.search(r"^\| `throwaway` \| - \| `!atomic ; not > neg > neg > not` \|", out, re.M),
          "docs/guards.md kernel-table check fails and shows the throwaway row to add")
    rc, out = run([os.path.join(bdir, "guards", "rg-guard-table"), "--check-roles",
                   os.path.join(a.source, "docs", "guards.md")])
    check(rc == 1 and re.search(r"^\| `n/a` \| .*`throwaway` \| \| \|$", out, re.M),
          "docs/guards.md roles-table check fails and names throwaway (role n/a) in the row to write")
    rc, out = run([os.path.join(bdir, "guards", "rg-guard-table"), "--check-parts",
                   os.path.join(a.source, "docs", "guards.md")])
    check(rc == 1 and "`throwaway+load-store`" in out,
          "docs/guards.md parts-table check fails and shows throwaway's steps to add")

    # the module form: the generated list, the docs check, the module's own build and asm test
    sys.path.insert(0, os.path.join(a.source, "tests", "kmod"))
    import kguards
    gen = os.path.join(bdir, "kernel", "kmod", "module")
    builds = kguards.read(os.path.join(gen, "rg_kguards.h"))
    check(all(("throwaway", "throwaway", "n/a", "refuse", None) in b["guards"] for b in builds.values()),
          f"the module's generated guard list has throwaway in all {len(builds)} builds")
    check(all([s for s in b["ladder"] if s[0] == "throwaway"] ==
              [("throwaway", "load", "throwaway+load-store", 1, False),
               ("throwaway", "step", "throwaway+not-neg", 2, True)] for b in builds.values()),
          f"the module's generated ladder has throwaway's two steps in all {len(builds)} builds")
    rc, out = run([sys.executable, os.path.join(a.source, "tests", "guards", "kmod_list.py"),
                   "--cmake", a.cmake, "--source", a.source, "--extra", HERE])
    check(rc == 1 and "docs/kmod.md: the module's throwaway is not in the guard table" in out,
          "guards.kmod_list asks for throwaway's row in docs/kmod.md")
    if os.uname().machine == "x86_64":
        kept = os.path.join(a.work, "module")
        rc, out = run([sys.executable, os.path.join(a.source, "tests", "kmod", "check_asm.py"),
                       "amd64", a.source, gen, "--keep", kept])
        if rc == 77:
            print("note: no kernel headers to build the module: its throwaway loops unchecked")
        else:
            check(rc == 0, "the module builds with throwaway and its asm test passes "
                  "(rg_pair_throwaway, rg_duty_throwaway among the loops)")
            if rc:
                print(out[-3000:])

    # The module asm test's expectations: generated from kmod.def (kmod_asm.def); a guard of the
    # build without its RG_KMOD_ASM line fails the test, naming it.
    asm_def = os.path.join(gen, "kmod_asm.def")
    check(re.search(r"^RG_KMOD_ASM\(throwaway, ", open(asm_def).read(), re.M) is not None,
          "the module asm test's generated expectations (kmod_asm.def) have throwaway's line")
    if os.uname().machine == "x86_64" and rc != 77:
        nogen = os.path.join(a.work, "gen_no_throwaway_asm")
        shutil.rmtree(nogen, ignore_errors=True)
        shutil.copytree(gen, nogen)
        text = open(asm_def).read()
        open(os.path.join(nogen, "kmod_asm.def"), "w").write(
            re.sub(r"^RG_KMOD_ASM\(throwaway, .*\n", "", text, flags=re.M))
        # the same module object (kmod_asm.def is the test's, not the module's): not built again
        rc2, out = run([sys.executable, os.path.join(a.source, "tests", "kmod", "check_asm.py"),
                        "amd64", a.source, nogen, "--reuse", kept])
        check(rc2 == 1 and "throwaway: kmod.def has no RG_KMOD_ASM(throwaway, ...) line" in out,
              "the module asm test FAILS when throwaway's RG_KMOD_ASM line is missing")
        print("\n".join("     (as it must) " + l for l in out.splitlines() if "throwaway" in l))

    # The arm64 guest check's guard list: read from guards.def (this build's, with throwaway);
    # rows without throwaway's pair rows fail it, naming throwaway.
    sys.path.insert(0, os.path.join(a.source, "tests", "arm64"))
    import check_guest
    all_def = os.path.join(bdir, "guards", "gen", "guards.all.def")
    on_arm64, x86_only = check_guest.guard_arches(all_def)
    check("throwaway" in on_arm64, f"the arm64 guest check expects throwaway's pair rows ({len(on_arm64)} guards)")
    said = []
    check_guest.check = lambda ok, what: said.append((ok, what)) or ok
    rows = ([{"guard": g, "scenario": "pair", "status": "ok", "reason": ""} for g in on_arm64 if g != "throwaway"] +
            [{"guard": g, "scenario": "pair", "status": "skipped", "reason": "x86-64 only"} for g in x86_only])
    check_guest.check_pair(rows, all_def)
    failed = [w for ok, w in said if not ok]
    check(failed == ["throwaway/pair measured"],
          f"the arm64 guest check FAILS on rows without throwaway's pair rows ({failed})")

    # arm64: the same asm checks on the cross-built loops, when the cross compiler is here
    if shutil.which("aarch64-linux-gnu-gcc") and os.uname().machine == "x86_64":
        # Only throwaway's loop translation unit, compiled as the cross build would:
        # building all of rg_loops again took two minutes on a busy host.
        xdir = os.path.join(a.work, "aarch64")
        if build(a, xdir, [], ["-DBUILD_TESTING=OFF", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
                               "-DCMAKE_TOOLCHAIN_FILE=" +
                               os.path.join(a.source, "cmake", "toolchain-aarch64.cmake")]):
            obj = compile_one(xdir, "/gen/loops_throwaway.c")
            if obj:
                asm_checks(a, xdir, shutil.which("aarch64-linux-gnu-objdump") or
                           "aarch64-linux-gnu-objdump", "aarch64", "rev", obj)
    else:
        print("note: no aarch64 cross compiler: the arm64 expectation is checked in the cross build only")

    print(f"addguard: {len(failures)} failure(s), {time.time() - t0:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
