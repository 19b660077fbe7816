#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""install.manpages: every man page (docs/man/*.1.scd) has the sections of perf-bench(1) and
git(1) in order, and its OPTIONS name exactly the options the command's --help lists (long
options, both ways); the pages were built (scdoc) into BUILD/docs/man.

  manpages.py SRC BUILD RGBENCH     exit 0 all agree, 1 a difference (each said), 77 no scdoc"""
import os
import re
import subprocess
import sys

SECTIONS = ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "FILES", "ENVIRONMENT",
            "EXAMPLES", "SEE ALSO"]
def pages(rgbench):
    """rgbench(1) and one page per subcommand the binary lists (rgbench --list: "subcommands: ..."),
    so a subcommand added without its page fails here."""
    r = subprocess.run([rgbench, "--list"], capture_output=True, text=True)
    line = next((l for l in r.stdout.splitlines() if l.startswith("subcommands:")), "")
    subs = [w for w in line.split(":", 1)[1].split() if re.fullmatch(r"[a-z]+", w) and w != "help"] if line else []
    return {"rgbench": [], **{"rgbench-" + s: [s] for s in subs}}
# A placeholder, not an option: "--word value and --word=value are the same".
NOT_OPTIONS = {"--word"}


def options(text):
    """The long options a text names: --benchmark_* counts as --benchmark."""
    return {m.rstrip("_-") for m in re.findall(r"(?<![\w-])--[a-z][a-z0-9_-]*", text)} - NOT_OPTIONS


def main():
    src, build, rgbench = sys.argv[1:4]
    if not os.path.isdir(os.path.join(build, "docs", "man")) or not os.path.exists(
            os.path.join(build, "docs", "man", "rgbench.1")):
        print("SKIP: the man pages were not built (no scdoc)")
        return 77
    fails = 0
    PAGES = pages(rgbench)
    if len(PAGES) < 2:
        print("FAIL: rgbench --list names no subcommand")
        return 1
    for page, args in PAGES.items():
        scd = open(os.path.join(src, "docs", "man", page + ".1.scd"), encoding="utf-8").read()
        scd = scd.replace("\\_", "_").replace("\\[", "[").replace("\\*", "*")
        heads = re.findall(r"^# (.+)$", scd, re.M)
        if heads != SECTIONS:
            print(f"FAIL: {page}: sections {heads}, expected {SECTIONS}")
            fails += 1
        body = re.search(r"^# OPTIONS\n(.*?)^# ", scd, re.M | re.S)
        in_page = options(body.group(1)) if body else set()
        r = subprocess.run([rgbench, *args, "--help"], capture_output=True, text=True)
        if r.returncode != 0:
            print(f"FAIL: {page}: rgbench {' '.join(args)} --help exit {r.returncode}")
            fails += 1
            continue
        in_help = options(r.stdout)
        for o in sorted(in_help - in_page):
            print(f"FAIL: {page}: --help lists {o}, the page's OPTIONS do not")
            fails += 1
        for o in sorted(in_page - in_help):
            print(f"FAIL: {page}: the page's OPTIONS name {o}, --help does not")
            fails += 1
        if not os.path.exists(os.path.join(build, "docs", "man", page + ".1")):
            print(f"FAIL: {page}.1 was not built")
            fails += 1
        print(f"{page}: {len(in_help)} options in --help and the page")
    print("install.manpages: " + ("all agree" if not fails else f"{fails} differences"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
