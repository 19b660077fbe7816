#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build the kernel's own BPF bench (tools/testing/selftests/bpf/bench) from a kernel source
# tarball, once per tarball, and print the binary's path on stdout.
# usage: build.sh [TARBALL]   (default: the newest /usr/src/linux-source-*.tar.*)
# RG_KBENCH_CACHE: where it is built (default ~/.cache/rgbench/kbench, as libperf's tools/
# subtrees go to ~/.cache/rgbench/libperf-src); keyed by the tarball's name, size and time
# and by load_one.py, under a lock, so build trees and repeated runs share it.
# Exit 77 (skip) with one line when a tool it needs is missing; 1 when the build fails
# (the make log's last lines on stderr).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tar=${1:-$(ls -1 /usr/src/linux-source-*.tar.* 2>/dev/null | sort -V | tail -1)}
if [[ -z "$tar" || ! -f "$tar" ]]; then
  echo "kbench: no kernel source tarball (/usr/src/linux-source-*.tar.*: apt-get install linux-source)" >&2
  exit 77
fi
# What the selftests' Makefile runs: clang for the BPF objects, make and a C compiler for
# libbpf, the bootstrap bpftool (built from the tree, so no system bpftool is needed),
# libelf and zlib headers, python3 for bpf_doc.py. bpftool also compiles kernel/bpf/disasm.c.
for t in clang llvm-strip make cc python3 flock; do
  command -v "$t" >/dev/null || { echo "kbench: '$t' not found (scripts/deps.sh installs it)" >&2; exit 77; }
done
for h in /usr/include/libelf.h /usr/include/zlib.h; do
  [[ -f $h ]] || { echo "kbench: $h missing (libelf-dev, zlib1g-dev)" >&2; exit 77; }
done
if [[ ! -r /sys/kernel/btf/vmlinux ]]; then
  echo "kbench: /sys/kernel/btf/vmlinux missing: the bench's vmlinux.h is made from the running kernel's BTF" >&2
  exit 77
fi
name=$(basename "$tar")
top=${name%.tar.*}
cache=${RG_KBENCH_CACHE:-${HOME:-/tmp}/.cache/rgbench/kbench}
key=$( (echo "$name $(stat -c '%s %Y' "$tar") $(uname -r)"; cat "$here/load_one.py") | md5sum | cut -c1-12)
entry=$cache/$top-$key
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [[ ! -x $entry/out/bench ]]; then
  rm -rf "$entry.tmp" "$entry"
  mkdir -p "$entry.tmp/out"
  echo "kbench: extracting tools/ from $name into $entry (once)" >&2
  arch_inc=$top/arch/x86/include
  [[ $(uname -m) == aarch64 ]] && arch_inc=$top/arch/arm64/include
  tar -C "$entry.tmp" -xf "$tar" "$top/tools" "$top/scripts" "$top/include" "$arch_inc" "$top/Makefile" \
    "$top/kernel/bpf"
  python3 "$here/load_one.py" "$entry.tmp/$top/tools/testing/selftests/bpf/benchs/bench_trigger.c" >&2
  echo "kbench: make bench (libbpf, bootstrap bpftool, the bench's BPF objects; about a minute)" >&2
  # OUTPUT must exist and be absolute; MAKEFLAGS from a parent make would leak -j/-s.
  if ! env -u MAKEFLAGS -u MAKELEVEL make -C "$entry.tmp/$top/tools/testing/selftests/bpf" \
       -j"$(nproc)" OUTPUT="$entry.tmp/out" "$entry.tmp/out/bench" >"$entry.tmp/make.log" 2>&1; then
    echo "kbench: building the bench failed; the end of $entry.tmp/make.log:" >&2
    tail -20 "$entry.tmp/make.log" >&2
    exit 1
  fi
  mv "$entry.tmp" "$entry"
fi
echo "$entry/out/bench"
