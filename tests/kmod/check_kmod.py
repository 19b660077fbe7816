#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Checks what the qemu guest of qemu_kmod.sh wrote: module CSV, schema-3 rows, exact softirq/hardirq/NMI re-entry counts, discards, clean unload and dmesg.
import csv, io, json, math, os, re, subprocess, sys, tempfile

# Usage: check_kmod.py OUT amd64|arm64 LSE(0|1) RG_KGUARDS_H KVER CONVERTER...
out, arch, lse, kguards_h, kver, conv = (sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4],
                                         sys.argv[5], sys.argv[6:])
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kguards  # noqa: E402
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


# Guard -> (role, kind) from the build's generated guard list (rg_kguards.h) for the
# guest kernel: kind is what a re-entry gets while the guard is held.
_since_618 = tuple(int(x) for x in re.match(r"(\d+)\.(\d+)", kver).groups()) >= (6, 18)
_build = kguards.read(kguards_h)[("x86-64" if arch == "amd64" else "arm64", _since_618)]
RUN = {n: (r, k) for _, n, r, k, a in _build["guards"] if lse or a != "rg_need_lse"}
SKIP = {n: "CPU has no LSE atomics" for _, n, r, k, a in _build["guards"] if not lse and a == "rg_need_lse"}
OTHER = list(_build["other"])
ALL = list(RUN) + list(SKIP)
MODES = ("irq", "softirq", "softirq-irq", "nmi")
LEVEL = {"irq": 2, "softirq": 1, "softirq-irq": 2, "nmi": 3}
NMI_SKIP = None if arch == "amd64" else "no NMI a module can raise"
RAW_HEADER = ("suite,guard,role,scenario,threads,cpus,cpu,run,batch,duty_ns,duty_units,duty_in_ns,"
              "duty_in_units,irqs_off,"
              "ns_total,ns_per_pair,cycles_total,ops,refusals,granted,while_held,at_level,"
              "disturbed,discarded,expect,status,reason,prog_runs")
counts = {}   # (guard, mode) -> "refused/granted" from (A), for the report


def expect_of(kind, mode):
    if kind == "defer":
        return "refuse" if mode == "nmi" else "defer"
    return kind


if os.path.exists(os.path.join(out, "errors")):
    errors.append("guest errors: " + read("errors").strip())

# The module's guard list: exactly the guards expected here; the rest say why not.
guards = {r["guard"]: r for r in rows(read("guards.csv"))}
avail = {g: (r["role"], r["expect"]) for g, r in guards.items() if r["available"] == "1"}
check(avail == RUN, f"available guards/roles/expectations {avail} != {RUN}")
for g, why in SKIP.items():
    check(guards.get(g, {}).get("reason") == why, f"{g} should be unavailable: {why}")
for g in OTHER:
    check(guards.get(g, {}).get("reason") == "not this architecture",
          f"{g} should be listed as not this architecture")


def check_reentry(r, kind, mode, iters, where):
    n = lambda k: int(r[k])
    g = r["guard"]
    ex = expect_of(kind, mode)
    if mode == "nmi" and NMI_SKIP:
        check(r["status"] == "skipped" and r["reason"].startswith(NMI_SKIP),
              f"{where} {g} nmi: want skipped ({NMI_SKIP}...): {r}")
        return
    check(r["status"] == "ok", f"{where} {g} {mode}: status {r['status']} ({r['reason']})")
    check(n("ops") == iters, f"{where} {g} {mode}: {r['ops']} attempts, want {iters}")
    check(n("at_level") == iters,
          f"{where} {g} {mode}: {r['at_level']} at context level {LEVEL[mode]}, want {iters}")
    check(r["expect"] == ex, f"{where} {g} {mode}: expect {r['expect']}, want {ex}")
    if ex == "refuse":
        check(r["scenario"] == f"{mode}-recursion" and n("refusals") == iters and n("granted") == 0
              and n("while_held") == iters, f"{where} {g} {mode}: expected {iters} refusals: {r}")
    elif ex == "grant":
        check(r["scenario"] == f"{mode}-recursion" and n("granted") == iters and n("refusals") == 0
              and n("while_held") == iters, f"{where} {g} {mode}: expected {iters} grants: {r}")
    else:
        check(r["scenario"] == f"{mode}-deferred" and n("while_held") == 0 and n("granted") == iters,
              f"{where} {g} {mode}: expected the {mode} deferred to exit: {r}")
    counts[(g, mode)] = f"{r['refusals']}r/{r['granted']}g"


