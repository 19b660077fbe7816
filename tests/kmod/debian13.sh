#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The module's guest tests as a Debian 13 user runs them: in a cached Debian 13 (trixie) amd64 root, against its own kernel headers (6.12, or trixie-backports' with RG_KMOD13_KERNEL=backports), x86-64 and arm64.
#
# Usage: tests/kmod/debian13.sh [SRC_DIR]
#   RG_KMOD13_KERNEL  stable (default): trixie's linux-headers-amd64 (6.12), as installed in
#                     the root; backports: trixie-backports' linux-headers-amd64 installed
#                     first (whatever version backports has that day)
#   RG_KMOD13_ARM64   1 (default): also the aarch64 cross build and its arm64 guests; 0: not
#   RG_KMOD13_TESTS   the native tests to run (ctest -R; default the kmod guest and asm tests)
#   RG_ARM64_CACHE    where the root (tests/arm64/rootfs.sh: debian13-amd64, every package
#                     deps.sh --list test names, linux-headers-amd64 among them) and the guests'
#                     kernel packages (vm-debian13-<kernel>) are cached (default ~/.cache/rgbench)
#   RG_KMOD13_KEEP=DIR  copy the run's logs there
# What it does: mounts the cached root read-only under a throw-away overlay, clones the
# current commit inside it from a git bundle, and there, as root: apt-get update (the guests'
# kernel and arm64 header packages are fetched with apt-get download), cmake, build, and
#   ctest -R '^(kmod.asm|kmod.build|vm.selftest|kmod.qemu)$'               (native build)
#   ctest -R '^(kmod.asm_arm64|kmod.qemu_arm64|kmod.qemu_arm64_nolse)$'    (build-aarch64)
# so build_module.sh builds the module against that system's linux-headers-amd64 (arm64:
# the same ABI's arm64 headers, cross-compiled with trixie's gcc) and vm.sh boots the
# matching Debian kernel under qemu TCG. Every one of those tests must pass: a skip inside
# fails this test (it says which and why).
# Exit: 0 pass, 1 fail, 2 usage, 77 skipped (one line: root, overlayfs, no cache and no network).
set -euo pipefail
src=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
. "$src/tests/arm64/lib.sh"   # rg_overlay_root
me="kmod debian13"
skip() { echo "$me: SKIP: $*" >&2; exit 77; }
fail() { echo "$me: FAIL: $*" >&2; exit 1; }
kernel=${RG_KMOD13_KERNEL:-stable}
[[ $kernel == stable || $kernel == backports ]] ||
  { echo "$me: RG_KMOD13_KERNEL='$kernel': stable or backports" >&2; exit 2; }
arm64=${RG_KMOD13_ARM64:-1}
[[ $arm64 == 0 || $arm64 == 1 ]] || { echo "$me: RG_KMOD13_ARM64='$arm64': 0 or 1" >&2; exit 2; }
tests=${RG_KMOD13_TESTS:-'^(kmod.asm|kmod.build|vm.selftest|kmod.qemu)$'}

