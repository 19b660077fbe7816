#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Disassemble static libraries and fail if a measured loop function (rg_loop_*) contains a call,
or if a guard's pair loop lacks the instruction it claims to measure (or has one it must not).

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


# What each guard's pair loop must contain (the instruction it claims to
# measure) and must not (an atomic it claims not to use), per architecture.
# Guards of the other architecture compile to a trap and are not listed.
ATOMIC_X86 = r"^lock |^xchg|^xadd|^cmpxchg"
ATOMIC_ARM = r"^(ldadd|stadd|ldxr|ldaxr|stxr|stlxr|swp|cas)"
EXPECT = {
    "x86_64": {
        "noop": ([], [ATOMIC_X86]),
        "tls": ([], [ATOMIC_X86]),
        "global_atomic": ([r"^lock xadd", r"^lock dec"], []),
        "pcpu_lock_xadd": ([r"^lock xadd", r"^lock dec"], []),
        "pcpu_xadd": ([r"^xadd", r"^dec"], [r"^lock "]),
        "pcpu_swp": ([r"^xchg"], [r"^lock "]),
        "pcpu_cas": ([r"^lock cmpxchg"], []),
        "rseq": ([], [ATOMIC_X86]),
        "rctx": ([], [ATOMIC_X86]),
        "racy_percpu": ([], [ATOMIC_X86]),
    },
    "aarch64": {
        "noop": ([], [ATOMIC_ARM]),
        "tls": ([], [ATOMIC_ARM]),
        "global_atomic": ([r"^ldadd\s", r"^stadd\s"], []),
        "pcpu_stadd": ([r"^ldadd\s", r"^stadd\s"], []),
        # the 6.18 exit: LDADD to a real register (objdump would print STADD for XZR)
        "pcpu_ldadd": ([r"^ldadd\s.*\n(.*\n)*ldadd\s"], [r"^stadd"]),
        "pcpu_prfm_stadd": ([r"^ldadd\s", r"^prfm\s+pstl1strm", r"^stadd\s"], []),
        "pcpu_ldadd_llsc": ([r"^ldadd\s", r"^ldxr\s", r"^stxr\s"], [r"^stadd"]),
        "pcpu_llsc": ([r"^ldxr\s", r"^stxr\s"], [r"^ldadd", r"^stadd"]),
        "pcpu_swp": ([r"^swp\s"], []),
        "pcpu_cas": ([r"^cas\s"], []),
        "rseq": ([], [ATOMIC_ARM]),
        "rctx": ([], [ATOMIC_ARM]),
        "racy_percpu": ([], [ATOMIC_ARM]),
    },
}


def check_instructions(arch, texts):
    """Return complaints about pair loops that lack or misuse their named instruction."""
    problems = []
    for gid, (need, forbid) in EXPECT.get(arch, {}).items():
        body = texts.get(f"rg_loop_pair_{gid}")
        if body is None:
            continue                        # guard not in this build's guards.def
        joined = "\n".join(body) + "\n"
        for pat in need:
            if not re.search(pat, joined, re.M):
                problems.append(f"rg_loop_pair_{gid}: expected /{pat}/ not found")
        for pat in forbid:
            for insn in body:
                if re.search(pat, insn):
                    problems.append(f"rg_loop_pair_{gid}: unexpected '{insn}'")
    return problems


def scan(objdump, lib):
    out = subprocess.run([objdump, "-dr", "--no-show-raw-insn", lib], check=True,
                         capture_output=True, text=True).stdout
    funcs, bad, texts = {}, {}, {}
    cur, last_mn = None, None
    arch = "aarch64" if "elf64-littleaarch64" in out else "x86_64"
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
        texts.setdefault(cur, []).append(f"{mn} {ops}".strip())
        if mn in ("lock", "rep", "notrack", "bnd") and ops:
            mn, _, ops = ops.partition(" ")
        last_mn = mn
        funcs[cur] += 1
        if mn in CALL_MNEMONICS or (mn in ("jmp", "jmpq") and ops.startswith("*")):
            bad.setdefault(cur, []).append(f"{mn} {ops}".strip())
    # count whole functions; their .cold/.part pieces are scanned but not counted
    return ({f: n for f, n in funcs.items() if f.startswith("rg_loop_") and "." not in f}, bad,
            arch, texts)


def main():
    if len(sys.argv) != 5 or sys.argv[3] not in ("--expect-functions", "--expect-violations"):
        print("\n".join(l for l in __doc__.splitlines() if "asm_check.py" in l), file=sys.stderr)
        return 2
    objdump, lib, mode, arg = sys.argv[1:]
    funcs, bad, arch, texts = scan(objdump, lib)
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
        problems = check_instructions(arch, texts)
        for p in problems:
            print(f"FAIL: {p}")
        checked = sum(1 for g in EXPECT.get(arch, {}) if f"rg_loop_pair_{g}" in texts)
        print(f"{arch}: named instructions checked in {checked} pair loops")
        return 1 if bad or problems else 0
    want = set(arg.split(","))
    if set(bad) != want:
        print(f"FAIL: self-check expected calls flagged in {sorted(want)}, got {sorted(bad)}")
        return 1
    print(f"self-check: all {len(want)} deliberately bad functions flagged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
