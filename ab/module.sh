#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build rgbench_kmod.ko against one kernel's build directory (headers or a build tree), for rgbench ab: the module that is loaded in that kernel's guest.
#
# Usage: module.sh KDIR SRC_DIR GEN_DIR OUT_DIR [VAR=VALUE]...
#   KDIR      the kernel's build directory (Makefile, .config, Module.symvers)
#   SRC_DIR   the module's sources (what Kbuild lists), GEN_DIR its generated headers
#   OUT_DIR   made anew; rgbench_kmod.ko and build.log end up there
# Debian's headers name their compiler (.kernelvariables: gcc-14 for 6.12): when that one is
# not installed, the system's gcc builds the module instead (said on stderr; the kernel does
# not check). RG_AB_CROSS: CROSS_COMPILE for another architecture (ARCH= from RG_AB_KARCH).
# Exit: 0 built; 1 the build failed (the log's tail on stderr); 77 no compiler or no KDIR.
set -euo pipefail
kdir=$1 src=$2 gen=$3 out=$4
shift 4
[[ -f $kdir/Makefile ]] || { echo "module.sh: no kernel build directory at $kdir (no Makefile)" >&2; exit 77; }
args=()
[[ -n ${RG_AB_CROSS:-} ]] && args+=(ARCH="${RG_AB_KARCH:-arm64}" CROSS_COMPILE="$RG_AB_CROSS")
if [[ -f $kdir/.kernelvariables ]]; then
  want=$(sed -n 's/^CC = .*)\(gcc[-0-9]*\)$/\1/p' "$kdir/.kernelvariables")
  cross=$(sed -n 's/^override CROSS_COMPILE = //p' "$kdir/.kernelvariables")
  [[ -n ${RG_AB_CROSS:-} ]] && cross=$RG_AB_CROSS
  if [[ -n $want ]] && ! command -v "$cross$want" >/dev/null && ! command -v "$want" >/dev/null; then
    command -v "${cross}gcc" >/dev/null || { echo "module.sh: neither $cross$want nor ${cross}gcc is installed" >&2; exit 77; }
    echo "module.sh: $cross$want (the kernel's compiler) is not installed; building with gcc $("${cross}gcc" -dumpversion)" >&2
    # An older gcc lacks -fmin-function-alignment (gcc 14): its older spelling, what the
    # kernel's Makefile gives a compiler without it, takes its place.
    mkdir -p "$out.cc"
    printf '%s\n' '#!/bin/sh' 'n=$#; while [ $n -gt 0 ]; do a=$1; shift; n=$((n - 1))' \
      '  case $a in -fmin-function-alignment=*) a=-falign-functions=${a#*=} ;; esac; set -- "$@" "$a"; done' \
      "exec ${cross}gcc \"\$@\"" >"$out.cc/gcc"
    chmod +x "$out.cc/gcc"
    args+=(CC="$out.cc/gcc")
  fi
fi
# Without pahole the module has no BTF of its own (it needs none: its program comes from rgbench).
command -v pahole >/dev/null || args+=(CONFIG_DEBUG_INFO_BTF_MODULES=)
grep -q '^KBUILD_OUTPUT=' "$kdir/Makefile" && args+=(O="$kdir")
rm -rf "$out" && mkdir -p "$out"
for f in Kbuild $(sed -n -e 's/^rgbench_kmod-\(y\|headers\) :=//p' "$src/Kbuild" | sed -e 's/\.o\b/.c/g'); do
  if [[ -f $src/$f ]]; then cp "$src/$f" "$out/"
  elif [[ -f $gen/$f ]]; then cp "$gen/$f" "$out/"
  else echo "module.sh: $f (listed in $src/Kbuild) is in neither $src nor $gen" >&2; exit 1; fi
done
if ! make -s -C "$kdir" M="$out" "${args[@]}" "$@" modules >"$out/build.log" 2>&1 || [[ ! -f $out/rgbench_kmod.ko ]]; then
  echo "module.sh: the module did not build against $kdir; the log's end:" >&2
  tail -8 "$out/build.log" >&2
  exit 1
fi