[[ $(uname -m) == x86_64 ]] || skip "the Debian 13 amd64 root runs on x86-64 machines only"
[[ $(id -u) == 0 ]] || skip "needs root (chroot, mounts)"
commit=$(git -C "$src" rev-parse HEAD 2>/dev/null) || skip "$src is not a git checkout"
set +e
rootfs=$(RG_ROOTFS_RELEASE=trixie RG_ROOTFS_ARCH=amd64 RG_ROOTFS_PRISTINE=0 bash "$src/tests/arm64/rootfs.sh" "$src")
rc=$?
set -e
((rc == 77)) && exit 77
((rc == 0)) || fail "building the Debian 13 amd64 root filesystem failed"
mirror=${RG_ARM64_MIRROR:-http://deb.debian.org/debian}
host=${mirror#*://}; host=${host%%/*}
timeout 20 bash -c "exec 3<>/dev/tcp/$host/80" 2>/dev/null ||
  skip "no package access ($host:80 unreachable): the guests' kernels are fetched with apt-get download"

cache=${RG_ARM64_CACHE:-$HOME/.cache/rgbench}
vmcache=$cache/vm-debian13-$kernel
mkdir -p "$vmcache"
rg_overlay_root "$rootfs" kmod13
[[ -e $root/etc/resolv.conf ]] || touch "$root/etc/resolv.conf"
mount --bind /etc/resolv.conf "$root/etc/resolv.conf"
mkdir -p "$root/root/.cache/rgbench-vm"
mount --bind "$vmcache" "$root/root/.cache/rgbench-vm"
git -C "$src" bundle create "$root/root/rgbench.bundle" HEAD 2>/dev/null || fail "git bundle failed"

echo "$me: Debian 13 amd64 in $rootfs, kernel headers: $kernel, arm64: $arm64, commit ${commit:0:12}"
cat >"$root/root/kmod13.sh" <<EOF
set -u
cd /root
step() { echo "== \$*"; }
step apt-get update
apt-get update -q >/root/apt.log 2>&1 || { echo "apt-get update failed"; exit 12; }
if [ $kernel = backports ]; then
  step "trixie-backports' linux-headers-amd64"
  echo "deb $mirror trixie-backports main" >/etc/apt/sources.list.d/backports.list
  { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q -t trixie-backports linux-headers-amd64; } \
    >>/root/apt.log 2>&1 || { echo "installing trixie-backports' linux-headers-amd64 failed"; exit 12; }
fi
dpkg-query -W -f='\${Package} \${Version}\n' linux-headers-amd64 gcc gcc-aarch64-linux-gnu qemu-system-x86 qemu-system-arm >/root/versions
git -c advice.detachedHead=false -c init.defaultBranch=main clone -q rgbench.bundle rgbench || exit 10
cd rgbench
[ "\$(git rev-parse HEAD)" = "$commit" ] || exit 11
t0=\$(date +%s)
step native build
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/root/configure.log 2>&1 && cmake --build build -j\$(nproc) >/root/build.log 2>&1 ||
  { tail -30 /root/configure.log /root/build.log; exit 13; }
step "ctest -R '$tests'"
ctest --test-dir build -R '$tests' --output-on-failure >/root/ctest.log 2>&1
echo \$? >/root/rc_native
t1=\$(date +%s)
echo "native \$((t1 - t0)) s" >/root/times
if [ $arm64 = 1 ]; then
  step aarch64 cross build
  cmake -S . -B build-aarch64 -DCMAKE_BUILD_TYPE=Release -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64.cmake \
    >/root/configure-aarch64.log 2>&1 && cmake --build build-aarch64 -j\$(nproc) >/root/build-aarch64.log 2>&1 ||
    { tail -30 /root/configure-aarch64.log /root/build-aarch64.log; exit 14; }
  step "ctest -R kmod arm64"
  ctest --test-dir build-aarch64 -R '^(kmod.asm_arm64|kmod.qemu_arm64|kmod.qemu_arm64_nolse)\$' --output-on-failure \
    >/root/ctest-aarch64.log 2>&1
  echo \$? >/root/rc_arm64
  t2=\$(date +%s)
  echo "arm64 \$((t2 - t1)) s" >>/root/times
fi
exit 0
EOF
set +e
timeout -k 30 "${RG_KMOD13_TIMEOUT:-7200}" env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  chroot "$root" /bin/bash /root/kmod13.sh
rc=$?
set -e
if [[ -n ${RG_KMOD13_KEEP:-} ]]; then
  mkdir -p "$RG_KMOD13_KEEP"
  cp "$root"/root/{apt.log,versions,times,configure*.log,build*.log,ctest*.log} "$RG_KMOD13_KEEP/" 2>/dev/null || true
fi
((rc == 124 || rc == 137)) && fail "did not finish within ${RG_KMOD13_TIMEOUT:-7200} s"
((rc == 10 || rc == 11)) && fail "cloning commit $commit inside the root failed"
((rc == 12)) && fail "apt inside the root failed (see apt.log; RG_KMOD13_KEEP=DIR keeps it)"
((rc == 13 || rc == 14)) && fail "the build inside the root failed"
((rc == 0)) || fail "the root could not run the tests (exit $rc)"
echo "$me: $(tr '\n' ' ' <"$root/root/versions")"
echo "$me: $(tr '\n' ',' <"$root/root/times")"
# Every named test must have run and passed: one not registered (a missing static link, no
# qemu), skipped or failed fails this test, with its name.
check() {	# check LOG RC_FILE WANT...
  local log=$1 rcv t bad=0
  rcv=$(cat "$2" 2>/dev/null || echo none)
  shift 2
  grep -E '^ *[0-9]+/[0-9]+ Test +#' "$log" | sed 's/^ */  /'
  for t in "$@"; do
    if ! grep -Eq "Test +#[0-9]+: $t \.+ +Passed" "$log"; then
      echo "$me: $t did not pass (not registered, skipped or failed)" >&2
      bad=1
    fi
  done
  grep -E 'SKIP' "$log" | sed 's/^/  /' >&2
  ((bad == 0)) || { tail -40 "$log" >&2; return 1; }
  [[ $rcv == 0 ]]
}
ok=1
# shellcheck disable=SC2046
check "$root/root/ctest.log" "$root/root/rc_native" $(tr -d '^$()' <<<"$tests" | tr '|' ' ') || ok=0
if [[ $arm64 == 1 ]]; then
  check "$root/root/ctest-aarch64.log" "$root/root/rc_arm64" kmod.asm_arm64 kmod.qemu_arm64 kmod.qemu_arm64_nolse || ok=0
fi
((ok == 1)) || fail "see above (RG_KMOD13_KEEP=DIR keeps the logs)"
echo "$me: PASS"
