#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Disassemble the measured loops and check them against guards/include/rg/guards.def.

usage: asm_check.py OBJDUMP LIB --def GUARDS_DEF --expect-functions N
       asm_check.py OBJDUMP LATLIB --def GUARDS_DEF --expect-latency N  (the latency loops)
       asm_check.py OBJDUMP LIB --def GUARDS_DEF --mutations      (self-check of the expectations)
       asm_check.py OBJDUMP BADLIB --expect-violations NAME[,NAME...] (self-check of the call finder)

Every rg_loop_* function: no call. A call is x86 call/callq, an indirect jmp
(jmp *...), or a jmp/b carrying a relocation to another symbol (a tail call);
arm64 bl (incl. bl __aarch64_* outline atomics), blr/blraa..., br, or b with a
JUMP26/CALL26 relocation (but a function's .cold piece jumping back into
its own .text). Two exceptions: rg_percpu_rebase, the slow path
of the once-per-batch rg_guard_prepare(), outside every loop of the
function (no path leads from the call back to it); and in the -kernel loops
rg_preempt_schedule_notrace, the never-taken branch of preempt_enable()
(tests/guards/test_guards.c shows it is never executed).

Every guard of guards.def: its rg_loop_pair_<id> must exist and contain what
the def's column for this architecture says ("-": a trap, the guard is not
built here); a guard without an expectation, or a loop without a guard, fails.
A cpu-scope guard's pair and nested loops must not multiply; every duty
loop holds its guard's expectation too, and the work's multiply.

Every RG_PART line: its step loop rg_loop_step_<design>__<part> must exist
and contain what the line's column says ("=": the design's pair-loop
expectation; "-": a trap), with the same call and multiply rules.
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
ALLOWED_CALLEE = "rg_preempt_schedule_notrace"
PROLOGUE_CALLEE = "rg_percpu_rebase"
ATOMIC = {"x86_64": re.compile(r"^(lock\b|xchg|xadd|cmpxchg)"),
          "aarch64": re.compile(r"^(ld(add|set|clr|eor)|st(add|set|clr|eor)|ldx|ldax|stx|stlx|swp|cas)")}
MULTIPLY = {"x86_64": re.compile(r"^(imul|mul)"),
            "aarch64": re.compile(r"^(mul|madd|msub|mneg|[su]mull|[su]maddl|[su]msubl|[su]mulh)$")}
TRAP = {"x86_64": re.compile(r"^ud2"), "aarch64": re.compile(r"^(brk|udf)$")}


# ---- guards.def -------------------------------------------------------------

def c_args(text):
    """Top-level arguments of one macro call body, C string literals unescaped."""
    args, cur, depth, i = [], "", 0, 0
    while i < len(text):
        ch = text[i]
        if ch == '"':
            j, s = i + 1, ""
            while text[j] != '"':
                if text[j] == "\\":
                    j += 1
                s += text[j]
                j += 1
            cur += '"' + s + '"'
            i = j + 1
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
        else:
            cur += ch
        i += 1
    args.append(cur.strip())
    return [a[1:-1] if a.startswith('"') and a.endswith('"') else a for a in args]


def read_def(path):
    """{id: {name, arch, needs, scope, role, models, x86_64, aarch64}} in file order."""
    text = re.sub(r"/\*.*?\*/", "", open(path).read(), flags=re.S)
    out = {}
    for m in re.finditer(r"^RG_GUARD\(", text, re.M):
        i, depth = m.end(), 1
        in_str = False
        j = i
        while depth:
            ch = text[j]
            if in_str:
                if ch == "\\":
                    j += 1
                elif ch == '"':
                    in_str = False
            elif ch == '"':
                in_str = True
            elif ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
            j += 1
        a = c_args(text[i:j - 1])
        if len(a) != 10:
            raise SystemExit(f"guards.def: RG_GUARD({a[0]}, ...) has {len(a)} columns, not 10")
        out[a[0]] = dict(name=a[1], arch=a[2], needs=a[3], summary=a[4], scope=a[5], role=a[6],
                         models=a[7], x86_64=a[8], aarch64=a[9])
    return out


