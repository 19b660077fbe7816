#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks scripts/deps.sh's table of needs and its answers: names per family, no patterns, exact lists per purpose, bad input.

Usage: deps_table.py PATH/TO/deps.sh
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import rgtest  # noqa: E402

# Needs of one family only: building the rgbench .deb (rgbench fleet without --deb), and
# cross-building it for arm64 hosts (amd64 only).
APT_ONLY = {"package", "crosspkg"}
NEEDS = ["build", "bpf", "counters", "plots", "cross", "vm", "kmod", "fleet", "sshd", "checks", "package", "crosspkg", "cache"]
# What each purpose installs (deps.sh's purpose_needs): run.sh asks for run, test.sh for test.
PURPOSES = {
    "run": ["build", "bpf", "counters", "plots"],
    "test": ["build", "bpf", "counters", "plots", "cross", "vm", "fleet", "sshd", "checks", "cache"],
    "kmod": ["build", "kmod"],
    "fleet": ["fleet", "build", "bpf", "package", "crosspkg"],
}
UNAME = "6.1.0-99-rgbench"
FAMILIES = ["apt", "dnf"]
PATTERN = set("*?[]^$")
C = rgtest.Checker("distro.deps_table", listing=True)
check = C.check


def deps(script, *args, env=None):
    e = dict(os.environ)
    for k in list(e):
        if k.startswith("RG_DEPS_"):
            del e[k]
    e.update(env or {})
    return subprocess.run(["bash", script, *args], capture_output=True, text=True, env=e, timeout=240)


