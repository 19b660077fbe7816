#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's two commands, exactly as written, in a Debian 12 arm64 system run through qemu-user, on a clean clone of the current commit.
#
# Usage: tests/arm64/native.sh [SRC_DIR]
#   RG_ARM64_CACHE    where the arm64 root filesystem is cached (default ~/.cache/rgbench;
#                     built once by tests/arm64/rootfs.sh, reused when present)
#   RG_ARM64_TIMEOUT  seconds for the two commands together (default 7200)
#   RG_ARM64_KEEP=DIR copy the run's logs and results/ there
# What it does: registers qemu-user-static with binfmt_misc, mounts the cached root
# filesystem read-only under a throw-away overlay (so every run starts from the same
# clean system), clones the current commit from a git bundle inside it, and runs
#   scripts/run.sh --quick
#   scripts/test.sh
# as root there. Under qemu-user there is no rseq, no bpf() and no perf_event_open, so
# those rows and tests must skip with their reasons, and no test may start qemu-system
# (vm.sh skips there). Timings printed inside are qemu's and mean nothing.
# Exit: 0 pass, 1 fail, 77 skipped (one line naming what is missing: root, binfmt_misc,
# qemu-user-static, mmdebstrap, no cache and no package access, overlayfs).
set -euo pipefail
src=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
. "$src/tests/arm64/lib.sh"
skip() { echo "arm64 native: SKIP: $*" >&2; exit 77; }
fail() { echo "arm64 native: FAIL: $*" >&2; exit 1; }

[[ $(uname -m) != aarch64 ]] || skip "this machine is arm64: run scripts/run.sh and scripts/test.sh directly"
[[ $(id -u) == 0 ]] || skip "needs root (binfmt_misc, chroot, mounts)"
commit=$(git -C "$src" rev-parse HEAD 2>/dev/null) || skip "$src is not a git checkout"
why=$(rg_binfmt_aarch64) || skip "$why"
set +e
rootfs=$(bash "$src/tests/arm64/rootfs.sh" "$src")
rc=$?
set -e
((rc == 77)) && exit 77
((rc == 0)) || fail "building the arm64 root filesystem failed"

work=$(mktemp -d /var/tmp/rgbench-arm64.XXXXXX)
root=$work/root
cleanup() {
  # Anything still running in the chroot (after a timeout) goes first, then the mounts.
  for p in /proc/[0-9]*; do
    [[ $(readlink "$p/root" 2>/dev/null) == "$root" ]] && kill -9 "${p#/proc/}" 2>/dev/null
  done
  for m in dev/pts dev proc sys; do umount -l "$root/$m" 2>/dev/null; done  # -l: whole subtree
  umount -l "$root" 2>/dev/null
  rm -rf --one-file-system "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir -p "$work/upper" "$work/ovl" "$root"
mount -t overlay overlay -o "lowerdir=$rootfs,upperdir=$work/upper,workdir=$work/ovl" "$root" ||
  skip "cannot mount an overlay over $rootfs (no overlayfs?)"
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
git -C "$src" bundle create "$root/root/rgbench.bundle" HEAD 2>/dev/null || fail "git bundle failed"

echo "arm64 native: Debian arm64 in $rootfs (qemu-user), commit ${commit:0:12}"
cat >"$root/root/run-readme.sh" <<EOF
set -u
cd /root
git -c advice.detachedHead=false clone -q rgbench.bundle rgbench || exit 10
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
set +e
timeout -k 30 "${RG_ARM64_TIMEOUT:-7200}" env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  chroot "$root" /bin/bash /root/run-readme.sh
rc=$?
set -e
((rc == 124 || rc == 137)) && fail "the two commands did not finish within ${RG_ARM64_TIMEOUT:-7200} s"
((rc == 10 || rc == 11)) && fail "cloning commit $commit inside the arm64 system failed"
((rc == 0)) || fail "the arm64 system could not run the commands (exit $rc)"
if [[ -n ${RG_ARM64_KEEP:-} ]]; then
  mkdir -p "$RG_ARM64_KEEP"
  cp "$root"/root/{run.log,test.log,times} "$RG_ARM64_KEEP/" 2>/dev/null || true
  cp -r "$root/root/rgbench/results" "$RG_ARM64_KEEP/" 2>/dev/null || true
fi
echo "arm64 native: $(cat "$root/root/times" 2>/dev/null) (under qemu-user)"
python3 "$src/tests/arm64/check_native.py" "$root/root" || fail "checks failed"
echo "arm64 native: PASS"
