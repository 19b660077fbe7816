#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build (once) and print the path of a cached Debian root filesystem (arm64 by default) for the README-command tests.
#
# Usage: tests/arm64/rootfs.sh [SRC_DIR]     (SRC_DIR: the repository, default this script's)
#   RG_ROOTFS_RELEASE, RG_ROOTFS_ARCH, RG_ROOTFS_PRISTINE  which system (tests/arm64/lib.sh:
#                    bookworm or trixie, arm64 or amd64, with rgbench's packages or pristine;
#                    default Debian 12 arm64 with rgbench's packages)
#   RG_ARM64_CACHE   cache directory (default ~/.cache/rgbench)
#   RG_ARM64_MIRROR  Debian mirror (default http://deb.debian.org/debian)
# The root filesystem is made by mmdebstrap (through qemu-user-static for a foreign
# architecture) with every package `RG_DEPS_ARCH=<arch> scripts/deps.sh --list test` names (so
# scripts/deps.sh finds them all inside it and needs no network), or with only apt and git
# when pristine, and named by a hash of that list: e.g. debian12-arm64-<hash>,
# debian13-amd64-pristine-<hash>. It is built under a temporary name and renamed when
# complete, so an interrupted build is never reused. Needs root.
# Exit: 0 (path on stdout), 77 skipped (one line on stderr saying what is missing), 1 failed, 2 usage.
set -euo pipefail
src=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
. "$src/tests/arm64/lib.sh"
# The recipe: bump it when the way the root filesystem is made changes (part of the cache key).
recipe="variant=apt mmdebstrap v2"
rg_rootfs_params || exit 2
skip() { echo "$rg_rname rootfs: SKIP: $*" >&2; exit 77; }

cache=${RG_ARM64_CACHE:-$HOME/.cache/rgbench}
key=$(rg_rootfs_key "$src")
dir=$cache/$rg_rname-$key
if [[ -f $dir/.rg-complete ]]; then echo "$dir"; exit 0; fi

[[ $(id -u) == 0 ]] || skip "no cached root filesystem ($dir) and building one needs root"
command -v mmdebstrap >/dev/null || skip "mmdebstrap not installed (scripts/deps.sh installs it)"
if [[ $rg_rarch == arm64 && $(uname -m) != aarch64 ]]; then
  why=$(rg_binfmt_aarch64) || skip "$why"
elif [[ $rg_rarch == amd64 && $(uname -m) != x86_64 ]]; then
  skip "an amd64 root filesystem is made on an x86-64 machine only"
fi
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock -w 3600 9 || skip "another build of a root filesystem holds $cache/.lock"
if [[ -f $dir/.rg-complete ]]; then echo "$dir"; exit 0; fi   # built while we waited
# Holding the lock, any .tmp-* left here is from a build that died (killed, power cut): never
# used, removed now (--one-file-system: mmdebstrap may have left /proc or /dev mounted in it).
for stale in "$cache"/.tmp-$rg_rname-*; do
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

tmp=$cache/.tmp-$rg_rname-$key.$$
cleanup() { rm -rf --one-file-system "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
pkgs=$(rg_rootfs_pkgs "$src" | tr '\n' ',')
# Foreign architectures the list names (amd64's test list has arm64 libraries for the cross build).
arches=$rg_rarch
for a in $(tr ',' '\n' <<<"$pkgs" | sed -n 's/^[^:]*:\([a-z0-9]*\)$/\1/p' | sort -u); do
  [[ $a == "$rg_rarch" ]] || arches+=,$a
done
echo "$rg_rname rootfs: building $dir with mmdebstrap (once; minutes, more under qemu-user)" >&2
log=$cache/.build-$key.log
r=$rg_release
if ! mmdebstrap --arch="$arches" --variant=apt --include="${pkgs%,}" \
     --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
     --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
     "$r" "$tmp" \
     "deb $mirror $r main" "deb $mirror $r-updates main" \
     "deb ${mirror%/debian}/debian-security $r-security main" >"$log" 2>&1; then
  echo "$rg_rname rootfs: mmdebstrap failed; last lines of $log:" >&2
  tail -15 "$log" >&2
  exit 1
fi
printf '%s\n' "$recipe" "$pkgs" >"$tmp/.rg-complete"
mv -T "$tmp" "$dir"
trap - EXIT
echo "$dir"
