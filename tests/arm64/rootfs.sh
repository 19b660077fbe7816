#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build (once) and print the path of a cached Debian 12 arm64 root filesystem with rgbench's arm64 packages.
#
# Usage: tests/arm64/rootfs.sh [SRC_DIR]     (SRC_DIR: the repository, default this script's)
#   RG_ARM64_CACHE   cache directory (default ~/.cache/rgbench)
#   RG_ARM64_MIRROR  Debian mirror (default http://deb.debian.org/debian)
# The root filesystem is Debian 12 (bookworm) for arm64 made by mmdebstrap through
# qemu-user-static, with every package `RG_DEPS_ARCH=arm64 scripts/deps.sh --list` names
# (so scripts/deps.sh finds them all inside it and needs no network), named by a hash of that
# list: debian12-arm64-<hash>. It is built under a temporary name and renamed when complete,
# so an interrupted build is never reused. Needs root.
# Exit: 0 (path on stdout), 77 skipped (one line on stderr saying what is missing), 1 failed.
set -euo pipefail
src=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
. "$src/tests/arm64/lib.sh"
# The recipe: bump it when the way the root filesystem is made changes (part of the cache key).
recipe="bookworm arm64 variant=apt mmdebstrap v1"
skip() { echo "arm64 rootfs: SKIP: $*" >&2; exit 77; }

cache=${RG_ARM64_CACHE:-$HOME/.cache/rgbench}
key=$(rg_rootfs_key "$src")
dir=$cache/debian12-arm64-$key
if [[ -f $dir/.rg-complete ]]; then echo "$dir"; exit 0; fi

[[ $(id -u) == 0 ]] || skip "no cached root filesystem ($dir) and building one needs root"
command -v mmdebstrap >/dev/null || skip "mmdebstrap not installed (scripts/deps.sh installs it)"
if [[ $(uname -m) != aarch64 ]]; then
  why=$(rg_binfmt_aarch64) || skip "$why"
fi
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock -w 3600 9 || skip "another build of the arm64 root filesystem holds $cache/.lock"
if [[ -f $dir/.rg-complete ]]; then echo "$dir"; exit 0; fi   # built while we waited
# Holding the lock, any .tmp-* left here is from a build that died (killed, power cut): never
# used, removed now (--one-file-system: mmdebstrap may have left /proc or /dev mounted in it).
for stale in "$cache"/.tmp-debian12-arm64-*; do
  [[ -e $stale ]] || continue
  for m in $(awk -v d="$stale/" 'index($2, d) == 1 { print $2 }' /proc/self/mounts | sort -r); do
    umount -l "$m" 2>/dev/null
  done
  rm -rf --one-file-system "$stale"
done

mirror=${RG_ARM64_MIRROR:-http://deb.debian.org/debian}
host=${mirror#*://}; host=${host%%/*}
timeout 20 bash -c "exec 3<>/dev/tcp/$host/80" 2>/dev/null ||
  skip "no cached root filesystem and no package access ($host:80 unreachable)"

tmp=$cache/.tmp-debian12-arm64-$key.$$
cleanup() { rm -rf --one-file-system "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
pkgs=$(RG_DEPS_ARCH=arm64 bash "$src/scripts/deps.sh" --list | tr '\n' ',')
echo "arm64 rootfs: building $dir with mmdebstrap (once; minutes, under qemu-user)" >&2
log=$cache/.build-$key.log
if ! mmdebstrap --arch=arm64 --variant=apt --include="${pkgs%,}" \
     --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
     --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
     bookworm "$tmp" \
     "deb $mirror bookworm main" "deb $mirror bookworm-updates main" \
     "deb ${mirror%/debian}/debian-security bookworm-security main" >"$log" 2>&1; then
  echo "arm64 rootfs: mmdebstrap failed; last lines of $log:" >&2
  tail -15 "$log" >&2
  exit 1
fi
printf '%s\n' "$recipe" "$pkgs" >"$tmp/.rg-complete"
mv -T "$tmp" "$dir"
trap - EXIT
echo "$dir"
