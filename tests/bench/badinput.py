# SPDX-License-Identifier: MIT
"""Bad input: every flag's invalid values give one line on stderr, exit 2, and write nothing."""
import os
import subprocess

import rgtest

a = rgtest.args()
c = rgtest.Checker("bench.badinput")
ncpus = len(os.sched_getaffinity(0))
cases = [
    (["--frobnicate"], "unknown option"),
    (["-x"], "unknown option"),
    (["frobnicate"], "unknown subcommand"),
    (["--guards", "nosuchguard"], "unknown name 'nosuchguard'"),
    (["--guards", "tls,,noop"], "malformed"),
    (["--guards", ""], "malformed"),
    (["--guards"], "needs a value"),
    (["--scenarios", "pair,bogus"], "unknown name 'bogus'"),
    (["--scenarios"], "needs a value"),
    (["--threads", "0"], "expected an integer"),
    (["--threads", "abc"], "expected an integer"),
    (["--threads", "1,1"], "listed twice"),
    (["--threads", str(ncpus + 1)], "only"),
    (["--threads", "2", "--cpus", sorted(os.sched_getaffinity(0))[0].__str__()], "only 1 CPU"),
    (["--cpus", "100000"], "expected an integer"),
    (["--cpus", "1023"], "not available"),
    (["--cpus", "1-0"], "backwards"),
    (["--cpus", "0,,1"], "malformed"),
    (["--cpus", "-1"], "expected an integer"),
    (["--repetitions", "0"], "expected an integer"),
    (["--repetitions", "1.5"], "expected an integer"),
    (["--min-time", "-1"], "expected a number"),
    (["--min-time", "soon"], "expected a number"),
    (["--duration", "0"], "expected a number"),
    (["--duration", "5min"], "expected a number"),
    (["--duration"], "needs a value"),
    (["--min-time", "0x10"], "expected a number"),
    (["--batch", "0"], "expected an integer"),
    (["--duty", "-5"], "expected an integer"),
    # The in+out split (issue 17 item 2): malformed, over the limit, or a total twice.
    (["--duty", "20+"], "--duty: expected NS or IN+OUT ns, e.g. 50 or 20+30, not '20+' (got '20+')"),
    (["--duty", "+20"], "--duty: expected NS or IN+OUT ns, e.g. 50 or 20+30, not '+20' (got '+20')"),
    (["--duty", "1+2+3"], "expected NS or IN+OUT ns"),
    (["--duty", "20+x"], "--duty: expected an integer in [0, 100000], not 'x' (got '20+x')"),
    (["--duty", "20-30"], "expected an integer in [0, 100000], not '20-30'"),
    (["--duty", "60000+50000"], "--duty: 60000+50000 is more than 100000 ns in all (got '60000+50000')"),
    (["--duty", "50,20+30"], "--duty: 50 ns in all is listed twice (got '50,20+30')"),
    (["--out", "/nonexistent-dir/x.csv"], "does not exist"),
    (["--out", "dir/"], "not a file name"),
    (["--out"], "needs a value"),
    (["--json", "/nonexistent-dir/x.json"], "does not exist"),
    (["--list=yes"], "unknown option"),
    (["--benchmark_frobnicate=1"], "unknown Google Benchmark flag"),
    (["--benchmark_format=xml"], "expected one of console|json"),
    # Every pass-through flag has rgbench's rule (issue 19 item 4): range, finite, known words,
    # or refused with the reason before anything runs.
    (["--benchmark_min_warmup_time=1e308"], "--benchmark_min_warmup_time: not passed on"),
    (["--benchmark_min_warmup_time=-1"], "--benchmark_min_warmup_time: not passed on"),
    (["--benchmark_min_warmup_time=nan"], "--benchmark_min_warmup_time: not passed on"),
    (["--benchmark_min_time=nan"], "bad value for Google Benchmark flag"),
    (["--benchmark_min_time=1e308"], "bad value for Google Benchmark flag"),
    (["--benchmark_time_unit=parsec"], "expected one of ns|us|ms|s"),
    (["--benchmark_out_format=csv"], "expected one of json|console"),
    (["--benchmark_out_format=xml"], "expected one of json|console"),
    (["--benchmark_perf_counters=CYCLES"], "--benchmark_perf_counters: not passed on"),
    (["--benchmark_list_tests=true"], "--benchmark_list_tests: listing writes no results: use rgbench --list"),
    (["--benchmark_list_tests"], "--benchmark_list_tests: listing writes no results"),
    (["--benchmark_dry_run=true"], "--benchmark_dry_run: a dry run writes no results"),
    (["--benchmark_color=maybe"], "expected one of auto|true|false"),
    (["--benchmark_counters_tabular=perhaps"], "expected true or false"),
    (["--benchmark_report_aggregates_only=2"], "expected true or false"),
    (["--benchmark_context=novalue"], "expected key=value"),
    (["--benchmark_out="], "an empty file name"),
    # Values passed on to Google Benchmark follow --repetitions/--min-time's rules (issue 11 item 7).
    (["--benchmark_repetitions=lots"], "bad value for Google Benchmark flag"),
    (["--benchmark_repetitions=-1"], "bad value for Google Benchmark flag"),
    (["--benchmark_repetitions=0"], "bad value for Google Benchmark flag"),
    (["--benchmark_min_time=0"], "bad value for Google Benchmark flag"),
    (["--benchmark_min_time=-1"], "bad value for Google Benchmark flag"),
    (["--benchmark_min_time=soon"], "bad value for Google Benchmark flag"),
    (["--benchmark_filter=["], "not a regular expression"),
    (["--benchmark_repetitions"], "bad value for Google Benchmark flag"),
    (["--guards", "tls", "--scenarios", "pair", "--quiet", "--benchmark_filter=nomatch"],
     "--benchmark_filter=nomatch matches no benchmark"),
    # Found by the plan, before measuring: no progress line at all (stdout empty), and in --plan.
    (["--guards", "tls", "--scenarios", "pair,duty", "--benchmark_filter=nomatch"],
     "--benchmark_filter=nomatch matches no benchmark"),
    (["--plan", "--guards", "tls", "--scenarios", "pair", "--benchmark_filter=nomatch"],
     "--benchmark_filter=nomatch matches no benchmark"),
]
if ncpus >= 1024:
    cases = [x for x in cases if x[0] != ["--cpus", "1023"]]

