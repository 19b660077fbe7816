#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build the kernel's own BPF bench (tools/testing/selftests/bpf/bench) from a kernel source
# tarball, once per tarball, and print the binary's path on stdout.
# usage: build.sh [--arch amd64|arm64] [--btf FILE] [TARBALL]
#   (TARBALL default: the newest /usr/src/linux-source-*.tar.*)
#   --arch   the machine the bench runs on (default this one's). Another architecture's
#            (arm64 on x86-64, for rgbench ab --arch arm64 --kbench) is cross-built the way
#            the tree's own BPF bench is (cmake/toolchain-aarch64.cmake, scripts/deps.sh's
#            cross row): aarch64-linux-gnu-gcc, libbpf from the same tarball built for
#            aarch64, libelf and zlib of the :arm64 packages, the bench linked static (the
#            ab guest is a busybox initramfs), its BPF objects with -D__TARGET_ARCH_arm64
#            and arm64's uapi headers. Their vmlinux.h is made from an arm64 kernel's BTF
#            (--btf), CO-RE: relocated against the guest kernel's BTF when loaded.
#   --btf    that kernel's BTF, or an arm64 kernel image holding it (btf_from_image.py takes
#            it out). Default: the Debian arm64 kernel of this system's headers' ABI
#            (linux-image-ABI-arm64), from RG_VM_CACHE (ab/vm.sh's) or apt-get download.
# RG_KBENCH_CACHE: where it is built (default ~/.cache/rgbench/kbench, as libperf's tools/
# subtrees go to ~/.cache/rgbench/libperf-src); keyed by the tarball's name, size and time
# and by load_one.py (and for another architecture by it and its BTF), under a lock, so
# build trees and repeated runs share it.
# Exit 77 (skip) with one line when a tool it needs is missing; 1 when the build fails
# (the make log's last lines on stderr); 2 usage.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
case "$(uname -m)" in aarch64) host_arch=arm64 ;; *) host_arch=amd64 ;; esac
arch=$host_arch btf=${RG_KBENCH_BTF:-}
while (($#)); do
  case "$1" in
    --arch) (($# >= 2)) || { echo "kbench: --arch needs a value" >&2; exit 2; }; arch=$2; shift 2 ;;
    --btf) (($# >= 2)) || { echo "kbench: --btf needs a value" >&2; exit 2; }; btf=$2; shift 2 ;;
    -*) echo "kbench: unknown option '$1' (usage: build.sh [--arch amd64|arm64] [--btf FILE] [TARBALL])" >&2; exit 2 ;;
    *) break ;;
  esac
done
[[ $arch == amd64 || $arch == arm64 ]] || { echo "kbench: --arch: '$arch' is not amd64 or arm64" >&2; exit 2; }
cross=0
[[ $arch == "$host_arch" ]] || cross=1
if ((cross)) && [[ $arch == amd64 ]]; then
  echo "kbench: cross-building the bench for amd64 on $host_arch is not done (build it on an amd64 machine)" >&2
  exit 77
fi
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
name=$(basename "$tar")
top=${name%.tar.*}
cache=${RG_KBENCH_CACHE:-${HOME:-/tmp}/.cache/rgbench/kbench}
if ((cross)); then
  # The cross toolchain, and the target's libelf and zlib as static libraries (libbpf is
  # built from the tarball): scripts/deps.sh's cross row.
  command -v aarch64-linux-gnu-gcc >/dev/null ||
    { echo "kbench: aarch64-linux-gnu-gcc not found (gcc-aarch64-linux-gnu; scripts/deps.sh's cross row installs it)" >&2; exit 77; }
  for f in /usr/lib/aarch64-linux-gnu/libelf.a /usr/lib/aarch64-linux-gnu/libz.a /usr/aarch64-linux-gnu/lib/libc.a \
           /usr/aarch64-linux-gnu/include/asm/unistd.h; do
    [[ -f $f ]] || { echo "kbench: $f missing (libelf-dev:arm64, zlib1g-dev:arm64, libc6-dev-arm64-cross; scripts/deps.sh's cross row)" >&2; exit 77; }
  done
  mkdir -p "$cache"
  if [[ -z $btf ]]; then
    # The Debian arm64 kernel at this system's headers' ABI (Debian builds every
    # architecture at one ABI); ab/vm.sh caches that image too.
    abi=$(dpkg-query -W -f='${Depends}\n' "linux-headers-$host_arch" 2>/dev/null |
      grep -o "linux-headers-[0-9][^ ,]*-$host_arch" | head -1 | sed -e 's/^linux-headers-//' -e "s/-$host_arch\$//")
    [[ -n $abi ]] || { echo "kbench: no arm64 kernel to take BTF from: give --btf FILE (an arm64 Image or its BTF), or install linux-headers-$host_arch" >&2; exit 77; }
    btf=$(ls "${RG_VM_CACHE:-$HOME/.cache/rgbench-vm}/linux-image-$abi-arm64"/boot/vmlinuz-* 2>/dev/null | head -1)
    if [[ -z $btf ]]; then
      btf=$(ls "$cache/image-$abi-arm64"/boot/vmlinuz-* 2>/dev/null | head -1)
    fi
    if [[ -z $btf ]]; then
      echo "kbench: fetching linux-image-$abi-arm64:arm64 for its BTF (once; into $cache/image-$abi-arm64)" >&2
      d=$(mktemp -d "$cache/.deb.XXXXXX")
      (cd "$d" && apt-get download -q "linux-image-$abi-arm64:arm64" >/dev/null 2>&1) ||
        { rm -rf "$d"; echo "kbench: apt-get download linux-image-$abi-arm64:arm64 failed (no network to Debian's mirror?): give --btf FILE" >&2; exit 77; }
      rm -rf "$cache/image-$abi-arm64" && dpkg-deb -x "$d"/*.deb "$cache/image-$abi-arm64" && rm -rf "$d"
      btf=$(ls "$cache/image-$abi-arm64"/boot/vmlinuz-* 2>/dev/null | head -1)
      [[ -n $btf ]] || { echo "kbench: no vmlinuz in linux-image-$abi-arm64" >&2; exit 77; }
    fi
  fi
  [[ -f $btf ]] || { echo "kbench: --btf: '$btf' is not a file" >&2; exit 2; }
  btf=$(realpath "$btf")
  # Its BTF, before anything is extracted (a raw BTF file is taken as it is).
  btf_raw=$(mktemp "$cache/.btf.XXXXXX")
  trap 'rm -f "$btf_raw"' EXIT
  if [[ $(od -An -tx1 -N3 "$btf" | tr -d ' ') == 9feb01 ]]; then
    cp "$btf" "$btf_raw"
  elif ! python3 "$here/btf_from_image.py" "$btf" "$btf_raw" >&2; then
    echo "kbench: --btf: '$btf' is neither BTF nor a kernel image holding it" >&2
    exit 2
  fi
  key=$( (echo "$name $(stat -c '%s %Y' "$tar") arm64 $btf $(stat -c '%s %Y' "$btf")"; cat "$here/load_one.py" "$here/btf_from_image.py") |
    md5sum | cut -c1-12)
  entry=$cache/$top-arm64-$key
else
  if [[ ! -r /sys/kernel/btf/vmlinux ]]; then
    echo "kbench: /sys/kernel/btf/vmlinux missing: the bench's vmlinux.h is made from the running kernel's BTF" >&2
    exit 77
  fi
  key=$( (echo "$name $(stat -c '%s %Y' "$tar") $(uname -r)"; cat "$here/load_one.py") | md5sum | cut -c1-12)
  entry=$cache/$top-$key
fi
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [[ ! -x $entry/out/bench ]]; then
  rm -rf "$entry.tmp" "$entry"
  mkdir -p "$entry.tmp/out"
  echo "kbench: extracting tools/ from $name into $entry (once)" >&2
  # (the target's arch headers, and for a cross build this machine's too: its bootstrap bpftool)
  arch_inc=("$top/arch/x86/include")
  [[ $arch == arm64 ]] && arch_inc=("$top/arch/arm64/include")
  ((cross)) && arch_inc+=("$top/arch/x86/include")
  tar -C "$entry.tmp" -xf "$tar" "$top/tools" "$top/scripts" "$top/include" "${arch_inc[@]}" "$top/Makefile" \
    "$top/kernel/bpf"
  python3 "$here/load_one.py" "$entry.tmp/$top/tools/testing/selftests/bpf/benchs/bench_trigger.c" >&2
  opts=()
  if ((cross)); then
    # vmlinux.h from the arm64 kernel's BTF
    cp "$btf_raw" "$entry.tmp/vmlinux.btf"
    # The selftests' Makefile (6.1) gives clang -target bpf this machine's system headers
    # (asm/unistd.h: x86-64's syscall numbers); the target's are aarch64's, as newer kernels do.
    inc=$(clang --target=aarch64-linux-gnu -v -E - </dev/null 2>&1 |
      sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }' | tr '\n' ' ')
    # Only the bench is linked static: libbpf.so and the host's bootstrap bpftool are not.
    printf '%s\n' '# rgbench (tests/bpf/kbench/build.sh): the bench alone linked static' \
      '$(OUTPUT)/bench: private LDFLAGS += -static' >"$entry.tmp/static.mk"
    opts=(-f Makefile -f "$entry.tmp/static.mk" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
      VMLINUX_BTF="$entry.tmp/vmlinux.btf" "CLANG_SYS_INCLUDES=$inc")
  fi
  echo "kbench: make bench${opts:+ for arm64} (libbpf, bootstrap bpftool, the bench's BPF objects; about a minute)" >&2
  # OUTPUT must exist and be absolute; MAKEFLAGS from a parent make would leak -j/-s.
  if ! env -u MAKEFLAGS -u MAKELEVEL make -C "$entry.tmp/$top/tools/testing/selftests/bpf" "${opts[@]}" \
       -j"$(nproc)" OUTPUT="$entry.tmp/out" "$entry.tmp/out/bench" >"$entry.tmp/make.log" 2>&1; then
    echo "kbench: building the bench failed; the end of $entry.tmp/make.log:" >&2
    tail -20 "$entry.tmp/make.log" >&2
    exit 1
  fi
  mv "$entry.tmp" "$entry"
fi
echo "$entry/out/bench"
