# SPDX-License-Identifier: MIT
# Shared helpers of the root filesystem tests (sourced): binfmt_misc set-up for qemu-user, the rootfs parameters and cache key, and the throw-away overlay a test chroots into.

# rg_binfmt_aarch64: make sure aarch64 ELF files run through qemu-user-static with the
# F (fix binary) flag, so they also run inside a chroot that has no qemu binary.
# Prints nothing on success; on failure prints one line saying what is missing and returns 1.
rg_binfmt_aarch64() {
  local bm=/proc/sys/fs/binfmt_misc conf=/usr/lib/binfmt.d/qemu-aarch64.conf
  if [[ ! -e $bm/status ]]; then
    mount -t binfmt_misc binfmt_misc "$bm" 2>/dev/null ||
      { echo "binfmt_misc is not mounted and cannot be mounted (not root, or no CONFIG_BINFMT_MISC)"; return 1; }
  fi
  if [[ ! -e $bm/qemu-aarch64 ]]; then
    [[ -r $conf ]] || { echo "qemu-user-static is not installed (no $conf)"; return 1; }
    if command -v update-binfmts >/dev/null && [[ -e /usr/share/binfmts/qemu-aarch64 ]]; then
      update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
    fi
    [[ -e $bm/qemu-aarch64 ]] || grep -v '^#' "$conf" >"$bm/register" 2>/dev/null ||
      { echo "cannot register qemu-aarch64 with binfmt_misc"; return 1; }
  fi
  grep -qx enabled "$bm/qemu-aarch64" ||
    { echo "binfmt_misc entry qemu-aarch64 is disabled (update-binfmts --enable qemu-aarch64)"; return 1; }
  grep -q '^flags:.*F' "$bm/qemu-aarch64" ||
    { echo "binfmt_misc entry qemu-aarch64 lacks the F flag (qemu-user-binfmt instead of qemu-user-static?)"; return 1; }
  return 0
}

# rg_rootfs_params: check and complete the root filesystem's parameters (environment):
#   RG_ROOTFS_RELEASE  bookworm or trixie (12 and 13 work too; default bookworm)
#   RG_ROOTFS_ARCH     arm64 or amd64 (default arm64)
#   RG_ROOTFS_PRISTINE 1: only apt and git (the user's fresh system: deps.sh installs the rest
#                      from the network); default 0: every package deps.sh --list names for
#                      that architecture, so deps.sh finds them all and needs no network
# Sets rg_release (codename), rg_debver (12, 13), rg_rarch, rg_pristine, rg_rname
# (debian13-amd64[-pristine]); prints one line on stderr and returns 2 on a bad value.
rg_rootfs_params() {
  case "${RG_ROOTFS_RELEASE:-bookworm}" in
    bookworm|12) rg_release=bookworm rg_debver=12 ;;
    trixie|13) rg_release=trixie rg_debver=13 ;;
    *) echo "rootfs: RG_ROOTFS_RELEASE='$RG_ROOTFS_RELEASE': bookworm (12) or trixie (13)" >&2; return 2 ;;
  esac
  case "${RG_ROOTFS_ARCH:-arm64}" in
    arm64|amd64) rg_rarch=${RG_ROOTFS_ARCH:-arm64} ;;
    *) echo "rootfs: RG_ROOTFS_ARCH='$RG_ROOTFS_ARCH': arm64 or amd64" >&2; return 2 ;;
  esac
  case "${RG_ROOTFS_PRISTINE:-0}" in
    0|1) rg_pristine=${RG_ROOTFS_PRISTINE:-0} ;;
    *) echo "rootfs: RG_ROOTFS_PRISTINE='$RG_ROOTFS_PRISTINE': 0 or 1" >&2; return 2 ;;
  esac
  rg_rname=debian$rg_debver-$rg_rarch
  [[ $rg_pristine == 0 ]] || rg_rname+=-pristine
  return 0
}

# rg_rootfs_pkgs SRC: the packages the root filesystem is made with, one a line: scripts/deps.sh's
# test list (everything both README commands install) for its architecture (the first name of each alternative: apt here is another release's),
# or only git when pristine.
rg_rootfs_pkgs() {
  if [[ $rg_pristine == 1 ]]; then
    echo git
  else
    RG_DEPS_RESOLVE=first RG_DEPS_ARCH=$rg_rarch bash "$1/scripts/deps.sh" --list test
  fi
}

# rg_rootfs_key SRC: short hash of everything the cached rootfs is built from (its package
# list, release, architecture and the recipe line of rootfs.sh), so a stale cache is never reused.
rg_rootfs_key() {
  { rg_rootfs_pkgs "$1"; echo "$rg_release $rg_rarch"; grep '^recipe=' "$1/tests/arm64/rootfs.sh"; } |
    sha256sum | cut -c1-12
}

# rg_overlay_root ROOTFS NAME: a throw-away copy of the cached ROOTFS to chroot into, for
# tests/arm64/native.sh and tests/kmod/debian13.sh. Sets work (a new /var/tmp/rgbench-NAME.XXXXXX)
# and root ($work/root: an overlay over ROOTFS, with proc, sys, dev and dev/pts mounted), and
# traps EXIT (anything still running in the chroot is killed, every mount under it undone
# deepest first, $work removed), INT (130) and TERM (143). Calls the caller's skip() when
# there is no overlayfs.
rg_overlay_root() {
  local lower=$1
  work=$(mktemp -d "/var/tmp/rgbench-$2.XXXXXX")
  root=$work/root
  trap rg_overlay_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  mkdir -p "$work/upper" "$work/ovl" "$root"
  mount -t overlay overlay -o "lowerdir=$lower,upperdir=$work/upper,workdir=$work/ovl" "$root" ||
    skip "cannot mount an overlay over $lower (no overlayfs?)"
  mount -t proc proc "$root/proc"
  mount --rbind /sys "$root/sys"
  mount --bind /dev "$root/dev"
  mount --bind /dev/pts "$root/dev/pts"
}

rg_overlay_cleanup() {
  local p m
  # Anything still running in the chroot (after a timeout) goes first, then the mounts.
  for p in /proc/[0-9]*; do
    [[ $(readlink "$p/root" 2>/dev/null) == "$root" ]] && kill -9 "${p#/proc/}" 2>/dev/null
  done
  # Every mount under the root, deepest first, then the root (-l: a busy one goes when freed).
  set +e
  for m in $(awk -v d="$root/" 'index($2, d) == 1 { print $2 }' /proc/self/mounts | sort -r); do
    umount -l "$m" 2>/dev/null
  done
  umount -l "$root" 2>/dev/null
  rm -rf --one-file-system "$work"
}
