#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ab.guest_failures (opt-in, RG_TEST_AB=1): rgbench ab under qemu TCG with failing kernels: an image without its headers (boots, no module: the base), a panic at boot, a kernel that refuses the module (lockdown), a truncated image: one line each (manifest and stderr, with the console's tail), the boots that ran and the table kept, exit 1. Statuses only, never a timing.
# Usage: guest_failures.sh SRC_DIR RGBENCH   (RG_AB_TEST_ABI: the Debian 12 kernel ABI booted,
# default 6.1.0-57; RG_VM_CACHE: see ab/vm.sh)
set -uo pipefail
R=$2
abi=${RG_AB_TEST_ABI:-6.1.0-57}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "ab.guest_failures: FAIL: $*"; exit 1; }
[[ $(uname -m) == x86_64 ]] || { echo "ab.guest_failures: SKIP: x86-64 hosts only"; exit 77; }
command -v qemu-system-x86_64 >/dev/null || { echo "ab.guest_failures: SKIP: no qemu-system-x86_64"; exit 77; }
timeout 20 bash -c 'exec 3<>/dev/tcp/deb.debian.org/80' 2>/dev/null ||
	{ echo "ab.guest_failures: SKIP: deb.debian.org unreachable (the kernels are fetched with apt-get download)"; exit 77; }
# The image alone, without its headers beside it: ab's own cache of the package, else fetched.
img=$(ls "${RG_VM_CACHE:-$HOME/.cache/rgbench-vm}/ab-$abi-amd64/root/boot/vmlinuz-"* 2>/dev/null | head -1)
if [[ -z $img ]]; then
	(cd "$T" && apt-get download -q "linux-image-$abi-amd64" >/dev/null 2>&1) ||
		{ echo "ab.guest_failures: SKIP: apt-get download linux-image-$abi-amd64 failed"; exit 77; }
	dpkg-deb -x "$T"/linux-image-*.deb "$T/img" && img=$(ls "$T"/img/boot/vmlinuz-* | head -1)
fi
mkdir -p "$T/alone" && cp "$img" "$T/alone/bzImage"
# trunc: its first 60% (the header intact, so ab takes it): the decompressor gives up.
head -c $(($(stat -c %s "$img") * 6 / 10)) "$img" >"$T/trunc.bzImage"
# panic: no initramfs init (rdinit), so the kernel looks for a root it has not: VFS panic.
# locked: lockdown=confidentiality refuses the unsigned module (and debugfs).
RG_AB_GUEST_ARGS_BPF="--attach fentry,raw_tp --duration 10ms --warmup 5ms --repetitions 3 --passes 1" \
RG_AB_GUEST_ARGS_KMOD="--guards noop,rctx-kernel --batch 1000 --repetitions 3 --irq-iters 50" \
	"$R" ab --kernel nomod="$T/alone/bzImage" --kernel panic="$abi" --kernel locked="$abi" \
	--kernel trunc="$T/trunc.bzImage" \
	--append panic=rdinit=/nonexistent --append locked=lockdown=confidentiality \
	--rounds 1 --no-user --out "$T/ab" >"$T/out" 2>"$T/err"
rc=$?
cat "$T/err" "$T/out"
((rc == 1)) || fail "rgbench ab exit $rc (want 1: boots failed)"
python3 - "$T/ab/manifest.csv" <<'PY' || fail "the manifest"
import csv, sys
m = {r["label"]: r for r in csv.DictReader(open(sys.argv[1]))}
want = {
    "panic": ("failed", "the kernel panicked: Kernel panic - not syncing: VFS: Unable to mount root fs"),
    "nomod": ("partial", "no kmod rows: no build directory beside "),
    "locked": ("partial", "rgbench kmod exit "),
    "trunc": ("failed", "the kernel did not boot to the guest's command"),
}
for label, (status, reason) in want.items():
    r = m[label]
    print(label, r["status"], "|", r["reason"], "|", r["console_tail"])
    assert r["status"] == status and reason in r["reason"], label
    assert status == "ok" or r["console_tail"], label + ": no console tail"
PY
for l in panic nomod locked trunc; do
	[[ $(grep -c "^rgbench ab: boot [0-9]: $l \(failed\|partial\): .*; console tail: " "$T/err") == 1 ]] ||
		fail "$l: not one line on stderr"
done
grep -q '^EMULATED: the guests ran under qemu TCG' "$T/out" || fail "no table (or not marked emulated)"
grep -q "^  boot 02 (panic): failed: the kernel panicked" "$T/out" || fail "the table does not name the failed boot"
grep -q "^No finished boot, so no column: panic, trunc.$" "$T/out" || fail "the failed kernels' columns"
ls "$T"/ab/boot-01-nomod.json "$T"/ab/boot-03-locked.json >/dev/null || fail "a kept boot's file is missing"
echo "ab.guest_failures: PASS"
