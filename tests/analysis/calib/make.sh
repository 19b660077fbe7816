#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Remake the calibration fixtures from real runs of this build (README.md here lists every edit).
# usage: tests/analysis/calib/make.sh BUILD   (as root, for the BPF rows; about a minute)
set -euo pipefail
B=${1:?build dir}
here=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
guards=noop,pcpu-xadd,rctx-kernel,pcpu-lock-xadd
bpf() { "$B/tools/rgbench" bpf --mode syscall,driver --attach raw_tp,fentry,tp_btf --duration 0.2 \
	--warmup 0.2 --repetitions 5 --quiet --out "$T/$1.csv" --json "$2"; }
user() { "$B/tools/rgbench" --quick --scenarios pair --guards $guards --no-bpf --quiet --out "$T/$1.csv" --json "$2"; }
edit() { python3 "$here/edit.py" "$@"; }

user base "$here/base-user.json"
bpf base "$here/base-bpf.json"
user tramp "$T/tramp-user.json"
edit tramp "$T/tramp-user.json" "$here/base-tramp.json"
edit fentry "$here/base-bpf.json" "$here/base-bpf-fentry.json"
rel=$(uname -r)-rctx
user patched "$T/patched-user.json"
edit kernel "$T/patched-user.json" "$here/patched-user.json" "$rel"
bpf patched "$T/patched-bpf.json"
edit kernel "$T/patched-bpf.json" "$here/patched-bpf.json" "$rel"
echo "calibration fixtures remade in $here"
