#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Rows measured on an emulated CPU: compare refuses them (one line, exit 2) unless --allow-emulated, plots say EMULATED.
# Usage: emulated.sh RGBENCH
set -euo pipefail
rg=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Two real runs, written again as a machine ("none") and as qemu-user would have written them
# (this test may itself run under qemu-user: tests/arm64/native.sh).
"$rg" --guards noop,tls --scenarios pair --quick --out "$tmp/ra.csv" >/dev/null 2>&1 || fail "rgbench run failed"
"$rg" --guards noop,tls --scenarios pair --quick --out "$tmp/rb.csv" >/dev/null 2>&1 || fail "rgbench run failed"
python3 - "$tmp" <<'PY'
import csv, sys
d = sys.argv[1]
for src, dst, virt in (("ra", "a", "none"), ("rb", "b", "none"), ("rb", "e", "emulated (qemu-user)")):
    rows = list(csv.DictReader(open(f"{d}/{src}.csv", newline="")))
    assert rows and all(r["virt"] for r in rows)
    with open(f"{d}/{dst}.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
        w.writeheader()
        for r in rows:
            r["virt"] = virt
            w.writerow(r)
PY

# Not emulated: compare works as before, and says nothing about emulation.
"$rg" compare "$tmp/a.csv" "$tmp/b.csv" >"$tmp/ok.txt" 2>"$tmp/ok.err" || fail "plain compare failed"
grep -qi emulated "$tmp/ok.txt" "$tmp/ok.err" && fail "plain compare mentions emulation"

# Emulated on either side, or in --baseline mode: refused, one line, exit 2, nothing on stdout.
for args in "$tmp/a.csv $tmp/e.csv" "$tmp/e.csv $tmp/a.csv" "--baseline noop $tmp/e.csv" \
            "--commit-log $tmp/e.csv $tmp/b.csv"; do
  set +e
  # shellcheck disable=SC2086
  "$rg" compare $args >"$tmp/out" 2>"$tmp/err"
  rc=$?
  set -e
  [[ $rc == 2 ]] || fail "compare $args: exit $rc, want 2"
  [[ ! -s $tmp/out ]] || fail "compare $args: printed a table"
  [[ $(wc -l <"$tmp/err") == 1 ]] || fail "compare $args: want one line on stderr: $(cat "$tmp/err")"
  grep -q "e.csv holds rows measured on an emulated CPU (virt: emulated (qemu-user)).*--allow-emulated" \
    "$tmp/err" || fail "compare $args: message: $(cat "$tmp/err")"
done

# --allow-emulated: the table, with a note saying the timings are the emulator's.
"$rg" compare --allow-emulated --all --width 400 "$tmp/a.csv" "$tmp/e.csv" >"$tmp/al.txt" || fail "--allow-emulated failed"
grep -q "note: emulated CPU (virt: emulated (qemu-user))" "$tmp/al.txt" || fail "no emulation note: $(cat "$tmp/al.txt")"
grep -Eq "tls +pair" "$tmp/al.txt" || fail "no rows with --allow-emulated: $(cat "$tmp/al.txt")"

# Plots: an emulated source is labelled and every figure carries the EMULATED mark.
if "$rg" --list | grep -q 'plot (not built)'; then echo "plot not built: plot checks skipped"; exit 0; fi
"$rg" plot "$tmp/a.csv" "$tmp/e.csv" --out "$tmp/p1" >/dev/null 2>&1 || fail "plot failed"
"$rg" plot "$tmp/a.csv" "$tmp/b.csv" --out "$tmp/p2" >/dev/null 2>&1 || fail "plot failed"
[[ -f $tmp/p1/pair-ns.svg && -f $tmp/p2/pair-ns.svg ]] || fail "no pair-ns.svg"
grep -q "EMULATED qemu-user\|\[EMULATED (qemu-user)\]" "$tmp/p1/pair-ns.svg" || fail "emulated source not labelled"
grep -q ">EMULATED</text>" "$tmp/p1/pair-ns.svg" || fail "no EMULATED mark on the figure"  # SVG text is text (issue 39)
grep -q "EMULATED" "$tmp/p2/pair-ns.svg" && fail "EMULATED mark on a figure without emulated rows"
echo "PASS: emulated rows refused by compare (exit 2) unless --allow-emulated; plots marked"
