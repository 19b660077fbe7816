#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Checks what the qemu guest of qemu_kmod.sh wrote: module CSV, rgbench-kmod rows, hardirq refusals, clean unload, clean dmesg.
import csv, io, json, os, subprocess, sys, tempfile

out, arch, lse, conv = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4:]
errors = []


def check(cond, msg):
    if not cond:
        errors.append(msg)
    return cond


def read(name):
    p = os.path.join(out, name)
    if not os.path.exists(p):
        errors.append(f"guest wrote no {name}")
        return ""
    with open(p) as f:
        return f.read()


def rows(text):
    return list(csv.DictReader(io.StringIO(text))) if text else []


COMMON = {"noop": "grant", "this-cpu-inc-return": "refuse", "this-cpu-inc": "grant",
          "rctx": "refuse", "preempt-raw": "refuse", "irqsave": "defer",
          "local-t": "refuse", "atomic-shared": "refuse"}
X86 = {"x86-lock-xadd": "refuse", "x86-lock-inc": "grant"}
ARM64_LSE = {"arm64-ldadd-stadd": "refuse", "arm64-ldadd-ldadd": "refuse",
             "arm64-prfm-stadd": "refuse"}
ARM64 = dict(ARM64_LSE, **{"arm64-llsc": "refuse"})
# Guards that run here, with the expected hardirq outcome; those skipped, with why.
if arch == "amd64":
    RUN, SKIP, OTHER = dict(COMMON, **X86), {}, ARM64
else:
    RUN = dict(COMMON, **(ARM64 if lse else {"arm64-llsc": "refuse"}))
    SKIP = {} if lse else {g: "CPU has no LSE atomics" for g in ARM64_LSE}
    OTHER = X86
ALL = list(RUN) + list(SKIP)
RAW_HEADER = ("suite,guard,scenario,threads,cpus,cpu,run,batch,duty_ns,irqs_off,ns_total,"
              "ns_per_pair,cycles_total,ops,refusals,granted,while_held,in_hardirq,expect,status,reason")

check(not os.path.exists(os.path.join(out, "errors")), "guest errors: " + read("errors").strip()
      if os.path.exists(os.path.join(out, "errors")) else "")

# The module's guard list: exactly the guards expected here; the rest say why not.
guards = {r["guard"]: r for r in rows(read("guards.csv"))}
avail = {g: r["expect"] for g, r in guards.items() if r["available"] == "1"}
check(avail == RUN, f"available guards/expectations {avail} != {RUN}")
for g, why in SKIP.items():
    check(guards.get(g, {}).get("reason") == why, f"{g} should be unavailable: {why}")
for g in OTHER:
    check(guards.get(g, {}).get("reason") == "not this architecture",
          f"{g} should be listed as not this architecture")


def check_irq_row(r, expect, iters, where):
    n = lambda k: int(r[k])
    g = r["guard"]
    check(r["status"] == "ok", f"{where} {g}: irq status {r['status']} ({r['reason']})")
    check(n("ops") == iters, f"{where} {g}: {r['ops']} hardirq attempts, want {iters}")
    check(n("in_hardirq") == iters, f"{where} {g}: {r['in_hardirq']} in hardirq, want {iters}")
    if expect == "refuse":
        check(r["scenario"] == "irq-recursion" and n("refusals") == iters and n("granted") == 0
              and n("while_held") == iters, f"{where} {g}: expected {iters} refusals: {r}")
    elif expect == "grant":
        check(r["scenario"] == "irq-recursion" and n("granted") == iters and n("refusals") == 0
              and n("while_held") == iters, f"{where} {g}: expected {iters} grants: {r}")
    else:
        check(r["scenario"] == "irq-deferred" and n("while_held") == 0 and n("granted") == iters,
              f"{where} {g}: expected the hardirq deferred to exit: {r}")


# (A) the module's CSV via busybox.
raw = read("raw.csv")
check(raw.split("\n", 1)[0] == RAW_HEADER, "module CSV header changed: " + raw.split("\n", 1)[0])
rr = rows(raw)
for g, why in SKIP.items():
    sk = [r for r in rr if r["guard"] == g]
    check(len(sk) == 2 and all(r["status"] == "skipped" and r["reason"] == why for r in sk),
          f"A {g}: want 2 skipped rows saying {why}: {sk}")
for g, expect in RUN.items():
    loop = [r for r in rr if r["guard"] == g and r["scenario"] == "loop"]
    if check(len(loop) == 2 * 2, f"A {g}: {len(loop)} loop rows, want runs*cpus = 4"):
        check({(r["run"], r["cpu"]) for r in loop} == {(a, b) for a in "01" for b in "01"},
              f"A {g}: runs/cpus {[(r['run'], r['cpu']) for r in loop]}")
    for r in loop:
        check(r["status"] == "ok" and int(r["ops"]) == 3000 and int(r["ns_total"]) > 0
              and float(r["ns_per_pair"]) >= 0 and r["cpus"] == "0-1" and r["threads"] == "2",
              f"A {g}: bad loop row {r}")
        if g != "atomic-shared":   # the only guard shared across CPUs
            check(int(r["refusals"]) == 0, f"A {g}: per-CPU guard refused in the loop: {r}")
        else:
            check(int(r["refusals"]) <= 3000, f"A {g}: refusals > ops: {r}")
    irq = [r for r in rr if r["guard"] == g and r["scenario"].startswith("irq-")]
    if check(len(irq) == 1, f"A {g}: {len(irq)} irq rows"):
        check_irq_row(irq[0], expect, 500, "A")
