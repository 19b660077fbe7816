#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Functional tests of the BPF trigger bench: exact counts, recursion misses, skips, privilege, schema.

Usage: test_bpf.py BINARY CASE   (CASE: list, badargs, nonroot, exact, recurse, output)
Exit 0 pass, 1 fail, 77 skip (not root, or the case cannot run here).
"""
import csv
import ctypes
import errno
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
BASELINES = {"base", "user-count", "driver-empty", "driver-kfunc", "driver-count"}
ATTACH = ["fentry", "fexit", "fmod_ret", "kprobe", "tp", "raw_tp", "tp_btf"]
# A skipped row's reason starts with the errno's name, then what it means.
SKIP_REASON = re.compile(r"^E[A-Z0-9]+: \S+ .+")
COLUMNS = ("schema_version rgbench_version run_id timestamp host arch cpu_vendor cpu_model "
           "cpu_part kernel virt lse rseq preempt pinning cpus suite guard role scenario threads "
           "batch duty_ns repetitions ns_median ns_mean ns_stddev ns_min ns_max ns_cv baseline "
           "interleave delta_ns delta_ci_lo delta_ci_hi cpu_ns_median wall_ns_median discarded "
           "lat_p50_ns lat_p90_ns lat_p99_ns lat_p999_ns lat_max_ns mops_median mops_mean "
           "mops_stddev mops_per_thread cycles_per_pair instructions_per_pair events counters "
           "refusals ops status reason").split()

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(binary, *args, **kw):
    p = subprocess.run([binary, *args], capture_output=True, text=True, timeout=120, **kw)
    sys.stdout.write(p.stdout)
    sys.stderr.write(p.stderr)
    return p


def need_root():
    if os.geteuid() != 0:
        print("SKIP: needs root (loads BPF programs)")
        sys.exit(SKIP)
    # qemu-user (tests/arm64's Debian arm64 system) has no bpf(): nothing to load.
    nr = {"x86_64": 321, "aarch64": 280}.get(os.uname().machine)
    libc = ctypes.CDLL(None, use_errno=True)
    if nr and libc.syscall(nr, -1, None, 0) == -1 and ctypes.get_errno() == errno.ENOSYS:
        print("SKIP: the bpf() system call is not implemented here (ENOSYS: user-mode emulation?)")
        sys.exit(SKIP)


def read_csv(path):
    with open(path, newline="") as f:
        r = csv.DictReader(f)
        check(r.fieldnames == COLUMNS, f"CSV header is the schema's column list: {r.fieldnames}")
        return list(r)


def ok_attach(rows):
    return [r for r in rows if r["status"] == "ok" and r["guard"] not in BASELINES]


def check_skips(rows):
    for r in rows:
        if r["status"] == "skipped":
            check(SKIP_REASON.match(r["reason"]) is not None,
                  f"{r['guard']}/{r['scenario']} skipped with an errno reason: {r['reason']!r}")
        else:
            check(r["status"] == "ok", f"{r['guard']}/{r['scenario']} status ok: {r['status']}")


def case_list(b):
    p = run(b, "--list")
    check(p.returncode == 0, "--list exits 0")
    names = [line.split()[0] for line in p.stdout.splitlines()[1:]]
    check(set(names) == BASELINES | set(ATTACH), f"--list names every variant: {names}")


def case_badargs(b):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "x.csv")
        for args in (["--attach", "nope"], ["--mode", "sideways"], ["--batch", "0"],
                     ["--batch", "1001"], ["--count", "sometimes"], ["-p", "0"],
                     ["--duration", "abc"], ["--mode", "driver", "--triggers", "150"],
                     ["--frobnicate"], ["stray"]):
            p = run(b, *args, "--out", out)
            check(p.returncode == 1, f"{args}: exit 1 (got {p.returncode})")
            lines = p.stderr.strip().splitlines()
            check(len(lines) == 1 and lines[0].startswith("rgbench bpf: "),
                  f"{args}: one clear error line: {lines}")
            check(not os.listdir(d), f"{args}: no output file left behind")


def case_nonroot(b):
    need_root()
    setpriv = shutil.which("setpriv")
    if not setpriv:
        print("SKIP: setpriv (util-linux) not found")
        sys.exit(SKIP)
    with tempfile.TemporaryDirectory() as d:
        os.chmod(d, 0o777)
        out = os.path.join(d, "x.csv")
        p = subprocess.run([setpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
                            "--inh-caps=-all", b, "--mode", "driver", "--duration", "0.2",
                            "--out", out], capture_output=True, text=True, timeout=60)
        sys.stderr.write(p.stderr)
        check(p.returncode == 2, f"not root: exit 2 (got {p.returncode})")
        lines = p.stderr.strip().splitlines()
        check(len(lines) == 1 and "CAP_BPF" in lines[0] and "CAP_PERFMON" in lines[0]
              and "root" in lines[0], f"not root: one message naming what is needed: {lines}")
        check(not os.path.exists(out), "not root: no output file")
        # --list needs no privilege.
        p = subprocess.run([setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", b,
                            "--list"], capture_output=True, text=True, timeout=60)
        check(p.returncode == 0, "not root: --list still works")


def case_exact(b):
    """N triggers per producer give exactly N*p hits, for both count methods and both modes."""
    need_root()
    n, p = 20000, 2
    with tempfile.TemporaryDirectory() as d:
        for count in ("percpu", "atomic"):
            out = os.path.join(d, f"{count}.csv")
            r = run(b, "--mode", "syscall,driver", "--triggers", str(n), "-p", str(p),
                    "--batch", "100", "--count", count, "--out", out)
            check(r.returncode == 0, f"exact/{count}: exit 0 (got {r.returncode})")
            if r.returncode:
                continue
            rows = read_csv(out)
            check_skips(rows)
            for mode in ("syscall", "driver"):
                seen = {x["guard"] for x in rows if x["scenario"] == mode}
                want = {g for g in ATTACH}
                check(want <= seen, f"exact/{count}/{mode}: a row for every attach type: {seen}")
                ok = [x for x in ok_attach(rows) if x["scenario"] == mode]
                check(len(ok) >= 1, f"exact/{count}/{mode}: at least one attach type runs here")
            for x in rows:
                if x["status"] != "ok":
                    continue
                check(int(x["ops"]) == n * p,
                      f"exact/{count}/{x['guard']}/{x['scenario']}: hits {x['ops']} == {n * p}")
                check(int(x["refusals"]) == 0,
                      f"exact/{count}/{x['guard']}/{x['scenario']}: no recursion misses")
                check(int(x["threads"]) == p, f"exact/{x['guard']}: threads == {p}")


def case_recurse(b):
    """Recurse mode: every hit re-triggers its own hook once, which the guard refuses once."""
    need_root()
    n, p = 10000, 2
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "r.csv")
        r = run(b, "--recurse", "--triggers", str(n), "-p", str(p), "--batch", "50", "--out", out)
        check(r.returncode == 0, f"recurse: exit 0 (got {r.returncode})")
        if r.returncode:
            return
        rows = read_csv(out)
        check_skips(rows)
        check(all(x["scenario"] == "recurse" for x in rows), "recurse: every row is scenario recurse")
        ok = ok_attach(rows)
        check(len(ok) >= 1, "recurse: at least one attach type runs here")
        for x in ok:
            if x["guard"] == "kprobe":
                # kprobes refuse nested hits in the kprobe layer (kprobe nmissed), before
                # the program's own guard: the program sees no re-entry to count.
                continue
            check(int(x["ops"]) == n * p, f"recurse/{x['guard']}: hits {x['ops']} == {n * p}")
            check(int(x["refusals"]) == n * p,
                  f"recurse/{x['guard']}: one miss per nested trigger: {x['refusals']} == {n * p}")


def num(v):
    return None if v in ("n/a", "", None) else float(v)


def case_output(b):
    """A short timed run of every mode; CSV and JSON parse back in the schema and agree."""
    need_root()
    with tempfile.TemporaryDirectory() as d:
        c, j = os.path.join(d, "o.csv"), os.path.join(d, "o.json")
        r = run(b, "--mode", "all", "--duration", "0.3", "--warmup", "0.1", "--out", c, "--json", j)
        check(r.returncode == 0, f"output: exit 0 (got {r.returncode})")
        if r.returncode:
            return
        rows = read_csv(c)
        with open(j) as f:
            doc = json.load(f)
        check(doc.get("schema_version") == 3, "JSON schema_version 3")
        jrows = doc.get("results", [])
        check(len(jrows) == len(rows), f"JSON and CSV have the same rows ({len(jrows)}/{len(rows)})")
        check_skips(rows)
        for x, y in zip(rows, jrows):
            tag = f"{x['guard']}/{x['scenario']}"
            check(x["suite"] == "bpf" and y["suite"] == "bpf", f"{tag}: suite bpf")
            check(x["scenario"] in ("syscall", "driver", "recurse"), f"{tag}: scenario is a mode")
            check(list(y.keys())[:len(COLUMNS)] == COLUMNS, f"{tag}: JSON keys in schema order")
            check((x["guard"], x["scenario"], x["status"], int(x["ops"])) ==
                  (y["guard"], y["scenario"], y["status"], y["ops"]), f"{tag}: CSV == JSON")
            if x["status"] != "ok":
                continue
            check(int(x["ops"]) > 0, f"{tag}: counted events")
            check(num(x["mops_mean"]) and num(x["mops_mean"]) > 0, f"{tag}: M/s > 0")
            check(len(y["samples_mops"]) == int(x["repetitions"]) >= 1, f"{tag}: samples kept")
            if x["guard"] in BASELINES:
                check(num(x["ns_mean"]) is None, f"{tag}: baseline has no ns over baseline")
            else:
                check(num(x["ns_mean"]) is not None, f"{tag}: ns per event over baseline")
            check(int(x["batch"]) == (1 if x["scenario"] == "syscall" else 100), f"{tag}: batch")
        rec = [x for x in ok_attach(rows) if x["scenario"] == "recurse" and x["guard"] != "kprobe"]
        for x in rec:
            check(int(x["refusals"]) > 0, f"{x['guard']}/recurse: misses counted in a timed run")


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    b, case = sys.argv[1], sys.argv[2]
    fn = globals().get("case_" + case)
    if not fn:
        print(f"unknown case {case}")
        return 2
    fn(b)
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
