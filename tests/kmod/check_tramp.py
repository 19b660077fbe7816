#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Checks the tramp cases of qemu_kmod.sh's guest: T (both shapes, exact runs and re-entry), U (refused fds and program types), N (RG_FORCE_NO_JIT=1), the loaded-program listings after every case, and K's calibration by rgbench report.
import csv, io, json, math, os, re, subprocess, sys

# Usage: check_tramp.py OUT amd64|arm64 LSE(0|1) RG_KGUARDS_H KVER "REPORT COMMAND" (empty: no K)
out, arch, lse, kguards_h, kver, report = (sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4],
                                           sys.argv[5], sys.argv[6].split())
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kguards  # noqa: E402
errors, notes = [], []
MODES = ("irq", "softirq", "softirq-irq", "nmi")
NMI_SKIP = None if arch == "amd64" else "no NMI a module can raise"
SHAPES = ("tramp-fentry", "tramp-rawtp")
FORCED = ("built with RG_FORCE_NO_JIT=1: the path of a kernel without CONFIG_BPF_SYSCALL "
          "or CONFIG_BPF_JIT")
NOT_RAWTP = "the fd written to prog was not a raw_tp BPF program (see dmesg)"


def check(cond, msg):
    if not cond:
        errors.append(msg)
    return cond


def path(name):
    return os.path.join(out, name)


def read(name):
    if not os.path.exists(path(name)):
        errors.append(f"guest wrote no {name}")
        return ""
    with open(path(name)) as f:
        return f.read()


def rows(text):
    return list(csv.DictReader(io.StringIO(text))) if text else []


_since_618 = tuple(int(x) for x in re.match(r"(\d+)\.(\d+)", kver).groups()) >= (6, 18)
_build = kguards.read(kguards_h)[("x86-64" if arch == "amd64" else "arm64", _since_618)]
SKIP = {n: "CPU has no LSE atomics" for _, n, r, k, a in _build["guards"] if not lse and a == "rg_need_lse"}
designs = {n: k for _, n, r, k, a in _build["tramp"] if lse or a != "rg_need_lse"}

# (T) every trampoline design of the generated list in both shapes, the call alone; the
# program ran exactly as often as the design granted; re-entry through both shapes refused
# (granted for noop) from every context, exact counts.
check(read("rc_t").strip() == "0", "T: exit " + read("rc_t").strip() + ": " + read("t.err"))
rt = rows(read("raw_t.csv"))
timed = [r for r in rt if r["scenario"] in SHAPES + ("tramp-call",) and r["status"] == "ok"]
for shape in SHAPES:
    got = {r["guard"] for r in timed if r["scenario"] == shape}
    check(got == set(designs), f"T: {shape} designs {sorted(got)} != {sorted(designs)}")
check({r["guard"] for r in timed if r["scenario"] == "tramp-call"} == {"prog-call"}, "T: no tramp-call row")
check(not [r for r in rt if r["scenario"] == "loop-irqsoff"], "T: loop rows without --scenarios loop")
for r in timed:
    granted = int(r["ops"]) - int(r["refusals"])
    check(r["prog_runs"] != "" and int(r["prog_runs"]) == granted,
          f"T: {r['guard']} {r['scenario']}: prog_runs {r['prog_runs']} != granted {granted}")
    check(int(r["refusals"]) == 0, f"T: {r['guard']} {r['scenario']}: refusals in a loop on one CPU")
