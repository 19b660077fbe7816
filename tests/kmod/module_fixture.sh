#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The module built once per test run (the fixture kmod.module / kmod.module_arm64), as it is and with RG_FORCE_NO_JIT=1, for kmod.asm and kmod.qemu to share.
#
# Usage: module_fixture.sh amd64|arm64 SRC_DIR GEN_DIR OUT_DIR
#   OUT_DIR/mod        build_module.sh's tree (rgbench_kmod.ko, rgbench_kmod.o), its ABI in OUT_DIR/mod/abi
#                      (what check_asm.py --reuse reads)
#   OUT_DIR/mod_nojit  the same built with RG_FORCE_NO_JIT=1 (qemu_kmod.sh's case N)
# OUT_DIR is emptied first, so a skip or failure leaves no module of an earlier run behind:
# the tests that use it (qemu_kmod.sh --prebuilt, check_asm.py --reuse) then skip or fail too.
# Exit: 0 built, 1 a build failed or warned, 77 no headers or compiler (build_module.sh's skip).
set -euo pipefail
arch=$1 src=$2 gen=$3 out=$4
rm -rf "$out"
mkdir -p "$out"
# The two builds side by side (each kbuild compiles one file at a time): they share nothing.
bash "$src/tests/kmod/build_module.sh" "$arch" "$src" "$gen" "$out/mod_nojit" RG_FORCE_NO_JIT=1 \
  >/dev/null 2>"$out/nojit.err" &
nojit=$!
set +e
abi=$(bash "$src/tests/kmod/build_module.sh" "$arch" "$src" "$gen" "$out/mod")
rc=$?
wait "$nojit"
rc_nojit=$?
set -e
((rc == 0)) || { rm -rf "$out/mod" "$out/mod_nojit"; exit "$rc"; }
if ((rc_nojit != 0)); then
  cat "$out/nojit.err" >&2
  echo "module_fixture: FAIL: the build with RG_FORCE_NO_JIT=1 failed" >&2
  rm -rf "$out/mod" "$out/mod_nojit"
  exit 1
fi
echo "$abi" >"$out/mod/abi"
echo "module_fixture: $arch rgbench_kmod.ko (and the RG_FORCE_NO_JIT=1 one) built against $abi in $out"