def clean(r):
    """ok, or noisy only because the cycle reference moved (TCG runs at the host's pace)."""
    return r["status"] == "ok" or (r["status"] == "noisy" and re.fullmatch(
        r"the cycle reference moved \d+% across the rounds \(more than 10%\)", r["reason"]))


# (A) the module's CSV via busybox: 2 rounds on 2 CPUs (2 cores), interrupts off.
raw = read("raw.csv")
check(raw.split("\n", 1)[0] == RAW_HEADER, "module CSV header changed: " + raw.split("\n", 1)[0])
rr = rows(raw)
for g, why in SKIP.items():
    sk = [r for r in rr if r["guard"] == g]
    check(len(sk) == 1 + len(MODES) and all(r["status"] == "skipped" and r["reason"] == why
                                            for r in sk),
          f"A {g}: want {1 + len(MODES)} skipped rows saying {why}: {sk}")
# irqsave with interrupts already off would never execute the irq-enable: no timed row.
IRQSAVE_OFF = ("interrupts already off in loop-irqsoff: local_irq_restore() would never "
               "execute the irq-enable; timed only with --irqs-on")
for g, (role, kind) in RUN.items():
    loop = [r for r in rr if r["guard"] == g and r["scenario"] == "loop-irqsoff"]
    if g == "irqsave":
        check(len(loop) == 1 and loop[0]["status"] == "skipped" and loop[0]["reason"] == IRQSAVE_OFF,
              f"A irqsave: want one skipped loop row saying why: {loop}")
        loop = []
    elif check(len(loop) == 2 * 2, f"A {g}: {len(loop)} loop rows, want runs*cpus = 4"):
        check({(r["run"], r["cpu"]) for r in loop} == {(a, b) for a in "01" for b in "01"},
              f"A {g}: runs/cpus {[(r['run'], r['cpu']) for r in loop]}")
    for r in loop:
        check(r["status"] == "ok" and int(r["ops"]) == 3000 and int(r["ns_total"]) > 0
              and r["cpus"] == "0-1" and r["threads"] == "2" and r["irqs_off"] == "1"
              and r["role"] == role and r["disturbed"] == "0" and r["discarded"] == "0",
              f"A {g}: bad loop row {r}")
        if g != "global-atomic":   # the only guard shared across CPUs
            check(int(r["refusals"]) == 0, f"A {g}: per-CPU guard refused in the loop: {r}")
        else:
            check(int(r["refusals"]) <= 3000, f"A {g}: refusals > ops: {r}")
    for m in MODES:
        re_rows = [r for r in rr if r["guard"] == g and r["scenario"].startswith(m + "-")
                   and r["scenario"][len(m) + 1:] in ("recursion", "deferred")]
        if check(len(re_rows) == 1, f"A {g}: {len(re_rows)} {m} rows"):
            check_reentry(re_rows[0], kind, m, 500, "A")
# The cycle reference: one row per run and CPU, batch and ops in adds (16 per iteration).
ref = [r for r in rr if r["guard"] == "cycle-ref"]
check({(r["run"], r["cpu"]) for r in ref} == {(a, b) for a in "01" for b in "01"} and len(ref) == 4
      and all(r["scenario"] == "cycle-ref" and r["status"] == "ok" and int(r["ns_total"]) > 0
              and int(r["batch"]) > 0 and int(r["batch"]) % 16 == 0 and r["ops"] == r["batch"]
              for r in ref), f"A: cycle-ref rows {ref}")
