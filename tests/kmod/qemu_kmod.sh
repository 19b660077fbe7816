#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Functional test of rgbench_kmod.ko: build it against Debian's linux-headers, boot the matching kernel under qemu, load, run, check, unload.
#
# Usage: qemu_kmod.sh [--arch amd64|arm64] SRC_DIR RGBENCH_KMOD_STATIC [WORKDIR]
#   SRC_DIR               the repository root (kernel/kmod, tests/vm/vm.sh)
#   RGBENCH_KMOD_STATIC   statically linked rgbench-kmod for the guest's arch
# amd64 builds against the installed linux-headers-<abi>-amd64; arm64 fetches
# linux-headers-<abi>-arm64 with apt-get download (cached in RG_VM_CACHE),
# points its scripts at the host's linux-kbuild and cross-compiles with
# aarch64-linux-gnu-. RG_VM_CPU picks the guest CPU (arm64: max has LSE,
# cortex-a72 has not; the check expects the LSE guards skipped then).
# Env: RG_KMOD_KDIR (a prepared kernel build dir), RG_VM_CACHE (see vm.sh).
# Exit: 0 pass, 1 fail, 77 skipped (no headers, compiler, qemu or kernel package).
# Timings measured under TCG are meaningless: only counts and statuses are checked.
set -euo pipefail
arch=amd64
if [[ ${1:-} == --arch ]]; then arch=$2; shift 2; fi
src=$(cd "$1" && pwd); tool=$2; work=${3:-}
skip() { echo "qemu_kmod: SKIP: $*" >&2; exit 77; }
fail() { echo "qemu_kmod: FAIL: $*" >&2; exit 1; }

[[ $(uname -m) == x86_64 ]] || skip "the guest tests run on x86_64 hosts"
[[ -x $tool ]] || fail "no $tool"
# The kernel ABI: that of the installed amd64 headers (Debian uses one ABI for all arches).
abi=$(dpkg-query -W -f='${Depends}\n' linux-headers-amd64 2>/dev/null |
      grep -o 'linux-headers-[0-9][^ ,]*-amd64' | head -1 |
      sed -e 's/^linux-headers-//' -e 's/-amd64$//') || true
[[ -n $abi ]] || skip "linux-headers-amd64 is not installed"
make_args=()
kdir=${RG_KMOD_KDIR:-}
if [[ $arch == amd64 ]]; then
  [[ -n $kdir ]] || kdir=/usr/src/linux-headers-$abi-amd64
elif [[ $arch == arm64 ]]; then
  command -v aarch64-linux-gnu-gcc >/dev/null || skip "no aarch64-linux-gnu-gcc"
  make_args=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
  if [[ -z $kdir ]]; then
    cache=${RG_VM_CACHE:-$HOME/.cache/rgbench-vm}
    hroot=$cache/linux-headers-$abi-arm64
    kdir=$hroot/usr/src/linux-headers-$abi-arm64
    [[ -d /usr/src/linux-headers-$abi-common ]] || skip "linux-headers-$abi-common is not installed"
    [[ -d /usr/lib/linux-kbuild-${abi%%.0-*} ]] || skip "linux-kbuild-${abi%%.0-*} is not installed"
    if [[ ! -f $hroot/.done ]]; then
      mkdir -p "$cache"
      (cd "$cache" && rm -f linux-headers-"$abi"-arm64_*_arm64.deb &&
       apt-get download -q "linux-headers-$abi-arm64:arm64" >/dev/null 2>&1) ||
        skip "apt-get download linux-headers-$abi-arm64:arm64 failed"
      rm -rf "$hroot" && mkdir -p "$hroot/usr/lib"
      dpkg-deb -x "$cache"/linux-headers-"$abi"-arm64_*_arm64.deb "$hroot"
      # Its scripts/ link to ../../lib/linux-kbuild-X: the host's (amd64) build tools.
      ln -sfn "/usr/lib/linux-kbuild-${abi%%.0-*}" "$hroot/usr/lib/linux-kbuild-${abi%%.0-*}"
      touch "$hroot/.done"
    fi
  fi
