#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The module's timed loops contain the instructions each guard claims and no call but ndelay/preempt/paravirt irq ops.
# Usage: check_asm.py amd64|arm64 SRC_DIR   (builds the module with build_module.sh; 77 when it cannot)
import os, re, subprocess, sys, tempfile

arch, src = sys.argv[1], sys.argv[2]
errors = []

with tempfile.TemporaryDirectory() as d:
    b = subprocess.run(["bash", os.path.join(src, "tests/kmod/build_module.sh"), arch, src, d],
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

loops = {n[len("rg_loop_"):]: body for n, body in funcs.items() if n.startswith("rg_loop_")}
if arch == "amd64":
    want = {"noop", "this_cpu_inc_return", "this_cpu_inc", "rctx", "preempt_raw", "irqsave",
            "local_t", "atomic_shared", "x86_lock_xadd", "x86_lock_inc"}
    # ndelay (duty), ftrace entry, preempt_enable's slow path, paravirt irq save/restore.
    ok_call = re.compile(r"^(__fentry__|__ndelay|__SCT__preempt_schedule\w*|preempt_schedule\w*|"
                         r"__preempt_schedule\w*|pv_ops)$")
    is_call = lambda i: i.startswith("call")
    has = {
        "this_cpu_inc_return": [r"^xadd\s+%\w+,%gs:"],
        "this_cpu_inc": [r"^incl\s+%gs:", r"^decl\s+%gs:"],
        "x86_lock_xadd": [r"^lock xadd", r"^lock decl"],
        "x86_lock_inc": [r"^lock incl", r"^lock decl"],
        "atomic_shared": [r"^lock xadd", r"^lock decl"],
        "local_t": [r"^xadd\s"],
        "rctx": [r"^addb\s+\$0x1,", r"^subb\s+\$0x1,|^addb\s+\$0xff,"],
    }
    hasnt = {g: [r"^lock\b"] for g in ("noop", "this_cpu_inc_return", "this_cpu_inc", "rctx",
                                        "preempt_raw", "irqsave", "local_t")}
else:
    want = {"noop", "this_cpu_inc_return", "this_cpu_inc", "rctx", "preempt_raw", "irqsave",
            "local_t", "atomic_shared", "arm64_ldadd_stadd", "arm64_ldadd_ldadd",
            "arm64_prfm_stadd", "arm64_llsc"}
    ok_call = re.compile(r"^(__ndelay|preempt_schedule\w*|__preempt_schedule\w*)$")
    is_call = lambda i: re.match(r"^(bl|blr)\b", i) is not None
    has = {
        "arm64_ldadd_stadd": [r"^ldadd\s", r"^stadd\s"],
        "arm64_ldadd_ldadd": [r"^ldadd\s+w\d+, w\d+,"],
        "arm64_prfm_stadd": [r"^ldadd\s", r"^prfm\s+pstl1strm", r"^stadd\s"],
        "arm64_llsc": [r"^ldxr\s", r"^stxr\s"],
        "this_cpu_inc_return": [r"^ldxr\s|^ldadd"],   # LL/SC, patched to LSE at load time
    }
    hasnt = {"arm64_ldadd_ldadd": [r"^stadd\s"], "arm64_llsc": [r"^ldadd|^stadd"],
             "noop": [r"^ldxr|^ldadd|^stadd"], "preempt_raw": [r"^ldxr|^ldadd|^stadd"]}

if set(loops) != want:
    errors.append(f"timed loops {sorted(loops)} != {sorted(want)}")
for g, body in loops.items():
    for ins, target in body:
        if is_call(ins) and not (target and ok_call.match(target)):
            errors.append(f"{g}: call in the timed loop: '{ins}' -> {target}")
    text = [i for i, _ in body]
    for pat in has.get(g, []):
        if not any(re.search(pat, i) for i in text):
            errors.append(f"{g}: no instruction matching /{pat}/")
    for pat in hasnt.get(g, []):
        bad = [i for i in text if re.search(pat, i)]
        if bad:
            errors.append(f"{g}: unexpected {bad[0]!r}")
for e in errors:
    print("check_asm:", e, file=sys.stderr)
print(f"check_asm ({arch}): {len(loops)} timed loops, {len(errors)} problem(s)")
sys.exit(1 if errors else 0)