want = len(RUN) * (4 + len(MODES)) - 3 + len(SKIP) * (1 + len(MODES)) + 4
check(len(rr) == want, f"A: {len(rr)} rows, want {want}")

# (B) rgbench-kmod end to end, schema 3.
check(read("rc_b").strip() == "0", "B: rgbench-kmod exit " + read("rc_b").strip() + ": " + read("b.err"))
kr = rows(read("kmod.csv"))
check(len(kr) == (1 + len(MODES)) * len(ALL), f"B: {len(kr)} schema rows, want {(1 + len(MODES)) * len(ALL)}")
raw2 = {(r["guard"], r["scenario"]): r for r in rows(read("raw2.csv"))}


def num(r, k):
    try:
        return float(r[k])
    except (KeyError, ValueError):
        return math.nan


for r in kr:
    g = r["guard"]
    check(r["suite"] == "kmod" and r["schema_version"] == "6" and r["pinning"] == "kthread" and r["unit"] == "ns/pair",
          f"B {g}: identity columns {r}")
    check(g in ALL, f"B: unexpected guard {g}")
    if g in SKIP:
        check(r["status"] == "skipped" and r["reason"] == SKIP[g], f"B {g}: want skipped: {r}")
        continue
    role, kind = RUN[g]
    check(r["role"] == role, f"B {g}: role {r['role']}, want {role}")
    if r["scenario"] == "loop-irqsoff" and g == "irqsave":
        check(r["status"] == "skipped" and r["reason"] == IRQSAVE_OFF, f"B irqsave: want skipped: {r}")
    elif r["scenario"] == "loop-irqsoff":
        check(num(r, "ref_ns_per_cycle") > 0 and math.isclose(
              num(r, "ref_cycles_per_pair"), num(r, "ns_median") / num(r, "ref_ns_per_cycle"),
              rel_tol=1e-4), f"B {g}: reference columns {r}")
        ok = (clean(r) and r["repetitions"] == "3" and r["threads"] == "2"
              and r["cpus"] == "0-1" and r["batch"] == "3000" and int(r["ops"]) == 3000 * 3 * 2
              and r["interleave"] == "rounds" and r["discarded"] == "0")
        check(ok, f"B {g}: bad loop row {r}")
        check(num(r, "ns_median") > 0 and num(r, "mops_median") > 0
              and num(r, "ns_min") <= num(r, "ns_median") <= num(r, "ns_max"),
              f"B {g}: bad aggregates {r}")
        if g == "noop":
            check(r["baseline"] == "n/a" and r["delta_ns"] == "", f"B noop: delta {r}")
        else:
            lo, d, hi = num(r, "delta_ci_lo"), num(r, "delta_ns"), num(r, "delta_ci_hi")
            check(r["baseline"] == "noop" and lo <= d <= hi, f"B {g}: delta/interval {r}")
    else:
        m = r["scenario"].rsplit("-", 1)[0]
        check(m in MODES and (g, r["scenario"]) in raw2, f"B {g}: unexpected row {r['scenario']}")
        if m in MODES and not (m == "nmi" and NMI_SKIP):
            ex = expect_of(kind, m)
            check(r["status"] == "ok" and int(r["ops"]) == 500
                  and int(r["refusals"]) == (500 if ex == "refuse" else 0),
                  f"B {g}: bad {m} row {r}")
try:
    js = json.loads(read("kmod.json"))
    check(len(js.get("results", [])) == len(kr), "B: JSON and CSV row counts differ")
    for x in js.get("results", []):
        if x["scenario"] == "loop-irqsoff" and x["status"] == "ok":
            check(len(x.get("samples_ns") or []) == 3, f"B: JSON per-round values {x['guard']}")
except ValueError as e:
    errors.append(f"B: kmod.json does not parse: {e}")
check("rctx-kernel" in read("table.txt"), "B: no table on stdout")

# (C) bad guard names / thread count: refused at load, nothing written, nothing loaded.
for f in ("rc_c", "rc_c2", "rc_c3"):
    check(read(f).strip() == "1", f"C: {f}: exit " + read(f).strip() + ", want 1")