else
  fail "--arch must be amd64 or arm64"
fi
[[ -f $kdir/Makefile ]] || skip "no kernel headers at $kdir"
kver=$abi

if [[ -z $work ]]; then work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
rm -rf "$work/mod" "$work/payload" "$work/out"
mkdir -p "$work/mod" "$work/payload" "$work/out"
cp "$src/kernel/kmod/rgbench_kmod.c" "$src/kernel/kmod/Kbuild" "$work/mod/"
make -s -C "$kdir" M="$work/mod" "${make_args[@]}" modules >"$work/build.log" 2>&1 ||
  { cat "$work/build.log" >&2; fail "module build against $kdir failed"; }
grep -iE 'warning|error' "$work/build.log" | grep -v 'Skipping BTF' && fail "module build warned"
cp "$work/mod/rgbench_kmod.ko" "$tool" "$work/payload/"
tool_name=$(basename "$tool")

# Guest: (A) busybox insmod/echo/cat/rmmod; (B) rgbench-kmod end to end;
# (C) a bad --guards value must fail and leave nothing loaded; (D) irqs-off.
cat >"$work/payload/guest.sh" <<GUEST
set -u
A=/sys/kernel/debug/rgbench_kmod
insmod ./rgbench_kmod.ko loops=3000 runs=2 irq_iters=500 || echo insmod-failed >>/out/errors
cat \$A/guards >/out/guards.csv
echo 1 >\$A/run || echo run-failed >>/out/errors
cat \$A/results >/out/raw.csv
rmmod rgbench_kmod || echo rmmod-failed >>/out/errors
[ -d /sys/module/rgbench_kmod ] && echo still-loaded-A >>/out/errors

./$tool_name --module ./rgbench_kmod.ko --loops 3000 --runs 3 --irq-iters 500 \
  --out /out/kmod.csv --json /out/kmod.json --raw /out/raw2.csv >/out/table.txt 2>/out/b.err
echo \$? >/out/rc_b
[ -d /sys/module/rgbench_kmod ] && echo still-loaded-B >>/out/errors

./$tool_name --module ./rgbench_kmod.ko --guards rctx,no-such-guard --out /out/bad.csv 2>/out/c.err
echo \$? >/out/rc_c
[ -d /sys/module/rgbench_kmod ] && echo still-loaded-C >>/out/errors
[ -e /out/bad.csv ] && echo bad-output-written >>/out/errors

./$tool_name --module ./rgbench_kmod.ko --guards rctx,noop,this-cpu-inc-return --cpus 1 \
  --loops 2000 --runs 2 --irqs-off --irq-iters 100 --quiet --out /out/irqsoff.csv 2>/out/d.err
echo \$? >/out/rc_d
[ -d /sys/module/rgbench_kmod ] && echo still-loaded-D >>/out/errors
dmesg >/out/dmesg.txt
true
GUEST

set +e
bash "$src/tests/vm/vm.sh" --arch "$arch" --kver "$kver" --payload "$work/payload" --out "$work/out" \
  --timeout 400 --smp 2 -- sh ./guest.sh
rc=$?
set -e
((rc == 77)) && skip "vm.sh could not boot a guest"
((rc == 0)) || fail "guest run failed (vm.sh exit $rc)"

conv=("$tool"); [[ $arch == amd64 ]] || conv=(qemu-aarch64 "$tool")
lse=1; [[ $arch == arm64 && ${RG_VM_CPU:-max} != max ]] && lse=0
python3 "$src/tests/kmod/check_kmod.py" "$work/out" "$arch" "$lse" "${conv[@]}" || fail "checks failed (files in $work/out)"
echo "qemu_kmod: PASS"
