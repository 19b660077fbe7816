#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The module's timed loops contain the instructions each guard claims, the duty work only where due, and no call but preempt/paravirt irq ops; its cycle reference is 16 dependent adds.
# Usage: check_asm.py amd64|arm64 SRC_DIR GEN_DIR [--keep DIR | --reuse DIR]
#   (builds the module with build_module.sh; 77 when it cannot; --keep leaves the object and the
#   headers' ABI in DIR, --reuse checks DIR's instead of building again: the expectations of
#   GEN_DIR/kmod_asm.def against a module already built, as guards.addguard does and kmod.asm
#   does with the kmod.module fixture's build; 77 when DIR holds none, i.e. the fixture skipped)
# The loops expected are the generated guard list's (GEN_DIR/rg_kguards.h) for the headers' kernel.
import os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kguards  # noqa: E402

arch, src, gen = sys.argv[1], sys.argv[2], sys.argv[3]
keep = sys.argv[5] if len(sys.argv) > 5 and sys.argv[4] == "--keep" else None
reuse = sys.argv[5] if len(sys.argv) > 5 and sys.argv[4] == "--reuse" else None
errors = []


def build_and_disassemble(d):
    """The module built into d (or d's, with --reuse): (build_module.sh's ABI line, disassembly)."""
    if reuse:
        if not os.path.isfile(os.path.join(d, "abi")):
            print(f"check_asm: SKIP: no module built in {d} (the build that makes it skipped)", file=sys.stderr)
            sys.exit(77)
        abi = open(os.path.join(d, "abi")).read()
    else:
        b = subprocess.run(["bash", os.path.join(src, "tests/kmod/build_module.sh"), arch, src, gen, d],
                           stdout=subprocess.PIPE, text=True)
        if b.returncode == 77:
            sys.exit(77)
        if b.returncode != 0:
            print("check_asm: module build failed", file=sys.stderr)
            sys.exit(1)
        abi = b.stdout
        open(os.path.join(d, "abi"), "w").write(abi)
    objdump = "objdump" if arch == "amd64" else "aarch64-linux-gnu-objdump"
    return abi, subprocess.run([objdump, "-dr", "--no-show-raw-insn", os.path.join(d, "rgbench_kmod.o")],
                               capture_output=True, text=True, check=True).stdout


if keep or reuse:
    if keep:
        os.makedirs(keep, exist_ok=True)
    abi, dis = build_and_disassemble(keep or reuse)
else:
    with tempfile.TemporaryDirectory() as d:
        abi, dis = build_and_disassemble(d)

# Split into functions: name -> list of (instruction text, relocation target or None).
funcs, cur = {}, None
for line in dis.splitlines():
    m = re.match(r"^[0-9a-f]+ <([\w.]+)>:$", line)
    if m:
        cur = funcs.setdefault(m.group(1), [])
        continue
    if cur is None or not line.strip():
        continue
    m = re.match(r"^\s+[0-9a-f]+:\s+R_\w+\s+(\S+)$", line)
    if m and cur:
        ins, _ = cur[-1]
        cur[-1] = (ins, re.sub(r"[-+]0x[0-9a-f]+$", "", m.group(1)))
        continue
    m = re.match(r"^\s+[0-9a-f]+:\s+(.*)$", line)
    if m:
        cur.append((m.group(1).split("//")[0].split("#")[0].strip(), None))

# Both loop shapes of every guard: rg_pair_<id> (back to back) and rg_duty_<id> (carried work).
loops = {}
for n, body in funcs.items():
    for shape in ("pair", "duty"):
        if n.startswith(f"rg_{shape}_"):
            loops[(n[len(f"rg_{shape}_"):], shape)] = body
# The headers' kernel version (build_module.sh prints its ABI, e.g. 6.1.0-57 or 6.12.118+deb13).
kv = tuple(int(x) for x in re.match(r"(\d+)\.(\d+)", abi.strip()).groups())
build = kguards.read(os.path.join(gen, "rg_kguards.h"))[("x86-64" if arch == "amd64" else "arm64",
                                                          kv >= (6, 18))]
