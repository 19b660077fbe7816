#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks what the README's two commands left in a pristine Debian amd64 system (tests/arm64/native.sh with RG_ROOTFS_PRISTINE=1).

Usage: check.py ROOT_HOME DEBIAN_VERSION   (the chroot's /root: run.log, test.log, rc_*, rgbench/)
"""
import csv
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import rgtest  # noqa: E402

C = rgtest.Checker("distro.check", listing=True)
check, read = C.check, rgtest.read_text

# What each release's packages give: its kernel source tarball (libperf is built from it)
# and its Google Benchmark API (cmake/gbench_api.cmake).
RELEASES = {
    "12": ("linux-source-6.1.tar.xz", "Run::error_occurred/error_message"),
    "13": ("linux-source-6.12.tar.xz", "Run::skipped/skip_message"),
}


def main():
    home, ver = sys.argv[1], sys.argv[2]
    tarball, gb_api = RELEASES[ver]
    run, test = read(f"{home}/run.log"), read(f"{home}/test.log")
    check(read(f"{home}/rc_run").strip() == "0", "scripts/run.sh --quick exited 0")
    check(read(f"{home}/rc_test").strip() == "0", "scripts/test.sh exited 0")
    # A pristine system: run.sh's deps.sh installed what running needs, test.sh's the rest
    # (the cross build, the VM and fleet tests' packages).
    check(re.search(r"^rgbench deps: installing for run \(apt, amd64\) ", run, re.M) is not None,
          "run.sh: deps.sh installed the run packages with apt")
    check(re.search(r"^rgbench deps: done$", run, re.M) is not None, "run.sh: deps.sh done")
    m = re.search(r"^rgbench deps: installing for test \(apt, amd64\) (.*)$", test, re.M)
    check(m is not None and "qemu-system-x86" in m.group(1).split() and "python3" not in m.group(1).split(),
          "test.sh: deps.sh installed the test packages run.sh left out, not the run ones again")
    for log, name in ((run, "run.sh"), (test, "test.sh")):
        check(re.search(rf"^-- rgbench: libperf built from /usr/src/{re.escape(tarball)} ", log, re.M)
              is not None, f"{name}: configure log says libperf is built from {tarball}")
        check(re.search(rf"^-- rgbench: Google Benchmark [0-9.]+: {re.escape(gb_api)} ", log, re.M)
              is not None, f"{name}: Google Benchmark API {gb_api}")
    check("built without libperf" not in run + test, "nothing built without libperf")
    check(glob.glob(f"{home}/rgbench/build/libperf-src/*/tools/lib/perf/libperf.a") != [],
          "libperf.a built in the build tree")

    csvs = sorted(glob.glob(f"{home}/rgbench/results/*.csv"))
    check(len(csvs) == 1, f"one result file in results/ ({csvs})")
    rows = list(csv.DictReader(open(csvs[0], newline=""))) if csvs else []
    check(len(rows) > 0, f"{len(rows)} rows")
    check(all(r["arch"] == "x86_64" for r in rows), "every row: arch x86_64")
    user = [r for r in rows if r["suite"] == "user"]
    for g in ("noop", "tls", "pcpu-xadd", "rseq", "racy-percpu"):
        # "noisy": measured, but the machine disturbed it (a shared VM); still a measurement.
        check(any(r["guard"] == g and r["status"] in ("ok", "noisy") for r in user),
              f"{g}: measured (status ok or noisy)")
    check(glob.glob(f"{home}/rgbench/results/*-plots/*.png") != [], "plots drawn")
    check(glob.glob(f"{home}/rgbench/results/*.md") != [], "report written")

    check("== native build (x86_64)" in test, "test.sh: native x86_64 build")
    check("== all tests passed" in test, "test.sh: all tests passed")
    if "== all tests passed" not in test:
        # test.sh ends a failed stage with which tests failed and their failure lines: say why.
        print("test.sh's last lines:\n" + "\n".join(test.splitlines()[-40:]))
    sums = re.findall(r"\d+% tests passed, (\d+) tests failed out of (\d+)", test)
    check(sums != [] and all(f == "0" for f, _ in sums), f"ctest summaries, failed/total: {sums}")


if __name__ == "__main__":
    C.finish(main())
