# SPDX-License-Identifier: MIT
"""Bad input: every flag's invalid values give one line on stderr, exit 2, and write nothing."""
import os
import re
import resource
import subprocess

import rgtest

a = rgtest.args()
c = rgtest.Checker("bench.badinput")
ncpus = len(os.sched_getaffinity(0))


def refused(want, *argvs):
    """Cases: each command line in argvs, refused with one line holding want."""
    return [(list(argv), want) for argv in argvs]


cases = [
    *refused("unknown option", ["--frobnicate"], ["-x"], ["--list=yes"]),
    *refused("unknown subcommand", ["frobnicate"]),
    *refused("unknown name 'nosuchguard'", ["--guards", "nosuchguard"]),
    *refused("unknown name 'bogus'", ["--scenarios", "pair,bogus"]),
    *refused("malformed", ["--guards", "tls,,noop"], ["--guards", ""], ["--cpus", "0,,1"]),
    *refused("needs a value", ["--guards"], ["--scenarios"], ["--duration"], ["--out"]),
    *refused("expected an integer", ["--threads", "0"], ["--threads", "abc"], ["--cpus", "100000"],
             ["--cpus", "-1"], ["--repetitions", "0"], ["--repetitions", "1.5"], ["--batch", "0"],
             ["--duty", "-5"]),
    *refused("listed twice", ["--threads", "1,1"]),
    *refused("only", ["--threads", str(ncpus + 1)]),
    *refused("only 1 CPU", ["--threads", "2", "--cpus", sorted(os.sched_getaffinity(0))[0].__str__()]),
    *refused("not available", ["--cpus", "1023"]),
    *refused("backwards", ["--cpus", "1-0"]),
    *refused("expected a number", ["--min-time", "-1"], ["--min-time", "soon"], ["--duration", "0"],
             ["--duration", "5min"], ["--min-time", "0x10"]),
    # The in+out split (issue 17 item 2): malformed, over the limit, or a total twice.
    *refused("--duty: expected NS or IN+OUT ns, e.g. 50 or 20+30, not '20+' (got '20+')", ["--duty", "20+"]),
    *refused("--duty: expected NS or IN+OUT ns, e.g. 50 or 20+30, not '+20' (got '+20')", ["--duty", "+20"]),
    *refused("expected NS or IN+OUT ns", ["--duty", "1+2+3"]),
    *refused("--duty: expected an integer in [0, 100000], not 'x' (got '20+x')", ["--duty", "20+x"]),
    *refused("expected an integer in [0, 100000], not '20-30'", ["--duty", "20-30"]),
    *refused("--duty: 60000+50000 is more than 100000 ns in all (got '60000+50000')", ["--duty", "60000+50000"]),
    *refused("--duty: 50 ns in all is listed twice (got '50,20+30')", ["--duty", "50,20+30"]),
    *refused("does not exist", ["--out", "/nonexistent-dir/x.csv"], ["--json", "/nonexistent-dir/x.json"]),
    *refused("not a file name", ["--out", "dir/"]),
    *refused("unknown Google Benchmark flag", ["--benchmark_frobnicate=1"]),
    *refused("expected one of console|json", ["--benchmark_format=xml"]),
    # Every pass-through flag has rgbench's rule (issue 19 item 4): range, finite, known words,
    # or refused with the reason before anything runs.
    *refused("--benchmark_min_warmup_time: not passed on", ["--benchmark_min_warmup_time=1e308"],
             ["--benchmark_min_warmup_time=-1"], ["--benchmark_min_warmup_time=nan"]),
    *refused("expected one of ns|us|ms|s", ["--benchmark_time_unit=parsec"]),
    *refused("expected one of json|console", ["--benchmark_out_format=csv"], ["--benchmark_out_format=xml"]),
    *refused("--benchmark_perf_counters: not passed on", ["--benchmark_perf_counters=CYCLES"]),
    *refused("--benchmark_list_tests: listing writes no results: use rgbench --list",
             ["--benchmark_list_tests=true"]),
    *refused("--benchmark_list_tests: listing writes no results", ["--benchmark_list_tests"]),
    *refused("--benchmark_dry_run: a dry run writes no results", ["--benchmark_dry_run=true"]),
    *refused("expected one of auto|true|false", ["--benchmark_color=maybe"]),
    *refused("expected true or false", ["--benchmark_counters_tabular=perhaps"],
             ["--benchmark_report_aggregates_only=2"]),
    *refused("expected key=value", ["--benchmark_context=novalue"]),
    *refused("an empty file name", ["--benchmark_out="]),
    *refused("not a regular expression", ["--benchmark_filter=["]),
    # Values passed on to Google Benchmark follow --repetitions/--min-time's rules (issue 11 item 7).
    *refused("bad value for Google Benchmark flag", ["--benchmark_min_time=nan"], ["--benchmark_min_time=1e308"],
             ["--benchmark_repetitions=lots"], ["--benchmark_repetitions=-1"], ["--benchmark_repetitions=0"],
             ["--benchmark_min_time=0"], ["--benchmark_min_time=-1"], ["--benchmark_min_time=soon"],
             ["--benchmark_repetitions"]),
    # A filter matching nothing is found by the plan, before measuring: no progress line at all
    # (stdout empty), and in --plan.
    *refused("--benchmark_filter=nomatch matches no benchmark",
             ["--guards", "tls", "--scenarios", "pair", "--quiet", "--benchmark_filter=nomatch"],
             ["--guards", "tls", "--scenarios", "pair,duty", "--benchmark_filter=nomatch"],
             ["--plan", "--guards", "tls", "--scenarios", "pair", "--benchmark_filter=nomatch"]),
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
r = rgtest.run(a, "--guards", "tls", "--scenarios", "pair", "-qq", "--no-bpf", "--repetitions", "1",
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
# --events: a name the CPU's libpfm4 table lacks is one line naming the table and the closest
# names, exit 2, before anything runs (nothing written); without libpfm4 --list says it is off.
named = re.search(r"^named events: (libpfm4 (\S+):|off: .+)", lst, re.M)
c.check(named is not None, f"--list has no 'named events:' line:\n{lst}")
if named and named.group(2):
    r = rgtest.run(a, "--events", "NO_SUCH_EVENT_XYZ", "--out", "ev.csv", cwd=tmp, timeout=120)
    c.check(r.returncode == 2 and len(r.stderr.splitlines()) == 1 and
            r.stderr.startswith(f"rgbench: --events: 'NO_SUCH_EVENT_XYZ' is not an event of PMU table "
                                f"{named.group(2)} (") and "; closest: " in r.stderr,
            f"--events NO_SUCH_EVENT_XYZ: {r.returncode} {r.stderr!r}")
else:
    print(f"skipped the unknown --events name: {named.group(1) if named else 'no line'}")
c.check(sorted(os.listdir(tmp)) == ["r.csv"], f"files left: {os.listdir(tmp)}")
# Open files (issue 28). rgbench raises its soft RLIMIT_NOFILE towards the hard limit
# before any work, and refuses to start when the hard limit is below what it needs: the
# outcome depends on the limit alone, not on how many sysfs files this host's libraries
# hold open (with six, Google Benchmark exited 1 silently on hosts whose cache files it
# reads two at a time).
few = os.path.join(tmp, "few.csv")
small = ["--guards", "tls", "--scenarios", "pair", "-qq", "--no-bpf", "--repetitions", "1",
         "--min-time", "0.001", "--out", few]
hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]


def with_nofile(soft, hard_lim, *argv):
    p = subprocess.run(rgtest.command(a, *argv), cwd=tmp, capture_output=True, text=True,
                       timeout=300,
                       preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard_lim)))
    p.stderr = rgtest.EMULATED_WARNING.sub("", p.stderr)
    return p


