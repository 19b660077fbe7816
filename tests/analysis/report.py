#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`rgbench report` on the fixtures (an arm64 and an x86-64 machine with roles): sections present,
ranking order, pairing by role across architectures, left-out sections and why, the page width,
mixed schema versions, bad input (one line, no file written); and `compare --across-hosts`
pairing by role. usage: report.py RGBENCH-REPORT FIXTURE-DIR"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import rgtest  # noqa: E402

C = rgtest.Checker("report")
check = C.check


def run(r, *args):
    return subprocess.run([r] + list(args), capture_output=True, text=True, timeout=120)


def section(text, title):
    """The text of the first '## ' section whose title starts with title."""
    m = re.search(r"^## " + re.escape(title) + r".*?$(.*?)(?=^## |\Z)", text, re.M | re.S)
    return m.group(1) if m else None


def fenced(sec):
    m = re.search(r"```\n(.*?)```", sec or "", re.S)
    return m.group(1).splitlines() if m else []


def main():
    r, fx = sys.argv[1], sys.argv[2]
    arm, x86 = os.path.join(fx, "report-arm.json"), os.path.join(fx, "report-x86.json")

    # --- one machine --------------------------------------------------------------------
    p = run(r, "report", x86)
    check(p.returncode == 0 and not p.stderr, f"report x86: exit {p.returncode} {p.stderr}")
    t = p.stdout
    for title in ("Machine: xeon", "Guards ranked by cost over noop (xeon)", "Headline ratios (xeon, x86-64)",
                  "Duty cycle", "Thread scaling (xeon)", "Latency tail per guard (xeon)",
                  "BPF per-event cost (xeon)", "Kernel module", "Plots", "Left out"):
        check(section(t, title) is not None, f"x86 report has section '{title}'")
    # The answer first: the first section, at most 6 lines per host, the decision with its
    # interval and verdict, the per-event prediction from the BPF row, and the limits.
    heads = re.findall(r"^## (.*)$", t, re.M)
    ans = section(t, "Answer")
    check(heads and heads[0] == "Answer", f"the page opens with the answer: {heads[:3]}")
    lines = (ans or "").strip().split("\n\n")[0].splitlines()
    check(0 < len(lines) <= 6, f"answer: at most 6 lines for one host: {lines}")
    flat_ans = " ".join((ans or "").split())
    check("runs this-cpu-6.18 (pcpu-xadd): merged-rctx -1.10 [-1.21, -0.99] ns per pair, cheaper" in flat_ans,
          f"answer: the decision with its interval: {flat_ans[:300]}")
    # raw_tp/driver measured 45.50 ns/event; the candidate's change -1.10 ns: 44.40 ns, -2.42%
    check("per event (raw_tp/driver): 45.50 -> 44.40 ns, -2.42%" in flat_ans, f"answer: per event: {flat_ans}")
    check("limits: one run per row" in flat_ans, f"answer: the limit of one run per row: {flat_ans}")
    rank = [l.split()[1] for l in fenced(section(t, "Guards ranked"))[1:]]
    check(rank == ["noop", "tls", "racy-percpu", "rseq", "rctx", "rctx-kernel", "pcpu-xadd", "global-atomic",
                   "pcpu-lock-xadd"],
          f"x86 ranking by cost over noop: {rank}")
    tls = [l for l in fenced(section(t, "Guards ranked")) if " tls " in l]
    # (the interval's upper end is 0.25499...: 0.26 while the JSON kept 6 digits, before schema 6)
    check(tls and re.search(r"\+0\.25\s+\[\+0\.24, \+0\.25\]", tls[0]), f"tls: +0.25 with its interval: {tls}")
    # 5 rounds: [min, max] of 5 covers the median with 93.75%, said after the interval and in the header.
    check(tls and tls[0].rstrip().endswith("] 93.8%"), f"tls: its interval's level 93.8%: {tls}")
    check(fenced(section(t, "Guards ranked"))[0].split()[-1] == "interval", "ranking header: not '95% interval'")
    head = section(t, "Headline ratios")
    flat = " ".join((head or "").split())
    # one table per wrapping, each saying which; rctx-kernel divides the kernel form only
    check("Wrapping: kernel form (each row is the kernel's whole sequence:" in flat and
          "Wrapping: instructions alone (the per-CPU op and its lookup, nothing around them)." in flat,
          "x86 headline: both wrappings named")
    tabs = re.findall(r"```\n(.*?)```", head or "", re.S)
    kern = [l.split() for l in tabs[0].splitlines()] if tabs else []
    check(len(tabs) == 2 and kern[0][-1] == "ratio" and
          "ratio: the row's cost over noop divided by rctx-kernel's." in flat and
          [l[-4] for l in kern[1:]] == ["pcpu-xadd", "rctx-kernel"] and [l[-1] for l in kern[1:]] == ["1.52x", "1.00x"],
          f"x86 headline, kernel form: pcpu-xadd 1.52x rctx-kernel: {kern}")
    bare = [l.split() for l in tabs[1].splitlines()] if len(tabs) > 1 else []
    # the instructions alone: pcpu-xadd (its own twin), then the atomic per-CPU counter dividing
    check(bare and bare[0][-1] == "ratio" and [l[-1] for l in bare[1:]] == ["0.34x", "1.00x"] and
          "ratio: the row's cost over noop divided by pcpu-lock-xadd's." in flat,
          f"x86 headline, instructions alone: xadd 0.34x lock: {bare}")
    check("this-cpu-pre-6.18/6.18 costs 1.52x merged-rctx over noop (3.20 vs 2.10 ns)" in flat,
          "x86 headline: this_cpu vs rctx-kernel sentence, one line for pcpu-xadd's two roles")
    check("this-cpu-pre-6.18/6.18 costs 0.34x pcpu-atomic over noop (3.20 vs 9.50 ns)" in flat,
          "x86 headline: non-lock 0.34x lock")
    check("rseq" not in " ".join(" ".join(r) for r in kern + bare) and " rctx " not in tabs[0] if tabs else False,
          "x86 headline: no rseq-form row divided")
    duty = section(t, "Duty cycle")
    check(duty and "With 200 ns of work between pairs" in duty, "duty: differences under 5% from 200 ns")
    check("Left out: xeon has no ok threads rows" in section(t, "Thread scaling"), "threads left out, and why")
    check("Left out: no kmod rows" in section(t, "Kernel module"), "kmod left out, and why")
    lat = fenced(section(t, "Latency tail"))
    check(len(lat) == 10 and lat[0].split()[:7] == ["guard", "batch", "p50", "p90", "p99", "p99.9", "max"],
          f"latency table: header and 9 guards: {lat[:1]}")
    check("rdtsc (invariant TSC) at 2300 MHz" in section(t, "Latency tail"), "latency: the timer from the JSON")
    check("Interrupted batches" in section(t, "Latency tail"), "latency: says the tail keeps interrupted batches")
    bpf = fenced(section(t, "BPF per-event cost"))
    check(len(bpf) == 2 and bpf[1].split()[:4] == ["raw_tp", "driver", "1", "45.5"], f"bpf row: {bpf}")
    check("fentry/driver (skipped)" in section(t, "BPF per-event cost"), "bpf: skipped rows named")
    for line in t.splitlines():
        if len(line) > 72 and " " in line.strip() and "/" not in line:
            check(False, f"line over 72 columns: {line!r}")

    pa = run(r, "report", arm, "--width", "60")
    check(pa.returncode == 0, f"report arm --width 60: {pa.stderr}")
    ta = pa.stdout
    head = section(ta, "Headline ratios (grace, arm64)")
    rows = [l.split()[0] for l in fenced(head)[1:]]
    want = ["this-cpu-pre-6.18", "this-cpu-6.18", "this-cpu-prfm-stadd", "merged-rctx"]	# cut to 60 columns
    check(len(rows) == len(want) and all(w.startswith(x.rstrip("~")) for x, w in zip(rows, want)),
          f"arm headline rows, roles.def's order, the noisy LL/SC left out: {rows}")
    check(head and "Left out as noisy (their rounds were disturbed; --include-noisy keeps them): pcpu-llsc-kernel."
          in " ".join(head.split()), "arm headline: the noisy row is named as left out")
    check(head and "Not in these files: this-cpu-ldadd-llsc, pcpu-stadd, pcpu-llsc, pcpu-prfm-stadd, pcpu-ldadd-llsc." in " ".join(head.split()),
          "arm headline: the instructions-alone table has one row: not shown, its missing rows named")
    rk = [l for l in fenced(section(run(r, "report", arm).stdout, "Guards ranked")) if "pcpu-llsc-kernel" in l]
    check(rk and "pcpu-llsc-kernel (noisy)" in rk[0], f"ranking marks the noisy row: {rk}")
    pn = run(r, "report", arm, "--width", "100", "--include-noisy")
    hn = section(pn.stdout, "Headline ratios (grace, arm64)")
    rn = [l.split()[:3] for l in fenced(hn)[1:]]
    check(pn.returncode == 0 and [x[0] for x in rn] == ["this-cpu-pre-6.18", "this-cpu-6.18", "this-cpu-llsc", "this-cpu-prfm-stadd",
                                                 "merged-rctx"] and
          rn[2][1:] == ["pcpu-llsc-kernel", "(noisy)"] and "Left out as noisy" not in (hn or ""),
          f"--include-noisy: the noisy row is in, marked: {rn}")
    check(head and "this-cpu-pre-6.18 costs 5.62x this-cpu-6.18" in head.replace("\n", " ").replace("  ", " "),
          "arm headline: STADD exit 5.62x LDADD exit")
    thr = fenced(section(ta, "Thread scaling (grace)"))
    ga = [l for l in thr if l.startswith("global-atomic")]
    check(thr and "144 threads M/s" in thr[0] and ga and ga[0].split()[-1] == "1%",
          f"threads: efficiency at 144 threads, global-atomic 1%: {ga}")
    check("Left out: no bpf rows" in section(ta, "BPF per-event cost"), "arm: bpf left out, and why")
    check(section(ta, "Kernel module") and "this_cpu_inc_return" in section(ta, "Kernel module"), "arm: kmod row")
    for line in ta.splitlines():
        if len(line) > 60 and " " in line.strip() and "/" not in line:
            check(False, f"--width 60: line over 60 columns: {line!r}")

    # --- two machines, paired by role -----------------------------------------------------
    p = run(r, "report", arm, x86, "--across-hosts")
    check(p.returncode == 0, f"across-hosts: {p.stderr}")
    sbs = section(p.stdout, "Side by side by role")
    tab = {l.split()[0]: l.split() for l in fenced(sbs)[1:]}
    check(tab.get("this-cpu-pre-6.18", [None] * 4)[1:4:2] == ["pcpu-stadd-kernel", "pcpu-xadd"] or
          (tab.get("this-cpu-pre-6.18") and tab["this-cpu-pre-6.18"][3] == "pcpu-xadd"),
          f"pre-6.18: arm STADD exit vs x86 xadd: {tab.get('this-cpu-pre-6.18')}")
    check(tab.get("this-cpu-6.18") and tab["this-cpu-6.18"][3] == "pcpu-xadd", "6.18: x86 pcpu-xadd stands in again")
    check(tab.get("pcpu-atomic") and tab["pcpu-atomic"][1] == "pcpu-ldadd" and tab["pcpu-atomic"][3] == "pcpu-lock-xadd",
          f"pcpu-atomic: pcpu-ldadd vs pcpu-lock-xadd: {tab.get('pcpu-atomic')}")
    check(tab.get("merged-rctx") and tab["merged-rctx"][1:4:2] == ["rctx-kernel", "rctx-kernel"] and
          tab["merged-rctx"][-1] == "3.33x", f"merged-rctx: rctx-kernel on both: {tab.get('merged-rctx')}")
    check(tab.get("rseq-rctx") and tab["rseq-rctx"][-1] == "1.43x", f"rseq-rctx ratio: {tab.get('rseq-rctx')}")
    check(sbs and "Only on A: this-cpu-llsc (pcpu-llsc-kernel)" in sbs and "Only on B: rseq (rseq)" in sbs,
          "roles on one side only are named")
    check(sbs and "stood in" in sbs, "says which guard stood in")

    # one side only, mixed schema versions, bad input
    p = run(r, "report", arm, "--across-hosts")
    check(p.returncode == 0 and "Left out: --across-hosts needs files from two hosts; all rows come from grace" in
          p.stdout.replace("\n", " "), "one host with --across-hosts: the section is left out, and why")
    with tempfile.TemporaryDirectory() as d:
        doc = json.load(open(x86))
        v3 = ("run_id", "virt", "role", "baseline", "interleave", "delta_ns", "delta_ci_lo", "delta_ci_hi",
              "cpu_ns_median", "wall_ns_median", "discarded", "lat_p50_ns", "lat_p90_ns", "lat_p99_ns",
              "lat_p999_ns", "lat_max_ns", "duty_in_ns", "delta_ci_level", "ref_ns_per_cycle", "ref_cv",
              "ref_cycles_per_pair", "runs", "aa_floor_ns", "layout", "pmu_table", "prog_runs", "unit", "cpus_why", "ab_label", "ab_boot")
        doc["schema_version"] = 2
        doc.pop("timer", None)
        doc["results"] = [dict({k: v for k, v in x.items() if k not in v3 and k != "lat_hist"},
                               schema_version=2) for x in doc["results"] if x["scenario"] != "latency"]
        # the names of the time: the role comes from the built-in table
        for x in doc["results"]:
            x["guard"] = {"pcpu-xadd": "pcpu-xadd"}.get(x["guard"], x["guard"])
        old = os.path.join(d, "x86-v2.json")
        json.dump(doc, open(old, "w"))
        p = run(r, "report", arm, old, "--across-hosts")
        check(p.returncode == 0, f"schema 2 + 3: {p.stderr}")
        sbs = section(p.stdout, "Side by side by role") or ""
        check("pcpu-xadd" in sbs and "built-in table" in sbs, "a schema 2 file is paired through the built-in roles")
        check("Left out: xeon has no ok latency rows" in section(p.stdout, "Latency tail per guard (xeon)").replace("\n", " "),
              "schema 2: latency left out, and why")
        check("no paired difference" in section(p.stdout, "Guards ranked by cost over noop (xeon)").replace("\n", " "),
              "schema 2: ranking says the differences have no interval")
        # a file from before rctx-kernel: its rctx (the rseq form) carried role merged-rctx
        doc = json.load(open(x86))
        doc["results"] = [dict(x, role="merged-rctx") if x["guard"] == "rctx" else x
                          for x in doc["results"] if x["guard"] != "rctx-kernel"]
        pre = os.path.join(d, "x86-pre-rctx-kernel.json")
        json.dump(doc, open(pre, "w"))
        p = run(r, "report", arm, pre, "--across-hosts")
        sbs = section(p.stdout, "Side by side by role") or ""
        tab = {l.split()[0]: l.split() for l in fenced(sbs)[1:]}
        check(p.returncode == 0 and tab.get("rseq-rctx") and tab["rseq-rctx"][1:4:2] == ["rctx", "rctx"] and
              re.search(r"Only on A: [^.]*merged-rctx \(rctx-kernel\)\.", " ".join(sbs.split())) is not None,
              f"an old rctx row marked merged-rctx reads as rseq-rctx: {tab.get('rseq-rctx')} {tab.get('merged-rctx')}")
        out = os.path.join(d, "r.md")
        p = run(r, "report", arm, "--out", out)
        check(p.returncode == 0 and os.path.exists(out) and open(out).read().startswith("# rgbench report: grace"),
              "--out writes the page")
        bad = os.path.join(d, "bad.json")
        open(bad, "w").write('{"schema_version": 3, "results": [ {"oops": 1} ]}')
        out2 = os.path.join(d, "r2.md")
        p = run(r, "report", arm, bad, "--out", out2)
        check(p.returncode == 1 and len(p.stderr.strip().splitlines()) == 1 and not os.path.exists(out2)
              and not p.stdout, f"bad file: one line, exit 1, nothing written: {p.returncode} {p.stderr!r}")
        check(not [f for f in os.listdir(d) if ".tmp" in f], "no temporary file left")
        for args, what in ((["report"], "no file"), (["report", arm, "--width", "10"], "width too small"),
                           (["report", arm, "--width", "40"], "width under the 60 the tables need"),
                           (["report", arm, "--out", d], "--out a directory"), (["report", "--bogus", arm], "unknown option")):
            p = run(r, *args)
            check(p.returncode == 2 and p.stderr.startswith("rgbench report: ") and not p.stdout and
                  len(p.stderr.splitlines()) == 1, f"{what}: exit {p.returncode} {p.stderr!r}")
        p = run(r, "report", os.path.join(d, "missing.json"))
        check(p.returncode == 1 and len(p.stderr.strip().splitlines()) == 1, f"missing file: {p.stderr!r}")

    # --- compare --across-hosts pairs by role -------------------------------------------------
    # (--width 400: the one-line table these lines read; at 72 each row is a record.)
    p = run(r, "compare", arm, x86, "--across-hosts", "--width", "400")
    check(p.returncode == 0, f"compare across: {p.stderr}")
    c = p.stdout
    check("role this-cpu-pre-6.18: grace=pcpu-stadd-kernel, xeon=pcpu-xadd" in c, "compare names the stand-ins")
    check("role this-cpu-6.18: grace=pcpu-ldadd-kernel, xeon=pcpu-xadd" in c, "a multi-role guard pairs per role")
    line = [l for l in c.splitlines() if "this-cpu-pre-6.18: pcpu-stadd-kernel / pcpu-xadd" in l and " pair " in l]
    # One run per side and no A/A floor (fixtures of one process): compared, its change shown,
    # its rounds' p not called a change.
    check(line and "-92.3%" in line[0] and "not called: one run per side and no A/A floor (rounds: p=0.008"
          in line[0], f"the paired row is compared: {line}")
    check(not [l for l in c.splitlines() if re.match(r"user\s+pcpu-xadd\s+pair\s", l)],
          "pcpu-xadd/pair is not left alone once paired by role")
    p = run(r, "compare", arm, x86)
    check(p.returncode == 0 and "role this-cpu" not in p.stdout, "without --across-hosts no role pairing")
    here = os.path.dirname(os.path.abspath(__file__))
    kernel_section(r, os.path.join(here, "kernel"), os.path.join(here, "..", "plots", "drawn"))


