# SPDX-License-Identifier: MIT
# Shared helpers of the arm64 tests (sourced): binfmt_misc set-up for qemu-user and the rootfs cache key.

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

# rg_rootfs_key SRC: short hash of everything the cached rootfs is built from
# (the arm64 package list of scripts/deps.sh and the recipe line of rootfs.sh), so a stale
# cache is never reused.
rg_rootfs_key() {
  { RG_DEPS_ARCH=arm64 bash "$1/scripts/deps.sh" --list; grep '^recipe=' "$1/tests/arm64/rootfs.sh"; } |
    sha256sum | cut -c1-12
}
