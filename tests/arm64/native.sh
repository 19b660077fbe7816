#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's two commands, exactly as written, in a Debian system (arm64 through qemu-user by default) on a clean clone of the current commit.
#
# Usage: tests/arm64/native.sh [SRC_DIR]
#   RG_ROOTFS_RELEASE bookworm (default) or trixie; RG_ROOTFS_ARCH arm64 (default) or amd64;
#   RG_ROOTFS_PRISTINE=1 a system with only apt and git, where deps.sh installs the rest from
#                     the network (tests/distro: Debian 13 amd64); see tests/arm64/lib.sh
#   RG_ARM64_CACHE    where the root filesystems are cached (default ~/.cache/rgbench;
#                     built once by tests/arm64/rootfs.sh, reused when present; a pristine
#                     system's downloaded packages are kept there too)
#   RG_ARM64_TIMEOUT  seconds for the two commands together (default 7200)
#   RG_ARM64_KEEP=DIR copy the run's logs and results/ there
#   RG_TEST_CROSS, RG_TEST_SANITIZE, RG_TEST_ARGS  passed to scripts/test.sh inside when set
# What it does: registers qemu-user-static with binfmt_misc (arm64), mounts the cached root
# filesystem read-only under a throw-away overlay (so every run starts from the same
# clean system), clones the current commit from a git bundle inside it, and runs
#   scripts/run.sh --quick
#   scripts/test.sh
# as root there, then checks what they left (arm64: check_native.py; amd64:
# tests/distro/check.py). Under qemu-user there is no rseq, no bpf() and no perf_event_open,
# so those rows and tests must skip with their reasons, and no test may start qemu-system
# (vm.sh skips there). Timings printed inside are qemu's and mean nothing.
# Exit: 0 pass, 1 fail, 2 usage, 77 skipped (one line naming what is missing: root,
# binfmt_misc, qemu-user-static, mmdebstrap, no cache and no package access, overlayfs).
set -euo pipefail
src=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
. "$src/tests/arm64/lib.sh"
rg_rootfs_params || exit 2
me="$rg_rname native"
skip() { echo "$me: SKIP: $*" >&2; exit 77; }
fail() { echo "$me: FAIL: $*" >&2; exit 1; }

case "$rg_rarch:$(uname -m)" in
  arm64:aarch64) skip "this machine is arm64: run scripts/run.sh and scripts/test.sh directly" ;;
  amd64:x86_64|arm64:*) ;;
  *) skip "an amd64 system runs on an x86-64 machine only" ;;
esac
[[ $(id -u) == 0 ]] || skip "needs root (binfmt_misc, chroot, mounts)"
commit=$(git -C "$src" rev-parse HEAD 2>/dev/null) || skip "$src is not a git checkout"
if [[ $rg_rarch == arm64 ]]; then
  why=$(rg_binfmt_aarch64) || skip "$why"
fi
set +e
rootfs=$(bash "$src/tests/arm64/rootfs.sh" "$src")
rc=$?
set -e
((rc == 77)) && exit 77
((rc == 0)) || fail "building the $rg_rname root filesystem failed"

rg_overlay_root "$rootfs" "$rg_rname"
if [[ $rg_pristine == 1 ]]; then
  # deps.sh installs from the network there: the host's resolver, and downloaded packages
  # kept across runs (the system itself stays pristine: they are only apt's cache).
  archives=${RG_ARM64_CACHE:-$HOME/.cache/rgbench}/apt-archives-$rg_rname
  mkdir -p "$archives/partial"
  mount --bind "$archives" "$root/var/cache/apt/archives"
  [[ -e $root/etc/resolv.conf ]] || touch "$root/etc/resolv.conf"
  mount --bind /etc/resolv.conf "$root/etc/resolv.conf"
fi
git -C "$src" bundle create "$root/root/rgbench.bundle" HEAD 2>/dev/null || fail "git bundle failed"
# The commit the bundle holds: the checkout may have moved on since $commit was read (a
# commit made while the root filesystem was being built failed the clone's check).
commit=$(git bundle list-heads "$root/root/rgbench.bundle" | awk '$2 == "HEAD" { print $1 }')
[[ -n $commit ]] || fail "the git bundle names no HEAD"

how=chroot
[[ $rg_rarch == arm64 && $(uname -m) != aarch64 ]] && how=qemu-user
echo "$me: Debian $rg_debver $rg_rarch in $rootfs ($how), commit ${commit:0:12}"
cat >"$root/root/run-readme.sh" <<EOF
set -u
cd /root
git -c advice.detachedHead=false -c init.defaultBranch=main clone -q rgbench.bundle rgbench || exit 10
cd rgbench
[ "\$(git rev-parse HEAD)" = "$commit" ] || exit 11
t0=\$(date +%s)
scripts/run.sh --quick >/root/run.log 2>&1
echo \$? >/root/rc_run
t1=\$(date +%s)
scripts/test.sh >/root/test.log 2>&1
echo \$? >/root/rc_test
t2=\$(date +%s)
echo "run.sh --quick \$((t1 - t0)) s, test.sh \$((t2 - t1)) s" >/root/times
EOF
pass=()
for v in RG_TEST_CROSS RG_TEST_SANITIZE RG_TEST_ARGS; do
  [[ -n ${!v+set} ]] && pass+=("$v=${!v}")
done
set +e
timeout -k 30 "${RG_ARM64_TIMEOUT:-7200}" env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "${pass[@]}" \
  chroot "$root" /bin/bash /root/run-readme.sh
rc=$?
set -e
((rc == 124 || rc == 137)) && fail "the two commands did not finish within ${RG_ARM64_TIMEOUT:-7200} s"
((rc == 10 || rc == 11)) && fail "cloning commit $commit inside the $rg_rname system failed"
((rc == 0)) || fail "the $rg_rname system could not run the commands (exit $rc)"
if [[ -n ${RG_ARM64_KEEP:-} ]]; then
  mkdir -p "$RG_ARM64_KEEP"
  cp "$root"/root/{run.log,test.log,times} "$RG_ARM64_KEEP/" 2>/dev/null || true
  cp -r "$root/root/rgbench/results" "$RG_ARM64_KEEP/" 2>/dev/null || true
fi
echo "$me: $(cat "$root/root/times" 2>/dev/null) ($how)"
if [[ $rg_rarch == arm64 ]]; then
  python3 "$src/tests/arm64/check_native.py" "$root/root" || fail "checks failed"
else
  python3 "$src/tests/distro/check.py" "$root/root" "$rg_debver" || fail "checks failed"
fi
echo "$me: PASS"
