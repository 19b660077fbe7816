#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Remake the fleet fixtures from real runs (README.md here says what each file plays):
# x86-64 runs of the native build, BPF rows as root, aarch64 runs under qemu-user from
# the cross build; relabel.py then edits the identification columns and nothing else.
# usage: tests/analysis/fleet/make.sh BUILD BUILD_AARCH64   (from the source tree; minutes)
set -euo pipefail
B=${1:?native build dir} X=${2:?aarch64 cross build dir}
here=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
user() { "$B/tools/rgbench" --quick --scenarios pair --no-bpf --quiet "$@"; }
arm() {
	qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib -E QEMU_LD_PREFIX=/usr/aarch64-linux-gnu "$X/tools/rgbench" --quick --scenarios pair --no-bpf --quiet \
		--guards pcpu-stadd-kernel,pcpu-ldadd-kernel,pcpu-llsc-kernel,pcpu-prfm-stadd-kernel,pcpu-ldadd-llsc-kernel,rctx-kernel,rctx,tls,rseq,pcpu-ldadd "$@"
}
relabel() { python3 "$here/relabel.py" "$@"; }

user --out "$T/a.csv" --json "$here/vm-x86.json"
user --guards pcpu-xadd,rctx-kernel --out "$T/b.csv" --json "$here/vm-x86-again.json"
user --out "$T/c.csv" --json "$T/xeon.json"
relabel "$T/xeon.json" "$here/xeon.json" host=xeon cpu_vendor=GenuineIntel \
	"cpu_model=Intel(R) Xeon(R) Platinum 8480+" "cpu_part=fam 0x6 model 0x8f step 0x8" \
	kernel=6.1.0-28-amd64 virt=kvm
"$B/tools/rgbench" bpf --mode driver --attach raw_tp,fentry,tp_btf,driver-empty,driver-kfunc \
	--duration 0.2 --warmup 0.2 --repetitions 5 --quiet --out "$T/d.csv" --json "$here/vm-x86-bpf.json"
arm --out "$T/e.csv" --json "$here/vm-arm-qemu.json"
arm --out "$T/f.csv" --json "$T/v2.json"
relabel "$T/v2.json" "$here/vm-v2.json" cpu_vendor=ARM cpu_model=Neoverse-V2 \
	"cpu_part=midr 0x410fd4f1" kernel=6.18.0 virt=kvm
arm --out "$T/g.csv" --json "$T/ampere.json"
relabel "$T/ampere.json" "$here/ampere.json" host=ampere cpu_vendor=ARM cpu_model=Neoverse-N1 \
	"cpu_part=midr 0x413fd0c1" kernel=6.8.0-45-generic virt=none
echo "fleet fixtures remade in $here"
