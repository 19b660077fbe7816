#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rgbench-kmod on this host: a one-line skip (exit 77, nothing written) where modules cannot be loaded, else a real run.
# Usage: cli_host.sh TOOL... (TOOL may be prefixed by an emulator)
set -uo pipefail
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "cli_host: FAIL: $*"; cat "$tmp/err" 2>/dev/null; exit 1; }

"$@" --loops 2000 --runs 1 --irq-iters 50 --quiet --out "$tmp/k.csv" 2>"$tmp/err"
rc=$?
if [[ ! -e /proc/modules ]]; then
  why="no loadable module support"
elif [[ $(id -u) != 0 ]]; then
  why="needs root"
else
  why=
fi
if [[ -n $why ]]; then
  ((rc == 77)) || fail "exit $rc, want 77 ($why)"
  [[ $(wc -l <"$tmp/err") == 1 ]] || fail "want one line of explanation"
  grep -q "skipped: .*$why" "$tmp/err" || fail "message does not say '$why'"
  [[ ! -e $tmp/k.csv ]] || fail "wrote an output file while skipping"
  echo "cli_host: ok: skipped with: $(cat "$tmp/err")"
  exit 0
fi
# Root with module support: either no headers (a skip that says so) or a real run.
if ((rc == 77)); then
  grep -Eq "skipped: (no kernel build headers|this kernel cannot load|loading modules is not permitted)" "$tmp/err" ||
    fail "exit 77 without a known reason"
  [[ ! -e $tmp/k.csv ]] || fail "wrote an output file while skipping"
  echo "cli_host: ok: $(tail -1 "$tmp/err")"
  exit 0
fi
((rc == 0)) || fail "exit $rc"
[[ ! -d /sys/module/rgbench_kmod ]] || fail "module left loaded"
n=$(grep -c ',kmod,' "$tmp/k.csv")
((n >= 2)) || fail "only $n kmod rows"
grep ',kmod,' "$tmp/k.csv" | grep -v ',ok,' && fail "rows not ok"
echo "cli_host: ok: a real run wrote $n rows"