check("refused" in read("c.err"), "C: no clear message: " + read("c.err"))

# (D) old option spellings, --threads 1 of CPUs 0-1, calibrated duty work,
# 20 ms runs with interrupts off: ticks are held off, nothing is discarded.
check(read("rc_d").strip() == "0", "D: exit " + read("rc_d").strip() + ": " + read("d.err"))
dr = rows(read("d.csv"))
loops = [r for r in dr if r["scenario"] == "loop-irqsoff"]
check(sorted(r["guard"] for r in loops) == ["global-atomic", "noop", "rctx-kernel"],
      f"D: loop rows {[r['guard'] for r in loops]}")
for r in loops:
    check(r["cpus"] == "0" and r["threads"] == "1" and r["duty_ns"] == "50" and clean(r)
          and r["duty_in_ns"] == "25"
          and r["discarded"] == "0" and int(r["batch"]) >= 100 and r["repetitions"] == "2",
          f"D: bad row {r}")
rd = [r for r in rows(read("raw_d.csv")) if r["scenario"] == "loop-irqsoff"]
check(rd and all(int(r["duty_units"]) > int(r["duty_in_units"]) > 0 and r["duty_in_ns"] == "25"
                 and r["disturbed"] == "0" for r in rd),
      f"D: duty units / disturbed in the module CSV {rd[:2]}")

# (F) --irqs-on, 30 ms runs: the timer tick lands in every run; the module
# must see it, discard and re-run (3 retries), and mark what it kept.
check(read("rc_f").strip() == "0", "F: exit " + read("rc_f").strip() + ": " + read("f.err"))
fr = [r for r in rows(read("f.csv")) if r["scenario"] == "loop"]
check(sorted(r["guard"] for r in fr) == ["noop", "rctx-kernel"], f"F: loop rows {[r['guard'] for r in fr]}")
for r in fr:
    check(int(r["discarded"]) >= 1 and r["status"] in ("ok", "noisy"),
          f"F {r['guard']}: interrupts on, yet nothing discarded: {r}")
rf = [r for r in rows(read("raw_f.csv")) if r["scenario"] == "loop"]
check(rf and all(r["irqs_off"] == "0" for r in rf), "F: raw rows say irqs off")

# (L) --ladder, one CPU, 2 rounds of 2000 pairs: every step of the build's ladders (RG_KLADDER)
# whose design runs here has exactly its rounds in the module CSV and one converted row paired
# with the step before it (the first with noop); a design without LSE has its steps skipped.
check(read("rc_l").strip() == "0", "L: exit " + read("rc_l").strip() + ": " + read("l.err"))
names = {i: n for i, n, _, _, _ in _build["guards"]}
lraw = [r for r in rows(read("raw_l.csv")) if r["scenario"] == "ladder"]
lconv = {r["guard"]: r for r in rows(read("l.csv")) if r["scenario"] == "ladder"}
want_ladder = ["noop"]
prev = None
for d, p, step, k, last in _build["ladder"]:
    design = names[d]
    if k == 1:
        want_ladder.append(design)
        prev = "noop"
    want_ladder.append(step)
    raw = [r for r in lraw if r["guard"] == step]
    if design in SKIP:
        check(len(raw) == 1 and raw[0]["status"] == "skipped" and raw[0]["reason"] == SKIP[design],
              f"L {step}: want one skipped row ({SKIP[design]}): {raw}")
    else:
        check(len(raw) == 2 and all(r["status"] == "ok" and r["ops"] == "2000" and r["refusals"] == "0"
                                    and r["cpu"] == "0" for r in raw) and
              sorted(r["run"] for r in raw) == ["0", "1"], f"L {step}: module rows {raw}")
        r = lconv.get(step, {})
        check(r.get("ops") == "4000" and r.get("refusals") == "0" and r.get("repetitions") == "2"
              and r.get("baseline") == prev and r.get("delta_ns") not in (None, "", "n/a")
              and r.get("suite") == "kmod", f"L {step}: converted row {r}")
    check(not [x for x in rows(read("raw_l.csv")) if x["guard"] == step and x["scenario"] != "ladder"],
          f"L {step}: rows outside the ladder scenario")
    prev = step
