#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Pin each vCPU thread of a starting qemu to its own host CPU, through qemu's QMP socket
(query-cpus-fast gives each vCPU's thread id): vCPU i to the i-th CPU of the list.

  pin_vcpus.py QMP_SOCKET CPULIST STATUS_FILE
Writes "ok vcpu0=C0 vcpu1=C1 ..." or "fail WHY" to STATUS_FILE; exit 0 / 1."""
import json
import os
import socket
import sys
import time


def cpus(spec):
    out = []
    for part in spec.split(","):
        lo, _, hi = part.partition("-")
        out += list(range(int(lo), int(hi or lo) + 1))
    return out


def main():
    path, spec, status = sys.argv[1:4]
    want = cpus(spec)
    s = None
    for _ in range(300):          # the socket appears as qemu starts (30 s at most)
        try:
            s = socket.socket(socket.AF_UNIX)
            s.connect(path)
            break
        except OSError:
            s = None
            time.sleep(0.1)
    if s is None:
        open(status, "w").write("fail no QMP socket\n")
        return 1
    f = s.makefile("rw")

    def cmd(c):
        f.write(json.dumps({"execute": c}) + "\n")
        f.flush()
        while True:
            m = json.loads(f.readline())
            if "return" in m or "error" in m:
                return m

    json.loads(f.readline())      # the greeting
    cmd("qmp_capabilities")
    r = cmd("query-cpus-fast")
    if "error" in r:
        open(status, "w").write("fail query-cpus-fast: %s\n" % r["error"].get("desc", "?"))
        return 1
    done = []
    for v in r["return"]:
        i, tid = v["cpu-index"], v["thread-id"]
        if i >= len(want):
            open(status, "w").write(f"fail {len(r['return'])} vCPUs, {len(want)} CPUs to pin them to\n")
            return 1
        try:
            os.sched_setaffinity(tid, {want[i]})
        except OSError as e:
            open(status, "w").write(f"fail vCPU {i} (thread {tid}) to CPU {want[i]}: {e.strerror}\n")
            return 1
        done.append(f"vcpu{i}={want[i]}")
    open(status, "w").write("ok " + " ".join(done) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