def read_parts(path):
    """[{design, part, name, x86_64, aarch64}] of the RG_PART lines, in file order."""
    text = re.sub(r"/\*.*?\*/", "", open(path).read(), flags=re.S)
    out = []
    for m in re.finditer(r"^RG_PART\((.*?)\)$", text, re.M | re.S):
        a = c_args(m.group(1))
        if len(a) != 7:
            raise SystemExit(f"guards.def: RG_PART({a[0]}, ...) has {len(a)} columns, not 7")
        out.append(dict(design=a[0], part=a[1], name=a[2], x86_64=a[5], aarch64=a[6]))
    return out


# ---- the disassembly --------------------------------------------------------

BRANCH = re.compile(r"^(j[a-z]+|b|b\.[a-z]+|cbn?z|tbn?z)$")
STOP = re.compile(r"^(ret[qw]?|jmp|b|ud2|brk|udf)$")	# no fall-through after these
NOP = re.compile(r"^(nop[lw]?|xchg %ax,%ax|data16|cs)")


def scan(objdump, lib):
    """Per rg_loop_* function: instruction texts (its .cold pieces appended), calls, loops."""
    out = subprocess.run([objdump, "-dr", "--no-show-raw-insn", lib], check=True,
                         capture_output=True, text=True).stdout
    arch = "aarch64" if "elf64-littleaarch64" in out else "x86_64"
    pieces = {}		# piece name -> {"insns": [(addr, mn, ops)], "calls": [(addr, target)]}
    cur, last = None, None
    for line in out.splitlines():
        m = FUNC.match(line)
        if m:
            cur = m.group(1) if m.group(1).startswith("rg_loop_") else None
            if cur:
                pieces[cur] = {"insns": [], "calls": [], "tails": []}
            last = None
            continue
        if cur is None:
            continue
        p = pieces[cur]
        r = RELOC.match(line)
        if r:
            if last and last[1] in ("call", "callq", "bl") and p["calls"] and \
                    p["calls"][-1][0] == last[0] and p["calls"][-1][1] is None:
                p["calls"][-1] = (last[0], re.sub(r"[-+]0x[0-9a-f]+$", "", r.group(2)))
            elif last and last[1] in ("jmp", "b") and r.group(1) in JUMP_RELOCS and \
                    not (cur.endswith(".cold") and r.group(2).startswith(".text+")):
                # (a .cold piece's jump back into its function's .text is no tail call)
                p["tails"].append(f"{last[1]} -> {re.sub(r'[-+]0x[0-9a-f]+$', '', r.group(2))}")
            continue
        i = re.match(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
        if not i:
            continue
        addr, mn, ops = int(i.group(1), 16), i.group(2), i.group(3)
        ops = re.split(r"\s+(#|//)\s", ops)[0].strip() if arch == "x86_64" else \
            re.split(r"\s+//", ops)[0].strip()
        if mn in ("lock", "rep", "notrack", "bnd") and ops:
            pre = mn
            mn, _, ops = ops.partition(" ")
            ops = ops.strip()
            if pre == "lock":
                mn = "lock " + mn
        last = (addr, mn, ops)
        if arch == "x86_64" and NOP.match(f"{mn} {ops}"):
            continue		# x86 alignment padding (arm64 keeps nop: the kernel's padded ops)
        p["insns"].append(last)
        if mn in ("call", "callq", "bl"):
            p["calls"].append((addr, None))	# target from the relocation that follows
        elif mn in CALL_MNEMONICS or (mn in ("jmp", "jmpq") and ops.startswith("*")):
            p["calls"].append((addr, f"{mn} {ops}"))
    funcs, bad, texts, allowed = {}, {}, {}, {}
    for name, p in pieces.items():
        base = name.split(".")[0]
        texts.setdefault(base, []).extend((mn, ops) for _, mn, ops in p["insns"])
        if "." not in name:
            funcs[name] = len(p["insns"])
        # the instruction-level control flow graph of the piece: a call is
        # inside a loop when it can reach itself again
        addrs = [addr for addr, _, _ in p["insns"]]
        succ = {}
        for k, (addr, mn, ops) in enumerate(p["insns"]):
            nxt = []
            if not STOP.match(mn) and k + 1 < len(addrs):
                nxt.append(addrs[k + 1])
            t = re.search(r"\b([0-9a-f]+) <", ops)
            if BRANCH.match(mn) and t:
                nxt.append(int(t.group(1), 16))
            succ[addr] = nxt

        def in_loop(start):
            seen, todo = set(), list(succ.get(start, []))
            while todo:
                x = todo.pop()
                if x == start:
                    return True
                if x in seen or x not in succ:
                    continue
                seen.add(x)
                todo.extend(succ[x])
            return False
        for what in p["tails"]:
            bad.setdefault(base, []).append(what)
        for addr, target in p["calls"]:
            looped = in_loop(addr)
            if target == ALLOWED_CALLEE and (base.endswith("_kernel") or "_kernel__" in base):
                allowed.setdefault(base, []).append(target)
            elif target == PROLOGUE_CALLEE and not looped:
                pass	# rg_percpu_rebase: the once-per-batch slow path, before the loop
            else:
                bad.setdefault(base, []).append(f"call {target or '(local)'}"
                                                f"{' inside the loop' if looped else ''}")
    return funcs, bad, arch, texts, allowed


# ---- expectations -----------------------------------------------------------

def item_matches(item, arch, mn, ops):
    """Does one instruction (mnemonic, operands) satisfy an item "MNEMONIC [OPERAND-REGEX]"?"""
    want, _, rx = item.partition(" ")
    if want == "lock" and rx:		# "lock xadd ..." is one mnemonic
        w2, _, rx = rx.partition(" ")
        want = "lock " + w2
    ok = mn == want or (arch == "x86_64" and len(mn) == len(want) + 1 and mn.startswith(want)
                        and mn[-1] in "bwlq")
    return ok and (not rx or re.search(rx, ops) is not None)


def check_spec(spec, arch, body):
    """Problems of one loop body against one expectation string."""
    problems = []
    for item in [s.strip() for s in spec.split(" ; ") if s.strip()]:
        if item == "!atomic":
            for mn, ops in body:
                if ATOMIC[arch].search(mn):
                    problems.append(f"unexpected atomic '{mn} {ops}'")
        elif item.startswith("!"):
            for mn, ops in body:
                if item_matches(item[1:], arch, mn, ops):
                    problems.append(f"unexpected '{mn} {ops}' (!{item[1:]})")
        else:
            pos = 0
            for step in [s.strip() for s in item.split(" > ")]:
                while pos < len(body) and not item_matches(step, arch, *body[pos]):
                    pos += 1
                if pos == len(body):
                    problems.append(f"expected /{item}/: '{step}' not found in order")
                    break
                pos += 1
    return problems


def check_guards(defs, arch, funcs, texts, duty=True):
    """Complaints about guards.def vs the pair/nested (and duty) loops present."""
    problems, checked = [], 0
    pair_ids = {f[len("rg_loop_pair_"):] for f in funcs if f.startswith("rg_loop_pair_")}
    for gid in sorted(pair_ids - set(defs)):
        problems.append(f"rg_loop_pair_{gid}: no guard (and no expectation) in guards.def")
    for gid, d in defs.items():
        spec = d[arch]
        body = texts.get(f"rg_loop_pair_{gid}")
        if body is None:
            problems.append(f"rg_loop_pair_{gid}: missing from the library")
            continue
        if not spec.strip():
            problems.append(f"rg_loop_pair_{gid}: guards.def has no {arch} expectation")
            continue
        if spec.strip() == "-":
            if not any(TRAP[arch].search(mn) for mn, _ in body):
                problems.append(f"rg_loop_pair_{gid}: '-' for {arch} but the loop is not a trap")
            continue
        problems += [f"rg_loop_pair_{gid}: {p}" for p in check_spec(spec, arch, body)]
        # the duty loop runs the same guard sequence around the work (a multiply chain)
        body = texts.get(f"rg_loop_duty_{gid}", []) if duty else None
        if body is not None:
            problems += [f"rg_loop_duty_{gid}: {p}" for p in check_spec(spec, arch, body)]
            if not any(MULTIPLY[arch].search(mn) for mn, _ in body):
                problems.append(f"rg_loop_duty_{gid}: no multiply (the duty work is missing)")
        if d["scope"] == "RG_SCOPE_CPU":
            for kind in ("pair", "nested"):
                for mn, ops in texts.get(f"rg_loop_{kind}_{gid}", []):
                    if MULTIPLY[arch].search(mn):
                        problems.append(f"rg_loop_{kind}_{gid}: multiply '{mn} {ops}' in a "
                                        f"per-CPU guard's loop")
        checked += 1
    return problems, checked


def check_steps(parts, defs, arch, funcs, texts):
    """Complaints about the RG_PART lines vs the step loops present."""
    problems, checked = [], 0
    have = {f for f in funcs if f.startswith("rg_loop_step_")}
    want = {f"rg_loop_step_{p['design']}__{p['part']}" for p in parts}
    for f in sorted(have - want):
        problems.append(f"{f}: no RG_PART line in guards.def")
    for p in parts:
        fn = f"rg_loop_step_{p['design']}__{p['part']}"
        body = texts.get(fn)
        spec = p[arch].strip()
        if spec == "=" and p["design"] in defs:
            spec = defs[p["design"]][arch].strip()
        if body is None:
            problems.append(f"{fn}: missing from the library")
            continue
        if not spec:
            problems.append(f"{fn}: guards.def has no {arch} expectation")
            continue
        if spec == "-":
            if not any(TRAP[arch].search(mn) for mn, _ in body):
                problems.append(f"{fn}: '-' for {arch} but the loop is not a trap")
            continue
        problems += [f"{fn}: {x}" for x in check_spec(spec, arch, body)]
        if defs.get(p["design"], {}).get("scope") == "RG_SCOPE_CPU":
            for mn, ops in body:
                if MULTIPLY[arch].search(mn):
                    problems.append(f"{fn}: multiply '{mn} {ops}' in a per-CPU design's step")
        checked += 1
    return problems, checked


def mutations(defs, arch, funcs, texts):
    """Each deliberately wrong guards.def must be caught; returns the misses."""
    misses = []
    live = [g for g, d in defs.items() if d[arch].strip() not in ("-", "")]
    cpu = [g for g in live if defs[g]["scope"] == "RG_SCOPE_CPU"]
    some, other = live[-1], live[0]

    def caught(name, d):
        p, _ = check_guards(d, arch, funcs, texts)
        if not p:
            misses.append(name)
        else:
            print(f"mutation '{name}' caught: {p[0]}")

    d = dict(defs)
    del d[some]
    caught(f"{some} removed from guards.def", d)
    d = {g: dict(v) for g, v in defs.items()}
    d[some][arch] = ""
    caught(f"{some}: empty expectation", d)
    d = {g: dict(v) for g, v in defs.items()}
    d[some][arch] = "no_such_insn"
    caught(f"{some}: wrong instruction", d)
    d = {g: dict(v) for g, v in defs.items()}
    d[other][arch] = "-"
    caught(f"{other}: claimed absent", d)
    # the expectation of a guard with a named instruction, applied to noop's loop
    named = [g for g in live if "!atomic" not in defs[g][arch]]
    if named and "noop" in defs:
        d = {g: dict(v) for g, v in defs.items()}
        d["noop"][arch] = defs[named[0]][arch]
        caught(f"noop given {named[0]}'s instructions", d)
    # an atomic where none may be: noop's '!atomic' against a per-CPU atomic loop
    atomic = [g for g in cpu if "!atomic" not in defs[g][arch]]
    if atomic:
        d = {g: dict(v) for g, v in defs.items()}
        d[atomic[0]][arch] = "!atomic"
        caught(f"{atomic[0]} claimed non-atomic", d)

    def swapped(name, loop, stand_in, problem):
        """loop's text replaced by stand_in's: a problem naming `problem` must be found."""
        t = dict(texts)
        t[loop] = texts.get(stand_in, [])
        p, _ = check_guards(defs, arch, funcs, t)
        if not any(problem in x for x in p):
            misses.append(name)
        else:
            print(f"mutation '{name}' caught")

    # a step's loop checked against the next step's expectation (it lacks that part)
    parts = [p for p in mutations.parts if p[arch].strip() not in ("-", "=", "")]
    pairs = [(a, b) for a, b in zip(parts, parts[1:]) if a["design"] == b["design"]]
    if pairs:
        a, b = pairs[0]
        wrong = [dict(x) for x in mutations.parts]
        for x in wrong:
            if x["design"] == a["design"] and x["part"] == a["part"]:
                x[arch] = b[arch]
        p, _ = check_steps(wrong, defs, arch, funcs, texts)
        if not p:
            misses.append(f"{a['name']} given {b['name']}'s instructions")
        else:
            print(f"mutation '{a['name']} given {b['name']}'s instructions' caught: {p[0]}")
    if cpu:
        # the multiply rule: a duty loop (which multiplies) checked as a pair loop
        swapped("multiply in a per-CPU loop", f"rg_loop_nested_{cpu[0]}", f"rg_loop_duty_{cpu[0]}",
                "multiply")
        # a duty loop without its work: the pair loop in its place
        swapped("duty loop without work", f"rg_loop_duty_{cpu[0]}", f"rg_loop_pair_{cpu[0]}",
                "duty work is missing")
    return misses


def main():
    argv = sys.argv[1:]
    if len(argv) == 4 and argv[2] == "--expect-violations":
        objdump, lib, _, arg = argv
        _, bad, _, _, _ = scan(objdump, lib)
        for f, what in sorted(bad.items()):
            print(f"call in {f}: {'; '.join(what)}")
        want = set(arg.split(","))
        if set(bad) != want:
            print(f"FAIL: self-check expected calls flagged in {sorted(want)}, got {sorted(bad)}")
            return 1
        print(f"self-check: all {len(want)} deliberately bad functions flagged")
        return 0
    if len(argv) == 6 and argv[2] == "--def" and argv[4] == "--expect-latency":
        return check_latency(argv[0], argv[1], read_def(argv[3]), int(argv[5]))
    if len(argv) < 5 or argv[2] != "--def" or argv[4] not in ("--expect-functions", "--mutations"):
        print("\n".join(l for l in __doc__.splitlines() if "asm_check.py" in l), file=sys.stderr)
        return 2
    objdump, lib, _, def_path, mode = argv[:5]
    defs = read_def(def_path)
    parts = read_parts(def_path)
    mutations.parts = parts
    funcs, bad, arch, texts, allowed = scan(objdump, lib)
    if mode == "--mutations":
        misses = mutations(defs, arch, funcs, texts)
        for m in misses:
            print(f"FAIL: mutation not caught: {m}")
        return 1 if misses else 0
    want = int(argv[5])
    for f, what in sorted(bad.items()):
        print(f"call in {f}: {'; '.join(what)}")
    for f, what in sorted(allowed.items()):
        print(f"allowed never-taken call in {f}: {', '.join(what)}")
    print(f"{len(funcs)} rg_loop_* functions, {sum(funcs.values())} instructions, "
          f"{len(bad)} with a call")
    rc = 0
    nloops = len([f for f in funcs if not f.startswith("rg_loop_step_")])
    if nloops != want or nloops != 3 * len(defs):
        print(f"FAIL: expected {want} rg_loop_* functions (3 per guard, {len(defs)} guards) in "
              f"{lib}, found {nloops}")
        rc = 1
    if any(n == 0 for n in funcs.values()):
        print("FAIL: an rg_loop_* function disassembled to nothing")
        rc = 1
    problems, checked = check_guards(defs, arch, funcs, texts)
    for p in problems:
        print(f"FAIL: {p}")
    print(f"{arch}: guards.def expectations checked in {checked} pair and duty loops "
          f"({len(defs) - checked} guards not built for {arch})")
    sproblems, schecked = check_steps(parts, defs, arch, funcs, texts)
    for p in sproblems:
        print(f"FAIL: {p}")
    problems += sproblems
    print(f"{arch}: {schecked} of {len(parts)} ladder steps checked "
          f"({len(parts) - schecked} not built for {arch})")
    return 1 if rc or bad or problems else 0


def check_latency(objdump, lib, defs, want):
    """The latency loops (one rg_loop_lat_<id> per guard): no call, and the same
    instructions as the guard's pair loop, by guards.def."""
    funcs, bad, arch, texts, allowed = scan(objdump, lib)
    for f, what in sorted(bad.items()):
        print(f"call in {f}: {'; '.join(what)}")
    lat = {f: n for f, n in funcs.items() if f.startswith("rg_loop_lat_")}
    rc = 0
    if len(lat) != want or len(lat) != len(defs):
        print(f"FAIL: expected {want} rg_loop_lat_* functions (one per guard, {len(defs)} guards) "
              f"in {lib}, found {len(lat)}")
        rc = 1
    as_pair = {f.replace("rg_loop_lat_", "rg_loop_pair_", 1): n for f, n in lat.items()}
    ptexts = {f.replace("rg_loop_lat_", "rg_loop_pair_", 1): t for f, t in texts.items()
              if f.startswith("rg_loop_lat_")}
    problems, checked = check_guards(defs, arch, as_pair, ptexts, duty=False)
    for p in problems:
        print(f"FAIL: {p.replace('rg_loop_pair_', 'rg_loop_lat_', 1)}")
    print(f"{arch}: {len(lat)} latency loops, guards.def expectations checked in {checked}")
    return 1 if rc or bad or problems else 0


if __name__ == "__main__":
    sys.exit(main())
