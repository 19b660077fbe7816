#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Opt-in (RG_TEST_KBENCH=1): build the kernel's own bench from linux-source (build.sh, cached
# under ~/.cache/rgbench/kbench) and alternate its trig-rawtp with rgbench bpf's syscall raw_tp
# on one CPU (compare.py); prints the parity table (rate, producer CPU time, on-CPU share and
# their ratios), asserts none (they are timings).
# usage: kbench.sh RGBENCH_BPF   (RG_KBENCH_ARGS: more compare.py options, e.g. "--rounds 9")
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [[ "${RG_TEST_KBENCH:-0}" != 1 ]]; then
  echo "SKIP: opt-in, set RG_TEST_KBENCH=1 (builds the kernel's bench from linux-source, ~2 min once, then ~4 min of runs)"
  exit 77
fi
if [[ $(id -u) != 0 ]]; then
  echo "SKIP: needs root (BPF programs)"
  exit 77
fi
set +e
bench=$(bash "$here/build.sh")
rc=$?
set -e
if [[ $rc == 77 ]]; then
  echo "SKIP: the kernel's bench cannot be built here (the line above says why)"
  exit 77
fi
[[ $rc == 0 ]] || exit "$rc"
# shellcheck disable=SC2086
exec python3 "$here/compare.py" "$1" "$bench" ${RG_KBENCH_ARGS:-}
