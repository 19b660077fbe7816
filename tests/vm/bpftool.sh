#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Print a bpftool for a guest of ARCH and a directory of the libraries it needs that the host's vm.sh search path lacks.
#
# Usage: tests/vm/bpftool.sh amd64|arm64
# Prints one line "BPFTOOL LIBDIRS" (LIBDIRS: directories joined by ":", "-" when none is
# needed); pass BPFTOOL in the payload and to vm.sh --libs, LIBDIRS to vm.sh --libdir.
#   amd64  Debian's bpftool package (/usr/sbin/bpftool; it needs libelf, libz, libcap).
#   arm64  bpftool:arm64 with libelf1, zlib1g and libcap2 :arm64, fetched with
#          apt-get download and unpacked once into RG_VM_CACHE (default
#          ~/.cache/rgbench-vm), as vm.sh fetches the arm64 kernel; nothing installed.
# Exit: 0; 77 when there is none (not installed, or not to be fetched).
set -euo pipefail
arch=${1:-}
skip() { echo "bpftool.sh: SKIP: $*" >&2; exit 77; }
case $arch in
  amd64)
    [[ $(dpkg --print-architecture 2>/dev/null) == amd64 ]] || skip "amd64 bpftool only on amd64 hosts"
    [[ -x /usr/sbin/bpftool ]] || skip "bpftool is not installed (Debian: apt-get install bpftool)"
    echo "/usr/sbin/bpftool -" ;;
  arm64)
    cache=${RG_VM_CACHE:-$HOME/.cache/rgbench-vm}
    dir=$cache/bpftool-arm64
    mkdir -p "$cache"
    exec 8>"$cache/.lock-bpftool"
    flock 8
    if [[ ! -f $dir/.done ]]; then
      rm -rf "$dir" && mkdir -p "$dir/debs"
      (cd "$dir/debs" && apt-get download -q bpftool:arm64 libelf1:arm64 zlib1g:arm64 libcap2:arm64 \
         >/dev/null 2>&1) || skip "apt-get download bpftool:arm64 (and libelf1, zlib1g, libcap2) failed"
      for d in "$dir"/debs/*.deb; do dpkg-deb -x "$d" "$dir/root"; done
      touch "$dir/.done"
    fi
    bin=$dir/root/usr/sbin/bpftool
    [[ -x $bin ]] || skip "no usr/sbin/bpftool in bpftool:arm64"
    # The libraries' directories (merged /usr or not).
    [[ -n $(find "$dir/root" -name 'libcap.so.2*') ]] || skip "no libcap.so.2 in libcap2:arm64"
    echo "$bin $dir/root/lib/aarch64-linux-gnu:$dir/root/usr/lib/aarch64-linux-gnu" ;;
  *) echo "bpftool.sh: ARCH must be amd64 or arm64" >&2; exit 2 ;;
esac