def kernel_section(r, src, drawn):
    """Issue 31 item 5: the module's timed rows as a table and its re-entry outcomes as a
    guard-by-context table with counts (no 'n/a n/a' lines); the user suite's signal re-entry
    the same way; each plot linked under the section it illustrates."""
    kg = os.path.join(src, "kmod-guest-amd64.json")  # a real guest run, tests/kmod/data
    p = run(r, "report", kg)
    sec = section(p.stdout, "Kernel module") or ""
    tables = re.findall(r"```\n(.*?)```", sec, re.S)
    check(p.returncode == 0 and len(tables) == 2, f"kmod: two tables: exit {p.returncode} {len(tables)} {p.stderr!r}")
    if len(tables) != 2:
        return
    timed, reent = [t.splitlines() for t in tables]
    check(timed[0].split() == ["guard", "kthr", "ns/pair", "over", "noop", "M/s"] and len(timed) == 12 and
          "n/a" not in tables[0] and "recursion" not in sec, f"kmod: 11 timed rows, none n/a: {timed[:2]}")
    px = [l for l in timed if l.startswith("pcpu-xadd ")]
    check(px and re.search(r" 5\.75 +\+4\.11 \[\+2\.77, \+4\.17\] 75\.0% +352\.36$", px[0]),
          f"kmod: pcpu-xadd's ns, delta with interval and level, M/s: {px}")
    check("(scenario loop-irqsoff)" in " ".join(sec.split()), "kmod: the one scenario named once")
    cells = {l.split()[0]: re.findall(r"(pass|FAIL) (\S) (\S+)", l) for l in reent[1:]}
    check(reent[0].split() == ["guard", "irq", "softirq", "softirq-irq", "nmi"] and len(cells) == 11,
          f"kmod: re-entry table guard by context: {reent[:1]} {len(cells)}")
    check(cells.get("rctx-kernel") == [("pass", "R", "500")] * 4 and cells.get("noop") == [("pass", "G", "500")] * 4
          and cells.get("irqsave") == [("pass", "D", "500")] * 3 + [("pass", "R", "500")],
          f"kmod: refused, granted, deferred with counts: {cells.get('rctx-kernel')} {cells.get('irqsave')}")
    check("44 rows, 0 failed" in " ".join(sec.split()), "kmod: the re-entry rows counted")
    with tempfile.TemporaryDirectory(prefix="rgbench-kernel-") as d:
        # A failed re-entry check: FAIL with the counts, and the module's reason.
        with open(kg) as f:
            doc = json.load(f)
        for x in doc["results"]:
            if x["guard"] == "rctx-kernel" and x["scenario"] == "nmi-recursion":
                x.update(status="error", refusals=3, reason="3 of 500 attempts refused, 500 expected")
        bad = os.path.join(d, "bad.json")
        with open(bad, "w") as f:
            json.dump(doc, f)
        p = run(r, "report", bad)
        sec = " ".join((section(p.stdout, "Kernel module") or "").split())
        check(p.returncode == 0 and re.search(r"rctx-kernel +pass R 500 +pass R 500 +pass R 500 +FAIL R 3/500", sec)
              and "44 rows, 1 failed" in sec and "Failed: rctx-kernel/nmi: 3 of 500 attempts refused" in sec,
              f"kmod: a failed check shows FAIL with its counts and reason: {sec[-600:]!r}")
        # The user suite's signal re-entry rows, where a file has them.
        with open(os.path.join(drawn, "default-x86.json")) as f:  # a real default run
            doc = json.load(f)
        for x in doc["results"]:
            if x["scenario"] == "nested":
                x["scenario"] = "signal-recursion"
        sig = os.path.join(d, "sig.json")
        with open(sig, "w") as f:
            json.dump(doc, f)
        p = run(r, "report", sig)
        sec = section(p.stdout, "Signal re-entry (vm)") or ""
        rows = {l.split()[0]: l.split()[1:] for l in (fenced(sec) or [""])[1:]}
        nested = {x["guard"]: x for x in doc["results"] if x["scenario"] == "signal-recursion"}
        check(p.returncode == 0 and fenced(sec)[:1] and fenced(sec)[0].split() == ["guard", "signal"] and
              rows.get("tls") == ["pass", "R", str(nested["tls"]["ops"])] and
              rows.get("noop") == ["pass", "G", str(nested["noop"]["ops"])] and "pcpu-stadd" not in rows and
              "Not run here: 11 re-entry rows (skipped)." in " ".join(sec.split()),
              f"user: signal re-entry table: {fenced(sec)[:3]}")
        # Each plot under the section it illustrates, with its caption, once.
        run_dir = os.path.join(d, "run")
        os.makedirs(os.path.join(run_dir, "kg-plots"))
        with open(kg) as f, open(os.path.join(run_dir, "kg.json"), "w") as o:
            o.write(f.read())
        for k in ("kmod-ns", "decision"):
            open(os.path.join(run_dir, "kg-plots", f"{k}.png"), "wb").close()
        p = run(r, "report", os.path.join(run_dir, "kg.json"))
        km = " ".join((section(p.stdout, "Kernel module") or "").split())
        de = " ".join((section(p.stdout, "Decision") or "").split())
        check("Plot: [kmod-ns.png](kg-plots/kmod-ns.png): in-kernel ns per pair" in km and
              "Plot: [decision.png](kg-plots/decision.png): each candidate design" in de and
              p.stdout.count("Plot: [") == 2, f"plots linked under their sections: {p.stdout.count('Plot: [')}")


if __name__ == "__main__":
    C.finish(main())
