#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole arm64 suite in an arm64 kernel: Debian's kernel under qemu-system-aarch64 runs the user suite, BPF, the counters and the stress tests.
#
# Usage: guest_suite.sh SRC_DIR RGBENCH TEST_STRESS TEST_MIGRATE
#   the three programs built for aarch64 (the cross build, or a native arm64 build)
# Two boots of Debian's arm64 kernel (tests/vm/vm.sh --arch arm64, -cpu max, 2 CPUs):
# the first runs A then B (one boot: B's single-stepping starts at its marker, so A runs at
# full speed before it; a boot of its own cost B 25-30 s here; and ends at its end marker, so
# the output files go out on the console at full speed), the second C.
#  A (multi-threaded TCG):
#   rgbench --quick --duration 1ms as root: the user suite with rseq registered by glibc,
#   the counters' status, the default BPF rows (every row of --quick; the user rows' rounds
#   1 ms, not 5: only rows, statuses and columns are checked; 39 s in the guest, not 47);
#   then rgbench bpf --mode all --triggers N -p 2: every attach type in syscall, driver and
#   recurse mode, fixed counts
#  B (one instruction per translated block, switched on after the boot: vm.sh
#   --step-from): TCG takes interrupts only between translated blocks, so without it
#   no preemption, migration or signal can land inside a guard's load/store window or
#   an rseq critical section (the racy control losing counts shows it was on)
#   test_stress: every guard pinned and oversubscribed under a signal storm, exact
#   totals (6000/1500 pairs per thread; the racy control left out), then the guards only a kernel's rseq can
#   test (qemu-user has none) at 20000/5000 with the racy control, which must lose
#   counts; test_migrate: rseq and rctx with
#   threads moved between CPUs and signalled, exact totals, rseq aborts and
#   migrations counted by the kernel
#  C (-icount shift=1): qemu's PMU counts instructions only with a fixed instruction
#   counter: rgbench --quick --scenarios pair fills cycles_per_pair and
#   instructions_per_pair
# check_guest.py then checks counts, statuses and which columns are filled (never a
# timing: these are qemu's).
# RG_GUEST_KEEP=DIR keeps the guest's output files there; RG_GUEST_TIMEOUT (s) per boot.
# Exit: 0 pass, 1 fail, 77 skipped (no qemu-system-aarch64, kernel package, or an
# emulated host: see vm.sh).
set -euo pipefail
src=$(cd "$1" && pwd); rgbench=$2; stress=$3; migrate=$4
skip() { echo "guest_suite: SKIP: $*" >&2; exit 77; }
fail() { echo "guest_suite: FAIL: $*" >&2; exit 1; }
for b in "$rgbench" "$stress" "$migrate"; do
  [[ -x $b ]] || fail "no $b"
  readelf -h "$b" 2>/dev/null | grep -q 'Machine: *AArch64' || fail "$b is not an aarch64 program"
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/payload" "$work/out"
cp "$rgbench" "$work/payload/rgbench"
cp "$stress" "$work/payload/test_stress"
cp "$migrate" "$work/payload/test_migrate"
triggers=2000
cat >"$work/payload/a.sh" <<GUEST
export LD_LIBRARY_PATH=/lib
t0=\$(date +%s)
uname -r >/out/release
ls /sys/bus/event_source/devices >/out/pmus
echo "== rgbench --quick --duration 1ms"
./rgbench --quick --duration 1ms --out /out/user.csv --json /out/user.json >/out/user.txt 2>/out/user.err
echo \$? >/out/rc_user
tail -1 /out/user.txt; echo "   (\$(( \$(date +%s) - t0 )) s in the guest)"; t0=\$(date +%s)
echo "== rgbench bpf, fixed counts"
./rgbench bpf --mode all --triggers $triggers --batch 100 -p 2 --out /out/bpf.csv >/out/bpf.txt 2>&1
echo \$? >/out/rc_bpf
echo "   (\$(( \$(date +%s) - t0 )) s in the guest)"
GUEST
cat >"$work/payload/b.sh" <<GUEST
export LD_LIBRARY_PATH=/lib
echo @@RG-STEP
sleep 2
t0=\$(date +%s)
echo "== test_stress, every guard but the racy control"
RG_STRESS_GUARDS=-racy-percpu ./test_stress 6000 1500 60 >/out/stress_all.txt 2>&1
echo \$? >/out/rc_stress_all
tail -1 /out/stress_all.txt; echo "   (\$(( \$(date +%s) - t0 )) s in the guest)"; t0=\$(date +%s)
echo "== test_stress, the rseq guards and the racy control"
RG_STRESS_GUARDS=rseq,rctx,rctx-word,racy-percpu ./test_stress 20000 5000 60 >/out/stress.txt 2>&1
echo \$? >/out/rc_stress
tail -1 /out/stress.txt; echo "   (\$(( \$(date +%s) - t0 )) s in the guest)"; t0=\$(date +%s)
echo "== test_migrate"
{ RG_EXPECT_ABORTS=1 ./test_migrate 20000 60 2>&1 >/out/migrate.txt; echo \$? >/out/rc_migrate; } | tee /out/migrate.err
tail -1 /out/migrate.txt; echo "   (\$(( \$(date +%s) - t0 )) s in the guest)"; t0=\$(date +%s)
echo @@RG-STEP-END
GUEST
cat >"$work/payload/c.sh" <<GUEST
export LD_LIBRARY_PATH=/lib
echo "== rgbench --quick --scenarios pair (instructions counted)"
./rgbench --quick --guards noop,tls,rseq,rctx,pcpu-stadd,pcpu-ldadd,pcpu-llsc,racy-percpu --scenarios pair \
  --out /out/icount.csv >/out/icount.txt 2>/out/icount.err
echo \$? >/out/rc_icount
GUEST

# boot NAME QEMU_ARGS SCRIPT [VM_SH_ARGS...]: one guest run; its files land in $work/out.
boot() {
  local t0=$SECONDS rc
  set +e
  RG_VM_CPU=max RG_VM_QEMU_ARGS=$2 \
    bash "$src/tests/vm/vm.sh" --arch arm64 --smp 2 --mem 2048 --timeout "${RG_GUEST_TIMEOUT:-1800}" \
    --payload "$work/payload" --out "$work/out" "${@:4}" \
    --libs "$rgbench" --libs "$stress" --libs "$migrate" -- sh "./$3"
  rc=$?
  set -e
  echo "guest_suite: boot $1 ran $((SECONDS - t0)) s wall (boot included)"
  ((rc == 77)) && skip "vm.sh could not boot an arm64 guest"
  ((rc == 0)) || fail "guest run $1 failed (vm.sh exit $rc)"
}
printf 'sh ./a.sh\nsh ./b.sh\n' >"$work/payload/ab.sh"
boot A+B "" ab.sh --step-from @@RG-STEP --step-until @@RG-STEP-END
boot C "-icount shift=1,sleep=off" c.sh
if [[ -n ${RG_GUEST_KEEP:-} ]]; then mkdir -p "$RG_GUEST_KEEP" && cp -a "$work/out/." "$RG_GUEST_KEEP/"; fi
python3 "$src/tests/arm64/check_guest.py" "$work/out" "$triggers" 2 || fail "checks failed"
echo "guest_suite: PASS"
