#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The module's timed loops contain the instructions each guard claims, the duty work only where due, and no call but preempt/paravirt irq ops; its cycle reference is 16 dependent adds.
# Usage: check_asm.py amd64|arm64 SRC_DIR GEN_DIR   (builds the module with build_module.sh; 77 when it cannot)
# The loops expected are the generated guard list's (GEN_DIR/rg_kguards.h) for the headers' kernel.
import os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kguards  # noqa: E402

arch, src, gen = sys.argv[1], sys.argv[2], sys.argv[3]
errors = []

with tempfile.TemporaryDirectory() as d:
    b = subprocess.run(["bash", os.path.join(src, "tests/kmod/build_module.sh"), arch, src, gen, d],
                       stdout=subprocess.PIPE, text=True)
    if b.returncode == 77:
        sys.exit(77)
    if b.returncode != 0:
        print("check_asm: module build failed", file=sys.stderr)
        sys.exit(1)
    objdump = "objdump" if arch == "amd64" else "aarch64-linux-gnu-objdump"
    dis = subprocess.run([objdump, "-dr", "--no-show-raw-insn", os.path.join(d, "rgbench_kmod.o")],
                         capture_output=True, text=True, check=True).stdout

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
kv = tuple(int(x) for x in re.match(r"(\d+)\.(\d+)", b.stdout.strip()).groups())
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
    # %gs: on the per-CPU pointer in a register; objdump writes the two base registers x86
    # cannot encode without a displacement as %gs:0x0(%rbp) / %gs:0x0(%r13) (the compiler's
    # choice of register, not the kernel's: the duty loop has it on 6.1 and 6.12 alike)
    gs_reg = r"%gs:(\(%\w+\)|0x0\(%(rbp|r13)\))$"
    has = {
        # through a pointer loaded first (prog->active, as the user row's g->off)
        own: [r"^xadd\s+%\w+," + gs_reg,
                     r"^decl\s+" + gs_reg + r"|^addl\s+\$0xffffffff," + gs_reg],
        "this_cpu_inc": [r"^incl\s+%gs:", r"^decl\s+%gs:"],
        # the slot itself, %rip-relative with its relocation, on 6.1 and 6.12 alike (on 6.12 only
        # if the operand is in the __seg_gs address space: a plain one lost the %gs:)
        "pcpu_lock_xadd": [r"^lock xadd\s+%\w+,%gs:0x0\(%rip\)$", r"^lock decl\s+%gs:0x0\(%rip\)$"],
        "pcpu_lock_inc": [r"^lock incl\s+%gs:0x0\(%rip\)$", r"^lock decl\s+%gs:0x0\(%rip\)$"],
        "global_atomic": [r"^lock xadd", r"^lock decl"],
        "local_t": [r"^xadd\s"],
        # this_cpu_ptr(prog->active): add %gs:this_cpu_off to the loaded pointer
        "rctx_kernel": [r"^add\s+%gs:", r"^addb\s+\$0x1,", r"^subb\s+\$0x1,|^addb\s+\$0xff,"],
    }
    hasnt = {g: [r"^lock\b"] for g in ("noop", own, "this_cpu_inc", "rctx_kernel", "rctx_word",
                                        "preempt_raw", "irqsave", "local_t")}
    hasnt["rctx_word"] = hasnt["rctx_word"] + [r"^addb|^subb"]
    # every locked op of the per-CPU asm guards is %gs:-relative
    hasnt["pcpu_lock_xadd"] = hasnt["pcpu_lock_inc"] = [r"^lock (?!.*%gs:)"]
