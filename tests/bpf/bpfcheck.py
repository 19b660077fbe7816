# SPDX-License-Identifier: MIT
"""Helpers of the BPF bench tests (test_bpf.py): run the binary, root and bpf() checks, parse its CSV."""
import csv
import ctypes
import errno
import json
import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import rgtest  # noqa: E402

SKIP = 77
# The schema's columns, read from schema.h (rgtest.schema_columns): no copy to keep in step.
COLUMNS = rgtest.schema_columns(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))[1]

C = rgtest.Checker("test_bpf")
check = C.check


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


def ncpus():
    return len(os.sched_getaffinity(0))


def num(v):
    return None if v in ("n/a", "", None) else float(v)


def run_id_of(csv_path, json_path):
    with open(csv_path, newline="") as f:
        ids = {x["run_id"] for x in csv.DictReader(f)}
    with open(json_path) as f:
        jid = json.load(f)["run_id"]
    return ids, jid


def sigint_and_wait(p, late, sig=signal.SIGINT):
    """SIGINT (or sig) to p, then its (stdout, stderr); killed, and the check `late` fails, after 20 s."""
    p.send_signal(sig)
    try:
        return p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        out = p.communicate()
        check(False, late)
        return out


def case_main(cases):
    """A test script's main: sys.argv is BINARY CASE; runs cases['case_' + CASE](BINARY) under
    the name bpf_CASE. cases is the script's globals(). 0, or 2 on a usage error."""
    if len(sys.argv) != 3:
        print(cases.get("__doc__"))
        return 2
    b, case = sys.argv[1], sys.argv[2]
    fn = cases.get("case_" + case)
    if not fn:
        print(f"unknown case {case}")
        return 2
    C.name = "bpf." + case
    fn(b)
    return 0