for lim in (4, 6, 63):
    for argv in (small, ["report", res], ["--list"]):
        p = with_nofile(lim, lim, *argv)
        prog = "rgbench" if argv[0][0] == "-" else "rgbench " + argv[0]
        c.check(p.returncode == 2 and p.stdout == "" and
                p.stderr == f"rgbench: needs 64 open files, ulimit -n allows {lim}: raise the limit\n"
                and sorted(os.listdir(tmp)) == ["r.csv"],
                f"{prog} with ulimit -n {lim}: exit {p.returncode} {p.stderr!r} {os.listdir(tmp)}")
if hard == resource.RLIM_INFINITY or hard >= 64:
    p = with_nofile(6, hard, *small)
    c.check(p.returncode == 0 and p.stderr == "" and os.path.isfile(few) and
            len(open(few).read().splitlines()) >= 2,
            f"soft limit 6, hard {hard}: exit {p.returncode} {p.stderr!r}")
    if os.path.exists(few):
        os.remove(few)
else:
    print(f"bench.badinput: skipped the raised soft limit case: this shell's hard limit is {hard}")
# A library that ends the run itself (Google Benchmark's std::exit(1) when a sysfs read
# fails): its reason reaches stderr as one rgbench line, exit 1, before anything is
# measured, and nothing is written or left locked. failopen.so makes the read fail.
shim = os.environ.get("RG_TEST_FAILOPEN", "")
cache = "/sys/devices/system/cpu/cpu0/cache/index0"
if not shim or a.emulator:
    print("bench.badinput: skipped the library-failure case: no failopen.so (cross build)")
