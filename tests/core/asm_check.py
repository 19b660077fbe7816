#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Disassemble static libraries and fail if a measured loop function (rg_loop_*) contains a call.

usage: asm_check.py OBJDUMP LIB --expect-functions N
       asm_check.py OBJDUMP BADLIB --expect-violations NAME[,NAME...]   (self-check)

A call is: x86 call/callq, an indirect jmp (jmp *...), or a jmp/b carrying a
relocation to another symbol (a tail call); arm64 bl (incl. bl __aarch64_*
outline atomics), blr/blraa..., br, or b with a JUMP26/CALL26 relocation.
"""
import re
import subprocess
import sys

FUNC = re.compile(r"^[0-9a-f]+ <([^>]+)>:$")
INSN = re.compile(r"^\s*[0-9a-f]+:\s+(\S+)\s*(.*)$")
RELOC = re.compile(r"^\s*[0-9a-f]+:\s+(R_\S+)\s+(\S+)")
CALL_MNEMONICS = {"call", "callq", "bl", "blr", "br", "blraa", "blraaz", "blrab", "blrabz",
                  "braa", "braaz", "brab", "brabz"}
JUMP_RELOCS = ("R_AARCH64_CALL26", "R_AARCH64_JUMP26", "R_X86_64_PLT32", "R_X86_64_PC32")


def scan(objdump, lib):
    out = subprocess.run([objdump, "-dr", "--no-show-raw-insn", lib], check=True,
                         capture_output=True, text=True).stdout
    funcs, bad = {}, {}
    cur, last_mn = None, None
    for line in out.splitlines():
        m = FUNC.match(line)
        if m:
            cur = m.group(1)
            funcs[cur] = 0
            last_mn = None
            continue
        if cur is None or not cur.startswith("rg_loop_"):
            continue
        r = RELOC.match(line)
        if r:
            # a relocation on a jmp/b is a tail call to another function
            if last_mn in ("jmp", "b") and r.group(1) in JUMP_RELOCS:
                bad.setdefault(cur, []).append(f"{last_mn} -> {r.group(2)}")
            continue
        i = INSN.match(line)
        if not i:
            continue
        mn, ops = i.group(1), i.group(2)
        if mn in ("lock", "rep", "notrack", "bnd") and ops:
            mn, _, ops = ops.partition(" ")
        last_mn = mn
        funcs[cur] += 1
        if mn in CALL_MNEMONICS or (mn in ("jmp", "jmpq") and ops.startswith("*")):
            bad.setdefault(cur, []).append(f"{mn} {ops}".strip())
    # count whole functions; their .cold/.part pieces are scanned but not counted
    return {f: n for f, n in funcs.items() if f.startswith("rg_loop_") and "." not in f}, bad


def main():
    if len(sys.argv) != 5 or sys.argv[3] not in ("--expect-functions", "--expect-violations"):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    objdump, lib, mode, arg = sys.argv[1:]
    funcs, bad = scan(objdump, lib)
    for f, what in sorted(bad.items()):
        print(f"call in {f}: {'; '.join(what)}")
    if mode == "--expect-functions":
        want = int(arg)
        print(f"{len(funcs)} rg_loop_* functions, {sum(funcs.values())} instructions, "
              f"{len(bad)} with a call")
        if len(funcs) != want:
            print(f"FAIL: expected {want} rg_loop_* functions in {lib}, found {len(funcs)}")
            return 1
        if any(n == 0 for n in funcs.values()):
            print("FAIL: an rg_loop_* function disassembled to nothing")
            return 1
        return 1 if bad else 0
    want = set(arg.split(","))
    if set(bad) != want:
        print(f"FAIL: self-check expected calls flagged in {sorted(want)}, got {sorted(bad)}")
        return 1
    print(f"self-check: all {len(want)} deliberately bad functions flagged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
