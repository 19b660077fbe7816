#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Functional test of rgbench_kmod.ko: build it against Debian's linux-headers, boot the matching kernel under qemu, load, run, check, unload.
#
# Usage: qemu_kmod.sh [--arch amd64|arm64] --progfd RG_PROGFD [--bpf RGBENCH_BPF_STATIC
#                     --report RGBENCH... [--vm-fentry DIR]] [--prebuilt DIR] SRC_DIR GEN_DIR RGBENCH_KMOD_STATIC [WORKDIR]
#   SRC_DIR               the repository root (kernel/kmod/module, tests/vm/vm.sh)
#   GEN_DIR               the build's generated module files (rg_kguards.h)
#   RGBENCH_KMOD_STATIC   statically linked rgbench-kmod for the guest's arch (or a dynamic
#                         one: its shared libraries and loader then go into the guest)
#   --progfd RG_PROGFD    tests/kmod/progfd.c, static, the guest's arch: programs of
#                         the wrong type written to debugfs prog, and the loaded ids
#   --bpf, --report       the trigger bench for the guest's arch (static, or dynamic with
#                         its libraries), and the command that runs rgbench on this host
#                         (with its emulator for a cross build): case K's calibration
#   --vm-fentry DIR       also run bpf.vm_fentry's payload in this boot (case V, after everything
#                         else; same kernel, same CPU model): its files (v_*) are left in DIR,
#                         emptied first, for tests/bpf/vm_fentry.sh --from DIR to check
#   --prebuilt DIR        the two modules already built by module_fixture.sh (DIR/mod, DIR/mod_nojit,
#                         the ABI in DIR/mod/abi: the tests' fixture kmod.module[_arm64]) instead
#                         of building them here; skipped (77) when DIR has none
# The module is built by build_module.sh (amd64: installed linux-headers;
# arm64: fetched linux-headers-<abi>-arm64, cross-compiled), twice: as it is,
# and with RG_FORCE_NO_JIT=1 (tramp.c's path for a kernel without BPF JIT), unless --prebuilt.
# bpftool (tests/vm/bpftool.sh) lists the loaded programs after every case;
# without one only the BPF_PROG_GET_NEXT_ID listing of rg-progfd does. RG_VM_CPU picks
# the guest CPU (arm64: max has LSE, cortex-a72 has not; the check then
# expects the LSE guards skipped). RG_VM_CACHE: see vm.sh.
# Exit: 0 pass, 1 fail, 77 skipped (no headers, compiler, qemu or kernel package).
# Timings measured under TCG are meaningless: only counts and statuses are checked.
set -euo pipefail
arch=amd64 progfd= bpf= report=() prebuilt= vm_fentry=
while [[ ${1:-} == --* ]]; do
  case $1 in
    --arch) arch=$2; shift 2 ;;
    --progfd) progfd=$2; shift 2 ;;
    --bpf) bpf=$2; shift 2 ;;
    --report) report=($2); shift 2 ;;
    --prebuilt) prebuilt=$2; shift 2 ;;
    --vm-fentry) vm_fentry=$2; shift 2 ;;
    *) echo "qemu_kmod: unknown option $1" >&2; exit 2 ;;
  esac
done
src=$(cd "$1" && pwd); gen=$2; tool=$3; work=${4:-}
skip() { echo "qemu_kmod: SKIP: $*" >&2; exit 77; }
fail() { echo "qemu_kmod: FAIL: $*" >&2; exit 1; }

[[ $(uname -m) == x86_64 ]] || skip "the guest tests run on x86_64 hosts"
[[ -x $tool ]] || fail "no $tool"
[[ -x $progfd ]] || fail "--progfd RG_PROGFD is required (cases U and the listings)"
[[ $arch == amd64 || $arch == arm64 ]] || fail "--arch must be amd64 or arm64"
[[ -z $vm_fentry || -n $bpf ]] || fail "--vm-fentry needs --bpf (its payload is the trigger bench)"
# (emptied now: a skip or a failed boot leaves nothing of an earlier run to check)
[[ -z $vm_fentry ]] || { rm -rf "$vm_fentry"; mkdir -p "$vm_fentry"; }

if [[ -z $work ]]; then work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
rm -rf "$work/mod" "$work/payload" "$work/out"
mkdir -p "$work/payload" "$work/out"
if [[ -n $prebuilt ]]; then
  mods=$prebuilt
  [[ -f $mods/mod/abi && -f $mods/mod/rgbench_kmod.ko && -f $mods/mod_nojit/rgbench_kmod.ko ]] ||
    skip "no module built in $mods (the build that makes it skipped: see kmod.module's output)"
  kver=$(cat "$mods/mod/abi")
