#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# `rgbench compare --across-suites` on a live user-suite file and a module file converted from a real qemu guest's CSV; `--across-hosts` pairing without batch.
# Usage: check_across.py RGBENCH RGBENCH_KMOD DATA_DIR
import csv, io, json, math, os, re, subprocess, sys, tempfile

rgbench, kmod, data = sys.argv[1:4]
errors = []


def check(cond, msg):
    if not cond:
        errors.append(msg)
    return cond


def run(*args):
    return subprocess.run(list(args), capture_output=True, text=True)


def fnum(s):
    return float(s) if s not in ("", None) else math.nan


with tempfile.TemporaryDirectory() as d:
    user, kj = os.path.join(d, "user.json"), os.path.join(d, "kmod.json")
    # The module side: the CSV rgbench-kmod saved in the qemu guest (--raw),
    # converted here as a user would.
    p = run(kmod, "--from-raw", os.path.join(data, "guest_amd64_raw.csv"), "-qq", "--json", kj)
    check(p.returncode == 0, f"--from-raw: {p.returncode} {p.stderr}")
    kmod_rows = json.load(open(kj))["results"] if p.returncode == 0 else []
    kguards = {r["guard"] for r in kmod_rows if r["scenario"] == "loop-irqsoff"}

    # The user side: a short live run of the guards this machine has.
    lst = run(rgbench, "--list").stdout
    have = set(re.findall(r"^  ([a-z0-9-]+)\s+available", lst, re.M))
    want = [g for g in ("noop", "tls", "pcpu-xadd", "rctx-kernel", "global-atomic", "pcpu-lock-xadd")
            if g in have]
    p = run(rgbench, "--quick", "--no-bpf", "--guards", ",".join(want), "--scenarios", "pair",
            "--repetitions", "3", "-qq", "--json", user)
    if not check(p.returncode == 0 and os.path.exists(user), f"user suite: {p.returncode} {p.stderr}"):
        want = []
    user_rows = json.load(open(user))["results"] if want else []
    ugu = {r["guard"] for r in user_rows if r["scenario"] == "pair" and r["status"] in ("ok", "noisy")}
    both = ugu & kguards
    check({"noop", "pcpu-xadd"} <= both, f"no common guards: user {ugu}, kmod {kguards}")

    def table(*files, fmt="--csv"):
        p = run(rgbench, "compare", fmt, "--across-suites", *files)
        check(p.returncode == 0, f"compare {files}: {p.returncode} {p.stderr}")
        return list(csv.DictReader(io.StringIO(p.stdout))) if fmt == "--csv" else p.stdout

    def value(rows, g, key):
        r = [x for x in rows if x["guard"] == g and x["scenario"] in ("pair", "loop-irqsoff")]
        return r[0].get(key) if r else None

    # ns per pair (the user rows have no delta yet): each side's median, kmod/user.
    for files in ((user, kj), (kj, user)):     # either order
        t = table(*files)
        by = {r["guard"]: r for r in t}
        for g in both:
            r = by.get(g, {})
            u, k = value(user_rows, g, "ns_median"), value(kmod_rows, g, "ns_median")
            metric = "delta_ns" if value(user_rows, g, "delta_ns") is not None and g != "noop" \
                else "ns_median"
            if metric == "delta_ns":
                continue    # checked below with known deltas
            check(r.get("metric") == "ns_median" and math.isclose(fnum(r.get("user_value")), u, rel_tol=1e-5)
                  and math.isclose(fnum(r.get("kmod_value")), k, rel_tol=1e-5)
                  and math.isclose(fnum(r.get("ratio")), k / u, rel_tol=1e-4)
                  and r.get("user_scenario") == "pair" and r.get("kmod_scenario") == "loop-irqsoff"
                  and r.get("kmod_threads") == "2", f"{g}: {r} (user {u}, kmod {k})")
        for g in kguards - ugu:
            check(by.get(g, {}).get("note") == "kmod only", f"{g}: want 'kmod only': {by.get(g)}")
        for g in ugu - kguards:
            check(by.get(g, {}).get("note") == "user only", f"{g}: want 'user only': {by.get(g)}")
        check(by.get("irqsave", {}).get("role") == "n/a" and by.get("rctx-kernel", {}).get("role") == "merged-rctx",
              f"roles: {by.get('rctx-kernel')}")
        check(len(t) == len(ugu | kguards), f"{len(t)} lines for {len(ugu | kguards)} guards")

    # Delta with intervals when both sides have one: give the user rows known
    # deltas (as the user suite's interleaved rounds will) and check the ratio.
    uj = json.load(open(user)) if want else {"results": []}
    for r in uj["results"]:
        if r["guard"] != "noop":
            r.update(baseline="noop", interleave="rounds", delta_ns=2.0, delta_ci_lo=1.5,
                     delta_ci_hi=2.5)
    user_d = os.path.join(d, "user_delta.json")
    json.dump(uj, open(user_d, "w"))
    t = {r["guard"]: r for r in table(user_d, kj)}
    for g in both - {"noop"}:
        r = t.get(g, {})
        kd, klo, khi = (value(kmod_rows, g, k) for k in ("delta_ns", "delta_ci_lo", "delta_ci_hi"))
        check(r.get("metric") == "delta_ns" and fnum(r.get("user_value")) == 2.0
              and fnum(r.get("user_lo")) == 1.5 and fnum(r.get("user_hi")) == 2.5
              and math.isclose(fnum(r.get("kmod_value")), kd, rel_tol=1e-5)
              and math.isclose(fnum(r.get("kmod_lo")), klo, rel_tol=1e-5)
              and math.isclose(fnum(r.get("kmod_hi")), khi, rel_tol=1e-5)
              and math.isclose(fnum(r.get("ratio")), kd / 2.0, rel_tol=1e-4), f"delta {g}: {r}")
    # Markdown cells are escaped as text (rg_md_text: "\\[" renders as "["): read them unescaped.
    text = re.sub(r"\\([\\`*_\[\]<>&|~$#!:])", r"\1", table(user_d, kj, fmt="--markdown"))
    check("| pcpu-xadd |" in text and "[1.500, 2.500]" in text, "markdown: no delta interval")

    # Duty rows stand side by side only when both suites ran the trampoline
    # shape with the same split (issue 17 item 2): the same files turned into
    # duty rows at 50 ns, the module's split equal, missing (an older module)
    # or different.
    def duty_file(src, name, scen, split):
        j = json.load(open(src))
        j["results"] = [r for r in j["results"] if r["scenario"] == scen]
        for r in j["results"]:
            r.update(duty_ns=50, duty_in_ns=split)
            if scen == "pair":
                r["scenario"] = "duty"
        out = os.path.join(d, name)
        json.dump(j, open(out, "w"))
        return out
    ud = duty_file(user_d, "user_duty.json", "pair", 25)
    for split, note in ((25, ""), (None, "not paired: kmod ran another duty shape (duty_in_ns n/a)"),
                        (20, "not paired: duty split 25+25 ns in user, 20+30 in kmod")):
        kd = duty_file(kj, "kmod_duty.json", "loop-irqsoff", split)
        t = {r["guard"]: r for r in table(ud, kd)}
        for g in both - {"noop"}:
            r = t.get(g, {})
            paired = r.get("ratio") not in ("", None)
            ok_note = r.get("note") == note if note else not r.get("note", "").startswith("not paired")
            check(r.get("duty_ns") == "50" and ok_note and paired == (not note),
                  f"duty split {split} {g}: note {r.get('note')!r}, ratio {r.get('ratio')!r}")
        text = table(ud, kd, fmt="--markdown")
        want = f"note: {len(both)} duty lines not paired" if note else None
        check((want in text) if want else ("not paired" not in text),
              f"duty split {split}: markdown note {want!r} in {text[-300:]!r}")

    # Bad use: one line, non-zero; nothing on stdout.
    for args, rc in (([user, user], 1), ([kj, kj], 1), (["--baseline", "noop", user], 2),
                     (["--across-hosts", user, kj], 2), (["--commit-log", user, kj], 2),
                     ([user, os.path.join(d, "missing.json")], 1)):
        p = run(rgbench, "compare", "--across-suites", *args)
        check(p.returncode == rc and p.stdout == "" and p.stderr.strip(),
              f"{args}: exit {p.returncode} (want {rc}) out {p.stdout[:80]!r} err {p.stderr!r}")

    # --across-hosts pairs rows on suite/guard/scenario/threads/duty, not batch,
    # and shows each side's batch: the same file with the BPF-like batch changed.
    hb = json.load(open(kj))
    for r in hb["results"]:
        r["host"] = "other-host"
        if r["scenario"] == "loop-irqsoff":
            r["batch"] = 250
    for r in hb.get("env", {}), hb:
        if "host" in r:
            r["host"] = "other-host"
    other = os.path.join(d, "other.json")
    json.dump(hb, open(other, "w"))
    p = run(rgbench, "compare", "--csv", "--across-hosts", kj, other)
    check(p.returncode == 0, f"across-hosts: {p.returncode} {p.stderr}")
    t = list(csv.DictReader(io.StringIO(p.stdout)))
    loops = [r for r in t if r["scenario"] == "loop-irqsoff" and r["base_median"] and r["new_median"]]
    check(len(loops) == len(kguards) and all(r["batch"] == "3000/250" for r in loops),
          f"across-hosts: {len(loops)} paired loop rows of {len(kguards)}: "
          f"{[(r['guard'], r['batch']) for r in t][:4]}")
    check(not any(r["verdict"].startswith("only in") for r in t), "across-hosts: unpaired rows")
    p = run(rgbench, "compare", "--csv", kj, other)     # without: batch still matters
    t = list(csv.DictReader(io.StringIO(p.stdout)))
    check(sum(r["verdict"] == "only in base" for r in t) == len(kguards),
          f"same-host compare paired rows of different batch: {[r['verdict'] for r in t][:4]}")

for e in errors:
    print("check_across:", e, file=sys.stderr)
print(f"check_across: {len(errors)} problem(s)")
sys.exit(1 if errors else 0)
