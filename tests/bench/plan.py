#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""rgbench --plan on the shipped topologies (tests/topologies): placement order, the
cross-package rows, the estimate under 3 minutes for the default profile, and bad topologies."""
import os
import re

import rgtest

C = rgtest.Checker("plan")
check = C.check


def expand(spec):
    out = []
    for part in spec.split(","):
        if "-" in part:
            a, b = part.split("-")
            out.extend(range(int(a), int(b) + 1))
        else:
            out.append(int(part))
    return out


def plan(a, env, *extra):
    full = dict(os.environ)
    full.pop("HWLOC_XMLFILE", None)
    full.pop("HWLOC_SYNTHETIC", None)
    full.update(env)
    import subprocess
    return subprocess.run(rgtest.command(a, "--plan", *extra), capture_output=True, text=True,
                          env=full, timeout=120)


def parse(out):
    """{benchmark: (threads, [cpus], where)}, estimate s, largest (n, [cpus], where)."""
    rows = {}
    for line in out.splitlines():
        m = re.match(r"  (user/\S+)\s+t=(\d+)\s+cpus (\S+)\s+(.*?)\s+([\d.]+) s", line)
        if m:
            rows[m.group(1)] = (int(m.group(2)), expand(m.group(3)), m.group(4))
    est = re.search(r"^rgbench: plan: (\d+) benchmarks \((\d+) skipped\), estimated (\d+) s", out, re.M)
    big = re.search(r"^largest thread count (\d+): cpus (\S+) \((.*)\)$", out, re.M)
    return rows, (int(est.group(3)) if est else None), (
        (int(big.group(1)), expand(big.group(2)), big.group(3)) if big else None)


def main():
    a = rgtest.args()
    topo = os.path.join(a.source, "tests/topologies")
    # the string is the file's one line that is not a # comment
    syn = {n: [l for l in open(os.path.join(topo, n + ".synthetic")).read().splitlines()
               if l.strip() and not l.startswith("#")][0].strip()
           for n in ("grace-2x72", "single-192", "x86-2s-smt")}
    cases = [
        # name, env, CPUs, packages, {threads: expected first CPUs}, expected largest-where
        ("grace-2x72", {"HWLOC_SYNTHETIC": syn["grace-2x72"]}, 144, 2,
         {64: list(range(64)), 128: list(range(128))}, "pkg0: 72 cores, pkg1: 72 cores"),
        ("single-192", {"HWLOC_SYNTHETIC": syn["single-192"]}, 192, 1,
         {128: list(range(128))}, "pkg0: 192 cores"),
        # Linux numbers a 2-socket SMT x86 as 0-23 / 24-47 (cores), 48-71 / 72-95 (siblings):
        # cores of both packages come before any sibling.
        ("x86-2s-smt (synthetic)", {"HWLOC_SYNTHETIC": syn["x86-2s-smt"]}, 96, 2,
         {32: list(range(32)), 64: list(range(64))}, "pkg0: 24 cores + 24 SMT, pkg1: 24 cores + 24 SMT"),
        ("x86-2s-smt (XML)", {"HWLOC_XMLFILE": os.path.join(topo, "x86-2s-smt.xml")}, 96, 2,
         {32: list(range(32)), 64: list(range(64))}, "pkg0: 24 cores + 24 SMT, pkg1: 24 cores + 24 SMT"),
    ]
    for name, env, ncpu, npkg, firsts, where in cases:
        r = plan(a, env)
        check(r.returncode == 0, f"{name}: --plan exit {r.returncode}: {r.stderr.strip()}")
        if r.returncode:
            continue
        rows, est, big = parse(r.stdout)
        print(f"{name}: {len(rows)} planned rows, estimated {est} s, largest {big[0] if big else None}")
        check(est is not None and est < 180, f"{name}: default profile estimated {est} s, not under 3 min")
        check(big is not None and big[0] == ncpu and big[1] == list(range(ncpu)),
              f"{name}: largest thread count should be {ncpu} on CPUs 0-{ncpu - 1}: {big}")
        check(big is not None and big[2] == where, f"{name}: largest count placed {big and big[2]!r}, want {where!r}")
        counts = sorted(t for k, (t, _, _) in rows.items() if k.startswith("user/threads/noop/"))
        want = [1 << i for i in range(ncpu.bit_length()) if 1 << i < ncpu] + [ncpu]
        check(counts == want, f"{name}: default thread sweep {counts}, want {want}")
        for t, cpus in firsts.items():
            got = rows.get(f"user/threads/noop/t{t}")
            check(got is not None and got[1] == cpus, f"{name}: t={t} on {got and got[1][:8]}..., want {cpus[:8]}...")
        if "x86" in name:
            for t, w in ((32, "pkg0: 24 cores, pkg1: 8 cores"),
                         (64, "pkg0: 24 cores + 16 SMT, pkg1: 24 cores")):
                got = rows.get(f"user/threads/noop/t{t}")
                check(got is not None and got[2] == w,
                      f"{name}: {t} threads placed {got and got[2]!r}, want {w!r} (cores first)")
        xpkg = "user/remote-slots/" in r.stdout
        check(xpkg == (npkg > 1), f"{name}: cross-package rows {'missing' if npkg > 1 else 'listed'}")
        if npkg > 1:
            m = re.search(r"user/falseshare-xpkg-packed/\S+/t2\s+t=2\s+cpus (\d+),(\d+)", r.stdout)
            want_b = {"grace-2x72": 72}.get(name, 24)
            check(m is not None and (int(m.group(1)), int(m.group(2))) == (0, want_b),
                  f"{name}: cross-package pair should be CPUs 0,{want_b}: {m and m.groups()}")
        if name == "grace-2x72":
            r2 = plan(a, env, "--full")
            rows2, est2, _ = parse(r2.stdout)
            counts2 = sorted(t for k, (t, _, _) in rows2.items() if k.startswith("user/threads/noop/"))
            check(len(counts2) > len(counts) and counts2[:5] == [1, 2, 3, 4, 5],
                  f"--full: every count from 1: {counts2[:8]}")
            check(est2 is not None and est2 > est, f"--full estimate {est2} s not above default {est} s")

    # Bad topologies: one line on stderr, exit 2, nothing on stdout.
    bad = [
        ("missing XML", {"HWLOC_XMLFILE": os.path.join(topo, "no-such-file.xml")}),
        ("malformed XML", {"HWLOC_XMLFILE": os.path.join(topo, "broken.xml")}),
        ("inconsistent synthetic", {"HWLOC_SYNTHETIC": "package:2 core:zz pu:1"}),
    ]
    for name, env in bad:
        r = plan(a, env)
        lines = [l for l in r.stderr.splitlines() if l.strip()]
        check(r.returncode == 2, f"{name}: exit {r.returncode}, want 2")
        check(len(lines) == 1 and lines[0].startswith("rgbench: "), f"{name}: stderr {r.stderr!r}")
        check(r.stdout == "", f"{name}: stdout not empty")
    # The input policy: a topology file that is no regular file is refused before hwloc
    # reads it (a FIFO hung --plan, /dev/zero and /dev/urandom never ended).
    with rgtest.tempdir() as d:
        fifo = os.path.join(d, "topo.xml")
        os.mkfifo(fifo)
        for path, kind in ((fifo, "a FIFO"), ("/dev/zero", "a character device"),
                           ("/dev/urandom", "a character device")):
            r = plan(a, {"HWLOC_XMLFILE": path})
            check(r.returncode == 2 and r.stdout == "" and r.stderr ==
                  f"rgbench: HWLOC_XMLFILE={path}: not a regular file ({kind})\n",
                  f"HWLOC_XMLFILE={path}: exit {r.returncode} {r.stderr!r}")
    # A foreign topology is for --plan and --list only: a run refuses it.
    r = plan(a, {"HWLOC_SYNTHETIC": syn["grace-2x72"]}, "--scenarios", "pair")
    import subprocess
    env = dict(os.environ, HWLOC_SYNTHETIC=syn["grace-2x72"])
    r = subprocess.run(rgtest.command(a, "--scenarios", "pair", "--guards", "tls", "--out", "/dev/null/x.csv"),
                       capture_output=True, text=True, env=env, timeout=60)
    check(r.returncode == 2, f"a run on a foreign topology: exit {r.returncode}, want 2 ({r.stderr.strip()})")
    # --duration (the common word, with units) and its old spelling --min-time set the same chunk time.
    for words in (["--duration", "20ms"], ["--duration=0.02"], ["--min-time", "0.02"],
                  ["--min-time=20000us"], ["--benchmark_min_time=0.02"]):
        r = plan(a, {}, "--quick", "--scenarios", "pair", "--repetitions", "3", *words)
        check(r.returncode == 0 and re.search(r"^per benchmark: 1 run\(s\) \(fresh processes, address randomization .*\) x 3 round\(s\) x 0\.02 s;", r.stdout, re.M),
              f"--plan {' '.join(words)}: exit {r.returncode}, {r.stdout[:300]!r} {r.stderr!r}")
    # The plan is the whole run: the outputs it would write and the test switches it holds.
    r = plan(a, {}, "--quick", "--scenarios", "pair", "--out", "/tmp/x.csv", "--json")
    check(r.returncode == 0 and re.search(r"^outputs: /tmp/x\.csv, /tmp/x\.json$", r.stdout, re.M),
          f"--plan --out: outputs line: {r.stdout[-400:]!r}")
    r = plan(a, {}, "--quick", "--scenarios", "pair")
    check(re.search(r"^outputs: results/\S+-\d{8}T\d{6}Z\.csv, results/\S+-\d{8}T\d{6}Z\.json "
                    r"\(-2, -3, \.\.\. when taken at the start\)$", r.stdout, re.M) is not None and
          "test switches:" not in r.stdout, f"--plan: default outputs line: {r.stdout[-400:]!r}")
    # The CPU choice on a fake tree (RG_TEST_SYSFS_ROOT=dir: dir/sys/devices/system/cpu/isolated,
    # dir/proc/interrupts): an isolated CPU runs the single-thread rows; --cpus overrides.
    allowed = sorted(os.sched_getaffinity(0))
    with rgtest.tempdir() as d:
        os.makedirs(os.path.join(d, "sys/devices/system/cpu"))
        iso = allowed[-1]
        with open(os.path.join(d, "sys/devices/system/cpu/isolated"), "w") as f:
            f.write(f"{iso}\n")
        r = plan(a, {"RG_TEST_SYSFS_ROOT": d}, "--quick", "--scenarios", "pair")
        rows, _, _ = parse(r.stdout)
        got = rows.get("user/pair/noop/t1")
        if len(allowed) > 1:
            want = (f"cpu choice: isolated first ({iso}); then CPU 0 last, the others in topology "
                    "order (no /proc/interrupts)")
            check(r.returncode == 0 and want in r.stdout.splitlines() and got is not None and got[1] == [iso],
                  f"--plan, CPU {iso} isolated: exit {r.returncode}, row {got}, {r.stdout[:400]!r}")
        else:
            check(r.returncode == 0 and "cpu choice: the only CPU allowed" in r.stdout.splitlines(),
                  f"--plan, one CPU: {r.stdout[:400]!r}")
        r = plan(a, {"RG_TEST_SYSFS_ROOT": d}, "--quick", "--scenarios", "pair", "--cpus", str(allowed[0]))
        rows, _, _ = parse(r.stdout)
        got = rows.get("user/pair/noop/t1")
        check(r.returncode == 0 and "cpu choice: --cpus, in its order" in r.stdout.splitlines() and
              got is not None and got[1] == [allowed[0]], f"--plan --cpus {allowed[0]}: row {got}")
    r = plan(a, {"RG_TEST_DISTURB": "ref", "RG_TEST_XPKG": "1"}, "--quick", "--scenarios", "pair")
    check(re.search(r"^test switches: RG_TEST_DISTURB=ref RG_TEST_XPKG=1$", r.stdout, re.M) is not None,
          f"--plan: test switches line: {r.stdout[-400:]!r}")


if __name__ == "__main__":
    C.finish(main())