want = {g[0] for g in build["guards"]}
own = build["own"]	# the kernel's own this_cpu_inc_return()/this_cpu_dec()
if arch == "amd64":
    # ftrace entry, preempt_enable's slow path, paravirt irq save/restore, and UBSAN's
    # out-of-line report of an index out of bounds where the kernel has CONFIG_UBSAN_BOUNDS
    # (Debian's 7.x: irqsave's flags[level]); none is taken on the timed path.
    ok_call = re.compile(r"^(__fentry__|__SCT__preempt_schedule\w*|preempt_schedule\w*|"
                         r"__preempt_schedule\w*|pv_ops|__ubsan_handle_out_of_bounds)$")
    is_call = lambda i: i.startswith("call")
    mul = r"^imul\s"
else:
    ok_call = re.compile(r"^(preempt_schedule\w*|__preempt_schedule\w*|__ubsan_handle_out_of_bounds)$")
    is_call = lambda i: re.match(r"^(bl|blr)\b", i) is not None
    mul = r"^madd\s|^mul\s"

# What each loop must and must not contain: kmod.def's RG_KMOD_ASM / RG_KMOD_STEP_ASM lines as
# the build generated them (GEN_DIR/kmod_asm.def, a family's step lines once per design).
# "-" is nothing beyond the common checks; a guard of the build without a line is an error.
col = 0 if arch == "amd64" else 1


def expectation(s):
    if s == "-":
        return [], []
    items = s.split(" ; ")
    return [i for i in items if not i.startswith("!")], [i[1:] for i in items if i.startswith("!")]


has, hasnt, step_has = {}, {}, {}
for line in open(os.path.join(gen, "kmod_asm.def")):
    m = re.match(r'^RG_KMOD_ASM\((\w+), "([^"]*)", "([^"]*)"\)$', line)
    if m:
        has[m.group(1)], hasnt[m.group(1)] = expectation(m.group(2 + col))
        continue
    m = re.match(r'^RG_KMOD_STEP_ASM\((\w+), (\w+), "([^"]*)", "([^"]*)"\)$', line)
    if m and m.group(3 + col) != "-":
        step_has.setdefault(m.group(1), {})[m.group(2)] = expectation(m.group(3 + col))
# The kernel's own guard of this build: the "own" line stands for its id's.
if "own" not in has:
    errors.append("kmod_asm.def: no RG_KMOD_ASM(own, ...) line")
has[own], hasnt[own] = has.pop("own", []), hasnt.pop("own", [])
for g in sorted(want - set(has)):
    errors.append(f"{g}: kmod.def has no RG_KMOD_ASM({g}, ...) line: its loops are unchecked")

for shape in ("pair", "duty"):
    got = {g for g, sh in loops if sh == shape}
    if got != want:
        errors.append(f"{shape} loops {sorted(got)} != {sorted(want)}")
for (g, shape), body in loops.items():
    for ins, target in body:
        if is_call(ins) and not (target and ok_call.match(target)):
            errors.append(f"{g}/{shape}: call in the timed loop: '{ins}' -> {target}")
    text = [i for i, _ in body]
    for pat in has.get(g, []):
        if not any(re.search(pat, i) for i in text):
            errors.append(f"{g}/{shape}: no instruction matching /{pat}/")
    for pat in hasnt.get(g, []):
        bad = [i for i in text if re.search(pat, i)]
        if bad:
            errors.append(f"{g}/{shape}: unexpected {bad[0]!r}")
    # The duty work (one multiply per unit) is in the duty loop and only there.
    has_mul = any(re.search(mul, i) for i in text)
    if has_mul != (shape == "duty"):
        errors.append(f"{g}/{shape}: duty multiply {'missing' if shape == 'duty' else 'present'}")

# The ladder's step loops (ladder.h): one rg_step_<design>__<part> per RG_KLADDER line of the
# build, no call but the ones allowed above, no multiply, and each step's parts: what it adds
# present, what later steps add absent. The last step is the whole: its design's patterns.
steps = {n[len("rg_step_"):]: body for n, body in funcs.items() if n.startswith("rg_step_")}
want_steps = {f"{d}__{p}" for d, p, _, _, _ in build["ladder"]}
if set(steps) != want_steps:
    errors.append(f"step loops {sorted(steps)} != {sorted(want_steps)}")