else:
    ok_call = re.compile(r"^(preempt_schedule\w*|__preempt_schedule\w*|__ubsan_handle_out_of_bounds)$")
    is_call = lambda i: re.match(r"^(bl|blr)\b", i) is not None
    mul = r"^madd\s|^mul\s"
    forms = {
        "pcpu_stadd": ([r"^ldadd\s", r"^stadd\s"], [r"^ldxr"]),
        "pcpu_ldadd": ([r"^ldadd\s+w\d+, w\d+,"], [r"^stadd\s", r"^ldxr"]),
        "pcpu_prfm_stadd": ([r"^ldadd\s", r"^prfm\s+pstl1strm", r"^stadd\s"], [r"^ldxr"]),
        "pcpu_ldadd_llsc": ([r"^ldadd\s", r"^ldxr\s", r"^stxr\s"], [r"^stadd"]),
        "pcpu_llsc": ([r"^ldxr\s", r"^stxr\s"], [r"^ldadd|^stadd"]),
    }
    has, hasnt = {}, {}
    for g, (h, n) in forms.items():
        for k in (g, g + "_kernel"):
            has[k], hasnt[k] = h, n
    # The kernel's own: LL/SC in the object, patched to LSE at load time.
    has[own], hasnt[own] = [r"^ldxr\s|^ldadd"], []
    hasnt.update({"noop": [r"^ldxr|^ldadd|^stadd"], "preempt_raw": [r"^ldxr|^ldadd|^stadd"],
                  "rctx_kernel": [r"^ldxr|^ldadd|^stadd"], "rctx_word": [r"^ldxr|^ldadd|^stadd"]})

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
if arch == "amd64":
    # The NMI bits of preempt_count: gcc 12 (Debian 12, 6.1) tests them, gcc 14 (Debian 13,
    # 6.12) masks them and compares. this_cpu_ptr(): an add from %gs:this_cpu_off (6.1), or, with
    # the named address spaces of 6.12, this_cpu_off loaded from %gs: into a 64-bit register
    # and added there.
    # 7.x (7.3 read): a 64-bit preempt count (incq/decq %gs:), its NMI bits at 0xf0000000.
    nmi = r"^(test|and)\s+\$0xf00000(00)?,"
    base = r"^add\s+%gs:|^mov\s+%gs:\S+,%r(\d+|[a-z]{2})$"
    step_has = {
        "rctx_kernel": {"preempt": ([r"^inc[lq]\s+%gs:", r"^dec[lq]\s+%gs:"], [base, r"^addb|^subb"]),
                        "level": ([nmi], [base, r"^addb|^subb"]),
                        "ptr": ([nmi, base], [r"^addb|^subb"]),
                        "byte": ([base, r"^addb\s+\$0x1,", r"^subb\s+\$0x1,|^addb\s+\$0xff,"], [])},
        "pcpu_xadd": {"active": ([r"^mov\s+0x0\(%rip\),%r"], [r"%gs:", r"^xadd"]),
                      "enter_op": ([r"^xadd\s+%\w+," + gs_reg], [r"^decl|^addl\s+\$0xffffffff"])},
    }
    for k in step_has.values():
        for h, n in k.values():
            n.append(r"^lock\b")
else:
    step_has = {}
    for d, (h, n) in forms.items():
        enter = [r"^ldxr\s"] if d == "pcpu_llsc" else [r"^ldadd\s"]
        step_has[d + "_kernel"] = {
            # no preempt count op required: without CONFIG_PREEMPT_COUNT (Debian 12 arm64) it is barrier()
            "preempt": ([], [r"^ldadd|^stadd|^ldxr|^stxr|^prfm", r"^mrs\s+x\d+, tpidr"]),
            "ptr": ([r"^mrs\s+x\d+, tpidr"], [r"^ldadd|^stadd|^ldxr|^stxr|^prfm"]),
            "enter_op": ([r"^mrs\s+x\d+, tpidr"] + enter, [r"^stadd|^prfm"] +
                         ([] if d in ("pcpu_llsc",) else [r"^ldxr"])),
        }
    # (the level's tests on a w register, or on x in 7.x, where the count is sign-extended first)
    step_has["rctx_kernel"] = {
        "preempt": ([], [r"^ldrb|^strb", r"^mrs\s+x\d+, tpidr"]),
        "level": ([r"^tst\s+[wx]\d+, "], [r"^ldrb|^strb", r"^mrs\s+x\d+, tpidr"]),
        "ptr": ([r"^tst\s+[wx]\d+, ", r"^mrs\s+x\d+, tpidr"], [r"^ldrb|^strb"]),
        "byte": ([r"^ldrb", r"^strb"], []),
    }
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
        errors.append(f"{name}: check_asm.py has no expectation for part {p} of {d}")
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
