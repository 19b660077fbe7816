#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`rgbench report` / `compare --across-hosts` over many hosts, on tests/analysis/fleet/: host identity
(shared names, repeated rows named with both files), the role matrix and its width, the decision table
(current design per kernel, the change and its interval, verdicts), the prediction reproducing its
inputs, emulated hosts, one host, no common role, mixed schema versions, eight hosts, a big file
that report and compare must get through within the test's timeout (no timing is asserted;
100,000 rows, 20,000 under a sanitizer, where the point is memory safety on the same paths), and
the heat map. usage: fleet.py RGBENCH-REPORT FLEET-DIR [ROWS]"""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "fleet"), os.path.join(HERE, "..", "bench")]
import rgtest  # noqa: E402
from relabel import relabel  # noqa: E402

C = rgtest.Checker("fleet")
check = C.check


def run(r, *args, timeout=300):
    return subprocess.run([r] + list(args), capture_output=True, text=True, timeout=timeout)


section = rgtest.md_section
fenced_all = rgtest.md_fenced_all


def bullets(sec):
    """The '- ' items of a section, each joined back into one line."""
    out = []
    for line in (sec or "").splitlines():
        if line.startswith("- "):
            out.append(line[2:])
        elif line.startswith("  ") and out:
            out[-1] += " " + line.strip()
    return out


def rows_of(path):
    return json.load(open(path))["results"]


def row(rows, guard, scenario="pair"):
    for r in rows:
        if r["guard"] == guard and r["scenario"] == scenario and r["threads"] == 1 and r["suite"] in ("user", "bpf"):
            return r
    return None


def tables_fit(text, width, what):
    for b in fenced_all(text):
        for line in b:
            check(len(line) <= width, f"{what}: table line over {width} columns: {line!r}")


def parse_decision(line):
    """'host..., runs ROLE (GUARD, SUITE rows): cand v [lo, hi] ns word; ...' -> (head, [(role, v, lo, hi, word)])"""
    head, _, rest = line.partition(" rows):")
    out = []
    for part in rest.split(";"):
        m = re.match(r"\s*(\S+) ([+-][\d.]+) \[([+-][\d.]+), ([+-][\d.]+)\] ns( \w+)?$", part)
        if m:
            out.append((m.group(1), float(m.group(2)), float(m.group(3)), float(m.group(4)),
                        (m.group(5) or "").strip()))
        else:
            out.append((part.strip(), None, None, None, None))
    return head, out


def main():
    r, fx = sys.argv[1], sys.argv[2]
    nbig = int(sys.argv[3]) if len(sys.argv) > 3 else 100000
    f = lambda n: os.path.join(fx, n)  # noqa: E731

    # --- the fixtures, as one directory: five machines, three named vm --------------------------
    p = run(r, "report", fx)
    check(p.returncode == 0 and not p.stderr, f"report DIR: exit {p.returncode} {p.stderr}")
    t = p.stdout
    flat = " ".join(t.split())
    mat = section(t, "Guard cost by role and host")
    legend = bullets(mat)
    check(len(legend) == 4, f"matrix legend: 4 hosts (the emulated one left out): {legend}")
    for lab in ("ampere:", "vm (aarch64, Neoverse-V2):", "vm (x86_64, Oxide Virtual Turin-like Processor (fixture)):", "xeon:"):
        check(any(lab in b for b in legend), f"legend names {lab}")
    check("--allow-emulated shows them): vm (aarch64, impl 0x00 part 0x051) (virt: emulated (qemu-user))" in flat,
          "the emulated host is left out, named, with its virt")
    check(re.search(r"A = ampere: .* runs this-cpu-pre-6\.18", " ".join(legend)) is not None, "ampere (6.8) runs the STADD exit")
    check(re.search(r"Neoverse-V2\): .*kernel 6\.18\.0; runs this-cpu-6\.18", " ".join(legend)) is not None, "V2 on 6.18 runs the LDADD exit")
    # one machine in three files: its repeated rows are named with both files
    check(re.search(r"4 row\(s\) of \S*vm-x86\.json are also in \S*vm-x86-again\.json \(read first\): those are used, "
                    r"e\.g\. user/\S+/pair threads=1 duty_ns=0 batch=\d+ at \S*vm-x86-again\.json:\d+, not \S*vm-x86\.json:\d+", flat),
          "repeated rows: count, both files, an example with both places")
    check("Machine: vm (aarch64, Neoverse-V2)" in t and "Machine: vm (x86_64, Oxide Virtual Turin-like Processor (fixture))" in t,
          "machines sharing the name vm have sections of their own")
    check(t.count("## Machine: ") == 5, f"five machines: {t.count('## Machine: ')}")
    tables_fit(t, 72, "report DIR")
    groups = [b for b in fenced_all(mat)]
    check(len(groups) >= 2 and all(g[0].startswith("role") for g in groups), f"matrix split into column groups: {len(groups)}")
    # a matrix cell is the row's delta with its interval
    v2 = rows_of(f("vm-v2.json"))
    ld = row(v2, "pcpu-ldadd-kernel")
    cell = "+%.1f [+%.1f,+%.1f]" % (ld["delta_ns"], ld["delta_ci_lo"], ld["delta_ci_hi"])
    check(any(cell in line and line.startswith("this-cpu-6.18") for g in groups for line in g),
          f"V2's this-cpu-6.18 cell is {cell}")
    # the rows carry the cycle reference: a second matrix gives each cell in reference cycles
    check("The same in reference cycles" in flat, "rows with ref_ns_per_cycle: a matrix in reference cycles")
    cyc = ld["delta_ns"] / ld["ref_ns_per_cycle"]
    cyc_cell = ("+%.1f" % cyc) if cyc < 99.95 else ("+%.0f" % cyc)
    check(any(cyc_cell in line and line.startswith("this-cpu-6.18") and cell not in line
              for g in groups for line in g),
          f"V2's this-cpu-6.18 cell in reference cycles is {cyc_cell} (delta_ns / ref_ns_per_cycle)")

    # docs/fleet.md's example is this command's output on these fixtures
    readme = os.path.join(HERE, "..", "..", "docs", "fleet.md")
    if os.path.exists(readme):
        text = open(readme).read()
        check(all("\n".join(g) in text for g in groups) and
              all(" ".join(x.split()) in " ".join(text.split()) for x in bullets(section(t, "Decision"))),
              "docs/fleet.md's matrix and decision lines are `rgbench report tests/analysis/fleet/` "
              "as it prints them now (regenerate them from that command)")

    # --- the decision table --------------------------------------------------------------------
    dec = bullets(section(t, "Decision"))
    check(len(dec) == 4, f"decision: one line per host: {dec}")
    ampere = [d for d in dec if d.startswith("ampere,")]
    check(ampere and "runs this-cpu-pre-6.18 (pcpu-stadd-kernel, user rows)" in ampere[0], f"ampere's line: {ampere}")
    am = rows_of(f("ampere.json"))
    cur = row(am, "pcpu-stadd-kernel")
    cands = {"this-cpu-6.18": "pcpu-ldadd-kernel", "this-cpu-llsc": "pcpu-llsc-kernel",
             "this-cpu-prfm-stadd": "pcpu-prfm-stadd-kernel", "this-cpu-ldadd-llsc": "pcpu-ldadd-llsc-kernel",
             "merged-rctx": "rctx-kernel"}
    if ampere:
        _, ch = parse_decision(ampere[0])
        check([c[0] for c in ch] and sorted(c[0] for c in ch) == sorted(cands), f"ampere's candidates: {ch}")
        check([c[1] for c in ch] == sorted(c[1] for c in ch), "candidates ranked cheapest first")
        for role, v, lo, hi, word in ch:
            g = row(am, cands.get(role, "?"))
            if not g or v is None:
                check(False, f"candidate {role} parsed")
                continue
            check(abs(v - (g["delta_ns"] - cur["delta_ns"])) < 0.006 * max(1, abs(v)),
                  f"{role}: change {v} = {g['delta_ns']} - {cur['delta_ns']}")
            check(abs(lo - (g["delta_ci_lo"] - cur["delta_ci_hi"])) < 0.06 and abs(hi - (g["delta_ci_hi"] - cur["delta_ci_lo"])) < 0.06,
                  f"{role}: interval [{lo}, {hi}] from both intervals")
            want = "cheaper" if hi < 0 else "dearer" if lo > 0 else ""
            check(word == want, f"{role}: verdict '{word}' only where the interval excludes zero ({lo}, {hi})")
    x86 = [d for d in dec if d.startswith("vm (x86_64")]
    check(x86 and "runs this-cpu-6.18 (pcpu-xadd, user rows): merged-rctx" in x86[0] and "this-cpu-pre-6.18" not in x86[0].split("rows):")[1],
          f"x86-64: pcpu-xadd is the current design and not its own candidate: {x86}")

    # --- the prediction reproduces its inputs ----------------------------------------------------
    pred = section(t, "Prediction")
    # the first file read wins: vm-x86-again.json holds the pcpu-xadd and rctx-kernel rows used
    again = rows_of(f("vm-x86-again.json"))
    bpf = rows_of(f("vm-x86-bpf.json"))
    rt = row(bpf, "raw_tp", "driver")
    xadd, rctx = row(again, "pcpu-xadd"), row(again, "rctx-kernel")
    lines = [l.split() for b in fenced_all(pred) for l in b]
    i = next((k for k, l in enumerate(lines) if l and l[0] == "raw_tp/driver"), None)
    check(i is not None, "prediction has raw_tp/driver")
    if i is not None:
        now, other = lines[i + 1], lines[i + 2]
        check(now[0] == "this-cpu-6.18" and now[1] == "%.2f" % rt["ns_median"] and now[2] == "measured"
              and now[3] == "%.3f" % rt["mops_median"],
              f"under the current design the prediction is the measurement: {now} vs {rt['ns_median']}")
        moved = float(other[1]) - float(now[1])
        check(other[0] == "merged-rctx" and abs(moved - (rctx["delta_ns"] - xadd["delta_ns"])) <= 0.011,
              f"under merged-rctx it moves by the guard difference: {moved} vs {rctx['delta_ns'] - xadd['delta_ns']}")
        check(abs(float(other[-1]) - rt["mops_median"] * rt["ns_median"] / float(other[1])) < 0.002, "M/s scaled by 1/ns")
    check("PREDICTION, not a measurement" in " ".join((pred or "").split()), "labelled as a prediction")
    check(re.search(r"Rows used: BPF rows that run prog->active \(\S*vm-x86-bpf\.json\); guard rows of suite user: "
                    r"this-cpu-6\.18=pcpu-xadd, merged-rctx=rctx-kernel", " ".join((pred or "").split())) is not None,
          "the prediction names the rows it used")

    # --- emulated host with --allow-emulated; widths ---------------------------------------------
    p = run(r, "report", fx, "--allow-emulated", "--width", "60")
    check(p.returncode == 0, f"--allow-emulated: {p.stderr}")
    leg = bullets(section(p.stdout, "Guard cost by role and host"))
    check(len(leg) == 5 and any("vm (aarch64, impl 0x00 part 0x051) [EMULATED]" in b for b in leg),
          f"--allow-emulated: the emulated host is shown and marked: {leg}")
    tables_fit(p.stdout, 60, "--width 60")

    # --- one host: one column, no error -------------------------------------------------------------
    p = run(r, "report", f("xeon.json"))
    g = fenced_all(section(p.stdout, "Guard cost by role and host"))
    check(p.returncode == 0 and len(g) == 2 and all(b[0].split() == ["role", "xeon"] for b in g),
          f"one host: one column (ns, and reference cycles): {g[:2]}")
    p = run(r, "compare", "--across-hosts", f("xeon.json"))
    check(p.returncode == 0 and "role" in p.stdout and "xeon" in p.stdout, f"compare --across-hosts one file: {p.stderr}")

    # --- compare --across-hosts over many files --------------------------------------------------------
    files = [f(n) for n in sorted(os.listdir(fx)) if n.endswith(".json")]
    p = run(r, "compare", "--across-hosts", *files)
    check(p.returncode == 2 and p.stderr.startswith("rgbench compare: ") and "vm-arm-qemu.json" in p.stderr and not p.stdout
          and len(p.stderr.splitlines()) == 1, f"compare refuses the emulated file: {p.returncode} {p.stderr!r}")
    p = run(r, "compare", "--across-hosts", "--allow-emulated", "--csv", *files)
    rows = list(csv.DictReader(p.stdout.splitlines()))
    check(p.returncode == 0 and rows and len({x["label"] for x in rows}) == 5, f"--csv: five hosts: {p.stderr}")
    cellrow = [x for x in rows if x["label"] == "vm (aarch64, Neoverse-V2)" and x["role"] == "this-cpu-6.18"]
    check(cellrow and cellrow[0]["guard"] == "pcpu-ldadd-kernel" and abs(float(cellrow[0]["delta_ns"]) - ld["delta_ns"]) < 1e-4
          and cellrow[0]["current_role"] == "this-cpu-6.18"
          and abs(float(cellrow[0]["delta_cycles"]) - ld["delta_ns"] / ld["ref_ns_per_cycle"]) < 1e-3, f"--csv cell: {cellrow}")
    p = run(r, "compare", "--across-hosts", "--allow-emulated", "--csv", fx)
    check(p.returncode == 0 and len({x["label"] for x in csv.DictReader(p.stdout.splitlines())}) == 5,
          f"compare --across-hosts DIR: each run of the directory read on its own: {p.stderr}")
    p = run(r, "compare", "--across-hosts", "--commit-log", f("xeon.json"), f("ampere.json"), f("vm-v2.json"))
    check(p.returncode == 0 and "## Decision" in p.stdout, f"compare three files: {p.stderr}")
    tables_fit(p.stdout, 72, "compare --commit-log")

    with tempfile.TemporaryDirectory() as d:
        # --- no role in common ------------------------------------------------------------------------
        for src, host, keep in ((f("xeon.json"), "p", ("noop", "tls")), (f("ampere.json"), "q", ("noop", "pcpu-stadd-kernel"))):
            doc = json.load(open(src))
            doc["results"] = [x for x in doc["results"] if x["guard"] in keep]
            json.dump(doc, open(os.path.join(d, host + "0.json"), "w"))
            relabel(os.path.join(d, host + "0.json"), os.path.join(d, host + ".json"), {"host": host})
        p = run(r, "report", os.path.join(d, "p.json"), os.path.join(d, "q.json"))
        check(p.returncode == 0 and "No role is measured on two of these hosts" in p.stdout, "no role in common: one clear line")

        # --- mixed schema versions: a schema-2 file beside schema-4 ones --------------------------------
        doc = json.load(open(f("xeon.json")))
        newer = ("run_id", "virt", "role", "baseline", "interleave", "delta_ns", "delta_ci_lo", "delta_ci_hi",
                 "cpu_ns_median", "wall_ns_median", "discarded", "lat_p50_ns", "lat_p90_ns", "lat_p99_ns",
                 "lat_p999_ns", "lat_max_ns", "duty_in_ns", "delta_ci_level", "ref_ns_per_cycle", "ref_cv",
                 "ref_cycles_per_pair", "samples_wall_ns", "samples_delta_ns", "runs", "aa_floor_ns",
                 "layout", "runs_ns", "runs_delta_ns", "runs_where")
        doc["schema_version"] = 2
        doc.pop("run_id", None)
        doc["results"] = [dict({k: v for k, v in x.items() if k not in newer}, schema_version=2) for x in doc["results"]]
        old = os.path.join(d, "v2-schema2.json")
        json.dump(doc, open(old, "w"))
        p = run(r, "report", old, f("vm-v2.json"))
        check(p.returncode == 0, f"schema 2 + 4: {p.stderr}")
        dd = [b for b in bullets(section(p.stdout, "Decision")) if b.startswith("xeon,")]
        x_old = {x["guard"]: x for x in doc["results"] if x["scenario"] == "pair" and x["status"] in ("ok", "noisy")}
        # rctx-kernel did not exist in schema 2: the built-in table knows pcpu-xadd (the current
        # design) and reads rctx as its rseq form, so no kernel-form candidate is left.
        check(dd and dd[0].endswith("runs this-cpu-pre-6.18 (pcpu-xadd, user rows): no other kernel-form design measured"),
              f"schema 2 (roles from the built-in table): pcpu-xadd current, rctx not a kernel-form candidate: {dd}")
        diff = x_old["rctx"]["ns_median"] - x_old["noop"]["ns_median"]
        g = fenced_all(section(p.stdout, "Guard cost by role and host"))
        line = next((l.split()[1:] for b in g[:1] for l in b if l.startswith("rseq-rctx ")), [])
        near = [i for i, x in enumerate(line) if re.fullmatch(r"[+-][\d.]+", x)
                and abs(float(x) - diff) < 0.006 * max(1, abs(diff))]
        check(near and (near[0] + 1 == len(line) or not line[near[0] + 1].startswith("[")),
              f"schema 2: the matrix cell is the difference of medians, with no interval: {line} vs {diff}")

        # --- module rows are preferred for the guard differences; cycles where rows carry the reference ---
        doc = json.load(open(f("vm-x86.json")))
        km = []
        for x in doc["results"]:
            if x["scenario"] == "pair" and x["guard"] in ("noop", "pcpu-xadd", "rctx-kernel"):
                y = dict(x, suite="kmod", scenario="loop", pinning="kthread")
                y.pop("samples_ns", None), y.pop("samples_wall_ns", None), y.pop("samples_delta_ns", None)
                if y["guard"] == "pcpu-xadd":
                    y["role"] = "this-cpu-pre-6.18"   # as the module's table has it
                if y["delta_ns"] is not None:
                    y["delta_ns"] += 1.0 if y["guard"] == "rctx-kernel" else 0.25
                km.append(y)
            if x["scenario"] == "pair" and x["delta_ns"] is not None:
                x["ref_ns_per_cycle"] = 0.25
        doc["results"] += km
        kfile = os.path.join(d, "vm-kmod.json")
        json.dump(doc, open(kfile, "w"))
        p = run(r, "report", kfile, f("vm-x86-bpf.json"))
        dd = bullets(section(p.stdout, "Decision"))
        kx, kr = [x for x in km if x["guard"] == "pcpu-xadd"][0], [x for x in km if x["guard"] == "rctx-kernel"][0]
        m = re.search(r"runs this-cpu-6\.18 \(pcpu-xadd, kmod rows\): merged-rctx ([+-][\d.]+) ", dd[0]) if dd else None
        check(p.returncode == 0 and m and abs(float(m.group(1)) - (kr["delta_ns"] - kx["delta_ns"])) < 0.006,
              f"kmod rows preferred for the decision: {dd}")
        check("guard rows of suite kmod: this-cpu-6.18=pcpu-xadd, merged-rctx=rctx-kernel" in " ".join((section(p.stdout, "Prediction") or "").split()),
              "the prediction names the kmod rows")
        g = fenced_all(section(p.stdout, "Guard cost by role and host"))
        ux = [x for x in doc["results"] if x["suite"] == "user" and x["guard"] == "pcpu-xadd" and x["scenario"] == "pair"][0]
        want = "%+.1f [%+.1f,%+.1f]" % (ux["delta_ns"] / 0.25, ux["delta_ci_lo"] / 0.25, ux["delta_ci_hi"] / 0.25)
        check(len(g) == 2 and any(l.startswith("this-cpu-6.18") and want in l for l in g[1]),
              f"the matrix in reference cycles: {want} in {g[1:]}")

        # --- eight hosts, --width 72 --------------------------------------------------------------------
        eight = []
        for k, src in enumerate(["vm-x86.json", "xeon.json", "ampere.json", "vm-v2.json"] * 2):
            out = os.path.join(d, f"h{k + 1}.json")
            relabel(f(src), out, {"host": f"h{k + 1}"})
            eight.append(out)
        p = run(r, "report", *eight, "--width", "72")
        check(p.returncode == 0, f"eight hosts: {p.stderr}")
        leg = bullets(section(p.stdout, "Guard cost by role and host"))
        check([b.split(" =")[0] for b in leg] == list("ABCDEFGH"), f"eight hosts in the legend: {leg}")
        check(len(bullets(section(p.stdout, "Decision"))) == 8, "eight decision lines")
        tables_fit(p.stdout, 72, "eight hosts")

        # --- a big file (nbig rows): report and compare finish within the timeout, every row listed ---
        base = [x for x in json.load(open(f("xeon.json")))["results"] if x["scenario"] == "pair"]
        cols = list(base[0].keys())
        big = os.path.join(d, "big.csv")
        with open(big, "w", newline="") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow([c for c in cols if not c.startswith("samples_")])
            for n in range(nbig):
                x = dict(base[n % len(base)])
                if n >= len(base):
                    x["guard"] = f"g{n}-{x['guard']}"
                x["threads"] = 1 + (n // len(base)) % 3
                w.writerow(["n/a" if x[c] is None else x[c] for c in cols if not c.startswith("samples_")])
        ones = sum(1 for n in range(nbig) if 1 + (n // len(base)) % 3 == 1 and
                   base[n % len(base)]["status"] in ("ok", "noisy"))
        p = run(r, "report", big, timeout=600)
        rank = fenced_all(section(p.stdout, "Guards ranked"))
        check(p.returncode == 0 and rank and len(rank[0]) == 1 + ones, f"{nbig} rows: ranking of {ones} rows: {p.stderr[:200]}")
        p = run(r, "compare", big, big, "--csv", timeout=600)
        check(p.returncode == 0 and len(p.stdout.splitlines()) == nbig + 1, f"{nbig} rows: compare lists every row: {p.stderr[:200]}")
        p = run(r, "compare", "--baseline", "noop", big, "--csv", timeout=600)
        check(p.returncode == 0 and len(p.stdout.splitlines()) == nbig, f"{nbig} rows: --baseline, every other row: {p.stderr[:200]}")

        # --- the heat map -------------------------------------------------------------------------------
        p = run(r, "plot", fx, "--out", os.path.join(d, "pics"))
        svg = os.path.join(d, "pics", "fleet.svg")
        check(p.returncode == 0 and os.path.exists(svg) and os.path.exists(os.path.join(d, "pics", "fleet.png")),
              f"plot: fleet.png and fleet.svg: {p.stderr}")
        if os.path.exists(svg):
            s = open(svg).read()
            for lab in ("vm (aarch64, Neoverse-V2)", "ampere", "[EMULATED]", "this-cpu-pre-6.18", "now"):
                check(lab in s, f"fleet.svg shows {lab!r}")


if __name__ == "__main__":
    C.finish(main())