else
  mods=$work
  set +e
  kver=$(bash "$src/tests/kmod/build_module.sh" "$arch" "$src" "$gen" "$work/mod")
  rc=$?
  set -e
  ((rc == 77)) && skip "cannot build the module here (see above)"
  ((rc == 0)) || fail "module build failed"
  bash "$src/tests/kmod/build_module.sh" "$arch" "$src" "$gen" "$work/mod_nojit" RG_FORCE_NO_JIT=1 >/dev/null ||
    fail "module build with RG_FORCE_NO_JIT=1 failed"
fi
mkdir -p "$work/payload/nojit"
cp "$mods/mod/rgbench_kmod.ko" "$tool" "$work/payload/"
cp "$mods/mod_nojit/rgbench_kmod.ko" "$work/payload/nojit/"
tool_name=$(basename "$tool")
cp "$progfd" "$work/payload/rg-progfd"
[[ -n $bpf ]] && cp "$bpf" "$work/payload/rgbench-bpf"
vm_libs=()
if bt=$(bash "$src/tests/vm/bpftool.sh" "$arch"); then
  read -r bt_bin bt_dirs <<<"$bt"
  cp "$bt_bin" "$work/payload/bpftool"
  vm_libs=(--libs "$bt_bin")
  [[ $bt_dirs == - ]] || vm_libs+=(--libdir "$bt_dirs")
else
  echo "qemu_kmod: no bpftool for $arch: the BPF_PROG_GET_NEXT_ID listing (rg-progfd ids) only" >&2
fi

# Guest: (A) busybox insmod/echo/cat/rmmod; (B) rgbench-kmod end to end
# (new option words); (C) a bad --guards value must fail and leave nothing
# loaded; (D) old spellings, --threads, duty work, 20 ms runs with interrupts
# off: nothing discarded; (F) the same with --irqs-on: ticks land, runs are
# discarded and re-run; (L) --ladder: every step of the build's ladders;
# (E) interrupted by SIGINT, (G) by SIGTERM; (T) the tramp scenario, (U) bad program
# fds and programs of the wrong type; (N) the module built with RG_FORCE_NO_JIT=1;
# (K) the real trigger bench beside T, for the calibration. After every case (and
# rmmod) bp lists the loaded BPF programs (bpftool, and rg-progfd's ids): none may be
# left. Each case says its letter first, so a console tail shows where a guest stopped.
cat >"$work/payload/guest.sh" <<GUEST
set -u
A=/sys/kernel/debug/rgbench_kmod
bp() {
  [ -x ./bpftool ] && ./bpftool -j prog show >/out/bpftool_\$1.json 2>&1
  [ -x ./rg-progfd ] && ./rg-progfd ids >/out/ids_\$1.txt 2>&1
  true
}
bp 0
./rg-progfd ids-with-one >/out/ids_control.txt 2>&1
echo '== A: insmod, run, rmmod'
insmod ./rgbench_kmod.ko loops=3000 runs=2 irq_iters=500 || echo insmod-failed >>/out/errors
cat \$A/guards >/out/guards.csv
echo 1 >\$A/run || echo run-failed >>/out/errors
cat \$A/results >/out/raw.csv
rmmod rgbench_kmod || echo rmmod-failed >>/out/errors
[ -d /sys/module/rgbench_kmod ] && echo still-loaded-A >>/out/errors
bp A

echo '== B: end to end'
./$tool_name --module ./rgbench_kmod.ko --batch 3000 --repetitions 3 --irq-iters 500 \
  --out /out/kmod.csv --json /out/kmod.json --raw /out/raw2.csv >/out/table.txt 2>/out/b.err
echo \$? >/out/rc_b
[ -d /sys/module/rgbench_kmod ] && echo still-loaded-B >>/out/errors
bp B

echo '== C: bad input'
./$tool_name --module ./rgbench_kmod.ko --guards rctx-kernel,no-such-guard --out /out/bad.csv 2>/out/c.err
echo \$? >/out/rc_c
./$tool_name --module ./rgbench_kmod.ko --guards rctx-kernel,rctx-kernel --out /out/bad.csv 2>>/out/c.err
echo \$? >/out/rc_c2
./$tool_name --module ./rgbench_kmod.ko --cpus 0-1 --threads 3 --out /out/bad.csv 2>>/out/c.err
echo \$? >/out/rc_c3
[ -d /sys/module/rgbench_kmod ] && echo still-loaded-C >>/out/errors
[ -e /out/bad.csv ] && echo bad-output-written >>/out/errors
bp C