check([r["guard"] for r in lconv.values()] == want_ladder,
      f"L: ladder rows {list(lconv)} != {want_ladder}")
for g in set(want_ladder) - {"noop"}:
    if g in RUN and "+" not in g:
        w = lconv.get(g, {})
        check(w.get("baseline") == "noop" and w.get("ops") == "4000", f"L {g}: whole {w}")

# (E) SIGINT during the run: held back until the module is unloaded.
check(read("rc_e").strip() == "130", "E: exit " + read("rc_e").strip() + ", want 130")
check("interrupted (Interrupt); module unloaded" in read("e.err"), "E: message: " + read("e.err"))
check(not os.path.exists(os.path.join(out, "int.csv")), "E: wrote output although interrupted")
check(read("rc_g").strip() == "143", "G: SIGTERM: exit " + read("rc_g").strip() + ", want 143")
check("interrupted (Terminated); module unloaded" in read("g.err"), "G: message: " + read("g.err"))
check(not os.path.exists(os.path.join(out, "term.csv")), "G: wrote output although terminated")

# (T) the tramp scenario, (U) bad program fds, (N) the JIT-less build, (K): check_tramp.py.

# Kernel log: the runs happened, and nothing went wrong.
dmesg = read("dmesg.txt")
check(dmesg.count("rgbench_kmod: run: done") == 10, "dmesg: expected 10 completed runs (A B D F L E G T U N)")
# Every program the module held it released (after the run, or at rmmod).
check(dmesg.count("rgbench_kmod: prog: ") and
      dmesg.count("rgbench_kmod: prog: released") == len(re.findall(r"rgbench_kmod: prog: .* held", dmesg)),
      "dmesg: a BPF program held and not released")
# tramp.h follows the guest kernel's trampoline.c/bpf_trace.c: 6.1, 6.12, 6.18 or 7.2 (rounded down).
_kv = tuple(int(x) for x in re.match(r"(\d+)\.(\d+)", kver).groups())
_shapes = next(n for v, n in (((7, 2), "7.2"), ((6, 18), "6.18"), ((6, 12), "6.12"), ((0, 0), "6.1"))
               if _kv >= v)
check(re.search(r"rgbench_kmod: prog: .* held, .*the trampoline's shapes of " + re.escape(_shapes) + r"$",
                dmesg, re.M), f"dmesg: the tramp shapes are not {_shapes}'s (kernel {kver})")
check('unknown guard "no-such-guard"' in dmesg and 'guard "rctx-kernel" listed twice' in dmesg
      and "threads=3 but only 2 CPUs" in dmesg, "dmesg: no reason for the refused loads")
for bad in ("WARNING:", "BUG:", "Oops", "Call Trace", "general protection", "refcount_t",
            "Uhhuh. NMI received", "lockup"):
    check(bad not in dmesg, f"dmesg has '{bad}'")

# The host converter reads the guest's module CSV the same way.
with tempfile.TemporaryDirectory() as d:
    p = subprocess.run(conv + ["--from-raw", os.path.join(out, "raw2.csv"), "-qq",
                        "--out", os.path.join(d, "x.csv")], capture_output=True, text=True)
    check(p.returncode == 0, f"--from-raw exit {p.returncode}: {p.stderr}")
    if p.returncode == 0:
        with open(os.path.join(d, "x.csv")) as f:
            check(len(rows(f.read())) == len(kr), "--from-raw row count differs from the guest's")

for e in errors:
    print("check_kmod:", e, file=sys.stderr)
for g in ("rctx-kernel", "irqsave", "noop"):
    if (g, "irq") in counts:
        print(f"check_kmod: {g}: " + ", ".join(f"{m} {counts.get((g, m), 'skipped')}"
                                               for m in MODES))
print(f"check_kmod: {len(rr)} module rows, {len(kr)} schema rows, "
      f"{len(errors)} problem(s)")
sys.exit(1 if errors else 0)
