#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build rgbench_kmod.ko for amd64 or arm64 against the ABI of the installed linux-headers-amd64 (Debian 12: 6.1, 13: 6.12); print that ABI.
#
# Usage: build_module.sh amd64|arm64 SRC_DIR GEN_DIR OUT_DIR [VAR=VALUE]...
# SRC_DIR is the repository root; GEN_DIR the build's generated module files
# (RG_KMOD_GEN_DIR: rg_kguards.h). What kernel/kmod/module/Kbuild lists is
# copied from kernel/kmod/module, or from GEN_DIR when generated.
# amd64 uses the installed linux-headers-<abi>-amd64. arm64 fetches
# linux-headers-<abi>-arm64 with apt-get download (cached in RG_VM_CACHE,
# default ~/.cache/rgbench-vm), points its scripts/ at the host's
# linux-kbuild, and cross-compiles with aarch64-linux-gnu-.
# RG_KMOD_KDIR overrides the kernel build directory. VAR=VALUE words go to make
# (e.g. RG_FORCE_NO_JIT=1: the module's path for a kernel without BPF JIT, see Kbuild).
# Exit: 0 (stdout: the ABI, e.g. 6.1.0-57 or 6.12.118+deb13), 1 build failed or warned, 77 no headers/compiler.
set -euo pipefail
arch=$1; src=$2; gen=$3; out=$4
shift 4
extra=("$@")
skip() { echo "build_module: SKIP: $*" >&2; exit 77; }
fail() { echo "build_module: FAIL: $*" >&2; exit 1; }

abi=$(dpkg-query -W -f='${Depends}\n' linux-headers-amd64 2>/dev/null |
      grep -o 'linux-headers-[0-9][^ ,]*-amd64' | head -1 |
      sed -e 's/^linux-headers-//' -e 's/-amd64$//') || true
[[ -n $abi ]] || skip "linux-headers-amd64 is not installed"
# linux-kbuild-6.1 (ABI 6.1.0-N) on Debian 12, linux-kbuild-6.12.118+deb13 (the whole ABI) on 13
kbuild=/usr/lib/linux-kbuild-${abi%%.0-*}
make_args=()
kdir=${RG_KMOD_KDIR:-}
case $arch in
  amd64)
    [[ $(uname -m) == x86_64 ]] || skip "amd64 modules are built on x86_64 hosts here"
    [[ -n $kdir ]] || kdir=/usr/src/linux-headers-$abi-amd64 ;;
  arm64)
    command -v aarch64-linux-gnu-gcc >/dev/null || skip "no aarch64-linux-gnu-gcc"
    make_args=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
    if [[ -z $kdir ]]; then
      cache=${RG_VM_CACHE:-$HOME/.cache/rgbench-vm}
      hroot=$cache/linux-headers-$abi-arm64
      kdir=$hroot/usr/src/linux-headers-$abi-arm64
      [[ -d /usr/src/linux-headers-$abi-common ]] || skip "linux-headers-$abi-common is not installed"
      [[ -d $kbuild ]] || skip "$(basename "$kbuild") is not installed"
      # The fixture builds two modules at once, and ab/vm.sh shares the cache: one at a time
      # fetches and unpacks (the lock vm.sh takes), else on a fresh machine one build's
      # rm -rf removed the other's half-unpacked tree.
      mkdir -p "$cache"
      exec 8>"$cache/.lock"
      flock 8
      if [[ ! -f $hroot/.done ]]; then
        (cd "$cache" && rm -f linux-headers-"$abi"-arm64_*_arm64.deb &&
         apt-get download -q "linux-headers-$abi-arm64:arm64" >/dev/null 2>&1) ||
          skip "apt-get download linux-headers-$abi-arm64:arm64 failed"
        rm -rf "$hroot" && mkdir -p "$hroot/usr/lib"
        dpkg-deb -x "$cache"/linux-headers-"$abi"-arm64_*_arm64.deb "$hroot"
        # Its scripts/ link to ../../lib/linux-kbuild-X: use the host's build tools.
        ln -sfn "$kbuild" "$hroot/usr/lib/$(basename "$kbuild")"
        touch "$hroot/.done"
      fi
      flock -u 8; exec 8>&-
    fi ;;
  *) fail "arch must be amd64 or arm64" ;;
esac
[[ -f $kdir/Makefile ]] || skip "no kernel headers at $kdir"
# Debian's 7.x headers name their own directory absolutely (KBUILD_OUTPUT=/usr/src/...): an
# unpacked arm64 package is elsewhere, so say where (O= on the command line wins).
grep -q '^KBUILD_OUTPUT=' "$kdir/Makefile" && make_args+=(O="$kdir")

# The tests' compiler cache (scripts/test.sh exports CMAKE_C_COMPILER_LAUNCHER=ccache): the
# module's kbuild goes through it too (Debian's headers take DEBIAN_KERNEL_USE_CCACHE). kbuild
# compiles from the kernel's folder with the module's whole path on the command line, which
# ccache's base_dir cannot make the same for two clones: the build runs in a folder of the
# cache's own, the same for every clone (one build at a time there, under its lock), and its
# files are copied to OUT_DIR; a fresh clone of a commit built before then compiles nothing.
build=$out
if [[ ${CMAKE_C_COMPILER_LAUNCHER:-} == ccache ]] && command -v ccache >/dev/null; then
  make_args+=(DEBIAN_KERNEL_USE_CCACHE=1)
  key=$(printf '%s\n' "$arch" "$abi" "$kdir" "${extra[@]}" | md5sum | cut -c1-12)
  build=${HOME:-/tmp}/.cache/rgbench-kmod-build/$arch-$key
  mkdir -p "$(dirname "$build")"
  exec 9>"$build.lock"
  flock 9
fi

rm -rf "$out" "$build" && mkdir -p "$out" "$build"
mod=$src/kernel/kmod/module
for f in Kbuild $(sed -n -e 's/^rgbench_kmod-\(y\|headers\) :=//p' "$mod/Kbuild" | sed -e 's/\.o\b/.c/g'); do
  if [[ -f $mod/$f ]]; then cp "$mod/$f" "$build/"
  elif [[ -f $gen/$f ]]; then cp "$gen/$f" "$build/"
  else fail "$f (listed in $mod/Kbuild) is in neither $mod nor $gen"; fi
done
make -s -C "$kdir" M="$build" "${make_args[@]}" "${extra[@]}" modules >"$build/build.log" 2>&1 ||
  { cat "$build/build.log" >&2; fail "module build against $kdir failed"; }
if [[ $build != "$out" ]]; then
  cp -a "$build/." "$out/"
  rm -rf "$build"
  flock -u 9
  exec 9>&-
fi
if grep -iE 'warning|error' "$out/build.log" | grep -v 'Skipping BTF'; then
  fail "module build against $kdir warned"
fi
[[ -f $out/rgbench_kmod.ko ]] || fail "no rgbench_kmod.ko after the build"
echo "$abi"