def main():
    script = sys.argv[1]
    r = deps(script, "--table")
    check(r.returncode == 0, "--table exits 0")
    rows = [line.split() for line in r.stdout.splitlines() if line.strip()]
    check(all(len(f) >= 4 for f in rows), "every row: NEED FAMILY ARCH and at least one name")
    check({f[0] for f in rows} == set(NEEDS), f"needs are exactly {NEEDS}")
    check({f[1] for f in rows} == set(FAMILIES), f"families are exactly {FAMILIES}")
    check({f[2] for f in rows} <= {"any", "amd64", "arm64"}, "architectures: any, amd64, arm64")
    for need in NEEDS:
        for fam in FAMILIES:
            archs = {f[2] for f in rows if f[0] == need and f[1] == fam}
            if need in APT_ONLY and fam != "apt":
                # the Debian package is built with Debian's tools: a dnf control machine gives --deb
                check(archs == set(), f"{need}: no names for {fam} (apt only)")
                continue
            check(archs != set(), f"{need}: names for {fam}")
    names = [n for f in rows for n in f[3:]]
    for n in names:
        for alt in n.split("|"):
            check(not (set(alt) & PATTERN), f"{alt}: no pattern characters")
            check(re.fullmatch(r"[a-z0-9][a-z0-9+.-]*(:arm64)?|[a-z0-9][a-z0-9+.-]*-(VERSION|UNAME)", alt)
                  is not None, f"{alt}: a package name (or NAME-VERSION, NAME-UNAME)")
    check([n for f in rows if f[0] == "kmod" for n in f[3:]] == ["linux-headers-UNAME", "kernel-devel-UNAME"],
          "kmod: the running kernel's headers, linux-headers-UNAME (apt) and kernel-devel-UNAME (dnf)")
    # Each (need, family, arch) once, so a name cannot hide in a second row.
    keys = [(f[0], f[1], f[2]) for f in rows]
    check(len(keys) == len(set(keys)), "no (need, family, arch) twice")

    # The list for another architecture without asking apt: exactly the table's first names
    # of the purpose's needs, NAME-UNAME as the running kernel's (RG_DEPS_UNAME) package.
    def first_names(fam, arch, needs=NEEDS):
        return [n.split("|")[0].replace("-UNAME", "-" + UNAME) for f in rows
                if f[1] == fam and f[2] in ("any", arch) and f[0] in needs for n in f[3:]]

    first = {"RG_DEPS_RESOLVE": "first", "RG_DEPS_UNAME": UNAME}
    if shutil.which("apt-get"):
        check({n for p in PURPOSES.values() for n in p} == set(NEEDS), "every need belongs to a purpose")
        check(set(PURPOSES["run"]) < set(PURPOSES["test"]), "test installs everything run does")
        for arch in ("amd64", "arm64"):
            for purpose, needs in PURPOSES.items():
                r = deps(script, "--list", purpose, env={**first, "RG_DEPS_ARCH": arch})
                check(r.returncode == 0 and r.stdout.split() == first_names("apt", arch, needs),
                      f"RG_DEPS_ARCH={arch} --list {purpose} (first names): the table's apt names of {needs}")
            r = deps(script, "--list", env={**first, "RG_DEPS_ARCH": arch})
            check(r.stdout.split() == first_names("apt", arch, PURPOSES["run"]), f"{arch}: --list alone is --list run")
        r = deps(script, "--list", "run", env={**first, "RG_DEPS_ARCH": "amd64"})
        check(not {"qemu-system-x86", "mmdebstrap", "gcc-aarch64-linux-gnu", "ansible-core"} & set(r.stdout.split()),
              "run: no VM, cross or fleet packages")
        r = deps(script, "--list", "test", env={**first, "RG_DEPS_ARCH": "amd64", "RG_DEPS_CROSS": "0", "RG_DEPS_VM": "0"})
        check(r.stdout.split() == first_names("apt", "amd64", [n for n in PURPOSES["test"] if n not in ("cross", "vm")]),
              "RG_DEPS_CROSS=0 RG_DEPS_VM=0: test without cross and vm")
        r = deps(script, "--list", "kmod", env={**first, "RG_DEPS_ARCH": "amd64"})
        check(r.stdout.split()[-1:] == ["linux-headers-" + UNAME], f"kmod: linux-headers-{UNAME} (RG_DEPS_UNAME)")

    # This machine's list: every alternative resolved to one plain name, by asking apt.
    if shutil.which("dpkg"):
        r = deps(script, "--list")
        got = r.stdout.split()
        check(r.returncode == 0, f"--list exits 0 here ({r.stderr.strip()})")
        arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True).stdout.strip()
        check(len(got) == len(first_names("apt", arch, PURPOSES["run"])), f"--list: one name per run entry ({len(got)})")
        r = deps(script, "--list", "test")
        got = r.stdout.split()
        check(r.returncode == 0, f"--list test exits 0 here ({r.stderr.strip()})")
        check(all("|" not in n and "VERSION" not in n and not set(n) & PATTERN for n in got),
              "--list: plain names only")
        check(len(got) == len(first_names("apt", arch, PURPOSES["test"])), f"--list test: one name per entry ({len(got)})")
        src = [n for n in got if n.startswith("linux-source")]
        check(len(src) == 1 and re.fullmatch(r"linux-source(-[0-9][0-9.]*)?", src[0]) is not None,
              f"linux-source resolved to one package ({src})")

    # Bad input: one line on stderr starting with the command, exit 2, nothing installed.
    with tempfile.TemporaryDirectory() as d:
        osr = os.path.join(d, "os-release")
        with open(osr, "w") as f:
            f.write('ID=gentoo\nPRETTY_NAME="Gentoo Linux"\n')
        r = deps(script, env={"RG_DEPS_OS_RELEASE": osr})
        err = r.stderr.splitlines()
        check(r.returncode == 2, f"unknown distribution: exit 2 (got {r.returncode})")
        check(len(err) == 1 and err[0].startswith("rgbench deps: unsupported distribution 'Gentoo Linux'"),
              f"unknown distribution: one line on stderr ({err})")
        check(re.search(r"^  counters +linux-source flex bison bc xz-utils libpfm4-dev$", r.stdout, re.M) is not None,
              "unknown distribution: the needs are listed (counters: linux-source ...)")
        check("installing" not in r.stdout, "unknown distribution: nothing installed")
    for args, env, what in ((["--bogus"], {}, "unknown argument '--bogus'"),
                            (["--list", "x"], {}, "unknown purpose 'x' (run, test, kmod or fleet)"),
                            (["bench"], {}, "unknown purpose 'bench'"),
                            (["--list", "run", "test"], {}, "one purpose at most"),
                            (["--table", "run"], {}, "--table takes no other argument"),
                            (["--list"], {"RG_DEPS_ARCH": "s390x"}, "unsupported architecture 's390x'")):
        r = deps(script, *args, env=env)
        err = r.stderr.splitlines()
        check(r.returncode == 2 and len(err) == 1 and err[0].startswith("rgbench deps: " + what),
              f"{' '.join(args)} {env}: exit 2, one line ({r.returncode}, {err})")


if __name__ == "__main__":
    C.finish(main())
