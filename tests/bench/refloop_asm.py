#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The cycle reference's loop (bench/refloop.c, rg_ref_chain) is what docs/bench.md says: no call,
16 adds of one register (holding 1, not an immediate) into another, one counter decrement and
one backward branch.

usage: refloop_asm.py OBJDUMP LIBRG_BENCH
"""
import re
import subprocess
import sys


def main():
    objdump, lib = sys.argv[1], sys.argv[2]
    out = subprocess.run([objdump, "-d", "--no-show-raw-insn", lib], capture_output=True, text=True,
                         check=True).stdout
    body, on = [], False
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if m:
            on = m.group(1) == "rg_ref_chain"
            continue
        m = re.match(r"^\s*[0-9a-f]+:\s+(\S+)\s*(.*)$", line)
        if on and m:
            body.append((m.group(1), m.group(2).split("//")[0].strip()))
    fails = []
    if not body:
        fails.append("rg_ref_chain not found")
    mn = [x[0] for x in body]
    if any(x.startswith(("call", "bl", "blr", "br")) and x not in ("b.ne",) for x in mn):
        fails.append(f"a call in rg_ref_chain: {mn}")
    # x86-64: add %src,%dst ; arm64: add xD, xD, xS (a register: Golden Cove+ folds add $imm chains)
    pairs = []
    for m_, ops in body:
        m = re.match(r"%(\w+),%(\w+)$", ops) if m_ == "add" else None
        if m:
            pairs.append((m.group(1), m.group(2)))
        m = re.match(r"(x\d+), \1, (x\d+)$", ops) if m_ == "add" else None
        if m:
            pairs.append((m.group(2), m.group(1)))
    imm = [ops for m_, ops in body if m_ == "add" and ("$" in ops or "#" in ops)]
    regs = {d for _, d in pairs}
    srcs = {s_ for s_, _ in pairs}
    if len(pairs) != 16 or len(regs) != 1 or len(srcs) != 1 or regs == srcs or imm:
        fails.append(f"want 16 adds of one register into another, got {len(pairs)} {pairs[:2]} "
                     f"(immediate adds: {imm})")
    if not (("dec" in mn and "jne" in mn) or ("subs" in mn and "b.ne" in mn)):
        fails.append(f"no counter decrement and backward branch: {mn}")
    for f in fails:
        print("FAIL:", f)
    if not fails:
        print(f"refloop_asm: 16 dependent adds into {regs.pop()}, no call")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
