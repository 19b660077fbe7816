# SPDX-License-Identifier: MIT
"""Output paths: refused before the run when unusable, locked against a second run, never overwritten by default names."""
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import time

import rgtest

a = rgtest.args()
c = rgtest.Checker("bench.output")
# A small run, in one fresh process (--runs 1: what the output policy does is the parent's,
# whatever the number of runs; the default 6 made each run 7 processes, and under qemu-user
# or ASan each process start is dear). LONG below keeps the default runs.
Q_RUNS = ["--guards", "tls", "--scenarios", "pair", "--no-bpf", "-qq", "--repetitions", "1",
          "--min-time", "0.001"]
Q = Q_RUNS + ["--runs", "1"]
listing = rgtest.run(a, "--list").stdout
subs = [s for s in ("bpf", "kmod") if f"{s} (not built)" not in listing]


def one_line(r, want, rc, what):
    lines = r.stderr.splitlines()
    c.check(r.returncode == rc, f"{what}: exit {r.returncode}, expected {rc} (stderr {r.stderr!r})")
    c.check(len(lines) == 1 and lines[0].startswith("rgbench") and want in lines[0],
            f"{what}: stderr {r.stderr!r}, expected one line with {want!r}")
    c.check(r.stdout == "", f"{what}: stdout {r.stdout[:200]!r} (did it run?)")


def listing_of(d):
    return sorted(os.listdir(d))


# Item 1: an existing output that is not a regular file is refused before the run, unchanged.
tmp = rgtest.mkdtemp(prefix="rgbench-out-")
os.mkfifo(os.path.join(tmp, "fifo"))
os.mkdir(os.path.join(tmp, "dir"))
os.symlink("target.csv", os.path.join(tmp, "dangling.csv"))
with open(os.path.join(tmp, "real.csv"), "w") as f:
    f.write("OLD\n")
os.symlink("real.csv", os.path.join(tmp, "link.csv"))
sock = socket.socket(socket.AF_UNIX)
sock.bind(os.path.join(tmp, "sock"))
before = listing_of(tmp)
cases = [("fifo", "not a regular file (a FIFO)"), ("sock", "not a regular file (a socket)"),
         ("dir", "is a directory"), ("dangling.csv", "is a symbolic link"),
         ("link.csv", "is a symbolic link")]
if os.geteuid() != 0:
    # Only where a regression could not replace the system's node (root may rename over it).
    cases.append(("/dev/null", "not a regular file (a character device)"))