counts = {}
for shape in SHAPES:
    tre = [r for r in rt if r["scenario"].startswith(shape + "-") and r["guard"] in designs]
    for r in tre:
        mode = r["scenario"][len(shape) + 1:].rsplit("-", 1)[0]
        check(r["scenario"].endswith("-recursion"), f"T: {r['scenario']}: a re-entry row not -recursion")
        if mode == "nmi" and NMI_SKIP:
            check(r["status"] == "skipped" and r["reason"].startswith(NMI_SKIP),
                  f"T: {r['guard']} {shape} nmi: want skipped: {r}")
            continue
        want = "grant" if designs.get(r["guard"]) == "grant" else "refuse"
        got = int(r["refusals" if want == "refuse" else "granted"])
        check(r["status"] == "ok" and int(r["ops"]) == 200 and r["expect"] == want and got == 200
              and int(r["while_held"]) == 200 and int(r["at_level"]) == 200,
              f"T: re-entry {r['guard']} {r['scenario']}: {r}")
        counts[(shape, r["guard"], mode)] = f"{r['refusals']}r/{r['granted']}g"
    check(len(tre) == len(designs) * len(MODES),
          f"T: {len(tre)} {shape} re-entry rows for {len(designs)} designs")
tk = rows(read("t.csv"))
for r in tk:	# the schema's prog_runs (version 5): the module rows' sum, equal to the grants
    if r["scenario"] in SHAPES + ("tramp-call",) and r["status"] != "skipped":
        check(int(r.get("prog_runs") or -1) == int(r["ops"]) - int(r["refusals"]) > 0,
              f"T: schema row {r['guard']} {r['scenario']}: prog_runs {r.get('prog_runs')}, "
              f"ops {r['ops']}, refusals {r['refusals']}")
for shape in SHAPES:	# the driver converts both shapes' re-entry rows alike
    conv = [r for r in tk if r["scenario"].startswith(shape + "-") and r["status"] == "ok"]
    want = len(designs) * (len(MODES) - (1 if NMI_SKIP else 0))
    check(len(conv) == want and all(int(r["ops"]) == 200 and int(r["refusals"]) ==
                                    (0 if designs[r["guard"]] == "grant" else 200) for r in conv),
          f"T: {len(conv)} converted {shape} re-entry rows, want {want} with exact refusals")
check(any(r["scenario"] == "tramp-fentry" and r["guard"] != "noop" and r["baseline"] == "noop"
          for r in tk), "T: no tramp-fentry row measured against noop")

# (U) bad program fds and programs of the wrong type refused with EINVAL, nothing held;
# the rows then say why (the last write was rg-progfd's notbpf).
pf = read("progfd.txt")
for k in ("socket", "tracepoint", "rawtp-nobss", "notbpf"):
    check(f"{k}: refused: EINVAL" in pf and f"{k} rc 0" in pf, f"U: {k} not refused with EINVAL: {pf}")
ru = rows(read("raw_u.csv"))
tramp_u = [r for r in ru if r["scenario"] in SHAPES + ("tramp-call",)]
check(tramp_u and all(r["status"] == "skipped" and r["reason"] in (NOT_RAWTP, SKIP.get(r["guard"]))
                      for r in tramp_u),
      f"U: tramp rows after a refused fd are not skipped saying why: {tramp_u[:2]}")

# (N) RG_FORCE_NO_JIT=1: one line from the driver, exit 0, loop rows and their re-entry
# run, every tramp row skipped with the forced reason.
check(read("rc_n").strip() == "0", "N: exit " + read("rc_n").strip() + ": " + read("n.err"))
nerr = [l for l in read("n.err").splitlines() if l.startswith("rgbench kmod: tramp")]
check(len(nerr) == 1 and "the module cannot run a BPF program here (Operation not supported" in nerr[0],
      f"N: want one line about the refused program: {nerr}")
rn = rows(read("raw_n.csv"))
loop_n = [r for r in rn if r["scenario"] == "loop-irqsoff"]
check(sorted({r["guard"] for r in loop_n}) == ["noop", "rctx-kernel"] and len(loop_n) == 2 * 2 * 2
      and all(r["status"] == "ok" and r["ops"] == "1000" for r in loop_n), f"N: loop rows {loop_n}")
re_n = [r for r in rn if r["guard"] in ("noop", "rctx-kernel") and r["scenario"].split("-")[0] in MODES
        and not (r["scenario"].startswith("nmi") and NMI_SKIP)]
check(len(re_n) == 2 * (len(MODES) - (1 if NMI_SKIP else 0)) and all(r["status"] == "ok" for r in re_n),
      f"N: the guards' re-entry rows did not run: {re_n}")
