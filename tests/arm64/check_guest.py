#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks what the arm64 guest (qemu-system-aarch64 -cpu max, Debian's kernel) wrote: counts, statuses, filled columns.

Usage: check_guest.py OUT_DIR TRIGGERS PRODUCERS [GUARDS_DEF]
GUARDS_DEF (default: the tree's guards.def) gives the guards the pair check expects: no list is kept here.
Never a timing: under TCG they are qemu's.
"""
import csv
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import rgtest  # noqa: E402

# A user row that was timed: ok, or noisy (some rounds stayed disturbed; common under TCG).
MEASURED = ("ok", "noisy")

C = rgtest.Checker("check_guest", listing=True)
check, read = C.check, rgtest.read_text
ATTACH = ("fentry", "fexit", "fmod_ret", "kprobe", "tp", "raw_tp", "tp_btf")
ERRNO_REASON = re.compile(r"^E[A-Z0-9]+: \S+")
GUARDS_DEF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "guards", "include", "rg",
                          "guards.def")


def guard_arches(path):
    """(names that run on arm64, x86-only names) from a guards.def's RG_GUARD lines."""
    arch = dict(re.findall(r'^RG_GUARD\(\w+, "([^"]+)", (RG_ON_\w+),', open(path).read(), re.M))
    return (sorted(g for g, a in arch.items() if a in ("RG_ON_ANY", "RG_ON_AARCH64")),
            sorted(g for g, a in arch.items() if a == "RG_ON_X86_64"))


def check_pair(user, guards_def):
    """Every guard of guards.def that runs on arm64 measured in the pair scenario; the x86-only
    ones present and skipped, saying so."""
    on_arm64, x86_only = guard_arches(guards_def)
    check(len(on_arm64) >= 10 and len(x86_only) >= 1, f"guards.def read: {len(on_arm64)} arm64 guards, "
          f"{len(x86_only)} x86-only ({guards_def})")
    for g in on_arm64:
        rs = [r for r in user if r["guard"] == g and r["scenario"] == "pair"]
        check(len(rs) > 0 and all(r["status"] in MEASURED for r in rs), f"{g}/pair measured")
    for g in x86_only:
        rs = [r for r in user if r["guard"] == g]
        check(len(rs) > 0 and all(r["status"] == "skipped" and "x86" in r["reason"] for r in rs),
              f"x86-only {g}: {len(rs)} rows, skipped, saying so")


def rows_of(path):
    try:
        with open(path, newline="") as f:
            return list(csv.DictReader(f))
    except OSError:
        return []


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def check_user(out, guards_def):
    check(read(f"{out}/rc_user").strip() == "0", "rgbench --quick exited 0")
    err = read(f"{out}/user.err")
    warn = [line for line in err.splitlines() if line.startswith("rgbench: WARNING: emulated (qemu-tcg) CPU")]
    check(len(warn) == 1, f"one emulation warning line on stderr (got {len(warn)})")
    rows = rows_of(f"{out}/user.csv")
    release = read(f"{out}/release").strip()
    check(len(rows) > 0, f"user run wrote {len(rows)} rows")
    check(all(r["arch"] == "aarch64" and r["kernel"] == release for r in rows),
          f"every row: aarch64, guest kernel {release}")
    check(all(r["virt"] == "emulated (qemu-tcg)" for r in rows), "every row: virt emulated (qemu-tcg)")
    check(all(r["rseq"] == "1" and r["lse"] == "1" for r in rows), "every row: rseq 1, lse 1 (-cpu max)")
    user = [r for r in rows if r["suite"] == "user"]
    for g in ("rseq", "rctx"):
        rs = [r for r in user if r["guard"] == g]
        # measured: ok, or noisy (timed, some rounds disturbed: likely under TCG)
        check(len(rs) > 0 and all(r["status"] in MEASURED and int(r["ops"]) > 0 for r in rs),
              f"{g}: {len(rs)} rows, all measured ({sorted({r['scenario'] for r in rs})}; "
              f"{sorted({r['status'] + ': ' + r['reason'] for r in rs if r['status'] not in MEASURED})})")
    check_pair(user, guards_def)
    # Counters: qemu's PMUv3 counts cycles, and instructions with -icount; the discovery
    # must find armv8_pmuv3 in sysfs and say which events it offers or why none.
    measured = [r for r in user if r["status"] in MEASURED]
    # Boot A (no -icount): qemu's PMU lacks inst_retired; whatever is not counted, the row says why.
    said = [r for r in measured if (num(r["cycles_per_pair"]) is not None) == (r["counters"] == "perf")
            and (r["counters"] == "perf" or r["counters"].startswith("n/a: "))]
    check(len(measured) > 0 and len(said) == len(measured),
          f"boot A: counters filled or n/a with the reason in every measured row: "
          f"{sorted({r['counters'] for r in measured})}")
    # latency rows time batches with the counter register, not the PMU (their events say so)
    events = sorted({r["events"] for r in measured if r["scenario"] != "latency"})
    check(all(e.startswith("n/a: PMU armv8_pmuv3") or (not e.startswith("n/a") and "=" in e) for e in events),
          f"events: filled, or n/a naming the armv8_pmuv3 PMU found in sysfs: {events[:2]}")
    bpf = [r for r in rows if r["suite"] == "bpf"]
    check(len(bpf) > 0 and any(r["status"] == "ok" for r in bpf),
          f"default run as root: {len(bpf)} BPF rows, {sum(r['status'] == 'ok' for r in bpf)} ok")


def check_icount(out):
    """Boot C (-icount): qemu's PMU counts instructions too, so both columns are filled."""
    check(read(f"{out}/rc_icount").strip() == "0", "boot C: rgbench --quick --scenarios pair exited 0")
    rows = [r for r in rows_of(f"{out}/icount.csv") if r["suite"] == "user" and r["status"] in MEASURED]
    full = [r for r in rows if (num(r["cycles_per_pair"]) or 0) > 0 and (num(r["instructions_per_pair"]) or 0) > 0]
    check(len(rows) > 0 and len(full) == len(rows),
          f"boot C: cycles_per_pair and instructions_per_pair filled in {len(full)}/{len(rows)} rows "
          f"(counters: {sorted({r['counters'] for r in rows})})")
    for g in ("rseq", "rctx"):
        check(any(r["guard"] == g for r in full), f"boot C: {g}/pair counted")


def check_bpf(out, n, p):
    check(read(f"{out}/rc_bpf").strip() == "0", "rgbench bpf --mode all exited 0")
    rows = {(r["guard"], r["scenario"]): r for r in rows_of(f"{out}/bpf.csv")}
    for (g, s), r in sorted(rows.items()):
        print(f"     {g:13} {s:8} {r['status']:8} hits={r['ops']:>6} misses={r['refusals']:>6} {r['reason']}")
    for g in ATTACH:
        for s in ("syscall", "driver", "recurse"):
            r = rows.get((g, s))
            if r is None:
                check(s == "recurse", f"{g}/{s}: a row")  # recurse: only types that can re-trigger
                continue
            if r["status"] != "ok":
                check(r["status"] == "skipped" and ERRNO_REASON.match(r["reason"]) is not None,
                      f"{g}/{s}: skipped with the errno and its meaning ({r['reason']})")
                continue
            misses = n * p if s == "recurse" and g != "kprobe" else 0
            check(int(r["ops"]) == n * p and int(r["refusals"]) == misses,
                  f"{g}/{s}: hits {r['ops']} misses {r['refusals']}, want {n * p} and {misses}")
    # What Debian 12's 6.1 arm64 kernel allows: kprobes and the syscall tracepoints on the
    # arm64 JIT. It refuses fentry/fexit/fmod_ret on kernel functions (arm64 trampolines for
    # them need ftrace direct calls, 6.5+) and has no kfunc trigger for the driver-mode
    # tracepoints (6.10+): those rows must be skipped with the errno, checked above.
    must = [("kprobe", "syscall"), ("tp", "syscall"), ("raw_tp", "syscall"), ("tp_btf", "syscall"),
            ("kprobe", "driver"), ("kprobe", "recurse")]
    for g, s in must:
        r = rows.get((g, s))
        check(r is not None and r["status"] == "ok", f"{g}/{s} runs on the arm64 guest")
    rec = [f"{g}" for (g, s), r in rows.items() if s == "recurse" and r["status"] == "ok"
           and g in ATTACH and g != "kprobe"]
    print(f"     attach types whose recursion misses were counted: {rec or 'none on this kernel'}")
    ok = sorted(f"{g}/{s}" for (g, s), r in rows.items() if r["status"] == "ok" and g in ATTACH)
    print(f"     attach types counted exactly: {len(ok)}: {' '.join(ok)}")


def check_stress(out):
    every = read(f"{out}/stress_all.txt")
    check(read(f"{out}/rc_stress_all").strip() == "0",
          "test_stress, every guard: exited 0 (every exactness check held)")
    ran = set(re.findall(r"^pinned +(\S+) +attempts", every, re.M))
    check(len(ran) >= 10 and {"rseq", "rctx", "pcpu-ldadd", "pcpu-llsc"} <= ran and "racy-percpu" not in ran,
          f"test_stress, every guard but the racy control: {len(ran)} ran pinned ({' '.join(sorted(ran))})")
    txt = read(f"{out}/stress.txt")
    check(read(f"{out}/rc_stress").strip() == "0", "test_stress, the rseq guards: exited 0 (every exactness check held)")
    for g in ("rseq", "rctx"):
        for mode in ("pinned", "oversub", "oversub-loop"):
            m = re.search(rf"^{mode} +{g} +attempts +(\d+) grants +(\d+) refused +(\d+) \| signals +(\d+)"
                          rf" granted +(\d+) refused +(\d+) \| double-grants (\d+) lost (\S+) counters!=0 (\d+)",
                          txt, re.M)
            check(m is not None and m.group(7) == "0" and m.group(8) in ("0", "n/a") and m.group(9) == "0"
                  and int(m.group(1)) == int(m.group(2)) + int(m.group(3)),
                  f"stress {mode} {g}: exact under a signal storm ({m.group(0) if m else 'no line'})")
    check(re.search(r"^negative control racy-percpu .*FAILED AS IT MUST", txt, re.M) is not None,
          "stress: the racy-percpu control lost counts")


def check_migrate(out):
    txt = read(f"{out}/migrate.txt")
    check(read(f"{out}/rc_migrate").strip() == "0", "test_migrate exited 0")
    for g in ("rseq", "rctx"):
        m = re.search(rf"^migrate {g} +attempts +(\d+) .* slot sum (-?\d+) \| moves (\d+) migrations (\d+) "
                      rf"cpu changes seen (\d+) rseq aborts (\d+)$", txt, re.M)
        check(m is not None and m.group(2) == "0" and int(m.group(4)) > 0 and int(m.group(6)) > 0,
              f"migrate {g}: slots sum to 0 with migrations and rseq aborts counted by the kernel "
              f"({m.group(0) if m else 'no line'})")
    check("LOST COUNTS AS IT MUST" in txt, "migrate: the racy-percpu control lost counts")


def main():
    out, n, p = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    guards_def = sys.argv[4] if len(sys.argv) > 4 else GUARDS_DEF
    print(f"guest kernel {read(out + '/release').strip()}, PMUs: {' '.join(read(out + '/pmus').split())}")
    check_user(out, guards_def)
    check_bpf(out, n, p)
    check_stress(out)
    check_icount(out)
    check_migrate(out)


if __name__ == "__main__":
    C.finish(main())