else:
    os.mknod(os.path.join(tmp, "null"), 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    before = listing_of(tmp)
    cases.append(("null", "not a regular file (a character device)"))
for sub in [None] + subs:
    for path, want in cases:
        for flag in ("--out", "--json") + (("--benchmark_out",) if sub is None else ()):
            if flag == "--benchmark_out":
                argv = Q + ["--out", "ok.csv", f"--benchmark_out={path}"]
            elif sub is None:
                argv = Q + ([flag, path] if flag == "--out" else ["--out", "ok.csv", flag, path])
            else:
                argv = [sub, flag, path]
            r = rgtest.run(a, *argv, cwd=tmp, timeout=120)
            one_line(r, want, 2, f"{sub or 'rgbench'} {flag} {path}")
            c.check(listing_of(tmp) == before, f"{sub} {flag} {path}: files now {listing_of(tmp)}")
c.check(stat.S_ISFIFO(os.lstat(os.path.join(tmp, "fifo")).st_mode), "the FIFO was replaced")
c.check(os.geteuid() != 0 or stat.S_ISCHR(os.lstat(os.path.join(tmp, "null")).st_mode),
        "the device node was replaced")
c.check(os.path.islink(os.path.join(tmp, "link.csv")) and
        os.readlink(os.path.join(tmp, "link.csv")) == "real.csv" and
        open(os.path.join(tmp, "real.csv")).read() == "OLD\n", "the link or its target changed")
sock.close()

# --benchmark_out goes through the same policy: the same file as --out is refused first; a
# finished run publishes the library's report atomically, valid JSON, beside the results.
tmp = rgtest.mkdtemp(prefix="rgbench-gbout-")
r = rgtest.run(a, *Q, "--out", "r.csv", "--benchmark_out=./r.csv", cwd=tmp, timeout=120)
one_line(r, "are the same file", 2, "--benchmark_out same as --out")
c.check(listing_of(tmp) == [], f"--benchmark_out same as --out: files {listing_of(tmp)}")
r = rgtest.run(a, *Q, "--out", "r.csv", "--benchmark_out=gb.json", cwd=tmp, timeout=120)
c.check(r.returncode == 0 and listing_of(tmp) == ["gb.json", "r.csv"],
        f"--benchmark_out: exit {r.returncode} {r.stderr!r} files {listing_of(tmp)}")
try:
    gb = json.load(open(os.path.join(tmp, "gb.json")))
    c.check(len(gb["benchmarks"]) >= 2 and "context" in gb, f"--benchmark_out: {str(gb)[:200]}")
except (OSError, ValueError, KeyError) as e:
    c.check(False, f"--benchmark_out: not the library's JSON: {e}")

# Item 2: one file for both outputs, however spelled, is refused before the run.
tmp = rgtest.mkdtemp(prefix="rgbench-same-")
os.mkdir(os.path.join(tmp, "sub"))
for out, js in (("x.csv", "x.csv"), ("x.csv", "./x.csv"), ("sub/../x.csv", "x.csv"),
                (os.path.join(tmp, "x.csv"), "x.csv")):
    for sub in [None] + subs:
        argv = (Q if sub is None else [sub]) + ["--out", out, "--json", js]
        r = rgtest.run(a, *argv, cwd=tmp, timeout=120)
        one_line(r, "are the same file", 2, f"{sub or 'rgbench'} --out {out} --json {js}")
        c.check(listing_of(tmp) == ["sub"], f"--out {out} --json {js}: files {listing_of(tmp)}")
if "kmod" in subs:
    r = rgtest.run(a, "kmod", "--out", "x.csv", "--raw", "./x.csv", cwd=tmp)
    one_line(r, "are the same file", 2, "kmod --out x.csv --raw ./x.csv")

# Item 9: the output name is checked before measuring; a legal 255-byte name is written.
tmp = rgtest.mkdtemp(prefix="rgbench-name-")
name_max = os.pathconf(tmp, "PC_NAME_MAX")
long_csv = "a" * (name_max - 4) + ".csv"
r = rgtest.run(a, *Q, "--out", long_csv, cwd=tmp, timeout=300)
c.check(r.returncode == 0, f"{name_max}-byte name: exit {r.returncode} {r.stderr!r}")
c.check(listing_of(tmp) == [long_csv], f"{name_max}-byte name: files {listing_of(tmp)}")
r = rgtest.run(a, *Q, "--out", "b" * (name_max + 1), cwd=tmp)
one_line(r, f"file name longer than {name_max} bytes", 2, "too long a name")
# The JSON beside a CSV whose name just fits would not fit: refused before the run too.
r = rgtest.run(a, *Q, "--out", "c" * (name_max - 4) + ".csv", "--json", cwd=tmp)
one_line(r, f"file name longer than {name_max} bytes", 2, "JSON beside a long CSV name")
for sub in [None] + subs:
    argv = (Q if sub is None else [sub]) + ["--out", "/nonexistent-dir/x.csv"]
    one_line(rgtest.run(a, *argv, cwd=tmp), "does not exist", 2, f"{sub}: no directory")
    argv = (Q if sub is None else [sub]) + ["--json", os.path.join(long_csv, "x.json")]
    one_line(rgtest.run(a, *argv, cwd=tmp), "is not a directory", 2, f"{sub}: file as directory")
    if os.geteuid() != 0:
        ro = os.path.join(tmp, "ro")
        os.makedirs(ro, exist_ok=True)
        os.chmod(ro, 0o555)
        argv = (Q if sub is None else [sub]) + ["--out", os.path.join(ro, "x.csv")]
        one_line(rgtest.run(a, *argv, cwd=tmp), "is not writable", 2, f"{sub}: read-only dir")
c.check(sorted(x for x in listing_of(tmp) if x != "ro") == [long_csv], f"left {listing_of(tmp)}")

# Item 3: a second run on an output another run is writing fails at once; a stale lock is no lock.
tmp = rgtest.mkdtemp(prefix="rgbench-lock-")
first = subprocess.Popen(rgtest.command(a, "--guards", "tls", "--scenarios", "pair", "--no-bpf",
                                        "--repetitions", "1", "--min-time", "0.05",
                                        "--out", "r.csv", "--json", "r.json"),
                         cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
head = first.stderr.readline()	# printed (on stderr) after the outputs are locked, before measuring
# Held still while the second runs try (its measuring takes a second or more, the stop
# comes within milliseconds of the header), then let go to finish and publish.
first.send_signal(signal.SIGSTOP)
c.check(head.startswith("rgbench "), f"first run: header {head!r}")
for argv in ([*Q, "--out", "r.csv"], [*Q, "--out", "other.csv", "--json", "r.json"],
             *([s, "--out", "r.csv"] for s in subs)):
    t0 = time.monotonic()
    r = rgtest.run(a, *argv, cwd=tmp)
    one_line(r, "is being written by another rgbench run", 1, f"second run {argv[-2:]}")
    c.check(f"(pid {first.pid}," in r.stderr, f"the lock does not name pid {first.pid}: {r.stderr!r}")
first.send_signal(signal.SIGCONT)
out, err = first.communicate(timeout=300)
c.check(first.returncode == 0, f"first run: exit {first.returncode} {err!r}")
c.check(listing_of(tmp) == ["r.csv", "r.json"], f"lock: files {listing_of(tmp)}")
if first.returncode == 0:
    hdr, rows = rgtest.read_csv(os.path.join(tmp, "r.csv"))
    doc = rgtest.read_json(os.path.join(tmp, "r.json"))
    c.check(rows and all(x["run_id"] == doc["run_id"] for x in rows), "CSV and JSON run ids differ")
with open(os.path.join(tmp, ".r.csv.lock"), "w") as f:
    f.write("999999999\n")	# left by a run that was killed: no process holds it
r = rgtest.run(a, *Q, "--out", "r.csv", cwd=tmp)
c.check(r.returncode == 0 and r.stderr == "", f"stale lock: exit {r.returncode} {r.stderr!r}")
c.check(listing_of(tmp) == ["r.csv", "r.json"], f"stale lock: files {listing_of(tmp)}")

# Item 13: default names never overwrite: runs started in the same second all keep their results.
tmp = rgtest.mkdtemp(prefix="rgbench-default-")
procs = [subprocess.Popen(rgtest.command(a, *Q), cwd=tmp, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) for _ in range(3)]
for p in procs:
    out, err = p.communicate(timeout=300)
    c.check(p.returncode == 0, f"default run: exit {p.returncode} {err!r}")
r = rgtest.run(a, *Q, cwd=tmp)
c.check(r.returncode == 0, f"default run: exit {r.returncode} {r.stderr!r}")
files = listing_of(os.path.join(tmp, "results"))
csvs = [x for x in files if x.endswith(".csv")]
c.check(len(csvs) == 4 and len(files) == 8, f"4 default runs left {files}")
ids = set()
for x in csvs:
    doc = json.load(open(os.path.join(tmp, "results", x[:-4] + ".json")))
    hdr, rows = rgtest.read_csv(os.path.join(tmp, "results", x))
    c.check(all(r["run_id"] == doc["run_id"] for r in rows), f"{x}: CSV and JSON run ids differ")
    ids.add(doc["run_id"])
c.check(len(ids) == 4, f"run ids {ids}")
# Issue 19: an output never replaces an input of the same command (nor its CSV/JSON twin), and
# report --out is refused like any output (device, FIFO, link): exit 2 with the reason, first.
tmp = rgtest.mkdtemp(prefix="rgbench-inout-")
r = rgtest.run(a, *Q, "--out", "in.csv", "--json", "in.json", cwd=tmp, timeout=120)
c.check(r.returncode == 0, f"a small run: {r.returncode} {r.stderr!r}")
os.mkfifo(os.path.join(tmp, "fifo"))
os.symlink("in.json", os.path.join(tmp, "lnk"))
keep = {n: open(os.path.join(tmp, n), "rb").read() for n in ("in.csv", "in.json")}
raw = os.path.join(a.source, "tests/kmod/data/raw_good.csv")
with open(os.path.join(tmp, "x.csv"), "wb") as f:
    f.write(open(raw, "rb").read())
keep["x.csv"] = open(os.path.join(tmp, "x.csv"), "rb").read()
cases = [(["report", "in.json", "--out", "in.json"], "in.json: is an input of this command (in.json)"),
         (["report", "in.json", "--out", "./in.csv"], "./in.csv: is the CSV/JSON twin of the input in.json"),
         (["report", "in.csv", "--out", os.path.join(tmp, "in.csv")], "is an input of this command"),
         (["report", "in.json", "--out", "fifo"], "fifo: exists and is not a regular file (a FIFO)"),
         (["report", "in.json", "--out", "lnk"], "lnk: is a symbolic link"),
         (["report", "in.json", "--out", "/dev/null"], "/dev/null: exists and is not a regular file")]
if "kmod" in subs:
    cases += [(["kmod", "--from-raw", "x.csv", "--out", "x.csv"], "x.csv: is an input of this command"),
              (["kmod", "--from-raw", "x.csv", "--json", "x.json"], "x.json: is the CSV/JSON twin")]
for argv, want in cases:
    r = rgtest.run(a, *argv, cwd=tmp, timeout=120)
    c.check(r.returncode == 2 and r.stderr.startswith(f"rgbench {argv[0]}: ") and want in r.stderr
            and len(r.stderr.splitlines()) == 1, f"{argv}: exit {r.returncode} {r.stderr!r}")
    for n, data in keep.items():
        c.check(open(os.path.join(tmp, n), "rb").read() == data, f"{argv}: {n} changed")
c.check(listing_of(tmp) == ["fifo", "in.csv", "in.json", "lnk", "x.csv"], f"in/out: left {listing_of(tmp)}")
# Default names are visible and safe whatever the host name (a leading dot, '/', '$', bytes
# that are not UTF-8): run in a UTS namespace of its own where that is allowed (root).
if os.geteuid() == 0 and not a.emulator and subprocess.run(["unshare", "-u", "true"]).returncode == 0:
    tmp = rgtest.mkdtemp(prefix="rgbench-host-")
    code = ("import socket, os, sys; socket.sethostname(b'.h\\xc3(d/$n');"
            "os.execv(sys.argv[1], sys.argv[1:])")
    # (6 runs: the rows have intervals, and the report's tables are then wide enough to name
    # the host in their header as it is; with one run a table says A, and the prose escapes '$')
    r = subprocess.run(["unshare", "-u", sys.executable, "-c", code, a.rgbench, *Q_RUNS], cwd=tmp,
                       capture_output=True, text=True, timeout=120)
    names = listing_of(os.path.join(tmp, "results")) if os.path.isdir(os.path.join(tmp, "results")) else []
    c.check(r.returncode == 0 and len(names) == 2 and all(n.startswith("_h__d__n-") for n in names),
            f"host name '.h\\xc3(d/$n': exit {r.returncode} {r.stderr!r} names {names}")
    # The host column holds printable UTF-8 ('?' for the byte that is not), and rgbench's
    # own reader takes both files (it refused them as binary data before).
    for n in names:
        path = os.path.join(tmp, "results", n)
        raw = open(path, "rb").read()
        c.check(b".h?(d/$n" in raw and b"\xc3(" not in raw, f"{n}: host not made printable")
        r = rgtest.run(a, "report", path, cwd=tmp, timeout=120)
        c.check(r.returncode == 0 and ".h?(d/$n" in r.stdout,
                f"report {n}: exit {r.returncode} {r.stderr!r}")
# ---- issue 36: the output policy's fifth round --------------------------------------------
import resource

LONG = Q_RUNS  # 6 runs, about a second: the lock is there from before the first sample


def hidden(d):
    return sorted(n for n in os.listdir(d) if n.startswith("."))


def fsize_limit(kb):
    def set_limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (kb * 1024, resource.RLIM_INFINITY))
    return set_limit


# Item 3: ulimit -f reached while writing: one line, exit 1, no temporary file, the old files
# kept (SIGXFSZ no longer kills the run with exit 153). The class: report --out, kmod's outputs.
tmp = rgtest.mkdtemp(prefix="rgbench-fsize-")
for n in ("f.csv", "f.json"):
    with open(os.path.join(tmp, n), "w") as f:
        f.write("OLD\n")
r = subprocess.run(rgtest.command(a, *Q, "--out", "f.csv", "--json", "f.json"), cwd=tmp,
                   capture_output=True, text=True, timeout=300, preexec_fn=fsize_limit(1))
c.check(r.returncode == 1 and r.stderr.splitlines()[-1:] == ["rgbench: cannot write f.csv: File too large"],
        f"ulimit -f 1: exit {r.returncode} {r.stderr!r}")
c.check(listing_of(tmp) == ["f.csv", "f.json"] and
        all(open(os.path.join(tmp, n)).read() == "OLD\n" for n in ("f.csv", "f.json")),
        f"ulimit -f 1: files {listing_of(tmp)}")
r = rgtest.run(a, *Q, "--out", "in.csv", "--json", "in.json", cwd=tmp, timeout=300)
c.check(r.returncode == 0, f"a run for report: {r.returncode} {r.stderr!r}")
for argv, out in ((["report", "in.json", "--out", "page.md"], "page.md"),
                  (["kmod", "--from-raw", os.path.join(a.source, "tests/kmod/data/raw_good.csv"),
                    "--out", "k.csv", "-qq"], "k.csv")):
    if argv[0] not in ("report",) and argv[0] not in subs:
        continue
    r = subprocess.run(rgtest.command(a, *argv), cwd=tmp, capture_output=True, text=True, timeout=300,
                       preexec_fn=fsize_limit(1))
    c.check(r.returncode == 1 and r.stderr == f"rgbench {argv[0]}: cannot write {out}: File too large\n",
            f"{argv[0]} under ulimit -f 1: exit {r.returncode} {r.stderr!r}")
    c.check(out not in listing_of(tmp) and hidden(tmp) == [], f"{argv[0]} under ulimit -f: {listing_of(tmp)}")

# Item 3, the other half: a temporary file a killed run left (SIGKILL: no handler runs) is
# removed by the next run on that output, which holds its lock; another output's is kept.
for n in (".in.csv.Zq3x9A.tmp", ".other.csv.Zq3x9A.tmp"):
    with open(os.path.join(tmp, n), "w") as f:
        f.write("half")
r = rgtest.run(a, *Q, "--out", "in.csv", "--json", "in.json", cwd=tmp, timeout=300)
c.check(r.returncode == 0 and hidden(tmp) == [".other.csv.Zq3x9A.tmp"],
        f"a killed run's temporary file: exit {r.returncode}, left {hidden(tmp)}")

# Item 5: report --out over another run's measured CSV (or JSON, or a module file): refused
# without --force, the file unchanged; with --force, replaced. Any other file is replaced as before.
before = open(os.path.join(tmp, "in.csv")).read()
with open(os.path.join(tmp, "notes.md"), "w") as f:
    f.write("my notes\n")
with open(os.path.join(tmp, "raw.csv"), "w") as f:
    f.write(open(os.path.join(a.source, "tests/kmod/data/raw_good.csv")).read())
for out in ("old.csv", "old.json", "raw.csv"):
    if out != "raw.csv":
        with open(os.path.join(tmp, out), "w") as f:
            f.write(open(os.path.join(tmp, "in" + out[3:])).read())
    keep = open(os.path.join(tmp, out)).read()
    r = rgtest.run(a, "report", "in.json", "--out", out, cwd=tmp, timeout=120)
    c.check(r.returncode == 2 and r.stderr == f"rgbench report: {out}: holds measured results (a run's "
            "CSV, JSON or module file): not replaced without --force\n" and r.stdout == "",
            f"report --out {out}: exit {r.returncode} {r.stderr!r}")
    c.check(open(os.path.join(tmp, out)).read() == keep, f"report --out {out}: replaced without --force")
r = rgtest.run(a, "report", "in.json", "--out", "old.csv", "--force", cwd=tmp, timeout=120)
c.check(r.returncode == 0 and open(os.path.join(tmp, "old.csv")).read().startswith("# rgbench report"),
        f"report --out old.csv --force: exit {r.returncode} {r.stderr!r}")
r = rgtest.run(a, "report", "in.json", "--out", "notes.md", cwd=tmp, timeout=120)
c.check(r.returncode == 0 and open(os.path.join(tmp, "notes.md")).read().startswith("# rgbench report"),
        f"report --out over a file without measurements: exit {r.returncode} {r.stderr!r}")
c.check(open(os.path.join(tmp, "in.csv")).read() == before, "in.csv changed")
# The class, a case not listed: a FIFO as report's --out is refused at once, never opened.
os.mkfifo(os.path.join(tmp, "pipe.md"))
r = rgtest.run(a, "report", "in.json", "--out", "pipe.md", cwd=tmp, timeout=60)
c.check(r.returncode == 2 and r.stderr == "rgbench report: pipe.md: exists and is not a regular file "
        "(a FIFO)\n", f"report --out FIFO: exit {r.returncode} {r.stderr!r}")

# The kept-back case's class, another command: a module file with no rows converts to nothing,
# so kmod --from-raw replaces nothing (exit 1, one line, the old file kept).
if "kmod" in subs:
    with open(os.path.join(tmp, "hdr.csv"), "w") as f:
        f.write(open(os.path.join(a.source, "tests/kmod/data/raw_good.csv")).readline())
    with open(os.path.join(tmp, "ko.csv"), "w") as f:
        f.write("OLD\n")
    r = rgtest.run(a, "kmod", "--from-raw", "hdr.csv", "--out", "ko.csv", "-qq", cwd=tmp, timeout=60)
    c.check(r.returncode == 1 and r.stderr == "rgbench kmod: nothing measured: ko.csv not written (a file "
            "of that name is left as it was)\n" and open(os.path.join(tmp, "ko.csv")).read() == "OLD\n"
            and not [n for n in hidden(tmp) if n.startswith(".ko.")], f"kmod --from-raw of no rows: exit {r.returncode} {r.stderr!r}")

# Item 12: --out x.json --json (a CSV named .json and x.json.json beside it) and --json x.csv:
# refused before any work, nothing written.
tmp = rgtest.mkdtemp(prefix="rgbench-fmt-")
for argv, want in ((["--out", "x.json", "--json"], "rgbench: x.json: the CSV output is named .json (the JSON "
                    "goes to --json FILE) (see rgbench --help)\n"),
                   (["--json", "y.csv"], "rgbench: y.csv: the JSON output is named .csv (the CSV goes "
                    "to --out FILE) (see rgbench --help)\n"),
                   (["--out", "z.csv", "--json", "z.csv.csv"], "rgbench: z.csv.csv: the JSON output is "
                    "named .csv (the CSV goes to --out FILE) (see rgbench --help)\n")):
    r = rgtest.run(a, *Q, *argv, cwd=tmp, timeout=120)
    c.check(r.returncode == 2 and r.stderr == want, f"{argv}: exit {r.returncode} {r.stderr!r}")
    c.check(listing_of(tmp) == [], f"{argv}: files {listing_of(tmp)}")

# Item 15: an output that cannot be written, found before any work, is exit 2 in every path:
# the default results/ (a file there, a dangling link), a lock file that cannot be made
# (sysfs and procfs take no new file), a read-only folder.
tmp = rgtest.mkdtemp(prefix="rgbench-unwritable-")
with open(os.path.join(tmp, "results"), "w") as f:
    f.write("not a folder\n")
r = rgtest.run(a, *Q, cwd=tmp, timeout=120)
c.check(r.returncode == 2 and len(r.stderr.splitlines()) == 1 and "results" in r.stderr,
        f"default results/ is a file: exit {r.returncode} {r.stderr!r}")
os.unlink(os.path.join(tmp, "results"))
os.symlink("gone", os.path.join(tmp, "results"))
r = rgtest.run(a, *Q, cwd=tmp, timeout=120)
c.check(r.returncode == 2 and len(r.stderr.splitlines()) == 1 and "results" in r.stderr,
        f"default results/ a dangling link: exit {r.returncode} {r.stderr!r}")
for out in ("/sys/kernel/x.csv", "/proc/self/x.csv", "/proc/x.csv"):
    for sub in [None] + subs:
        argv = (Q if sub is None else [sub]) + ["--out", out]
        r = rgtest.run(a, *argv, cwd=tmp, timeout=120)
        c.check(r.returncode == 2 and len(r.stderr.splitlines()) == 1 and out in r.stderr,
                f"{sub or 'rgbench'} --out {out}: exit {r.returncode} {r.stderr!r}")
r = rgtest.run(a, "report", os.path.join(a.source, "tests/kmod/data/raw_good.csv"), "--out",
               "/sys/kernel/x.md", cwd=tmp, timeout=120)
c.check(r.returncode == 2 and len(r.stderr.splitlines()) == 1, f"report --out /sys: {r.returncode} {r.stderr!r}")

# Item 16: an empty name, input or output, has one wording in every command.
tmp = rgtest.mkdtemp(prefix="rgbench-empty-")
cases = [(["--out", ""], "rgbench: --out: an empty file name (see rgbench --help)\n"),
         (["--json", ""], "rgbench: --json: an empty file name (see rgbench --help)\n"),
         (["report", "x.json", "--out", ""], "rgbench report: --out: an empty file name (see rgbench report --help)\n"),
         (["plot", "x.json", "--out", ""], "rgbench plot: --out: an empty file name (see rgbench plot --help)\n"),
         (["report", ""], "rgbench report: an empty file name\n")]
for sub in subs:
    cases.append(([sub, "--out", ""], f"rgbench {sub}: --out: an empty file name (see rgbench {sub} --help)\n"))
    cases.append(([sub, "--json", ""], f"rgbench {sub}: --json: an empty file name (see rgbench {sub} --help)\n"))
if "kmod" in subs:
    cases.append((["kmod", "--from-raw", ""], "rgbench kmod: --from-raw: an empty file name (see rgbench kmod --help)\n"))
for argv, want in cases:
    r = rgtest.run(a, *argv, cwd=tmp, timeout=120)
    c.check(r.returncode in (1, 2) and r.stderr == want, f"{argv}: exit {r.returncode} {r.stderr!r}")
c.check(listing_of(tmp) == [], f"empty names: files {listing_of(tmp)}")

# Item 4: the output folder swapped for a link to another folder while the run measures: the
# files go into the folder that was checked (now moved), with its locks; nothing through the link.
tmp = rgtest.mkdtemp(prefix="rgbench-swap-")
os.mkdir(os.path.join(tmp, "d"))
os.mkdir(os.path.join(tmp, "elsewhere"))
p = subprocess.Popen(rgtest.command(a, *LONG, "--out", "d/x.csv", "--json", "d/x.json"), cwd=tmp,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
deadline = time.monotonic() + 120
while not os.path.exists(os.path.join(tmp, "d", ".x.json.lock")) and p.poll() is None and \
        time.monotonic() < deadline:
    time.sleep(0.001)
if p.poll() is None and os.path.exists(os.path.join(tmp, "d", ".x.json.lock")):
    os.rename(os.path.join(tmp, "d"), os.path.join(tmp, "moved"))
    os.symlink("elsewhere", os.path.join(tmp, "d"))
    out, err = p.communicate(timeout=600)
    c.check(p.returncode == 0, f"swapped folder: exit {p.returncode} {err!r}")
    c.check(listing_of(os.path.join(tmp, "moved")) == ["x.csv", "x.json"] and
            listing_of(os.path.join(tmp, "elsewhere")) == [],
            f"swapped folder: moved {listing_of(os.path.join(tmp, 'moved'))}, "
            f"elsewhere {listing_of(os.path.join(tmp, 'elsewhere'))}")
else:
    p.communicate(timeout=600)
    print("bench.output: the run ended before its lock was seen; the swapped-folder case not tried")

# Item 7: a stop signal during start-up: from the first instruction (the handler is seen set in
# /proc) and after the locks are taken, every stop signal ends the run with one line and
# 128+N, and leaves no lock, no temporary file, no result. (Under an emulator /proc shows the
# emulator's handlers: not tried there.)


if not a.emulator:
    tmp = rgtest.mkdtemp(prefix="rgbench-startsig-")
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGQUIT):
        for when in ("handler", "lock"):
            p = subprocess.Popen(rgtest.command(a, *LONG, "--out", "s.csv", "--json", "s.json"), cwd=tmp,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            deadline = time.monotonic() + 120
            while p.poll() is None and time.monotonic() < deadline and not (
                    rgtest.catches(p.pid, sig) if when == "handler" else os.path.exists(os.path.join(tmp, ".s.json.lock"))):
                time.sleep(0.0005)
            if p.poll() is not None:
                p.communicate()
                print(f"bench.output: {sig.name} at {when}: the run ended first; not tried")
                continue
            p.send_signal(sig)
            out, err = p.communicate(timeout=600)
            name = sig.name
            c.check(p.returncode == 128 + sig and len(err.splitlines()) == 1 and
                    err.startswith(f"rgbench: interrupted by {name}") and "written" in err,
                    f"{name} at {when}: exit {p.returncode} {err!r}")
            c.check(listing_of(tmp) == [], f"{name} at {when}: left {listing_of(tmp)}")
c.finish()
