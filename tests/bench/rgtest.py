# SPDX-License-Identifier: MIT
"""Helpers shared by the rgbench command tests: run it (under qemu when cross-built), parse its outputs."""
import argparse
import atexit
import contextlib
import csv
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile


def args():
    p = argparse.ArgumentParser()
    p.add_argument("--rgbench", required=True)
    p.add_argument("--emulator", default="")
    p.add_argument("--source", required=True, help="repository root")
    p.add_argument("--guards-def", default="",
                   help="the build's list of guards as text (guards/gen/guards.all.def: guards.def "
                        "and any RG_EXTRA_GUARDS lines); default: the source's guards/include/rg/guards.def")
    a = p.parse_args()
    a.rgbench = os.path.abspath(a.rgbench)
    a.source = os.path.abspath(a.source)
    a.guards_def = os.path.abspath(a.guards_def or os.path.join(a.source, "guards/include/rg/guards.def"))
    return a


def mkdtemp(prefix="rgbench-"):
    """A temporary directory removed when the test exits, pass or fail (what is left
    to see on a failure is printed by the test itself)."""
    d = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, d, ignore_errors=True)
    return d


@contextlib.contextmanager
def tempdir(prefix="rgbench-"):
    """A temporary directory for a with-block, removed at its end."""
    d = tempfile.mkdtemp(prefix=prefix)
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


def unreachable_by_others(path):
    """The first folder on path's way from / that other users cannot enter (no o+x), or None."""
    import stat
    d = os.path.dirname(os.path.abspath(path))
    parts = []
    while True:
        parts.append(d)
        up = os.path.dirname(d)
        if up == d:
            break
        d = up
    for d in reversed(parts):
        if not os.stat(d).st_mode & stat.S_IXOTH:
            return d
    return None


def copy_for_everyone(path, prefix="rgbench-everyone-"):
    """A copy of the program at path (mode 755) in a new temporary folder that every user can
    reach, for a case run as another user (nobody): the build itself may sit under a private
    folder (a clone under /root, which is 0700 on Debian). Returns (copy, None), or (None, why)
    when no such folder can be made here ($TMPDIR private too)."""
    d = mkdtemp(prefix=prefix)
    os.chmod(d, 0o755)
    private = unreachable_by_others(os.path.join(d, "x"))
    if private:
        return None, f"no temporary folder every user can reach ({private} is private)"
    copy = os.path.join(d, os.path.basename(path))
    shutil.copy(path, copy)
    os.chmod(copy, 0o755)
    return copy, None


def command(a, *extra):
    return shlex.split(a.emulator) + [a.rgbench] + list(extra)


# The one warning line an emulated run prints (bench/run.c; docs/analysis.md, --allow-emulated): expected
# under qemu-user, so the tests that count stderr lines look past it.
EMULATED_WARNING = re.compile(r"^rgbench: WARNING: emulated \(qemu-[a-z]+\) CPU: .*\n", re.M)


def run(a, *extra, cwd=None, timeout=600):
    """Run rgbench; stderr without the emulated-CPU warning line (tested on its own)."""
    r = subprocess.run(command(a, *extra), cwd=cwd, capture_output=True, text=True,
                       timeout=timeout)
    r.stderr = EMULATED_WARNING.sub("", r.stderr)
    return r


def schema_columns(source):
    """(version, [column names]) as schema/include/rg/schema.h defines them."""
    text = open(os.path.join(source, "schema/include/rg/schema.h")).read()
    version = int(re.search(r"#define RG_SCHEMA_VERSION (\d+)", text).group(1))
    block = text[text.index("#define RG_RESULT_COLUMNS(X)"):]
    block = block[:block.index("\n\n")]
    return version, re.findall(r"X\((\w+),\s*[SIUDB],", block)


def guards_def(path):
    """[(cli name, needs string)] from the list of guards (a.guards_def), in order."""
    out = []
    for line in open(path):
        m = re.match(r'RG_GUARD\(\s*\w+\s*,\s*"([^"]+)"\s*,\s*\w+\s*,\s*([^,]+),', line)
        if m:
            out.append((m.group(1), m.group(2)))
    return out


def listed_guards(a):
    """{name: None if available else reason} from `rgbench --list`."""
    r = run(a, "--list")
    if r.returncode != 0:
        sys.exit(f"rgbench --list failed ({r.returncode}): {r.stderr}")
    out = {}
    section = None
    for line in r.stdout.splitlines():
        if not line.startswith(" "):
            section = line.split()[0] if line.strip() else None
            continue
        if section == "guards":
            m = re.match(r"\s+(\S+)\s+(available|skipped \((.*?)\))\s", line)
            if not m:
                sys.exit(f"cannot parse --list line: {line!r}")
            out[m.group(1)] = None if m.group(2) == "available" else m.group(3)
    return out


def read_csv(path):
    with open(path, newline="") as f:
        rd = csv.reader(f)
        header = next(rd)
        rows = [dict(zip(header, r)) for r in rd]
        for r in rows:
            if len(r) != len(header):
                raise AssertionError(f"row with {len(r)} fields, header {len(header)}")
    return header, rows


def read_json(path):
    with open(path) as f:
        return json.load(f)


def read_text(path):
    """The file's text, or "" when it cannot be read (a run that left nothing fails its checks)."""
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


class Checker:
    """The checks of one test: counts failures; finish() ends the test.

    Every test script makes one (C = rgtest.Checker("bench.plan"); check = C.check) and ends
    with C.finish(main()) or C.finish(). listing=True prints every check as a checklist on
    stdout ("ok   what" / "FAIL what"); otherwise only failures print, as "FAIL: what" on stderr.
    """

    def __init__(self, name, listing=False):
        self.name = name
        self.listing = listing
        self.failures = 0

    def check(self, cond, msg):
        if self.listing:
            print(("ok   " if cond else "FAIL ") + msg, flush=True)
        if not cond:
            self.failures += 1
            if not self.listing and self.failures <= 40:
                print(f"FAIL: {msg}", file=sys.stderr, flush=True)
        return cond

    def finish(self, code=None):
        """Exit 1 after any failed check; else with code when given and not 0 (77: skipped,
        2: usage), or 0 saying all checks passed."""
        if self.failures:
            print(f"{self.name}: {self.failures} failure(s)", file=sys.stderr)
            sys.exit(1)
        if code:
            sys.exit(code)
        print(f"{self.name}: all checks passed")
        sys.exit(0)


def md_section(text, title):
    """The text of the first '## ' section of a report page whose title starts with title, or None."""
    m = re.search(r"^## " + re.escape(title) + r".*?$(.*?)(?=^## |\Z)", text or "", re.M | re.S)
    return m.group(1) if m else None


def md_fenced_all(text):
    """Every fenced block of text, each as its list of lines."""
    return [b.splitlines() for b in re.findall(r"```\n(.*?)```", text or "", re.S)]


def catches(pid, sig):
    """True once process pid has a handler for signal sig (SigCgt in /proc/PID/status)."""
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("SigCgt:"):
                return bool(int(line.split()[1], 16) >> (sig - 1) & 1)
    except OSError:
        pass
    return False
