#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks what the README's two commands left in the emulated Debian arm64 system: statuses and skips only.

Usage: check_native.py ROOT_HOME   (the chroot's /root: run.log, test.log, rc_*, rgbench/)
"""
import csv
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import rgtest  # noqa: E402

C = rgtest.Checker("check_native", listing=True)
check, read = C.check, rgtest.read_text


def main():
    home = sys.argv[1]
    run, test = read(f"{home}/run.log"), read(f"{home}/test.log")
    check(read(f"{home}/rc_run").strip() == "0", "scripts/run.sh --quick exited 0")
    check(read(f"{home}/rc_test").strip() == "0", "scripts/test.sh exited 0")
    # deps.sh found the arm64 set installed: no cross toolchain, no qemu-user, no network.
    check(re.search(r"^rgbench deps: all \d+ packages for run present \(arm64\)$", run, re.M) is not None,
          "deps.sh: every arm64 package present (the arm64 list, not amd64's)")
    warn = [line for line in run.splitlines() if line.startswith("rgbench: WARNING: emulated (qemu-user) CPU")]
    check(len(warn) == 1, f"one emulation warning line (got {len(warn)})")

    csvs = sorted(glob.glob(f"{home}/rgbench/results/*.csv"))
    check(len(csvs) == 1, f"one result file in results/ ({csvs})")
    rows = list(csv.DictReader(open(csvs[0], newline=""))) if csvs else []
    check(len(rows) > 0, f"{len(rows)} rows")
    check(all(r["arch"] == "aarch64" for r in rows), "every row: arch aarch64")
    check(all(r["virt"] == "emulated (qemu-user)" for r in rows), "every row: virt emulated (qemu-user)")
    user = [r for r in rows if r["suite"] == "user"]
    for g in ("rseq", "rctx"):
        rs = [r for r in user if r["guard"] == g]
        check(rs and all(r["status"] == "skipped" and "rseq" in r["reason"] for r in rs),
              f"{g}: every row skipped, saying rseq is missing ({rs[0]['reason'] if rs else 'no rows'})")
    for g in ("noop", "tls", "pcpu-stadd", "pcpu-llsc", "racy-percpu"):
        check(any(r["guard"] == g and r["status"] == "ok" for r in user), f"{g}: measured (status ok)")
    check(all(r["status"] == "skipped" for r in user if r["guard"] in ("pcpu-xadd", "pcpu-lock-xadd")),
          "x86-only guards skipped")
    bpf = [r for r in rows if r["suite"] == "bpf" and r["guard"] != "user-count"]  # user-count: no BPF
    # No bpf() in qemu-user (ENOSYS); fentry-style rows stop earlier: the host's BTF has no
    # arm64 syscall function to attach to (ESRCH).
    check(len(bpf) > 0 and all(r["status"] == "skipped" and re.match(r"^E(NOSYS|SRCH): ", r["reason"])
                               for r in bpf),
          f"BPF rows: all {len(bpf)} skipped with their reason: "
          f"{sorted({r['reason'].split(':')[0] for r in bpf})}")
    check(all(r["counters"].startswith("n/a") for r in user), "counters n/a (no perf_event_open)")
    check(os.path.isfile(f"{home}/rgbench/build/kernel/trig/trig.skel.h"),
          "BPF skeletons built natively on arm64 (build/kernel/trig/trig.skel.h)")
    check(os.path.isdir(f"{home}/rgbench/results") and glob.glob(f"{home}/rgbench/results/*-plots/*.png"),
          "plots drawn")

    check("== native build (aarch64)" in test, "test.sh: native aarch64 build")
    check("aarch64 cross build" not in test, "test.sh: no cross build on arm64")
    check("== all tests passed" in test, "test.sh: all tests passed")
    if "== all tests passed" not in test:
        # test.sh ends a failed stage with which tests failed and their failure lines: say why.
        print("test.sh's last lines:\n" + "\n".join(test.splitlines()[-40:]))
    m = re.search(r"(\d+)% tests passed, (\d+) tests failed out of (\d+)", test)
    check(m is not None and m.group(2) == "0", f"ctest summary: {m.group(0) if m else 'missing'}")
    skipped = re.findall(r"Test +#\d+: (\S+) \.+\*+Skipped", test)
    # Each skipped test's reason, from ctest's log of the native build.
    log = read(f"{home}/rgbench/build/Testing/Temporary/LastTest.log")
    reasons = {}
    for m in re.finditer(r"^\d+/\d+ Test: (\S+)\n(.*?)(?=^\d+/\d+ Test: |\Z)", log, re.M | re.S):
        why = re.findall(r"^.*SKIP.*$", m.group(2), re.M)
        if why:
            reasons[m.group(1)] = why[-1].strip()
    print(f"skipped under qemu-user ({len(skipped)}):")
    for t in skipped:
        print(f"  {t}: {reasons.get(t, '(no reason printed)')}")
        check(t in reasons, f"{t}: skipped with a reason")
    # Emulators inside the emulated system: such tests skip instead of starting qemu-system.
    for t in ("vm.selftest",):
        if re.search(rf"Test +#\d+: {t} ", test):
            check(t in skipped and "user-mode emulation" in reasons.get(t, ""),
                  f"{t} skipped: no qemu-system inside qemu-user")


if __name__ == "__main__":
    C.finish(main())
