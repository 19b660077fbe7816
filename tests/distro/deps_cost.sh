#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What scripts/deps.sh installs on a pristine Debian system, and how long it takes: the packages
# it adds (dpkg's count before and after, all dependencies included) and the wall time, in an
# overlay over a cached `mmdebstrap --variant=apt` root (only apt: no git, no compiler).
# Usage (root): deps_cost.sh RELEASE DEPS.SH [ARGS...]   e.g. deps_cost.sh bookworm scripts/deps.sh run
# RG_COST_DIR (default /var/tmp/rgbench-deps-cost) keeps the base roots. Downloads go to the
# overlay's own apt cache: every measurement downloads every package (nothing is shared).
# Prints one line: "RELEASE ARGS: N packages added in S s (dpkg count A -> B)". Exit 0, 1, 2 usage.
set -euo pipefail
(($# >= 2)) || { echo "deps_cost.sh: usage: deps_cost.sh RELEASE DEPS.SH [ARGS...]" >&2; exit 2; }
rel=$1 deps=$2
shift 2
[[ $(id -u) == 0 ]] || { echo "deps_cost.sh: needs root (mmdebstrap, chroot, mounts)" >&2; exit 2; }
dir=${RG_COST_DIR:-/var/tmp/rgbench-deps-cost}
base=$dir/$rel-base
mkdir -p "$dir"
if [[ ! -e $base/.done ]]; then
  rm -rf "$base"
  mmdebstrap --quiet --variant=apt "$rel" "$base" >/dev/null
  touch "$base/.done"
fi
work=$(mktemp -d "$dir/run.XXXXXX")
root=$work/root
cleanup() {
  for m in $(awk -v d="$root/" 'index($2, d) == 1 { print $2 }' /proc/self/mounts | sort -r); do
    umount -l "$m" 2>/dev/null || true
  done
  umount -l "$root" 2>/dev/null || true
  rm -rf --one-file-system "$work"
}
trap cleanup EXIT
mkdir -p "$work/upper" "$work/ovl" "$root"
mount -t overlay overlay -o "lowerdir=$base,upperdir=$work/upper,workdir=$work/ovl" "$root"
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --bind /dev "$root/dev"
[[ -e $root/etc/resolv.conf ]] || touch "$root/etc/resolv.conf"
mount --bind /etc/resolv.conf "$root/etc/resolv.conf"
cp "$deps" "$root/tmp/deps.sh"
count() { chroot "$root" dpkg-query -W -f='${Status}\n' | grep -c 'install ok installed'; }
a=$(count)
t0=$(date +%s.%N)
env -i HOME=/root LANG=C.UTF-8 PATH=/usr/sbin:/usr/bin:/sbin:/bin chroot "$root" bash /tmp/deps.sh "$@" >"$work/log" 2>&1 ||
  { cat "$work/log" >&2; echo "deps_cost.sh: deps.sh failed in $rel" >&2; exit 1; }
t1=$(date +%s.%N)
b=$(count)
grep '^rgbench deps: installing' "$work/log" | cut -c1-300
printf '%s %s: %d packages added in %.0f s (dpkg count %d -> %d)\n' "$rel" "${*:-(no argument)}" $((b - a)) "$(echo "$t1 - $t0" | bc)" "$a" "$b"