tn = [r for r in rn if r["scenario"].startswith("tramp-")]
check(len(tn) >= 3 and all(r["status"] == "skipped" and r["reason"] == FORCED for r in tn),
      f"N: tramp rows not skipped with the forced reason: {tn[:3]}")

# dmesg: every refusal said why, every program held was released, the forced build said so.
dmesg = read("dmesg.txt")
check(dmesg.count("is not a raw_tp BPF program of this process") == 5,
      "dmesg: want 5 'is not a raw_tp BPF program' lines (stdin, fd 987, socket, tracepoint, notbpf)")
check(dmesg.count("prog: the program has no .bss map") == 1, "dmesg: no reason for the raw_tp program without .bss")
check('prog: want "FD OFF STRIDE N"' in dmesg, "dmesg: no reason for the malformed request")
check("prog: " + FORCED in dmesg, "dmesg: the RG_FORCE_NO_JIT=1 module did not say why it refused")
held = len(re.findall(r"rgbench_kmod: prog: .* held", dmesg))
check(held >= 1 and dmesg.count("rgbench_kmod: prog: released") == held,
      f"dmesg: {held} programs held, {dmesg.count('rgbench_kmod: prog: released')} released")

# The loaded programs after every case: what was loaded at the start (the kernel's own,
# e.g. bpf_preload's iterators), nothing more. bpftool's JSON where the guest had one,
# and BPF_PROG_GET_NEXT_ID (rg-progfd ids) always.
CASES = ("A", "B", "C", "D", "F", "L", "E", "G", "T", "U-loaded", "U", "N") + (("K",) if report else ())
base_ids = read("ids_0.txt").strip()
check(base_ids.startswith("ids:"), f"ids at the start: {base_ids}")
# the control: with one program of rg-progfd's own loaded, the listing shows exactly one more
ctl = read("ids_control.txt").split()
check(len(ctl) == len(base_ids.replace(" none", "").split()) + 1,
      f"the listing's control (one program loaded) shows {ctl}, at the start {base_ids}")
have_bt = os.path.exists(path("bpftool_0.json"))
if have_bt:
    try:
        base_bt = sorted((p["id"], p.get("name", "")) for p in json.loads(read("bpftool_0.json")))
    except ValueError as e:
        base_bt = None
        errors.append(f"bpftool at the start: not JSON ({e}): {read('bpftool_0.json')[:200]}")
for c in CASES:
    check(read(f"ids_{c}.txt").strip() == base_ids,
          f"after {c}: BPF_PROG_GET_NEXT_ID lists {read(f'ids_{c}.txt').strip()}, at the start {base_ids}")
    if have_bt and base_bt is not None:
        try:
            got = sorted((p["id"], p.get("name", "")) for p in json.loads(read(f"bpftool_{c}.json")))
            check(got == base_bt, f"after {c}: bpftool prog lists {got}, at the start {base_bt}")
        except ValueError as e:
            errors.append(f"after {c}: bpftool output not JSON ({e})")
notes.append(("bpftool prog and " if have_bt else "no bpftool in this guest: only ")
             + f"BPF_PROG_GET_NEXT_ID after {len(CASES)} cases; at the start: {base_ids}")

# (K) the real trigger bench beside T on this boot, and rgbench report on both files.
if report:
    import calib_guest  # noqa: E402
    calib_guest.check_k(out, read, check, notes, report, arch, lse)

for e in errors:
    print("check_tramp:", e, file=sys.stderr)
for (shape, g, m), v in sorted(counts.items()):
    if g in ("noop", "rctx-kernel") and m == "irq":
        print(f"check_tramp: {shape} {g}: " + ", ".join(
            f"{x} {counts.get((shape, g, x), 'skipped')}" for x in MODES))
for n in notes:
    print("check_tramp:", n)
print(f"check_tramp: {len(rt)} tramp module rows, {len(errors)} problem(s)")
sys.exit(1 if errors else 0)
