#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Install everything rgbench needs on Debian 12 / Ubuntu (idempotent; root or sudo).
# Both quick-start commands call this first, so a fresh machine needs nothing else.
#
# What is installed depends on this machine's architecture (dpkg --print-architecture):
#   amd64  native build + aarch64 cross toolchain and arm64 libraries (incl. libbpf for the
#          arm64 BPF bench) + qemu (user and system) for the aarch64 tests + mmdebstrap and
#          qemu-user-static for tests/arm64 (a Debian arm64 system under binfmt)
#   arm64  native build + the qemu/busybox/linux-headers-arm64 VM-test packages; no cross
#          toolchain and no qemu-user (they would only emulate what runs natively here)
# RG_DEPS_ARCH=arm64|amd64 picks another architecture's list (with --list);
# RG_DEPS_CROSS=0 / RG_DEPS_VM=0 leave out the cross / VM-test packages.
# `scripts/deps.sh --list` prints the package list, one a line, and installs nothing.
set -euo pipefail

arch=${RG_DEPS_ARCH:-$(dpkg --print-architecture 2>/dev/null || uname -m)}
case "$arch" in
  amd64|x86_64) arch=amd64 ;;
  arm64|aarch64) arch=arm64 ;;
  *) echo "rgbench deps: unsupported architecture '$arch' (amd64 or arm64)" >&2; exit 2 ;;
esac

native=(
  build-essential cmake pkg-config git
  libbenchmark-dev libhwloc-dev hwloc libjansson-dev
  libbpf-dev bpftool clang llvm libelf-dev zlib1g-dev
  linux-source-6.1 flex bison bc xz-utils
  python3 python3-matplotlib python3-numpy python3-scipy
)
cross=() vm=()
if [[ $arch == amd64 ]]; then
  cross=(
    gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross
    binutils-aarch64-linux-gnu qemu-user
    libbenchmark-dev:arm64 libhwloc-dev:arm64 libjansson-dev:arm64
    libbpf-dev:arm64 libelf-dev:arm64 zlib1g-dev:arm64
  )
  vm=(qemu-system-x86 qemu-system-arm busybox-static cpio linux-headers-amd64
      mmdebstrap qemu-user-static binfmt-support arch-test)
else
  # qemu-system-arm carries qemu-system-aarch64; the x86 guest tests do not run here.
  vm=(qemu-system-arm busybox-static cpio linux-headers-arm64)
fi

want=("${native[@]}")
[[ "${RG_DEPS_CROSS:-1}" == 1 ]] && want+=("${cross[@]}")
[[ "${RG_DEPS_VM:-1}" == 1 ]] && want+=("${vm[@]}")

if [[ ${1:-} == --list ]]; then
  printf '%s\n' "${want[@]}"
  exit 0
elif (($#)); then
  echo "rgbench deps: unknown argument '$1' (only --list)" >&2
  exit 2
fi
if [[ -n ${RG_DEPS_ARCH:-} && $arch != "$(dpkg --print-architecture 2>/dev/null)" ]]; then
  echo "rgbench deps: RG_DEPS_ARCH=$arch is for --list only; this machine is $(dpkg --print-architecture)" >&2
  exit 2
fi

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "rgbench deps: all ${#want[@]} packages present ($arch)"
  exit 0
fi

SUDO=
if [[ $(id -u) != 0 ]]; then
  command -v sudo >/dev/null || { echo "rgbench deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  SUDO=sudo
fi
echo "rgbench deps: installing ($arch) ${missing[*]}"
if [[ " ${missing[*]} " == *":arm64"* ]] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $SUDO dpkg --add-architecture arm64
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "rgbench deps: done"