for argv, want in cases:
    tmp = rgtest.mkdtemp(prefix="rgbench-bad-")
    old = os.path.join(tmp, "old.csv")
    with open(old, "w") as f:
        f.write("OLD\n")
    argv = argv + ["--out", old] if "--out" not in argv and argv[0][0] == "-" else argv
    r = rgtest.run(a, *argv, cwd=tmp, timeout=120)
    lines = r.stderr.splitlines()
    c.check(r.returncode == 2, f"{argv}: exit {r.returncode}, expected 2 (stderr {r.stderr!r})")
    c.check(len(lines) == 1 and lines[0].startswith("rgbench: ") and want in lines[0],
            f"{argv}: stderr {r.stderr!r}, expected one 'rgbench: ...{want}...' line")
    c.check(r.stdout == "", f"{argv}: stdout {r.stdout[:200]!r}")
    c.check(sorted(os.listdir(tmp)) == ["old.csv"], f"{argv}: files left {os.listdir(tmp)}")
    c.check(open(old).read() == "OLD\n", f"{argv}: old result overwritten")

# A component that is not built says so on one line (exit 1), never crashes.
lst = rgtest.run(a, "--list").stdout
for sub in ("bpf", "kmod", "compare", "plot"):
    if f"{sub} (not built)" in lst:
        r = rgtest.run(a, sub)
        c.check(r.returncode == 1 and r.stderr.startswith(f"rgbench: {sub} not built: ") and
                len(r.stderr.splitlines()) == 1, f"{sub}: {r.returncode} {r.stderr!r}")
# Output lost on stdout is a failure of every command (one line, exit 1), --list, --plan and
# --help included; and an empty --out or --json is a usage error, not the default name.
tmp = rgtest.mkdtemp(prefix="rgbench-bad-")
res = os.path.join(tmp, "r.csv")
r = rgtest.run(a, "--guards", "tls", "--scenarios", "pair", "--quiet", "--no-bpf", "--repetitions", "1",
               "--min-time", "0.001", "--out", res, cwd=tmp, timeout=300)
c.check(r.returncode == 0, f"a small run: {r.returncode} {r.stderr!r}")
full_cases = [["--list"], ["--plan", "--quick"], ["--help"], ["compare", "--help"], ["report", "--help"],
              ["kmod", "--help"], ["bpf", "--help"], ["compare", "--allow-emulated", res, res],
              ["compare", "--across-hosts", "--allow-emulated", res], ["report", res]]
lst = rgtest.run(a, "--list").stdout
for argv in full_cases:
    if f"{argv[0]} (not built)" in lst:
        continue
    with open("/dev/full", "w") as full:
        p = subprocess.run(rgtest.command(a, *argv), stdout=full, stderr=subprocess.PIPE, text=True,
                           cwd=tmp, timeout=120)
    err = rgtest.EMULATED_WARNING.sub("", p.stderr)
    prog = "rgbench " + argv[0] if argv[0][0] != "-" else "rgbench"
    c.check(p.returncode == 1 and err == f"{prog}: cannot write the standard output: "
            "No space left on device\n", f"{argv} >/dev/full: exit {p.returncode} {err!r}")
for argv, want in ((["--out", ""], "--out: an empty file name"),
                   (["--out", "x.csv", "--json", ""], "--json: an empty file name"),
                   (["--out="], "--out: an empty file name")):
    r = rgtest.run(a, *argv, cwd=tmp, timeout=120)
    c.check(r.returncode == 2 and r.stderr.startswith(f"rgbench: {want}") and
            len(r.stderr.splitlines()) == 1, f"{argv}: {r.returncode} {r.stderr!r}")
c.check(sorted(os.listdir(tmp)) == ["r.csv"], f"files left: {os.listdir(tmp)}")
print(f"bench.badinput: {len(cases)} bad command lines checked")
c.finish()