echo '== D: interrupts off, duty, 2 CPUs'
./$tool_name --module ./rgbench_kmod.ko --guards rctx-kernel,noop,global-atomic --cpus 0-1 --threads 1 \
  --duration 0.02 --runs 2 --irqs-off --duty-ns 50 --irq-iters 100 --quiet --out /out/d.csv \
  --raw /out/raw_d.csv 2>/out/d.err
echo \$? >/out/rc_d
[ -d /sys/module/rgbench_kmod ] && echo still-loaded-D >>/out/errors
bp D
echo '== F: interrupts on'
./$tool_name --module ./rgbench_kmod.ko --guards noop,rctx-kernel --cpus 1 --duration 0.03 \
  --repetitions 2 --irqs-on --irq-iters 0 --quiet --out /out/f.csv --raw /out/raw_f.csv 2>/out/f.err
echo \$? >/out/rc_f
[ -d /sys/module/rgbench_kmod ] && echo still-loaded-F >>/out/errors
bp F
echo '== L: the ladder'
./$tool_name --module ./rgbench_kmod.ko --ladder --cpus 0 --batch 2000 --repetitions 2 --irq-iters 0 \
  --quiet --out /out/l.csv --raw /out/raw_l.csv 2>/out/l.err
echo \$? >/out/rc_l
[ -d /sys/module/rgbench_kmod ] && echo still-loaded-L >>/out/errors
bp L
# signal_case LETTER letter SIGNAL DELAY_US ERRFILE ARGS...: the driver with ARGS in the
# background; once the module is loaded, SIGNAL after DELAY_US; its exit code goes
# to /out/rc_<letter>, and the module must be gone after it.
signal_case() {
  l=\$1 lc=\$2 sig=\$3 delay=\$4 err=\$5
  shift 5
  ./$tool_name "\$@" 2>\$err &
  pid=\$!
  n=0
  while [ ! -d /sys/module/rgbench_kmod ] && [ \$n -lt 500 ]; do usleep 20000; n=\$((n + 1)); done
  [ -d /sys/module/rgbench_kmod ] || echo never-loaded-\$l >>/out/errors
  usleep \$delay
  kill -\$sig \$pid
  wait \$pid
  echo \$? >/out/rc_\$lc
  [ -d /sys/module/rgbench_kmod ] && echo still-loaded-\$l >>/out/errors
  bp \$l
}
echo '== E: SIGINT'
# (E) SIGINT while the module runs (duty work keeps it busy for seconds): the
# signal waits until the module is unloaded, then exit 130 and no output file.
signal_case E e INT 300000 /out/e.err --module ./rgbench_kmod.ko --guards noop,rctx-kernel \
  --loops 100000 --runs 5 --duty-ns 1000 --irq-iters 10 --quiet --out /out/int.csv
echo '== G: SIGTERM'
# (G) the same with SIGTERM: exit 128 + 15.
# (20 runs: busy for seconds even on a fast or unloaded host, so the signal lands mid-run)
signal_case G g TERM 200000 /out/g.err --module ./rgbench_kmod.ko --guards noop --loops 100000 \
  --runs 20 --duty-ns 1000 --irq-iters 0 --quiet --out /out/term.csv
echo '== T: tramp'
# (T) the tramp scenario: the driver loads the trigger bench's raw_tp program,
# the module runs it through the trampoline's path under every design.
./$tool_name --module ./rgbench_kmod.ko --scenarios tramp --batch 2000 --repetitions 2 \
  --irq-iters 200 --out /out/t.csv --json /out/t.json --raw /out/raw_t.csv >/out/t_table.txt 2>/out/t.err
echo \$? >/out/rc_t
[ -d /sys/module/rgbench_kmod ] && echo still-loaded-T >>/out/errors
bp T
echo '== U: tramp, bad program fds'
# (U) what is not a BPF program is refused with an error; nothing is held.
insmod ./rgbench_kmod.ko scenarios=tramp loops=100 runs=1 irq_iters=0 || echo insmod-failed-U >>/out/errors
echo '0 0 128 64' >\$A/prog 2>/dev/null && echo stdin-accepted-as-prog >>/out/errors
echo '987 0 128 64' >\$A/prog 2>/dev/null && echo bad-fd-accepted >>/out/errors
echo 'no numbers' >\$A/prog 2>/dev/null && echo garbage-accepted >>/out/errors
# programs of the wrong type (and an fd of no program), loaded by rg-progfd: EINVAL each
for k in socket tracepoint rawtp-nobss notbpf; do
  ./rg-progfd \$k \$A/prog >>/out/progfd.txt 2>&1
  echo "\$k rc \$?" >>/out/progfd.txt
