#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bpf.kbench_arm64 (opt-in, RG_TEST_KBENCH=1): build.sh --arch arm64 cross-builds the kernel's bench
# for arm64 guests: an AArch64 program linked static (no loader, no shared library), whose BPF
# objects are arm64's (fentry and kprobe on __arm64_sys_getpgid, trig-rawtp filtering on
# arm64's __NR_getpgid, 155, not x86-64's 121); a --btf without BTF is one line, exit 2.
# usage: arm64.sh   (a build once, about a minute and a half here; cached after)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [[ "${RG_TEST_KBENCH:-0}" != 1 ]]; then
  echo "SKIP: opt-in, set RG_TEST_KBENCH=1 (cross-builds the kernel's bench for arm64 from linux-source, ~2 min once)"
  exit 77
fi
fails=0
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
bench=$(bash "$here/build.sh" --arch arm64)
rc=$?
if [[ $rc == 77 ]]; then
  echo "SKIP: the arm64 bench cannot be built here (the line above says why)"
  exit 77
fi
[[ $rc == 0 && -x $bench ]] || { echo "FAIL: build.sh --arch arm64 exit $rc"; exit 1; }
m=$(LC_ALL=C readelf -h "$bench" | sed -n 's/^ *Machine: *//p')
[[ $m == AArch64 ]] && ok "$bench: an AArch64 program" || fail "$bench: Machine '$m'"
if LC_ALL=C readelf -lW "$bench" | grep -q 'INTERP' || LC_ALL=C readelf -dW "$bench" 2>/dev/null | grep -q NEEDED; then
  fail "not static: $(LC_ALL=C readelf -dW "$bench" | grep NEEDED | head -3)"
else ok "static: no program interpreter, no shared library needed"; fi
obj=$(dirname "$bench")/trigger_bench.bpf.o
secs=$(llvm-objdump -h "$obj" 2>/dev/null)
for s in fentry/__arm64_sys_getpgid kprobe/__arm64_sys_getpgid fmod_ret/__arm64_sys_getpgid raw_tp/sys_enter; do
  grep -q " $s\b" <<<"$secs" && ok "trigger_bench.bpf.o: section $s" || fail "trigger_bench.bpf.o: no section $s"
done
# trig-rawtp's program compares the syscall id with __NR_getpgid: arm64's (asm-generic) 155
raw=$(llvm-objdump -d --section=raw_tp/sys_enter "$obj" 2>/dev/null)
grep -qE '!= 155 goto' <<<"$raw" && ok "trig-rawtp filters on arm64's __NR_getpgid (155)" ||
  fail "trig-rawtp's filter: $(grep -E 'goto' <<<"$raw" | head -2)"
err=$(bash "$here/build.sh" --arch arm64 --btf /etc/hostname 2>&1 >/dev/null)
rc=$?
last=$(tail -1 <<<"$err")
[[ $rc == 2 && $last == "kbench: --btf: '/etc/hostname' is neither BTF nor a kernel image holding it" ]] &&
  ok "--btf without BTF: exit 2" || fail "--btf /etc/hostname: exit $rc, '$err'"
echo "bpf.kbench_arm64: $( ((fails)) && echo "$fails FAILED" || echo PASS)"
((fails == 0))
