#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Issue 28's hostile cases for report, compare and plot: the output policy (a result file in a
directory operand, immutable and sticky-directory files, locks, plot's DIR), the input policy
(sockets, /proc files, out of memory), the one sanitizer (timer block, bidi characters, file
names), plot's script and environment, legend labels. Each numbered item of the issue has its
case, and each class one more case the issue did not list.
Usage: hostile_io.py RGBENCH_REPORT FIXTURES_DIR"""
import fcntl
import json
import os
import re
import resource
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time

R, FX = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
failures = []
skipped = []
nchecks = 0


def check(ok, what):
    global nchecks
    nchecks += 1
    if not ok:
        failures.append(what)
        print("FAIL", what)


def skip(what):
    skipped.append(what)
    print("skipped:", what)


def run(*args, env=None, cwd=None, timeout=300, preexec_fn=None, prog=None):
    return subprocess.run([prog or R, *args], capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=timeout, preexec_fn=preexec_fn, errors="replace")


def one_line(r, code, prog, want):
    """exit code, stderr exactly one line starting with the command and holding want."""
    lines = r.stderr.splitlines()
    return (r.returncode == code and len(lines) == 1 and lines[0].startswith(f"rgbench {prog}: ")
            and want in lines[0])


def refused(r, code, prog, want, what):
    check(one_line(r, code, prog, want), f"{what}: exit {r.returncode} {r.stderr!r} (want {code}, {want!r})")


def can_chattr(path):
    """chattr +i works here (root, a file system with flags)."""
    if not shutil.which("chattr"):
        return False
    return subprocess.run(["chattr", "+i", path], capture_output=True).returncode == 0


def unchattr(path):
    subprocess.run(["chattr", "-i", path], capture_output=True)


def as_nobody():
    """A preexec_fn dropping to nobody, or None when this is not root."""
    if os.geteuid() != 0:
        return None
    import pwd
    pw = pwd.getpwnam("nobody")

    def drop():
        os.setgroups([])
        os.setgid(pw.pw_gid)
        os.setuid(pw.pw_uid)
    return drop


def private_parent(path):
    """The first folder on path's way from / that other users cannot enter (no o+x), or None."""
    parts = []
    d = os.path.dirname(os.path.abspath(path))
    while True:
        parts.append(d)
        if os.path.dirname(d) == d:
            break
        d = os.path.dirname(d)
    return next((p for p in reversed(parts) if not os.stat(p).st_mode & stat.S_IXOTH), None)


def hold_lock(path):
    """Hold an rgbench output lock on path as another live run would (.NAME.lock, flock)."""
    d, b = os.path.split(path)
    f = open(os.path.join(d, "." + b + ".lock"), "w")
    f.write(f"{os.getpid()}\n")
    f.flush()
    fcntl.flock(f, fcntl.LOCK_EX)
    return f