elif "ASAN_OPTIONS" in os.environ or "UBSAN_OPTIONS" in os.environ or "TSAN_OPTIONS" in os.environ:
    print("bench.badinput: skipped the library-failure case: LD_PRELOAD under a sanitizer runtime")
elif not os.path.isfile(os.path.join(cache, "size")):
    print(f"bench.badinput: skipped the library-failure case: this host has no {cache}/size "
          "(Google Benchmark reads no cache files here)")
else:
    env = dict(os.environ, LD_PRELOAD=shim, RG_FAILOPEN_SUFFIX="/cache/index0/type")
    p = subprocess.run(rgtest.command(a, *small), cwd=tmp, capture_output=True, text=True,
                       timeout=300, env=env)
    c.check(p.returncode == 1 and p.stderr == "rgbench: Google Benchmark: Failed to read from file "
            f"{cache}/type\n" and sorted(os.listdir(tmp)) == ["r.csv"],
            f"Google Benchmark failing: exit {p.returncode} {p.stderr!r} {os.listdir(tmp)}")
# Issue 36: every option of every subcommand honoured or refused, never ignored. In the modes
# where some options mean nothing (rgbench --list, rgbench bpf --list), each of those options
# is refused in one line naming it, exit 2, nothing written; what the mode does use stays
# accepted (--list: --cpus and --events). kmod --from-raw: tests/kmod/check_convert.py;
# compare's --width and --unit: tests/plots/hostile.py.
MEASURE = [["--threads", "1"], ["--cpus", "0"], ["--duration", "10ms"], ["--repetitions", "3"],
           ["--batch", "10"], ["--out", "x.csv"], ["--json", "x.json"], ["--quiet"]]
mode_cases = [("rgbench --list", [], "--list", "--list prints what this machine offers and runs nothing",
               [o for o in MEASURE if o[0] != "--cpus"] +
               [["--plan"], ["--quick"], ["--full"], ["--no-bpf"], ["--guards", "noop"],
                ["--scenarios", "pair"], ["--min-time", "0.1"], ["--duty", "50"], ["--runs", "2"],
                ["--benchmark_min_time=0.1s"]]),
              ("rgbench bpf --list", ["bpf"], "--list", "--list prints the modes and attach types and runs nothing",
               MEASURE + [["--warmup", "0"], ["--producers", "1"], ["--mode", "driver"], ["--recurse"],
                          ["--attach", "raw_tp"], ["--allow-shared-cpus"], ["--count", "percpu"],
                          ["--triggers", "10"], ["--passes", "1"], ["--all-tasks"], ["--verbose"],
                          ["-p", "1"], ["-d", "1"], ["-w", "0"], ["-v"]])]
nmode = 0
for what, sub, mode, why, opts in mode_cases:
    prog = "rgbench bpf" if sub else "rgbench"
    for opt in opts:
        for argv in ([*sub, mode, *opt], [*sub, *opt, mode]):  # the order does not matter
            tmp = rgtest.mkdtemp(prefix="rgbench-mode-")
            r = rgtest.run(a, *argv, cwd=tmp, timeout=120)
            name = opt[0].split("=")[0]
            nmode += 1
            c.check(r.returncode == 2 and r.stdout == "" and
                    r.stderr == f"{prog}: {name}: {why}" + (" (it takes --cpus and --events only)" if not sub else "")
                    + f" (see {prog} --help)\n" and os.listdir(tmp) == [],
                    f"{what} {opt}: exit {r.returncode} {r.stderr!r} {os.listdir(tmp)}")
for argv in (["--list", "--cpus", "0"], ["--list"], ["bpf", "--list"]):
    r = rgtest.run(a, *argv, timeout=120)
    c.check(r.returncode == 0 and r.stderr == "" and ("noop" in r.stdout or "baseline" in r.stdout), f"{argv}: exit {r.returncode} {r.stderr!r}")
print(f"bench.badinput: {len(cases)} bad command lines and {nmode} options in a mode that cannot use them checked")
c.finish()
