#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Install everything rgbench needs on Debian 12 / Ubuntu (idempotent; root or sudo).
# Both quick-start commands call this first, so a fresh machine needs nothing else.
set -euo pipefail

native=(
  build-essential cmake pkg-config
  libbenchmark-dev libhwloc-dev hwloc libjansson-dev
  libbpf-dev bpftool clang llvm libelf-dev zlib1g-dev
  linux-source-6.1 flex bison bc xz-utils
  python3 python3-matplotlib python3-numpy python3-scipy
)
cross=(
  gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross
  binutils-aarch64-linux-gnu qemu-user
  libbenchmark-dev:arm64 libhwloc-dev:arm64 libjansson-dev:arm64
)
vm=(qemu-system-x86 qemu-system-arm busybox-static cpio linux-headers-amd64)

want=("${native[@]}")
[[ "${RG_DEPS_CROSS:-1}" == 1 ]] && want+=("${cross[@]}")
[[ "${RG_DEPS_VM:-1}" == 1 ]] && want+=("${vm[@]}")

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "rgbench deps: all ${#want[@]} packages present"
  exit 0
fi

SUDO=
if [[ $(id -u) != 0 ]]; then
  command -v sudo >/dev/null || { echo "rgbench deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  SUDO=sudo
fi
echo "rgbench deps: installing ${missing[*]}"
if [[ " ${missing[*]} " == *":arm64"* ]] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $SUDO dpkg --add-architecture arm64
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "rgbench deps: done"