# (step_has: the expectations of the steps' parts, from kmod_asm.def above. On amd64, the NMI
# bits of preempt_count: gcc 12 (Debian 12, 6.1) tests them, gcc 14 (Debian 13, 6.12) masks them
# and compares; this_cpu_ptr() an add from %gs:this_cpu_off (6.1), or, with the named address
# spaces of 6.12, this_cpu_off loaded from %gs: into a 64-bit register and added there; 7.x a
# 64-bit preempt count (incq/decq %gs:), its NMI bits at 0xf0000000. On arm64 no preempt count
# op is required: without CONFIG_PREEMPT_COUNT (Debian 12 arm64) it is barrier(); the level's
# tests are on a w register, or on x in 7.x, where the count is sign-extended first.)
for d, p, name, k, last in build["ladder"]:
    body = steps.get(f"{d}__{p}", [])
    text = [i for i, _ in body]
    for ins, target in body:
        if is_call(ins) and not (target and ok_call.match(target)):
            errors.append(f"{name}: call in the step loop: '{ins}' -> {target}")
    if any(re.search(mul, i) for i in text):
        errors.append(f"{name}: multiply in the step loop")
    h, n = (has.get(d, []), hasnt.get(d, [])) if last else step_has.get(d, {}).get(p, (None, None))
    if h is None:
        errors.append(f"{name}: kmod.def has no RG_KMOD_STEP_ASM({d}, {p}, ...) for this architecture")
        continue
    for pat in h:
        if not any(re.search(pat, i) for i in text):
            errors.append(f"{name}: no instruction matching /{pat}/")
    for pat in n:
        bad = [i for i in text if re.search(pat, i)]
        if bad:
            errors.append(f"{name}: unexpected {bad[0]!r}")

# The cycle reference (rg_ref_pair): its loop, from the back branch's target to
# the branch, is 16 adds of 1 to one register, the counter's decrement and the
# branch; no call in it (__fentry__ sits before it on x86).
ref_body, addr = [], {}
in_ref = False
for line in dis.splitlines():
    if re.match(r"^[0-9a-f]+ <", line):
        in_ref = line.endswith("<rg_ref_pair>:")
        continue
    m = re.match(r"^\s+([0-9a-f]+):\s+(.*)$", line)
    if in_ref and m and not m.group(2).startswith("R_"):
        ins = m.group(2).split("//")[0]
        ref_body.append((int(m.group(1), 16), (ins.split("#")[0] if arch == "amd64" else ins).strip()))
back = [(a, i) for a, i in ref_body if re.match(r"^(jne|jnz|b\.ne)\s+([0-9a-f]+)", i)]
if not back:
    errors.append(f"rg_ref_pair: no loop ({[i for _, i in ref_body]})")
else:
    end, br = back[-1]
    start = int(re.match(r"^\S+\s+([0-9a-f]+)", br).group(1), 16)
    loop = [i for a, i in ref_body if start <= a < end]
    # a register added, not an immediate (Golden Cove+ folds add $1 chains in the renamer)
    add = r"^add\s+%\w+,%(\w+)$" if arch == "amd64" else r"^add\s+(x\d+), \1, x\d+$"
    regs = [re.match(add, i).group(1) for i in loop if re.match(add, i)]
    dec = r"^dec\s+%\w+$" if arch == "amd64" else r"^subs\s+x\d+, x\d+, #0x1$"
    if len(regs) != 16 or len(set(regs)) != 1 or len(loop) != 17 or not re.match(dec, loop[-1]):
        errors.append(f"rg_ref_pair: loop is not 16 dependent adds and a decrement: {loop}")
    if any(is_call(i) for i in loop):
        errors.append(f"rg_ref_pair: call in the reference loop: {loop}")
for e in errors:
    print("check_asm:", e, file=sys.stderr)
print(f"check_asm ({arch}): {len(loops)} timed loops, {len(steps)} step loops, {len(errors)} problem(s)")
sys.exit(1 if errors else 0)
