#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# rgbench-kmod --from-raw: module CSV fixtures to shared-schema rows, with exact aggregates, errors and bad input.
# Usage: check_convert.py DATA_DIR TOOL... (TOOL may be prefixed by an emulator)
import csv, io, json, math, os, subprocess, sys, tempfile

data, tool = sys.argv[1], sys.argv[2:]
errors = []


def check(cond, msg):
    if not cond:
        errors.append(msg)


def run(*args):
    return subprocess.run(tool + list(args), capture_output=True, text=True)


def close(a, b):
    return math.isclose(float(a), b, rel_tol=1e-6)


with tempfile.TemporaryDirectory() as d:
    csvp, jsp = os.path.join(d, "k.csv"), os.path.join(d, "k.json")
    # Good input: exact per-run means over CPUs and sums of Mpairs/s.
    p = run("--from-raw", os.path.join(data, "raw_good.csv"), "--out", csvp, "--json", jsp)
    check(p.returncode == 0, f"good: exit {p.returncode}: {p.stderr}")
    rows = list(csv.DictReader(open(csvp))) if os.path.exists(csvp) else []
    by = {(r["guard"], r["scenario"]): r for r in rows}
    check(len(rows) == 6, f"good: {len(rows)} rows, want 6")
    # Schema 6: the unit of the ns columns, and why the kthreads ran where they did.
    check(all(r["unit"] == "ns/pair" and r["cpus_why"] == "the module's cpus= list (--cpus, default all "
              "online), one kthread per CPU, SMT siblings left out unless --siblings" for r in rows),
          f"good: unit and cpus_why {[(r['unit'], r['cpus_why']) for r in rows[:1]]}")
    r = by.get(("noop", "loop"), {})
    # runs: (1+3)/2=2, (2+2)/2=2, (4+6)/2=5 ns; Mpairs/s 1000+333.3, 500+500, 250+166.7
    check(r.get("repetitions") == "3" and close(r.get("ns_median", "nan"), 2.0)
          and close(r.get("ns_mean", "nan"), 3.0) and close(r.get("ns_min", "nan"), 2.0)
          and close(r.get("ns_max", "nan"), 5.0) and close(r.get("mops_median", "nan"), 1000.0)
          and close(r.get("mops_per_thread", "nan"), 500.0), f"good: noop loop aggregates {r}")
    check(r.get("ops") == "6000" and r.get("refusals") == "0" and r.get("cpus") == "0,2"
          and r.get("threads") == "2" and r.get("batch") == "1000" and r.get("duty_ns") == "50"
          and r.get("suite") == "kmod" and r.get("pinning") == "kthread" and r.get("status") == "ok",
          f"good: noop loop identity {r}")
    r = by.get(("atomic-shared", "loop"), {})
    check(r.get("refusals") == "24" and r.get("ops") == "2000" and close(r.get("ns_median", "nan"), 8.0)
          and close(r.get("mops_median", "nan"), 250.0), f"good: atomic-shared loop {r}")
    r = by.get(("atomic-shared", "irq-recursion"), {})
    check(r.get("refusals") == "7" and r.get("ops") == "7" and r.get("ns_median") == ""
          and r.get("cpus") == "0" and r.get("status") == "ok", f"good: atomic-shared irq {r}")
    r = by.get(("noop", "irq-recursion"), {})
    check(r.get("refusals") == "0" and r.get("ops") == "7", f"good: noop irq {r}")
    for scen in ("loop", "irq-recursion"):
        r = by.get(("arm64-llsc", scen), {})
        check(r.get("status") == "skipped" and r.get("reason") == "not this architecture",
              f"good: arm64-llsc {scen} {r}")
    try:
        js = json.load(open(jsp))
        jr = [x for x in js["results"] if x["guard"] == "noop" and x["scenario"] == "loop"]
        check(len(js["results"]) == 6 and len(jr) == 1 and jr[0]["samples_ns"] == [2, 2, 5],
              f"good: JSON rows/samples {jr}")
    except (OSError, ValueError, KeyError) as e:
        errors.append(f"good: JSON: {e}")

    # Schema 3 from the current module: role, per-round paired delta against
    # noop, discarded runs, a run still disturbed after retries -> noisy.
    c3, j3 = os.path.join(d, "v3.csv"), os.path.join(d, "v3.json")
    p = run("--from-raw", os.path.join(data, "raw_v3.csv"), "-qq", "--out", c3, "--json", j3)
    check(p.returncode == 0, f"v3: exit {p.returncode}: {p.stderr}")
    rows = list(csv.DictReader(open(c3))) if os.path.exists(c3) else []
    by = {(r["guard"], r["scenario"]): r for r in rows}
    check(len(rows) == 12, f"v3: {len(rows)} rows, want 12")
    r = by.get(("noop", "loop-irqsoff"), {})
    check(r.get("role") == "harness-floor" and r.get("interleave") == "rounds"
          and r.get("baseline") == "n/a" and r.get("delta_ns") == ""
          and close(r.get("ns_median", "nan"), 2.0) and r.get("discarded") == "0"
          and r.get("status") == "ok", f"v3: noop {r}")
    # raw_v3.csv is from a module that called its kernel-form check "rctx": it reads as rctx-kernel
    check(not any(g == "rctx" for g, _ in by), "v3: the old module name rctx is converted")
    r = by.get(("rctx-kernel", "loop-irqsoff"), {})
    # rounds: rctx 5, 7, 6 vs noop 2, 2, 5 -> differences 3, 5, 1: median 3
    try:
        lo, hi = float(r["delta_ci_lo"]), float(r["delta_ci_hi"])
        check(1.0 <= lo <= 3.0 <= hi <= 5.0 and lo < hi, f"v3: rctx interval [{lo}, {hi}]")
    except (KeyError, ValueError):
        errors.append(f"v3: rctx interval not numeric: {r}")
    check(r.get("role") == "merged-rctx" and r.get("baseline") == "noop"
          and r.get("interleave") == "rounds" and close(r.get("delta_ns", "nan"), 3.0)
          and close(r.get("ns_median", "nan"), 6.0) and r.get("discarded") == "2"
          and r.get("status") == "noisy" and "2 run(s)" in r.get("reason", "")
          and r.get("repetitions") == "3", f"v3: rctx {r}")
    for m in ("irq", "softirq", "softirq-irq", "nmi"):
        r = by.get(("rctx-kernel", m + "-recursion"), {})
        check(r.get("ops") == "7" and r.get("refusals") == "7" and r.get("status") == "ok"
              and r.get("role") == "merged-rctx", f"v3: rctx {m} {r}")
        r = by.get(("noop", m + "-recursion"), {})
        check(r.get("ops") == "7" and r.get("refusals") == "0", f"v3: noop {m} {r}")
    try:
        js = json.load(open(j3))
        jr = [x for x in js["results"] if x["guard"] == "rctx-kernel" and x["scenario"] == "loop-irqsoff"]
        check(len(jr) == 1 and jr[0]["samples_ns"] == [5, 7, 6] and jr[0]["delta_ns"] == 3,
              f"v3: JSON per-round samples {jr}")
    except (OSError, ValueError, KeyError) as e:
        errors.append(f"v3: JSON: {e}")

    # The trampoline-shaped duty (schema 4 modules): duty_in_ns and the units
    # per call come from the module's columns on the loop rows; a module
    # without them (raw_good: an older duty shape) leaves duty_in_ns empty (missing).
    check(all(r["duty_in_ns"] == "" for r in csv.DictReader(open(csvp))),
          "good: an old module's duty rows have a duty_in_ns")
    c4, j4 = os.path.join(d, "v4.csv"), os.path.join(d, "v4.json")
    raw4 = os.path.join(d, "raw_v4.csv")
    with open(os.path.join(data, "raw_v3.csv")) as f, open(raw4, "w", newline="") as o:
        w = csv.writer(o)
        for i, row in enumerate(csv.reader(f)):
            loop = i and row[3].startswith("loop")
            if i == 0:
                row[11:11] = ["duty_in_ns", "duty_in_units"]
            else:
                if loop:
                    row[9], row[10] = "50", "37"
                row[11:11] = ["20", "15"] if loop else ["", ""]
            w.writerow(row)
    p = run("--from-raw", raw4, "-qq", "--out", c4, "--json", j4)
    check(p.returncode == 0, f"v4: exit {p.returncode}: {p.stderr}")
    rows = list(csv.DictReader(open(c4))) if os.path.exists(c4) else []
    loops = [r for r in rows if r["scenario"] == "loop-irqsoff" and r["status"] != "skipped"]
    check(len(loops) >= 2 and all(r["duty_ns"] == "50" and r["duty_in_ns"] == "20" for r in loops),
          f"v4: loop rows' duty split {[(r['guard'], r['duty_ns'], r['duty_in_ns']) for r in loops]}")
    check(all(r["duty_in_ns"] == "" for r in rows if r["scenario"].endswith("-recursion")),
          "v4: a re-entry row has a duty_in_ns")
    try:
        js = json.load(open(j4))
        jr = [x for x in js["results"] if x["scenario"] == "loop-irqsoff" and x["status"] != "skipped"]
        check(jr and all(x["work_units"] == 37 for x in jr), f"v4: JSON work_units {jr[:1]}")
    except (OSError, ValueError, KeyError) as e:
        errors.append(f"v4: JSON: {e}")

    # The cycle reference (cycle-ref lines, batch in adds): per run the mean
    # over CPUs of ns per add; every timed row gets its median, cv and itself
    # in reference cycles; a move over 10% makes the row noisy. Older files
    # (raw_v3, raw_v4 above) leave the columns empty (missing).
    refcols = ("ref_ns_per_cycle", "ref_cv", "ref_cycles_per_pair")
    for name, path in (("v3", c3), ("v4", c4)):
        rows = list(csv.DictReader(open(path))) if os.path.exists(path) else []
        check(rows and all(r[k] == "" for r in rows for k in refcols),
              f"{name}: an old module's rows have reference columns")

    def with_ref(name, per_run):
        out = os.path.join(d, name + ".raw")
        with open(raw4) as f, open(out, "w", newline="") as o:
            o.write(f.read())
            w = csv.writer(o)
            for rn, pair in enumerate(per_run):
                for cpu, ns in zip((0, 2), pair):
                    w.writerow(["kmod", "cycle-ref", "n/a", "cycle-ref", "2", "0,2", cpu, rn, 64000,
                                50, "", "", "", 1, ns, "%.3f" % (ns / 64000), "", 64000, 0,
                                "", "", "", 0, 0, "", "ok", ""])
        conv = os.path.join(d, name + ".csv")
        p = run("--from-raw", out, "-qq", "--out", conv)
        check(p.returncode == 0, f"{name}: exit {p.returncode}: {p.stderr}")
        rows = list(csv.DictReader(open(conv))) if os.path.exists(conv) else []
        for x in (out, conv):
            if os.path.exists(x):
                os.unlink(x)
        check(not any(r["guard"] == "cycle-ref" for r in rows), f"{name}: the reference became a row")
        return {(r["guard"], r["scenario"]): r for r in rows}

    # per run 0.25, 0.26, 0.25 ns/add: median 0.25, sd sqrt(1/30000), mean 0.76/3, moved 4%
    by = with_ref("ref", [(16000, 16000), (16000, 17280), (15360, 16640)])
    n, k = by.get(("noop", "loop-irqsoff"), {}), by.get(("rctx-kernel", "loop-irqsoff"), {})
    check(close(n.get("ref_ns_per_cycle", "nan"), 0.25) and math.isclose(float(n.get("ref_cv", "nan")), math.sqrt(1 / 30000) / (0.76 / 3), rel_tol=1e-5)
          and close(n.get("ref_cycles_per_pair", "nan"), 8.0) and n.get("status") == "ok",
          f"ref: noop {n}")
    check(close(k.get("ref_cycles_per_pair", "nan"), 24.0) and k.get("status") == "noisy"
          and "cycle reference" not in k.get("reason", ""), f"ref: rctx-kernel {k}")
    check(all(r[c] == "" for r in by.values() if r["status"] == "skipped" or
              r["scenario"].endswith("-recursion") for c in refcols), "ref: untimed rows got reference columns")
    # per run 0.25, 0.26, 0.30: median 0.26, (0.30 - 0.25) / 0.26 = 19% > 10%
    by = with_ref("refmove", [(16000, 16000), (16000, 17280), (19200, 19200)])
    n, k = by.get(("noop", "loop-irqsoff"), {}), by.get(("rctx-kernel", "loop-irqsoff"), {})
    why = "the cycle reference moved 19% across the rounds (more than 10%)"
    check(n.get("status") == "noisy" and n.get("reason") == why and close(n.get("ref_ns_per_cycle", "nan"), 0.26),
          f"refmove: noop {n}")
    check(k.get("status") == "noisy" and k.get("reason", "").startswith("2 run(s)")
          and k.get("reason", "").endswith("; " + why), f"refmove: rctx-kernel {k}")

    # A failed hardirq check: rows still written, status error kept, exit 1.
    csv2 = os.path.join(d, "f.csv")
    p = run("--from-raw", os.path.join(data, "raw_irqfail.csv"), "-qq", "--out", csv2)
    check(p.returncode == 1 and "re-entry check" in p.stderr, f"irqfail: exit {p.returncode}: {p.stderr}")
    rows = list(csv.DictReader(open(csv2))) if os.path.exists(csv2) else []
    bad = [r for r in rows if r["scenario"] == "irq-recursion"]
    check(len(bad) == 1 and bad[0]["status"] == "error" and bad[0]["refusals"] == "3"
          and "3 refused, 7 while held" in bad[0]["reason"], f"irqfail: rows {rows}")

    # Malformed input: one-line error, non-zero, nothing written.
    csv3 = os.path.join(d, "b.csv")
    p = run("--from-raw", os.path.join(data, "raw_bad.csv"), "--out", csv3)
    check(p.returncode == 1 and p.stderr.count("\n") == 1 and "line 2" in p.stderr,
          f"bad: exit {p.returncode}: {p.stderr!r}")
    check(not os.path.exists(csv3), "bad: output written")
    p = run("--from-raw", os.path.join(d, "missing.csv"), "--out", csv3)
    check(p.returncode == 1 and p.stderr.count("\n") == 1, f"missing: {p.returncode} {p.stderr!r}")

    # Issue 28 item 16: --from-raw refuses what report would refuse (one line, exit 1, nothing
    # written), each edit of raw_good.csv's data rows; and a NUL byte never drops rows silently.
    good_lines = open(os.path.join(data, "raw_good.csv")).read().splitlines()
    hdr = good_lines[0].split(",")

    def edited(fn):
        rows = list(csv.reader(good_lines))
        fn(rows)
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows(rows)
        return out.getvalue()

    def setcol(name, value, rows_at=(1,)):
        def fn(rows):
            for i in rows_at:
                rows[i][hdr.index(name)] = value
        return fn

    def swap(rows):  # a guard's rows not consecutive: noop loop, atomic-shared, noop loop again
        rows.append(rows[1][:])
    long_a, long_b = "g" * 47 + "a", "g" * 47 + "b"
    cases = [
        ("threads 0", setcol("threads", "0", range(1, 7)), "threads 0 is not in [1, 1024]"),
        ("threads 2^63+1", setcol("threads", str(2**63 + 1), range(1, 7)), "is not in [1, 1024]"),
        ("status weird", setcol("status", "weird"), "status 'weird' is not ok, noisy, skipped or error"),
        ("rows not consecutive", swap, "rows of noop/loop after another group's"),
        ("two names alike in 47 bytes", lambda r: (setcol("guard", long_a, range(1, 7))(r),
                                                    setcol("guard", long_b, range(8, 10))(r)),
         "column 'guard' is longer than 47 bytes"),
        ("ops past 2^64", setcol("ops", str(2**64 - 1), (1, 2)), "ops or refusals sum past 2^64"),
        # the class: other values report refuses
        ("a bidi guard name", setcol("guard", "no\u202eop", range(1, 7)), "holds a control, bidi"),
        ("batch 2^63", setcol("batch", str(2**63), range(1, 7)), "batch or duty_ns over 2^63-1"),
        ("an empty scenario", setcol("scenario", "", (7,)), "an empty guard or scenario"),
    ]
    for what, fn, want in cases:
        src = os.path.join(d, "edit.csv")
        with open(src, "w", encoding="utf-8") as f:
            f.write(edited(fn))
        p = run("--from-raw", src, "--out", csv3)
        check(p.returncode == 1 and p.stderr.count("\n") == 1 and want in p.stderr,
              f"item 16 {what}: exit {p.returncode} {p.stderr!r}")
        check(not os.path.exists(csv3), f"item 16 {what}: output written")
    for at in (12, 2):  # the line 12, and the class: any line
        raw = "\n".join(good_lines).encode() + b"\n"
        lines = raw.split(b"\n")
        lines[at - 1] = b"\0" + lines[at - 1]
        src = os.path.join(d, "nul.csv")
        with open(src, "wb") as f:
            f.write(b"\n".join(lines))
        p = run("--from-raw", src, "--out", csv3)
        check(p.returncode == 1 and p.stderr == f"rgbench kmod: {src}: line {at}: a NUL byte (module output is text)\n",
              f"item 16 NUL at line {at}: exit {p.returncode} {p.stderr!r}")
        check(not os.path.exists(csv3), f"item 16 NUL at line {at}: output written")
    os.remove(os.path.join(d, "edit.csv"))
    os.remove(os.path.join(d, "nul.csv"))

    # The input policy (rg/input.h): no hang on a FIFO, no endless read of a
    # device, a size cap, and a run index from the input never sizes the stack.
    fifo = os.path.join(d, "fifo")
    os.mkfifo(fifo)
    big = os.path.join(d, "big.csv")
    with open(big, "wb") as f:
        f.truncate(65 << 20)
    import socket
    sock = os.path.join(d, "sock")  # issue 28 item 14: a socket is named, not "No such device"
    srv = socket.socket(socket.AF_UNIX)
    srv.bind(sock)
    for src, why in ((sock, "not a regular file (a socket)"), (fifo, "not a regular file (a FIFO)"),
                     ("/dev/zero", "not a regular file (a character device)"),
                     (big, "file is 68157440 bytes, over the 64 MiB limit")):
        try:
            p = subprocess.run(tool + ["--from-raw", src, "--out", csv3], capture_output=True,
                               text=True, timeout=60)
            check(p.returncode == 1 and p.stderr == f"rgbench kmod: {src}: {why}\n",
                  f"input {src}: {p.returncode} {p.stderr!r}")
        except subprocess.TimeoutExpired:
            errors.append(f"input {src}: hangs")
        check(not os.path.exists(csv3), f"input {src}: output written")
    srv.close()
    os.remove(sock)
    os.unlink(fifo)
    os.unlink(big)
    hi = os.path.join(d, "hirun.csv")
    with open(os.path.join(data, "raw_good.csv")) as f:
        head = f.readline()
    with open(hi, "w") as f:
        f.write(head + 'kmod,noop,loop,1,"0",0,500000,1000,0,0,1000,1.000,3000,1000,0,,,,,ok,\n')
    p = run("--from-raw", hi, "-qq", "--out", csv3)
    rows = list(csv.DictReader(open(csv3))) if os.path.exists(csv3) else []
    check(p.returncode == 0 and len(rows) == 1 and rows[0]["repetitions"] == "1"
          and close(rows[0]["ns_median"], 1.0), f"run 500000: {p.returncode} {p.stderr!r} {rows}")
    for x in (hi, csv3):
        if os.path.exists(x):
            os.unlink(x)

    # Bad options: one line that starts with the program name, exit 2.
    for args in (["--loops", "x"], ["--runs", "0"], ["--guards", "a;b"], ["--nope"],
                 ["--kdir", "/x", "--module", "/y"], ["extra"], ["--batch", "0"],
                 ["--repetitions", "-1"], ["--threads", "0"], ["--duration", "0"],
                 ["--duration", "abc"], ["--batch", "10", "--duration", "0.1"],
                 ["--irqs-on", "--irqs-off"], ["--duty", "x"], ["--duty", "20+"],
                 ["--duty", "10,20"], ["--duty", "600000+600000"], ["--duration", "11"],
                 ["--duration", "5min"], ["--threads", "4097"], ["--irq-iters", "10000001"],
                 ["--cpus", "3-1"], ["--cpus", "0,0"], ["--cpus", "1024"], ["--cpus", "0,,1"],
                 ["--json"], ["-x"], ["--guards", "rctx-kernel,nosuch"], ["--guards", "loop"]):
        p = run(*args)
        check(p.returncode == 2 and p.stderr.count("\n") == 1
              and p.stderr.startswith("rgbench kmod: "), f"{args}: {p.returncode} {p.stderr!r}")
    # A bad value names the option (the old spelling's canonical word) and the text.
    for args, words in ((["--threads", "0"], ("--threads", "'0'")),
                        (["--runs", "0"], ("--repetitions", "'0'")),
                        (["--cpus", "3-1"], ("--cpus", "backwards")),
                        (["--duration", "11"], ("--duration", "'11'")),
                        (["--duty", "20+"], ("--duty", "IN+OUT", "'20+'"))):
        p = run(*args)
        check(all(w in p.stderr for w in words), f"{args}: message {p.stderr!r} lacks {words}")
    # A conversion costs milliseconds: it never replaces a file of measured results (the
    # conversion before's k.csv) unless --force (issue 36 item 5); refused, k.csv is unchanged.
    before = open(csvp).read()
    p = run("--from-raw", os.path.join(data, "raw_ladder.csv"), "--out", csvp)
    check(p.returncode == 2 and p.stderr == f"rgbench kmod: {csvp}: holds measured results (a run's CSV, "
          "JSON or module file): not replaced without --force\n" and open(csvp).read() == before,
          f"conversion over a result without --force: exit {p.returncode} {p.stderr!r}")
    # The ladder scenario (--ladder): each step paired with the step before it (guards.def's
    # RG_PART order), the first and the whole with noop, round by round: exact medians.
    p = run("--from-raw", os.path.join(data, "raw_ladder.csv"), "--out", csvp, "--force")
    check(p.returncode == 0, f"ladder: exit {p.returncode}: {p.stderr}")
    by = {(r["guard"], r["scenario"]): r for r in csv.DictReader(open(csvp))} if p.returncode == 0 else {}
    for guard, base, delta in (("rctx-kernel", "noop", 10), ("rctx-kernel+preempt", "noop", 2),
                               ("rctx-kernel+level", "rctx-kernel+preempt", 2),
                               ("rctx-kernel+this-cpu-ptr", "rctx-kernel+level", 1),
                               ("rctx-kernel+byte-inc-dec", "rctx-kernel+this-cpu-ptr", 2),
                               ("rctx-kernel+reload32", "rctx-kernel+byte-inc-dec", 3)):
        r = by.get((guard, "ladder"), {})
        check(r.get("baseline") == base and close(r.get("delta_ns", "nan"), delta)
              and r.get("suite") == "kmod", f"ladder: {guard}: {r.get('baseline')} {r.get('delta_ns')}")
    r = by.get(("rctx-kernel", "loop-irqsoff"), {})
    check(r.get("baseline") == "noop" and close(r.get("delta_ns", "nan"), 10), f"ladder: loop row {r}")
    check(len(by) == 9, f"ladder: {len(by)} rows, want 9")
    os.unlink(csvp)
    # --ladder times back to back only: with --duty, one line and exit 2 before anything runs.
    p = run("--ladder", "--duty", "50", "--out", os.path.join(d, "g.csv"))
    check(p.returncode == 2 and p.stderr.count("\n") == 1 and "--ladder" in p.stderr,
          f"--ladder --duty: {p.returncode} {p.stderr!r}")
    p = run("--ladder", "--scenarios", "tramp", "--out", os.path.join(d, "g.csv"))
    check(p.returncode == 2 and p.stderr.count("\n") == 1 and "--ladder" in p.stderr,
          f"--ladder --scenarios tramp: {p.returncode} {p.stderr!r}")
    # --guards names are checked against the module source's own table before anything is built.
    p = run("--guards", "rctx-kernel,nosuch", "--out", os.path.join(d, "g.csv"))
    check(p.stderr == "rgbench kmod: --guards: the module has no guard 'nosuch' (its guards: "
          "docs/kmod.md) (see rgbench kmod --help)\n", f"--guards nosuch: {p.stderr!r}")
    p = run("--guards", "rctx-kernel,noop,pcpu-llsc,pcpu-lock-xadd", "--out", os.path.join(d, "g.csv"))
    check(p.returncode != 2, f"--guards of both architectures refused: {p.returncode} {p.stderr!r}")
    if os.path.exists(os.path.join(d, "g.csv")):
        os.unlink(os.path.join(d, "g.csv"))
    # Issue 36 item 10: --from-raw converts a file and runs nothing, so every option only a
    # run uses is refused (one line naming it as given, exit 2, nothing written), never
    # ignored; its value is still checked first (a bad one is the value's own message). The
    # spellings old and new, durations with a unit and CPU lists are parsed as before.
    good = os.path.join(data, "raw_good.csv")
    fr = os.path.join(d, "fr.csv")
    for args in (["--runs", "3"], ["--loops", "10"], ["--duty-ns", "5"], ["--irqs-off"],
                 ["--threads", "2"], ["--repetitions", "3"], ["--batch", "10"], ["--duty", "20+30"],
                 ["--irqs-on"], ["--no-nmi"], ["--duration", "10ms"], ["--duration", "1us"],
                 ["--cpus", "0-3,8"], ["--cpus", "all"], ["--siblings"], ["--irq-iters", "0"],
                 ["--kdir", "/nonexistent"], ["--module", "/nonexistent.ko"], ["--ladder"],
                 ["--scenarios", "tramp"], ["--scenarios", "loop"], ["--raw", os.path.join(d, "r.csv")]):
        for where in ("after", "before"):  # the refusal does not depend on the order
            argv = (["--from-raw", good, "--out", fr, *args] if where == "after"
                    else [*args, "--from-raw", good, "--out", fr])
            p = run(*argv)
            check(p.returncode == 2 and p.stderr == f"rgbench kmod: {args[0]} is for a run: not with "
                  "--from-raw, which converts a file and runs nothing (see rgbench kmod --help)\n"
                  and p.stdout == "" and not os.path.exists(fr) and not os.path.exists(os.path.join(d, "r.csv")),
                  f"--from-raw {args} ({where}): {p.returncode} {p.stderr!r}")
    for args, want in ((["--threads", "0"], "--threads: expected an integer in [1, 4096] (got '0')"),
                       (["--runs", "x"], "--repetitions: expected an integer in [1, 100000] (got 'x')"),
                       (["--duration", "1\tms"], "--duration: ")):
        p = run("--from-raw", good, "-qq", *args)
        check(p.returncode == 2 and p.stderr.startswith("rgbench kmod: " + want) and
              p.stderr.count("\n") == 1 and "\t" not in p.stderr, f"--from-raw bad {args}: {p.returncode} {p.stderr!r}")
    # --guards filters the converted rows (the module's names, "all" among them): noop alone
    # is its two rows, a list keeps each listed guard's; a list matching no row is refused.
    for guards, want in (("noop", {("noop", "loop"), ("noop", "irq-recursion")}),
                         ("atomic-shared,noop", {("noop", "loop"), ("noop", "irq-recursion"),
                                                 ("atomic-shared", "loop"), ("atomic-shared", "irq-recursion")}),
                         ("noop,all", {(g, sc) for g in ("noop", "atomic-shared", "arm64-llsc")
                                       for sc in ("loop", "irq-recursion")})):
        p = run("--from-raw", good, "-qq", "--guards", guards, "--out", fr)
        got = {(r["guard"], r["scenario"]) for r in csv.DictReader(open(fr))} if os.path.exists(fr) else set()
        check(p.returncode == 0 and p.stderr == "" and got == want,
              f"--from-raw --guards {guards}: {p.returncode} {p.stderr!r} rows {sorted(got)}")
        if os.path.exists(fr):
            os.unlink(fr)
    p = run("--from-raw", good, "--guards", "rctx-kernel", "--out", fr)
    check(p.returncode == 2 and p.stderr == f"rgbench kmod: --guards rctx-kernel: no row of {good} has one "
          "of these guards (see rgbench kmod --help)\n" and p.stdout == "" and not os.path.exists(fr),
          f"--from-raw --guards matching nothing: {p.returncode} {p.stderr!r}")
    p = run("--help")
    check(p.returncode == 0 and "usage: rgbench kmod" in p.stdout and "128+signal" in p.stdout
          and p.stderr == "", f"--help: {p.returncode} {p.stderr!r}")
    # Output paths are checked before anything runs: one line, exit 2.
    for args in (["--out", os.path.join(d, "no/such/dir/x.csv")], ["--json", d],
                 ["--raw", os.path.join(d, "nodir", "r.csv")],
                 ["--from-raw", os.path.join(data, "raw_good.csv"), "--out", "/nonexistent-rg/x.csv"]):
        p = run(*args)
        check(p.returncode == 2 and p.stderr.count("\n") == 1, f"{args}: {p.returncode} {p.stderr!r}")
    check(os.listdir(d) == [] or set(os.listdir(d)) <= {"k.csv", "k.json", "f.csv", "v3.csv", "v3.json",
                                                     "v4.csv", "v4.json", "raw_v4.csv"},
          f"stray files: {os.listdir(d)}")

for e in errors:
    print("check_convert:", e, file=sys.stderr)
print(f"check_convert: {len(errors)} problem(s)")
sys.exit(1 if errors else 0)