done
bp U-loaded
echo 1 >\$A/run || echo run-failed-U >>/out/errors
cat \$A/results >/out/raw_u.csv
rmmod rgbench_kmod || echo rmmod-failed-U >>/out/errors
bp U
echo '== N: the module built with RG_FORCE_NO_JIT=1'
# (N) the path of a kernel without BPF JIT: the driver's program refused
# (EOPNOTSUPP), one line said, the loop rows run, the tramp rows skipped saying why.
./$tool_name --module ./nojit/rgbench_kmod.ko --scenarios loop,tramp --guards noop,rctx-kernel \
  --batch 1000 --repetitions 2 --irq-iters 20 --quiet --out /out/n.csv --raw /out/raw_n.csv 2>/out/n.err
echo \$? >/out/rc_n
[ -d /sys/module/rgbench_kmod ] && echo still-loaded-N >>/out/errors
bp N
if [ -x ./rgbench-bpf ]; then
  echo '== K: the real trigger bench beside T'
  # (K) fentry and raw_tp for real on this boot (6.1 allows fentry), short timed
  # samples (the report reads delta_ns over the baseline; TCG times mean nothing).
  ./rgbench-bpf --mode syscall,driver --attach fentry,raw_tp --duration 0.1 --warmup 0.05 \
    --repetitions 3 --quiet --json /out/k_bpf.json 2>/out/k.err
  echo \$? >/out/rc_k
  bp K
fi
dmesg >/out/dmesg.txt
if [ -n "$vm_fentry" ]; then
  echo '== V: bpf.vm_fentry (its files v_*; checked by tests/bpf/vm_fentry.sh)'
  # (after dmesg and the last listing: the module's checks see only their own cases)
  uname -r >/out/v_release
  ./rgbench-bpf --mode all --triggers 2000 --batch 100 -p 2 --out /out/v_bpf.csv --json /out/v_bpf.json >/out/v_run.txt 2>&1
  echo "rgbench-bpf exit \$?" >>/out/v_run.txt
  ./rgbench-bpf --mode driver --attach fentry --duration 0.2 --repetitions 3 --warmup 0.1 --out /out/v_timed.csv >>/out/v_run.txt 2>&1
  echo "rgbench-bpf timed exit \$?" >>/out/v_run.txt
fi
true
GUEST

set +e
# A dynamic rgbench-kmod or trigger bench (Debian 13: libelf.a does not link statically)
# takes its libraries into the guest, as bpftool does.
for b in "$tool" ${bpf:+"$bpf"}; do
  readelf -lW "$b" 2>/dev/null | grep -q 'program interpreter' && vm_libs+=(--libs "$b")
done
bash "$src/tests/vm/vm.sh" --arch "$arch" --kver "$kver" --payload "$work/payload" --out "$work/out" \
  "${vm_libs[@]}" --timeout 500 --smp 2 -- sh ./guest.sh
rc=$?
set -e
((rc == 77)) && skip "vm.sh could not boot a guest"
((rc == 0)) || fail "guest run failed (vm.sh exit $rc)"
if [[ -n $vm_fentry ]]; then
  cp "$work"/out/v_* "$vm_fentry/" 2>/dev/null || true
  echo "qemu_kmod: case V's files (bpf.vm_fentry) in $vm_fentry"
fi

# (a dynamic arm64 tool runs against the cross glibc, as the cross build's ctest runs it)
conv=("$tool"); [[ $arch == amd64 ]] || conv=(qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib
	-E QEMU_LD_PREFIX=/usr/aarch64-linux-gnu "$tool")	# cmake/toolchain-aarch64.cmake says why
lse=1; [[ $arch == arm64 && ${RG_VM_CPU:-max} != max ]] && lse=0
python3 "$src/tests/kmod/check_kmod.py" "$work/out" "$arch" "$lse" "$gen/rg_kguards.h" "$kver" "${conv[@]}" || fail "checks failed (files in $work/out)"
# The tramp cases (T, U, N), the listings of loaded programs, and K's calibration.
python3 "$src/tests/kmod/check_tramp.py" "$work/out" "$arch" "$lse" "$gen/rg_kguards.h" "$kver" \
  "${report[*]:-}" || fail "tramp checks failed (files in $work/out)"
echo "qemu_kmod: PASS"
