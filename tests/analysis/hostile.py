#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Issue 19's hostile cases for plot, report and compare: stop signals (passed on to the plot
script; SIGHUP/SIGQUIT to report and compare), DIR published all at once or left as it was,
a field over 128 KiB, '$' in names, numbers far beyond the table's decimals.
Usage: hostile.py RGBENCH_REPORT FIXTURES_DIR"""
import csv
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import rgtest  # noqa: E402

R, FX = sys.argv[1], sys.argv[2]
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL", what)


def run(*args, env=None, cwd=None, timeout=300):
    return subprocess.run([R, *args], capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=timeout)


def tree(d):
    """Every file under d with its bytes (directories as None): to tell 'unchanged'."""
    out = {}
    for root, dirs, files in os.walk(d):
        for n in dirs:
            out[os.path.relpath(os.path.join(root, n), d)] = None
        for n in files:
            p = os.path.join(root, n)
            out[os.path.relpath(p, d)] = open(p, "rb").read()
    return out


def staging_left(d):
    return [n for n in os.listdir(d) if n.startswith(".rgplot-")]


def edit_rows(src, dst, fn):
    """Copy a CSV result file, fn(header, row) changing each row in place."""
    with open(src, newline="") as f:
        rows = list(csv.reader(f))
    for r in rows[1:]:
        fn(rows[0], r)
    with open(dst, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)


def script_of(pid, script):
    """The child of pid once it runs script and has its own SIGHUP handler (before its exec,
    the child still has rgbench plot's handlers), else None."""
    try:
        kids = open(f"/proc/{pid}/task/{pid}/children").read().split()
        if not kids:
            return None
        argv = open(f"/proc/{kids[0]}/cmdline", "rb").read().split(b"\0")
    except OSError:
        return None
    ran = len(argv) > 1 and os.path.basename(argv[1].decode()) == os.path.basename(script)
    return int(kids[0]) if ran and rgtest.catches(int(kids[0]), signal.SIGHUP) else None


def wait_until(cond, what, timeout=120):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = cond()
        if v:
            return v
        time.sleep(0.002)
    check(False, f"timed out waiting for {what}")
    return None


ONE_LINE_STOP = "rgbench {cmd}: interrupted by {name}; nothing written\n"


with tempfile.TemporaryDirectory(prefix="rgbench-hostile-") as T:
    a, b = os.path.join(FX, "plot-a.json"), os.path.join(FX, "plot-b.json")

    # 1. Stop signals reach the plot script, which exits quietly; nothing is published, the
    # staging folder goes, an existing DIR is unchanged and a new one never appears.
    keep = os.path.join(T, "keep")
    os.mkdir(keep)
    for n, data in (("pair-ns.png", b"old picture"), ("README", b"mine")):
        with open(os.path.join(keep, n), "wb") as f:
            f.write(data)
    before = tree(keep)
    cases = [(signal.SIGINT, "parent", keep), (signal.SIGINT, "group", os.path.join(T, "fresh")),
             (signal.SIGTERM, "parent", keep), (signal.SIGHUP, "parent", os.path.join(T, "fresh")),
             (signal.SIGQUIT, "parent", keep)]
    for sig, to, out in cases:
        what = f"plot {sig.name} to the {to}"
        p = subprocess.Popen([R, "plot", a, b, "--out", out], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
        # The script is running and has its own handlers (SIGHUP is caught only by them).
        py = wait_until(lambda: script_of(p.pid, "rgplot.py"), f"{what}: the script")
        if py and to == "group":
            os.killpg(p.pid, sig)  # what a terminal's Ctrl-C does
        elif py:
            os.kill(p.pid, sig)    # rgbench plot alone: it passes the signal on
        out_s, err_s = p.communicate(timeout=120)
        check(p.returncode == 128 + sig and err_s == ONE_LINE_STOP.format(cmd="plot", name=sig.name)
              and out_s == "", f"{what}: exit {p.returncode} stdout {out_s!r} stderr {err_s!r}")
        check("Traceback" not in err_s, f"{what}: a traceback")
        check(not staging_left(T) and not staging_left(keep), f"{what}: staging left {os.listdir(T)}")
        if out == keep:
            check(tree(keep) == before, f"{what}: {keep} changed")
        else:
            check(not os.path.exists(out), f"{what}: {out} was created")

    # A signal to rgbench plot alone must reach the script: one that would otherwise sleep
    # for ten minutes ends at once; one that ignores it is killed (after 5 s).
    for name, action in (("sleeper", "os._exit(128 + s)"), ("deaf", "None")):
        script = os.path.join(T, f"{name}.py")
        got = os.path.join(T, f"{name}.got")  # the script's handler ran: the signal reached it
        with open(script, "w") as f:
            f.write("import os, signal, time\n"
                    f"def stop(s, _f):\n    open({got!r}, 'w').write(str(s))\n    {action}\n"
                    "S = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)\n"
                    "for s in S:\n"
                    "    signal.signal(s, stop)\n"
                    "signal.pthread_sigmask(signal.SIG_UNBLOCK, S)  # rgbench plot blocked them\n"
                    # Short sleeps, not one of ten minutes: a signal caught between python's
                    # last check and the start of its sleep's system call does not end that
                    # sleep, and its handler would wait for it (seen under load: rgbench plot's
                    # SIGKILL 5 s later, and no handler run).
                    "for _ in range(12000):\n"
                    "    time.sleep(0.05)\n")
        p = subprocess.Popen([R, "plot", a, "--out", os.path.join(T, name)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=dict(os.environ, RG_PLOT_SCRIPT=script))
        if wait_until(lambda: script_of(p.pid, script), f"{name}: the script"):
            os.kill(p.pid, signal.SIGTERM)
        try:
            out_s, err_s = p.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            p.kill()
            out_s, err_s = p.communicate()
        check(os.path.exists(got) and open(got).read() == str(int(signal.SIGTERM)),
              f"{name}: the script never got the SIGTERM")
        check(p.returncode == 143 and err_s == ONE_LINE_STOP.format(cmd="plot", name="SIGTERM") and
              not os.path.exists(os.path.join(T, name)) and not staging_left(T),
              f"SIGTERM passed on to the {name} script: exit {p.returncode} {err_s!r}")

    # 2. Published all at once or not at all: a picture that cannot be moved into DIR
    # (a directory has its name) undoes the ones moved before it.
    os.mkdir(os.path.join(keep, "pair-ns.svg"))
    with open(os.path.join(keep, "pair-ns.svg", "x"), "wb") as f:
        f.write(b"x")
    with open(os.path.join(keep, "bpf.png"), "wb") as f:
        f.write(b"old bpf")
    before = tree(keep)
    r = run("plot", os.path.join(FX, "ab-base.csv"), "--out", keep)
    err = "".join(x for x in r.stderr.splitlines(True) if not x.startswith("note: "))  # the skipped kinds
    check(r.returncode == 1 and r.stdout == "" and re.fullmatch(
          r"rgbench plot: cannot move \S+/pair-ns\.svg to \S+/keep/pair-ns\.svg: Is a directory\n", err),
          f"half-way failure: exit {r.returncode} {r.stdout!r} {r.stderr!r}")
    check(tree(keep) == before and not staging_left(T) and not staging_left(keep),
          f"half-way failure: {keep} changed or staging left: {sorted(tree(keep))}")
    # The same into a DIR that can take them: only the pictures change, the rest stays.
    os.remove(os.path.join(keep, "pair-ns.svg", "x"))
    os.rmdir(os.path.join(keep, "pair-ns.svg"))
    r = run("plot", os.path.join(FX, "ab-base.csv"), "--out", keep)
    got = tree(keep)
    check(r.returncode == 0 and sorted(got) == ["README", "bpf.png", "bpf.svg", "pair-ns.png", "pair-ns.svg"]
          and got["README"] == b"mine" and got["bpf.png"].startswith(b"\x89PNG"),
          f"into an existing DIR: exit {r.returncode} {r.stderr!r} {sorted(got)}")

    # 3. A script that draws nothing: one line, no DIR created, an existing DIR unchanged.
    nothing = os.path.join(T, "nothing.py")
    with open(nothing, "w") as f:
        f.write("import sys\nsys.exit(0)\n")
    env = dict(os.environ, RG_PLOT_SCRIPT=nothing)
    before = tree(keep)
    for out in (os.path.join(T, "none"), keep):
        r = run("plot", a, "--out", out, env=env)
        check(r.returncode == 1 and r.stderr == "rgbench plot: the plot script wrote no pictures\n",
              f"nothing drawn into {out}: exit {r.returncode} {r.stderr!r}")
    check(not os.path.exists(os.path.join(T, "none")) and tree(keep) == before and not staging_left(T),
          "nothing drawn: a directory was created or changed")

    # 4. A field over 128 KiB (python csv's default limit, once a limit of the script's input): one not drawn is no problem, a
    # drawn name that long is drawn shortened (issue 31), never a traceback.
    base = os.path.join(FX, "ab-base.csv")
    big = os.path.join(T, "big.csv")
    edit_rows(base, big, lambda h, r: r.__setitem__(h.index("cpu_model"), "M" * 200000))
    r = run("plot", big, "--out", os.path.join(T, "big-out"))
    check(r.returncode == 0 and os.path.isfile(os.path.join(T, "big-out", "pair-ns.png")) and
          "Traceback" not in r.stderr, f"200000-byte cpu_model: exit {r.returncode} {r.stderr[-300:]!r}")
    edit_rows(base, big, lambda h, r: r.__setitem__(h.index("guard"), "g" * 200000)
              if r[h.index("guard")] == "tls" else None)
    with open(big) as f:
        line = next(i for i, t in enumerate(f, 1) if "g" * 1000 in t)
    r = run("plot", big, "--out", os.path.join(T, "big-out2"))
    svg = os.path.join(T, "big-out2", "pair-ns.svg")
    drawn = open(svg).read() if os.path.isfile(svg) else ""
    check(r.returncode == 0 and "Traceback" not in r.stderr and "g" * 47 + "\u2026" in drawn
          and "g" * 48 not in drawn, f"200000-byte guard (line {line}): exit {r.returncode} {r.stderr[-300:]!r}")

    # 5. '$' in a guard, a host and a file name (TeX math to matplotlib): drawn as written.
    dollar = [("guard", "n$\\x$p"), ("host", "al$\\x$")]
    for col, val in dollar:
        f1 = os.path.join(T, f"d-{col}.csv")
        edit_rows(base, f1, lambda h, r: r.__setitem__(h.index(col), val)
                  if col == "host" or r[h.index("guard")] == "noop" else None)
        srcs = [f1] if col == "guard" else [f1, b]  # two hosts: labelled by host
        r = run("plot", *srcs, "--out", os.path.join(T, f"d-{col}-out"))
        check(r.returncode == 0 and os.path.isfile(os.path.join(T, f"d-{col}-out", "pair-ns.png")),
              f"'$' in the {col}: exit {r.returncode} {r.stderr[-300:]!r}")
    f1, f2 = os.path.join(T, "a$\\x$.csv"), os.path.join(T, "b$\\y$.csv")
    for f in (f1, f2):
        with open(base, "rb") as s, open(f, "wb") as d:
            d.write(s.read())
    r = run("plot", f1, f2, "--out", os.path.join(T, "d-file-out"))  # one host: labelled by file name
    check(r.returncode == 0 and os.path.isfile(os.path.join(T, "d-file-out", "pair-ns.png")),
          f"'$' in file names: exit {r.returncode} {r.stderr[-300:]!r}")

    # 6. Numbers far beyond the decimals keep their magnitude in report and compare tables.
    mag = os.path.join(T, "mag.csv")

    def magnitudes(h, r):
        g, sc = r[h.index("guard")], r[h.index("scenario")]
        if sc in ("pair", "latency") and g in ("pcpu-xadd", "tls"):
            v = "1e+12" if g == "pcpu-xadd" else "1e-09"
            for k in ("ns_median", "ns_mean", "ns_min", "ns_max", "delta_ns", "delta_ci_lo", "delta_ci_hi"):
                if r[h.index(k)] != "n/a":
                    r[h.index(k)] = v
    edit_rows(os.path.join(FX, "report-x86.csv"), mag, magnitudes)
    r = run("report", mag)
    lines = r.stdout.splitlines()
    check(r.returncode == 0 and any(re.fullmatch(r"9  pcpu-xadd +1e\+12 +\+1e\+12 +\[\+1e\+12, \+1e\+12\] 93\.8%", x)
                                    for x in lines)
          and any(re.fullmatch(r"2  tls +1e-09 +\+1e-09 +\[\+1e-09, \+1e-09\] 93\.8%", x) for x in lines),
          f"report ranking magnitudes: exit {r.returncode} {r.stderr!r}")
    check("000000000" not in r.stdout, "report: 1e12 printed as digits")
    check(max(len(x) for x in lines) <= 72, f"report: a line over 72: {max(lines, key=len)!r}")
    r = run("compare", "--all", "--width", "400", os.path.join(FX, "report-x86.csv"), mag)  # one line a row
    row = {tuple(x.split()[1:3]): x for x in r.stdout.splitlines() if x.startswith("user ")}
    # (the edited rows keep no samples: no interval follows the change)
    check(r.returncode == 0 and re.search(r" 1e-09 ±0\.014 ns +-100\.0% +5\.52e\+08x ", row.get(("tls", "pair"), ""))
          and re.search(r" 3\.49 ±0\.06 ns +1e\+12 ±0 ns +\+2\.87e\+13% +3\.5e-12x ",
                        row.get(("pcpu-xadd", "pair"), "")),
          f"compare magnitudes: exit {r.returncode} {row.get(('tls', 'pair'))!r} {row.get(('pcpu-xadd', 'pair'))!r}")

    # 6b. Long names (200 two-byte characters) are cut to report's buffers and tables on a
    # character boundary: what report and compare print is valid UTF-8.
    long_names = os.path.join(T, "long.csv")

    def lengthen(h, r):
        r[h.index("host")] = "\u00e9" * 200
        r[h.index("cpu_model")] = "\u00fc" * 100
    edit_rows(os.path.join(FX, "report-x86.csv"), long_names, lengthen)
    for argv in (["report", long_names], ["report", "--width", "60", long_names, os.path.join(FX, "report-arm.json")],
                 ["compare", "--across-hosts", long_names, os.path.join(FX, "report-arm.json")]):
        p = subprocess.run([R, *argv], capture_output=True, timeout=300)
        try:
            p.stdout.decode("utf-8")
            valid = True
        except UnicodeDecodeError as e:
            valid = str(e)
        check(p.returncode == 0 and valid is True and "\u00e9\u00e9".encode() in p.stdout,
              f"long names {argv[0]}: exit {p.returncode} utf-8: {valid}")

    # 7. SIGHUP and SIGQUIT (a dropped session) stop report and compare like SIGTERM: one
    # line, 128+signal, no output file, no lock or temporary file left.
    with open(base) as f:
        hdr, row1 = f.readline(), f.readline().rstrip("\n").split(",")
    bi = hdr.split(",").index("batch")
    huge = os.path.join(T, "huge.csv")
    with open(huge, "w") as f:
        f.write(hdr)
        # The signal comes within milliseconds of the handler, before reading; the whole read
        # takes half a second or more here (several under ASan), so it lands mid-read, and
        # the reader stops at its next row (tests/analysis/unit.c checks that it does).
        for i in range(40000):
            row1[bi] = str(1000 + i)
            f.write(",".join(row1) + "\n")
    for cmd, sig in (("report", signal.SIGHUP), ("report", signal.SIGQUIT),
                     ("compare", signal.SIGHUP), ("compare", signal.SIGQUIT)):
        work = os.path.join(T, f"sig-{cmd}-{sig.name}")
        os.mkdir(work)
        argv = [R, cmd, huge] + (["--out", "page.md"] if cmd == "report" else [huge, "--allow-emulated"])
        p = subprocess.Popen(argv, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if wait_until(lambda: rgtest.catches(p.pid, signal.SIGHUP), f"{cmd}'s handler"):
            os.kill(p.pid, sig)
        out_s, err_s = p.communicate(timeout=600)
        # The handler seen may be the one every program has from before main (a signal that
        # early is "interrupted ... while starting"): either way one line, 128+signal, nothing left.
        check(p.returncode == 128 + sig and out_s == "" and
              err_s in (ONE_LINE_STOP.format(cmd=cmd, name=sig.name),
                        f"rgbench {cmd}: interrupted by {sig.name} while starting; nothing written\n",
                        f"rgbench: interrupted by {sig.name} while starting; nothing written\n")
              and os.listdir(work) == [],
              f"{cmd} {sig.name}: exit {p.returncode} {out_s[:200]!r} {err_s!r} left {os.listdir(work)}")

    # 8. Issue 36 item 13: python's own variables do not reach the plot script. PYTHONHOME
    # (python cannot start), PYTHONINSPECT=1 (an interactive prompt after the script) and,
    # a case the issue did not list, PYTHONPATH with a matplotlib that raises: each plots.
    shadow = os.path.join(T, "shadow")
    os.mkdir(shadow)
    with open(os.path.join(shadow, "matplotlib.py"), "w") as f:
        f.write("raise SystemExit('shadowed matplotlib imported')\n")
    for var, val in (("PYTHONHOME", "/nonexistent"), ("PYTHONINSPECT", "1"), ("PYTHONPATH", shadow),
                     ("PYTHONSTARTUP", os.path.join(shadow, "matplotlib.py"))):
        out = os.path.join(T, f"env-{var}")
        env = dict(os.environ, **{var: val})
        # (base, not a: what is checked is that the script starts and draws, and base's
        # few rows draw pair-ns.png in a third of the time)
        r = subprocess.run([R, "plot", base, "--out", out], capture_output=True, text=True, env=env,
                           stdin=subprocess.DEVNULL, timeout=300)
        check(r.returncode == 0 and os.path.isfile(os.path.join(out, "pair-ns.png")) and
              "Traceback" not in r.stderr and "shadowed" not in r.stderr,
              f"plot with {var}={val}: exit {r.returncode} {r.stderr[-300:]!r}")

    # 9. Issue 36: any number of files (no fixed table of 64): a fleet of 150 hosts through
    # report, compare --across-hosts and plot's data, as files and (a case the issue did not
    # list) as one folder holding 150 runs.
    fleet = os.path.join(T, "fleet150")
    os.mkdir(fleet)
    with open(os.path.join(FX, "report-x86.csv"), newline="") as f:
        rows150 = list(csv.reader(f))
    h150 = rows150[0]
    for i in range(150):
        with open(os.path.join(fleet, f"h{i:03d}.csv"), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(h150)
            for r in rows150[1:]:
                r = list(r)
                r[h150.index("host")] = f"h{i:03d}"
                r[h150.index("run_id")] = f"20260201T000000Z-{i:03d}"
                w.writerow(r)
    files150 = sorted(os.path.join(fleet, n) for n in os.listdir(fleet))
    for what, operands in (("150 files", files150), ("a folder of 150 runs", [fleet])):
        r = run("report", *operands)
        check(r.returncode == 0 and r.stderr == "" and "150 files, 150 hosts." in " ".join(r.stdout.split())
              and "h149" in r.stdout, f"report of {what}: exit {r.returncode} {r.stderr!r}")
        r = run("compare", "--across-hosts", *operands)
        check(r.returncode == 0 and r.stderr == "" and
              r.stdout.startswith("# rgbench compare --across-hosts: 150 hosts, 150 files\n"),
              f"compare --across-hosts of {what}: exit {r.returncode} {r.stderr!r} {r.stdout[:80]!r}")
    counter = os.path.join(T, "count_hosts.py")
    with open(counter, "w") as f:
        f.write("import json, sys\n"
                "a = sys.argv[1:]\n"
                "data, out = a[a.index('--data') + 1], a[a.index('--out') + 1]\n"
                "hosts = {r['host'] for r in json.load(open(data))['rows']}\n"
                "open(out + '/pair-ns.png', 'w').write(str(len(hosts)))\n")
    r = run("plot", *files150, "--out", os.path.join(T, "p150"), env=dict(os.environ, RG_PLOT_SCRIPT=counter))
    drawn = os.path.join(T, "p150", "pair-ns.png")
    check(r.returncode == 0 and os.path.isfile(drawn) and open(drawn).read() == "150",
          f"plot of 150 files: exit {r.returncode} {r.stderr[-300:]!r}")

    # 10. Issue 36 item 8: names are text in every medium. A host "<img ...>" and a file
    # "[x](https:evil).csv" in report and compare --markdown (title, headings, prose, header
    # lines, table cells) come out escaped, never a tag or a link; cases the issue did not
    # list: a host with '|', '`', '"' and ',' in a Markdown table cell and in a CSV field, a
    # name that is a list marker ("1."), a run of backticks in a fenced table, and ESC and a
    # newline in a file name on the terminal (compare, check, report --out's "wrote").
    names = os.path.join(T, "names")
    os.mkdir(names)
    tag, link = "<img src=x onerror=alert(1)>", os.path.join(names, "[x](https:evil).csv")
    cell = 'a|b`c"d,e'
    fence = "g```" + "`" * 70

    def with_host(dst, host, guard=None):
        def fn(h, r):
            r[h.index("host")] = host
            if guard and r[h.index("guard")] == "tls":
                r[h.index("guard")] = guard
        edit_rows(os.path.join(FX, "report-x86.csv"), dst, fn)
    with_host(link, tag)
    cellf = os.path.join(names, "cell.csv")
    with_host(cellf, cell)
    listf = os.path.join(names, "list.csv")
    with_host(listf, "1.", guard=fence)

    def outside_fences(page):
        """The lines a Markdown reader takes as prose (CommonMark's fences: a block ends at a
        line of at least as many backticks); every fence closed, or None."""
        out, fenced = [], None
        for line in page.splitlines():
            m = re.fullmatch(r"(`{3,})\s*", line)
            if m and (fenced is None or len(m.group(1)) >= len(fenced)):
                fenced = None if fenced else m.group(1)
                continue
            if fenced is None:
                out.append(line)
        return out if fenced is None else None
    esc_tag = "\\<img src=x onerror=alert(1)\\>"
    r = run("report", link)
    prose = outside_fences(r.stdout)
    check(r.returncode == 0 and r.stdout.startswith("# rgbench report: " + esc_tag + "\n") and prose and
          not any("[x](" in x or "<img" in x.replace(esc_tag, "") for x in prose) and
          "/names/\\[x\\](https:evil).csv: schema" in " ".join(r.stdout.split()),
          f"report of a hostile host and file: exit {r.returncode} {r.stdout[:300]!r}")
    r = run("report", "--across-hosts", link, cellf)
    prose = outside_fences(r.stdout)
    check(r.returncode == 0 and prose and not any("<img" in x.replace(esc_tag, "") for x in prose) and
          any("a\\|b\\`c\"d,e" in x for x in prose) and not any("a|b`c" in x for x in prose),
          f"report --across-hosts of hostile hosts: exit {r.returncode} {r.stderr!r}")
    for argv in (["compare", "--markdown", link, cellf], ["compare", "--markdown", "--across-hosts", link, cellf]):
        r = run(*argv)
        lines = r.stdout.splitlines()
        rows_md = [x for x in lines if x.startswith("| ")]
        # the identification lines wrap at the width (issue 39): read them as one text
        head = " ".join(r.stdout.split("\n\n")[0].split())
        check(r.returncode == 0 and re.search(re.escape("/names/\\[x\\](https:evil).csv: " + esc_tag +
                                                        ", Intel Xeon, kernel 6.18.0, rgbench ") + r"\S+, 48 rows new: ",
                                              head) and
              all(x.count("|") - x.count("\\|") == rows_md[0].count("|") - rows_md[0].count("\\|") for x in rows_md) and
              not any(re.search(r"(?<!\\)[<`]", x) for x in lines),
              f"{' '.join(argv[:3])}: exit {r.returncode} {r.stdout[:400]!r}")
    r = run("compare", "--across-hosts", "--csv", cellf, link)
    got = list(csv.reader(r.stdout.splitlines()))
    check(r.returncode == 0 and len(got) > 1 and cell in got[1] and all(len(x) == len(got[0]) for x in got),
          f"compare --csv: a host with a quote and a comma: exit {r.returncode} {r.stdout[:300]!r}")
    r = run("report", listf)
    check(r.returncode == 0 and r.stdout.startswith("# rgbench report: 1.\n") and
          "## Machine: 1.\n" in r.stdout and "\n- A = 1.:" in r.stdout,
          f"report of host '1.': exit {r.returncode} {r.stdout[:300]!r}")
    prose = outside_fences(r.stdout)
    check(prose is not None and "Guards ranked" in " ".join(prose) and not any("``" in x for x in prose) and
          re.search(r"\n(`{4,})\n(.*\n)*?g```", r.stdout),
          f"a guard holding 73 backticks: a table's fence closed by it, or the name in prose: {prose and [x for x in prose if '``' in x]}")
    odd = os.path.join(names, "e\x1b[31m\nx.csv")
    with open(cellf, "rb") as f, open(odd, "wb") as g:
        g.write(f.read())
    for argv, cwd in ((["compare", odd, cellf], None), (["check", odd], None),
                      (["report", "--out", "o\x1b]0;t\x07.md", cellf], names)):
        r = run(*argv, cwd=cwd)
        check(r.returncode == 0 and "\x1b" not in r.stdout + r.stderr and "\x07" not in r.stdout and
              "?[31m x.csv" in r.stdout + "?[31m x.csv" * (argv[0] == "report") and
              (r.stdout == "" and r.stderr == "rgbench report: wrote o?]0;t?.md\n" if argv[0] == "report" else True),
              f"{argv[0]} of a file name with ESC and a newline: exit {r.returncode} {r.stdout[:200]!r}")

    # 11. Issue 36: compare's options honoured or refused in every form. --width: the page over
    # more than two hosts (text or --markdown), the lines around a pair or baseline table
    # (issue 39), never CSV nor a commit log wider than 72 columns; --unit only the pair and
    # baseline tables (that page shows ns and reference cycles both): elsewhere one line, exit 2.
    x86, arm = os.path.join(FX, "report-x86.csv"), os.path.join(FX, "report-arm.json")
    fleet3 = [x86, arm, cellf]
    for argv, want in ((["--width", "80", "--csv", x86, arm], "not with --csv"),
                       (["--width", "80", "--csv", "--across-hosts", *fleet3], "not with --csv"),
                       (["--width", "80", "--commit-log", x86, arm], "--commit-log fits 72 columns"),
                       (["--width", "80", "--commit-log", "--across-hosts", *fleet3], "--commit-log fits 72 columns"),
                       (["--width", "64", "--commit-log", "--across-hosts", *fleet3], "drop --width"),
                       (["--all", "--across-suites", x86, arm], "not with --across-suites"),
                       (["--all", "--across-hosts", *fleet3], "no such choice"),
                       (["--unit", "cycles", "--across-hosts", *fleet3], "--unit: the page over more than two hosts"),
                       (["--unit", "ns", "--markdown", "--across-hosts", *fleet3], "--unit: the page over more than two hosts")):
        r = run("compare", *argv)
        check(r.returncode == 2 and r.stdout == "" and r.stderr.startswith("rgbench compare: ") and want in r.stderr
              and r.stderr.count("\n") == 1, f"compare {argv[:3]}: exit {r.returncode} {r.stderr!r}")
    r = run("compare", "--width", "100", "--across-hosts", *fleet3)
    check(r.returncode == 0 and max(len(x) for x in r.stdout.splitlines()) <= 100,
          f"compare --width 100 over three hosts: exit {r.returncode} {r.stderr!r}")
    # Two files, a baseline, two hosts: the lines above the table wrap at the width (the
    # host names of 6b are longer than any width), a commit log narrower than 72 fits it.
    for argv, w in ((["--width", "60", x86, arm], 60), (["--width", "60", "--baseline", "noop", x86], 60),
                    (["--width", "60", "--across-hosts", x86, arm], 60),
                    (["--width", "64", "--commit-log", "--all", x86, arm], 64)):
        r = run("compare", *argv)
        top = r.stdout.split("\n\n")[0].splitlines()
        lines = top if "--commit-log" not in argv else r.stdout.splitlines()
        # a word longer than the width (the fixtures' paths) stands whole on a line of its own
        over = [x for x in lines if len(x) > w and len(x.split()) > 1]
        check(r.returncode == 0 and len(top) >= 2 and not over and "~" not in "".join(top),
              f"compare {argv}: exit {r.returncode} {r.stderr!r} {over!r}")

print("hostile: all passed" if not failures else f"hostile: {len(failures)} failed")
sys.exit(1 if failures else 0)