want = len(RUN) * 5 + len(SKIP) * 2
check(len(rr) == want, f"A: {len(rr)} rows, want {want}")

# (B) rgbench-kmod end to end, shared schema.
check(read("rc_b").strip() == "0", "B: rgbench-kmod exit " + read("rc_b").strip() + ": " + read("b.err"))
kr = rows(read("kmod.csv"))
check(len(kr) == 2 * len(ALL), f"B: {len(kr)} schema rows, want {2 * len(ALL)}")
raw2 = {(r["guard"], r["scenario"]): r for r in rows(read("raw2.csv"))}
for r in kr:
    g = r["guard"]
    check(r["suite"] == "kmod" and r["schema_version"] == "3" and r["pinning"] == "kthread",
          f"B {g}: identity columns {r}")
    check(g in ALL, f"B: unexpected guard {g}")
    if g in SKIP:
        check(r["status"] == "skipped" and r["reason"] == SKIP[g], f"B {g}: want skipped: {r}")
    elif r["scenario"] == "loop":
        ok = (r["status"] == "ok" and r["repetitions"] == "3" and r["threads"] == "2"
              and r["cpus"] == "0-1" and r["batch"] == "3000" and int(r["ops"]) == 3000 * 3 * 2)
        check(ok, f"B {g}: bad loop row {r}")
        try:
            check(float(r["ns_median"]) > 0 and float(r["mops_median"]) > 0
                  and float(r["ns_min"]) <= float(r["ns_median"]) <= float(r["ns_max"]),
                  f"B {g}: bad aggregates {r}")
        except ValueError:
            errors.append(f"B {g}: non-numeric aggregates {r}")
    else:
        expect = RUN.get(g, "?")
        want_scen = "irq-deferred" if expect == "defer" else "irq-recursion"
        check(r["scenario"] == want_scen and r["status"] == "ok" and int(r["ops"]) == 500
              and int(r["refusals"]) == (500 if expect == "refuse" else 0),
              f"B {g}: bad irq row {r}")
        check((g, r["scenario"]) in raw2, f"B {g}: no matching raw row")
try:
    js = json.loads(read("kmod.json"))
    check(len(js.get("results", [])) == len(kr), "B: JSON and CSV row counts differ")
except ValueError as e:
    errors.append(f"B: kmod.json does not parse: {e}")
check("rctx" in read("table.txt"), "B: no table on stdout")

# (C) a bad guard name: refused at load, clear message, nothing written, nothing loaded.
check(read("rc_c").strip() == "1", "C: unknown guard: exit " + read("rc_c").strip() + ", want 1")
check(read("rc_c2").strip() == "1", "C: a guard listed twice: exit " + read("rc_c2").strip() + ", want 1")
check("refused" in read("c.err"), "C: no clear message: " + read("c.err"))

# (D) interrupts off in the timed region, one CPU.
check(read("rc_d").strip() == "0", "D: exit " + read("rc_d").strip() + ": " + read("d.err"))
dr = rows(read("irqsoff.csv"))
loops = [r for r in dr if r["scenario"] == "loop-irqsoff"]
check(sorted(r["guard"] for r in loops) == ["noop", "rctx", "this-cpu-inc-return"],
      f"D: loop-irqsoff rows {[r['guard'] for r in loops]}")
for r in loops:
    check(r["cpus"] == "1" and r["threads"] == "1" and int(r["ops"]) == 4000,
          f"D: bad row {r}")

# (E) SIGINT during the run: held back until the module is unloaded.
check(read("rc_e").strip() == "130", "E: exit " + read("rc_e").strip() + ", want 130")
check("interrupted; module unloaded" in read("e.err"), "E: message: " + read("e.err"))
check(not os.path.exists(os.path.join(out, "int.csv")), "E: wrote output although interrupted")

# Kernel log: the runs happened, and nothing went wrong.
dmesg = read("dmesg.txt")
check(dmesg.count("rgbench_kmod: run: done") == 4, "dmesg: expected 4 completed runs")
check('unknown guard "no-such-guard"' in dmesg and 'guard "rctx" listed twice' in dmesg,
      "dmesg: no reason for the refused loads")
for bad in ("WARNING:", "BUG:", "Oops", "Call Trace", "general protection", "refcount_t"):
    check(bad not in dmesg, f"dmesg has '{bad}'")

# The host converter reads the guest's module CSV the same way.
with tempfile.TemporaryDirectory() as d:
    p = subprocess.run(conv + ["--from-raw", os.path.join(out, "raw2.csv"), "--quiet",
                        "--out", os.path.join(d, "x.csv")], capture_output=True, text=True)
    check(p.returncode == 0, f"--from-raw exit {p.returncode}: {p.stderr}")
    if p.returncode == 0:
        with open(os.path.join(d, "x.csv")) as f:
            check(len(rows(f.read())) == len(kr), "--from-raw row count differs from the guest's")

for e in errors:
    print("check_kmod:", e, file=sys.stderr)
print(f"check_kmod: {len(rr)} module rows, {len(kr)} schema rows, "
      f"{len(errors)} problem(s)")
sys.exit(1 if errors else 0)