with tempfile.TemporaryDirectory(prefix="rgbench-hostile-io-") as T:
    os.chmod(T, 0o755)
    base_json = os.path.join(FX, "report-x86.json")
    a, b = os.path.join(FX, "plot-a.json"), os.path.join(FX, "plot-b.json")

    # ---- item 1: a result file reached through a directory operand is an input -----------
    res = os.path.join(T, "res")
    os.mkdir(res)
    shutil.copy(base_json, os.path.join(res, "r.json"))
    shutil.copy(os.path.join(FX, "report-x86.csv"), os.path.join(res, "r.csv"))
    before = {n: open(os.path.join(res, n), "rb").read() for n in os.listdir(res)}
    for out in ("r.json", "r.csv", "new.json"):  # new.json: a result name the next run would read
        r = run("report", res, "--out", os.path.join(res, out))
        refused(r, 2, "report", "is an input of this command", f"item 1: report DIR --out DIR/{out}")
    check({n: open(os.path.join(res, n), "rb").read() for n in os.listdir(res)} == before,
          "item 1: the directory's files changed")
    # the class: the same through another spelling of the directory, and with compare's CSV input
    r = run("report", res + "/.", "--out", os.path.join(res, "..", "res", "r.json"))
    refused(r, 2, "report", "is an input of this command", "item 1: DIR/. and ../res spelling")
    r = run("report", res, "--out", os.path.join(res, "page.md"))
    check(r.returncode == 0 and os.path.isfile(os.path.join(res, "page.md")),
          f"item 1: a page beside the inputs is fine: {r.returncode} {r.stderr!r}")
    os.remove(os.path.join(res, "page.md"))

    # ---- item 2: an output that cannot be replaced is refused before any work ------------
    imm = os.path.join(T, "imm.md")
    open(imm, "w").write("OLD\n")
    if can_chattr(imm):
        try:
            r = run("report", base_json, "--out", imm)
            refused(r, 2, "report", "cannot be replaced: the file is immutable", "item 2: chattr +i")
            # the class: plot into a folder whose picture is immutable is refused by the folder's
            # parent check only when the folder itself cannot be written; kmod/bpf share the check.
        finally:
            unchattr(imm)
        check(open(imm).read() == "OLD\n", "item 2: immutable file changed")
    else:
        skip("item 2 immutable: chattr +i is not possible here (needs root and a file system with flags)")
    drop = as_nobody()
    # nobody runs a copy of the command and reads a copy of the input, in T: the build and its
    # fixtures may sit under a private folder (a clone under /root, 0700 on Debian 13).
    if drop and private_parent(os.path.join(T, "x")):
        skip(f"item 2 sticky folder: no temporary folder nobody can reach ({private_parent(os.path.join(T, 'x'))} is private)")
        drop = None
    elif drop:
        everyone = os.path.join(T, "everyone")
        os.mkdir(everyone)
        os.chmod(everyone, 0o755)
        R_all = shutil.copy(R, os.path.join(everyone, os.path.basename(R)))
        os.chmod(R_all, 0o755)
        json_all = shutil.copy(base_json, os.path.join(everyone, os.path.basename(base_json)))
        os.chmod(json_all, 0o644)
        try:
            r = run("--help", prog=R_all, preexec_fn=drop)
        except PermissionError as e:
            skip(f"item 2 sticky folder: nobody cannot run the copy of the command ({e})")
            drop = None
    else:
        skip("item 2 sticky folder: not root, cannot run as nobody")
    if drop:
        sticky = os.path.join(T, "sticky")
        os.mkdir(sticky)
        os.chmod(sticky, 0o1777)
        mine = os.path.join(sticky, "root.md")
        open(mine, "w").write("ROOT\n")
        os.chmod(mine, 0o666)  # writable by all, still not replaceable by rename in a sticky folder
        r = run("report", json_all, "--out", mine, preexec_fn=drop, prog=R_all)
        refused(r, 2, "report", "cannot be replaced: another user's file", "item 2: sticky folder as nobody")
        check(open(mine).read() == "ROOT\n", "item 2: root's file in the sticky folder changed")
        # the class: a folder that is not writable at all (nobody, a root-owned 755 folder)
        r = run("report", json_all, "--out", os.path.join(T, "x.md"), preexec_fn=drop, prog=R_all)
        refused(r, 2, "report", "is not writable", "item 2: a folder nobody cannot write")

    # ---- item 11: report --out whose lock is held: exit 1, as the main run -----------------
    held = os.path.join(T, "held.md")
    f = hold_lock(held)
    r = run("report", base_json, "--out", held)
    refused(r, 1, "report", "is being written by another rgbench run", "item 11: report lock held")
    # the class: plot's DIR is locked the same way (item 5)
    pdir = os.path.join(T, "pics")
    g = hold_lock(pdir)
    r = run("plot", a, "--out", pdir)
    refused(r, 1, "plot", "is being written by another rgbench run", "item 5: plot DIR lock held")
    check(not os.path.exists(pdir), "item 5: DIR created although locked")
    f.close()
    g.close()
    for n in (".held.md.lock", ".pics.lock"):
        os.remove(os.path.join(T, n))

    # ---- item 5: plot --out through a link (dangling or not) refused before drawing -------
    for target in ("/nonexistent/pics", T):
        link = os.path.join(T, "link")
        os.symlink(target, link)
        r = run("plot", a, "--out", link)
        refused(r, 2, "plot", "is a symbolic link", f"item 5: plot --out a link to {target}")
        check(not [n for n in os.listdir(T) if n.startswith(".rgplot-")], "item 5: staging left")
        os.remove(link)

    # the class: "--out ." names the current folder, locked by its real name, and works
    dot = os.path.join(T, "dot")
    os.mkdir(dot)
    r = run("plot", a, "--out", ".", cwd=dot)
    check(r.returncode in (0, 1) and "name the folder" not in r.stderr and "symbolic link" not in r.stderr
          and not os.path.exists(os.path.join(T, ".dot.lock")),
          f"item 5: plot --out .: {r.returncode} {r.stderr!r}")

    # ---- item 4: plot killed with SIGKILL: the script dies with it, the next plot cleans ---
    out4 = os.path.join(T, "p4")
    p = subprocess.Popen([R, "plot", a, b, "--out", out4], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True)
    kid, end = None, time.monotonic() + 120
    while time.monotonic() < end and kid is None:
        try:
            kids = open(f"/proc/{p.pid}/task/{p.pid}/children").read().split()
            argv = open(f"/proc/{kids[0]}/cmdline", "rb").read() if kids else b""
            if b"rgplot.py" in argv:
                kid = int(kids[0])
        except OSError:
            pass
        time.sleep(0.005)
    if kid is None:
        skip("item 4: the plot script was not seen running (no matplotlib?)")
        p.kill()
        p.wait()
    else:
        p.kill()
        p.wait()
        end = time.monotonic() + 60
        while time.monotonic() < end and os.path.exists(f"/proc/{kid}"):
            try:
                st = open(f"/proc/{kid}/stat").read().rsplit(")", 1)[1].split()[0]
                if st == "Z":  # reaped by init soon; it is dead
                    break
            except OSError:
                break
            time.sleep(0.01)
        alive = os.path.exists(f"/proc/{kid}") and "Z" not in open(f"/proc/{kid}/stat").read().rsplit(")", 1)[1].split()[0:1]
        check(not alive, "item 4: the plot script goes on after rgbench plot was killed")
        r = run("plot", a, "--out", out4)
        check(r.returncode == 0 and os.path.isdir(out4), f"item 4: the next plot: {r.returncode} {r.stderr!r}")
        check(not [n for n in os.listdir(T) if n.startswith(".rgplot-")],
              f"item 4: a killed plot's staging folder is left: {os.listdir(T)}")

    # ---- item 15: plot's environment and messages ------------------------------------------
    env = dict(os.environ, RG_PLOT_SCRIPT="/nonexistent/rgplot.py")
    r = run("plot", a, "--out", os.path.join(T, "p15"), env=env)
    refused(r, 2, "plot", "RG_PLOT_SCRIPT=/nonexistent/rgplot.py: cannot open", "item 15: RG_PLOT_SCRIPT missing")
    env = dict(os.environ, RG_PLOT_SCRIPT=T)  # the class: a folder, not a script
    r = run("plot", a, "--out", os.path.join(T, "p15"), env=env)
    refused(r, 2, "plot", "not a regular file (a directory)", "item 15: RG_PLOT_SCRIPT a folder")
    env = dict(os.environ, RG_PYTHON="/nonexistent/python3")
    r = run("plot", a, "--out", os.path.join(T, "p15"), env=env)
    refused(r, 2, "plot", "RG_PYTHON=/nonexistent/python3: No such file", "item 15: RG_PYTHON missing")
    broken = os.path.join(T, "broken", "matplotlib")
    os.makedirs(broken)
    with open(os.path.join(broken, "__init__.py"), "w") as fh:
        fh.write("raise RuntimeError('half-installed\\nbuild')\n")
    # plot drops PYTHON* variables (issue 36 item 13): the interpreter itself puts the broken
    # package first, as a half-installed system's python would find it.
    wrapper = os.path.join(T, "broken-python")
    with open(wrapper, "w") as fh:
        fh.write(f"#!/bin/sh\nPYTHONPATH={os.path.dirname(broken)!s} exec {sys.executable} \"$@\"\n")
    os.chmod(wrapper, 0o755)
    env = dict(os.environ, RG_PYTHON=wrapper)
    r = run("plot", a, "--out", os.path.join(T, "p15"), env=env)
    refused(r, 1, "plot", "matplotlib is installed but its import fails: RuntimeError: half-installed build",
            "item 15: a broken matplotlib")
    check(not os.path.exists(os.path.join(T, "p15")), "item 15: DIR made")
    long_out = os.path.join(T, "d" * 250) + ("/" + "e" * 250) * 16
    r = run("plot", a, "--out", long_out)
    refused(r, 2, "plot", "path longer than 4095 bytes", "item 15: a 4099-byte --out")
    r = run("compare", "--baseline", "", a)
    refused(r, 2, "compare", "--baseline: an empty guard name", "item 15: compare --baseline ''")
    r = run("compare", "--baseline", "noop", a, b)  # the class: the count it got is said
    refused(r, 2, "compare", "takes exactly one FILE (got 2)", "item 15: --baseline with two files")

    # ---- item 14: a socket or a /proc file as input -----------------------------------------
    sock = os.path.join(T, "s.json")
    srv = socket.socket(socket.AF_UNIX)
    srv.bind(sock)
    for argv in (["report", sock], ["compare", sock, a], ["plot", sock, "--out", os.path.join(T, "p14")]):
        r = run(*argv)
        refused(r, 1, argv[0], "not a regular file", f"item 14: {argv[0]} on a socket")
        check("(a socket)" in r.stderr and "No such device" not in r.stderr,
              f"item 14: {argv[0]} names the socket: {r.stderr!r}")
    srv.close()
    for proc in ("/proc/cpuinfo", "/proc/self/status"):  # the class: another pseudo-file
        r = run("report", proc)
        check(r.returncode == 1 and "changed size" not in r.stderr and len(r.stderr.splitlines()) == 1,
              f"item 14: report {proc}: {r.returncode} {r.stderr!r}")

    # ---- item 13: out of memory while parsing a JSON: said as such ---------------------------
    big = os.path.join(T, "big.json")
    d = json.load(open(base_json))
    rows = d["results"]
    # The fixture's rows repeated k times, k the least that makes 24 MiB: the text grows by the
    # same length with each copy, so k is computed, not found by dumping the whole document
    # once per copy (that loop took most of the test's time: 2.5 minutes on a busy VM).
    one = len(json.dumps(d))
    d["results"] = rows + rows
    step = len(json.dumps(d)) - one
    k = 1 + max(0, -(-((24 << 20) - one) // step))
    d["results"] = rows * k
    while len(json.dumps(d)) < 24 << 20:
        d["results"] = d["results"] + rows
    json.dump(d, open(big, "w"))
    if "ASAN_OPTIONS" in os.environ or "UBSAN_OPTIONS" in os.environ:
        skip("item 13: ulimit -v under a sanitizer runtime (it reserves terabytes)")
    else:
        lim = 60 << 20
        r = run("compare", "--allow-emulated", big, big,
                preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (lim, lim)))
        if r.returncode == 0:
            skip("item 13: 60 MB of address space was enough here")
        else:
            check(r.returncode == 1 and len(r.stderr.splitlines()) == 1 and "out of memory" in r.stderr
                  and "invalid JSON: \n" not in r.stderr + "\n", f"item 13: {r.returncode} {r.stderr!r}")

    # ---- item 8: the JSON's timer block checked like every value -----------------------------
    d = json.load(open(base_json))
    for timer, want in (({"source": "tsc\n## INJECTED HEADING\x1b[31m", "hz": 1e9}, '"timer".source'),
                        ({"source": "tsc", "hz": -1e300}, '"timer".hz'),
                        ({"source": "tsc", "hz": float("nan")}, None),  # NaN is no JSON: the reader says so
                        ({"source": "tsc", "hz": 1e9, "overhead_ns": -5}, "overhead_ns"),
                        ("tsc", '"timer" is not an object')):
        d["timer"] = timer
        t = os.path.join(T, "timer.json")
        with open(t, "w") as fh:
            json.dump(d, fh)
        r = run("report", t)
        check(r.returncode == 1 and len(r.stderr.splitlines()) == 1 and r.stdout == "" and
              "\x1b" not in r.stderr and (want is None or want in r.stderr),
              f"item 8: timer {timer!r}: {r.returncode} {r.stderr!r}")
    d["timer"] = {"source": "cntvct", "hz": 25e6, "resolution_ns": 40, "overhead_ns": 12}
    with open(t, "w") as fh:
        json.dump(d, fh)
    r = run("report", t)
    check(r.returncode == 0, f"item 8: a good timer block: {r.returncode} {r.stderr!r}")

    # ---- item 9: bidi characters in a name refused by the reader -----------------------------
    for ch in ("\u202e", "\u2066", "\u200f", "\u2028"):  # U+202E listed; the rest the class
        d = json.load(open(base_json))
        d["results"][0]["guard"] = "pcpu" + ch + "xadd"
        t = os.path.join(T, "bidi.json")
        with open(t, "w", encoding="utf-8") as fh:
            json.dump(d, fh, ensure_ascii=False)
        for cmd in (["report", t], ["compare", "--allow-emulated", t, t]):
            r = run(*cmd)
            check(r.returncode == 1 and "holds a bidi or line format character" in r.stderr and
                  ch not in r.stdout + r.stderr, f"item 9: U+{ord(ch):04X} {cmd[0]}: {r.returncode} {r.stderr!r}")
    # the class: a file name with a bidi or escape character is sanitized in messages
    odd = os.path.join(T, "x\u202e\x1b[31m.json")
    with open(odd, "w") as fh:
        fh.write("{")
    r = run("report", odd)
    check(r.returncode == 1 and "\u202e" not in r.stderr and "\x1b" not in r.stderr,
          f"item 9: a file name's bidi/ESC in the message: {r.stderr!r}")

    # ---- item 20: legend entries stay distinct when names share their first 95 bytes --------
    # A stand-in script (RG_PLOT_SCRIPT) records the labels rgbench plot hands over.
    spy = os.path.join(T, "spy.py")
    got = os.path.join(T, "labels.txt")
    with open(spy, "w") as fh:
        fh.write("import json, sys\n"
                 "data = sys.argv[sys.argv.index('--data') + 1]\n"
                 f"open({got!r}, 'w').write('\\n'.join(sorted({{r['label'] for r in json.load(open(data))['rows']}})))\n"
                 "sys.exit(3)\n")
    stem = "r" * 100
    srcs = []
    for k, src in ((1, a), (2, b), (3, a)):
        n = os.path.join(T, f"{stem}{k}.json")
        shutil.copy(src, n)
        srcs.append(n)
    os.symlink(a, os.path.join(T, "x\x01.json"))  # the class: names alike once sanitized
    os.symlink(a, os.path.join(T, "x\x02.json"))
    for files in (srcs, [os.path.join(T, "x\x01.json"), os.path.join(T, "x\x02.json")]):
        if os.path.exists(got):
            os.remove(got)
        r = run("plot", *files, "--out", os.path.join(T, "p20"), env=dict(os.environ, RG_PLOT_SCRIPT=spy))
        labels = open(got).read().split("\n") if os.path.exists(got) else []
        check(len(labels) == len(files) and all(len(x.encode()) <= 95 and "\x01" not in x for x in labels),
              f"item 20: legend labels {labels!r} for {len(files)} files ({r.stderr!r})")

    # ---- item 17: the page's plot links are relative to the page, not to the input --------
    ind, outd = os.path.join(T, "in17"), os.path.join(T, "out17", "deep")
    os.makedirs(os.path.join(ind, "new-plots"))
    os.makedirs(outd)
    shutil.copy(base_json, os.path.join(ind, "new.json"))
    for n in ("pair-ns.png", "odd ](x)\u202e.png"):  # the class: a name that would break the link
        open(os.path.join(ind, "new-plots", n), "wb").write(b"\x89PNG")
    r = run("report", os.path.join(ind, "new.json"), "--out", os.path.join(outd, "rep.md"))
    page = open(os.path.join(outd, "rep.md")).read() if r.returncode == 0 else ""
    check("- [pair-ns.png](../../in17/new-plots/pair-ns.png)" in page,
          f"item 17: link from out17/deep/rep.md: {[x for x in page.splitlines() if '.png' in x]} {r.stderr!r}")
    check("(../../in17/new-plots/odd%20%5D%28x%29%E2%80%AE.png)" in page and "\u202e" not in page,
          f"item 17: an odd PNG name: {[x for x in page.splitlines() if 'odd' in x]}")
    # the link text is Markdown-escaped ("odd \\](x)?.png"): the target follows the last "]("
    for link in [x.rsplit("](", 1)[1][:-1] for x in page.splitlines() if x.startswith("- [") and "](" in x]:
        from urllib.parse import unquote
        check(os.path.isfile(os.path.join(outd, unquote(link))), f"item 17: {link} does not resolve from the page")

    # ---- item 22: section headings fit --width like the rest of the page -----------------
    fleet = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fleet")
    hosts = sorted(os.path.join(fleet, n) for n in os.listdir(fleet) if n.endswith(".json"))
    for width in (72, 60):  # 72 the issue's; 60 the class
        r = run("report", "--width", str(width), "--allow-emulated", *hosts)
        heads = [x for x in r.stdout.splitlines() if x.startswith("#")]
        wide = [x for x in heads if len(x) > width]
        check(r.returncode == 0 and heads and not wide,
              f"item 22: --width {width}: {r.returncode} {r.stderr[:200]!r} headings over it: {wide[:3]}")

    # ---- item 19: -0 and an absurd cycle reference print as numbers, never -0.000 or inf ---
    cb, cn = os.path.join(FX, "cyc-base.json"), os.path.join(FX, "cyc-new.json")
    d = json.load(open(cn))
    for row in d["results"]:
        if row.get("ns_median") is not None:
            row["ns_median"] = -0.0
    neg = os.path.join(T, "neg0.json")
    json.dump(d, open(neg, "w"))
    for cmd in (["compare", cb, neg], ["compare", neg, neg], ["compare", "--markdown", neg, cb],
                ["compare", "--csv", neg, cb], ["report", neg]):  # the class: every form and report
        r = run(*cmd)
        text = r.stdout
        check(r.returncode == 0 and "-0.0" not in text and "-0 " not in text and "+-" not in text,
              f"item 19: {cmd[0]} {cmd[1]} with -0: {r.returncode} {r.stderr!r} "
              f"{[x for x in text.splitlines() if '-0.0' in x or '+-' in x][:3]}")
    d = json.load(open(cn))
    for row in d["results"]:
        if row.get("ref_ns_per_cycle") is not None:
            row["ref_ns_per_cycle"] = 1e-300
    tiny = os.path.join(T, "tiny.json")
    json.dump(d, open(tiny, "w"))
    for cmd in (["compare", "--unit", "cycles", cb, tiny], ["compare", "--unit", "cycles", "--csv", cb, tiny],
                ["report", "--unit", "cycles", tiny]):
        r = run(*cmd)
        text = r.stdout.lower()
        check(r.returncode == 0 and "inf" not in text.replace("info", "") and " 0x" not in text and
              not re.search(r"\de[+-]\d{3}", text),
              f"item 19: {' '.join(cmd[:3])} with ref 1e-300: {r.returncode} {r.stderr!r} "
              f"{[x for x in r.stdout.splitlines() if 'inf' in x.lower() or ' 0x' in x][:3]}")

if skipped:
    print(f"analysis.hostile_io: {len(skipped)} case(s) skipped (see above)")
if failures:
    print(f"analysis.hostile_io: {len(failures)} failure(s)")
    sys.exit(1)
print(f"analysis.hostile_io: all {nchecks} checks passed")
