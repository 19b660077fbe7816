#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""No expected output may carry the machine that wrote it: fail when a file under the given
folders holds this machine's kernel release or CPU model as a whole field (an expected output
written here would pass here only). Self-test: a file made to hold them is caught."""
import os, platform, re, sys, tempfile


def machine():
    kernel = platform.release()
    model = None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return kernel, model


def field_re(value):
    # A whole field: bounded by start/end of line or a separator, not by more of a longer name
    # ("AMD EPYC" must not match "AMD EPYC 7B13").
    return re.compile(r'(^|[,"\t|:(]\s*|, |\s)' + re.escape(value) + r'(?=$|\s*[,"\t|)]|\s*\n|, )', re.M)


def scan(folders, kernel, model):
    pats = [("kernel release", field_re(kernel))]
    if model:
        pats.append(("CPU model", field_re(model)))
    bad = []
    for top in folders:
        for d, _, files in os.walk(top):
            for name in files:
                p = os.path.join(d, name)
                try:
                    with open(p, encoding="utf-8", errors="replace") as f:
                        text = f.read()
                except OSError:
                    continue
                for what, rx in pats:
                    if rx.search(text):
                        bad.append(f"{p}: holds this machine's {what}")
    return bad


def main():
    kernel, model = machine()
    with tempfile.TemporaryDirectory() as t:
        with open(os.path.join(t, "x"), "w") as f:
            f.write(f"host, {model or 'cpu'}, kernel {kernel}, 3 rows\n")
        if not scan([t], kernel, model):
            print("FAIL self-test: a file holding this machine's kernel was not caught")
            return 1
    print(f"this machine: kernel {kernel}, CPU model {model or '(none in /proc/cpuinfo: not checked)'}")
    bad = scan(sys.argv[1:], kernel, model)
    for b in bad:
        print("FAIL", b)
    if bad:
        return 1
    print(f"clean: {len(sys.argv) - 1} folders hold nothing of this machine")
    return 0


if __name__ == "__main__":
    sys.exit(main())
