#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Functional test of rgbench_kmod.ko: build it against Debian's linux-headers, boot the matching kernel under qemu, load, run, check, unload.
#
# Usage: qemu_kmod.sh SRC_DIR RGBENCH_KMOD_STATIC [WORKDIR]
#   SRC_DIR               the repository root (kernel/kmod, tests/vm/vm.sh)
#   RGBENCH_KMOD_STATIC   statically linked rgbench-kmod, run inside the guest
# Env: RG_KMOD_KDIR (default: the installed linux-headers-<abi>-amd64 that
#      tests/vm/vm.sh boots), RG_VM_CACHE (see vm.sh).
# Exit: 0 pass, 1 fail, 77 skipped (no headers, qemu or kernel package).
# Timings measured under TCG are meaningless: only counts and statuses are checked.
set -euo pipefail
src=$(cd "$1" && pwd); tool=$2; work=${3:-}
skip() { echo "qemu_kmod: SKIP: $*" >&2; exit 77; }
fail() { echo "qemu_kmod: FAIL: $*" >&2; exit 1; }

[[ $(uname -m) == x86_64 ]] || skip "the amd64 guest test runs on x86_64 hosts"
[[ -x $tool ]] || fail "no $tool"
kdir=${RG_KMOD_KDIR:-}
if [[ -z $kdir ]]; then
  abi=$(dpkg-query -W -f='${Depends}\n' linux-headers-amd64 2>/dev/null |
        grep -o 'linux-headers-[0-9][^ ,]*-amd64' | head -1 | sed 's/^linux-headers-//') || true
  [[ -n $abi ]] || skip "linux-headers-amd64 is not installed"
  kdir=/usr/src/linux-headers-$abi
fi
[[ -f $kdir/Makefile ]] || skip "no kernel headers at $kdir"
kver=$(basename "$kdir" | sed -e 's/^linux-headers-//' -e 's/-amd64$//')

if [[ -z $work ]]; then work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
rm -rf "$work/mod" "$work/payload" "$work/out"
mkdir -p "$work/mod" "$work/payload" "$work/out"
cp "$src/kernel/kmod/rgbench_kmod.c" "$src/kernel/kmod/Kbuild" "$work/mod/"
make -s -C "$kdir" M="$work/mod" modules >"$work/build.log" 2>&1 ||
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
bash "$src/tests/vm/vm.sh" --kver "$kver" --payload "$work/payload" --out "$work/out" \
  --timeout 240 --smp 2 -- sh ./guest.sh
rc=$?
set -e
((rc == 77)) && skip "vm.sh could not boot a guest"
((rc == 0)) || fail "guest run failed (vm.sh exit $rc)"

python3 "$src/tests/kmod/check_kmod.py" "$work/out" "$tool" || fail "checks failed (files in $work/out)"
echo "qemu_kmod: PASS"
