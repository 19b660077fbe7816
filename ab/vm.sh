#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Boot a kernel (Debian's own package, or an image given) under qemu (TCG) with a busybox initramfs and run one command in it.
#
# Installed with rgbench (DATADIR/rgbench/ab/vm.sh: rgbench ab boots each kernel with it);
# tests/vm/vm.sh runs this file.
# Usage: vm.sh [--arch amd64|arm64] [--payload DIR] [--out DIR] [--libs ELF]...
#                       [--libdir DIR[:DIR...]]...
#                       [--timeout SECONDS] [--mem MiB] [--smp N] [--kver ABI]
#                       [--step-from MARKER [--step-until MARKER]] [--kernel IMAGE] [--console FILE]
#                       [--append ARGS] [--hostname NAME] -- CMD...
#
#   --arch          the guest's architecture (default: this machine's)
#   --libs ELF      put the shared libraries ELF needs (and its loader) into the guest's
#                   /lib, so dynamically linked programs run there (repeatable; an arm64
#                   guest on an amd64 host takes them from the cross and :arm64 packages)
#   --libdir DIRS   also look for --libs' libraries in these directories (":"-separated,
#                   after the default ones; e.g. arm64 packages unpacked by tests/vm/bpftool.sh)
#   --payload DIR   copied to /payload in the guest; CMD runs there (cwd /payload)
#   --out DIR       whatever the guest leaves under /out is copied here
#   --kver ABI      kernel ABI, e.g. 6.1.0-57 (default: that of the installed
#                   linux-headers-<arch> package, so modules built against those
#                   headers load in the guest)
#   --kernel IMAGE  boot this kernel image (bzImage/Image/vmlinuz) instead of a Debian package
#   --console FILE  keep the guest's console log (CR stripped) there
#   --append ARGS   more kernel command-line words (after the ones vm.sh gives)
#   --hostname NAME the guest's host name (uname's nodename; default none: "(none)")
#   --step-from MARKER  one guest instruction per translated block (so that interrupts
#                   can land between any two instructions) from the moment CMD prints the
#                   line MARKER; CMD should wait a second or two after it. The boot runs
#                   at full speed (single-stepped it took a minute). Switched through
#                   qemu's monitor (step_from.py); the run fails if it could not be.
#   --step-until MARKER  with --step-from: whole blocks again from the line MARKER on (what
#                   follows it, the output files on the console, at full speed); when that
#                   could not be switched, vm.sh says so and the run goes on single-stepped
#   RG_VM_CACHE     where kernel packages are unpacked (default ~/.cache/rgbench-vm)
#   RG_VM_CPU       qemu -cpu model (default max; e.g. cortex-a72 for an arm64 CPU without LSE;
#                   an arm64 max under TCG is max,pauth-impdef=on: see below)
#   RG_VM_ACCEL     tcg (default) or kvm (then -cpu host unless RG_VM_CPU says otherwise)
#   RG_VM_TASKSET   a host CPU list: qemu (all its threads) runs bound to it (taskset -c)
#   RG_VM_PIN_VCPUS a host CPU list: vCPU i's thread to its i-th CPU (QMP, pin_vcpus.py);
#                   the run fails when that could not be done
#   RG_VM_QEMU_ARGS extra qemu arguments, split on blanks (e.g. "-icount shift=0")
#
# The guest has proc, sys, devtmpfs, debugfs, tracefs and bpffs mounted, runs CMD
# with /bin/sh as root, and powers off. The kernel package is fetched with
# `apt-get download` and unpacked with dpkg-deb; nothing is installed into /boot.
# Timings inside TCG are meaningless: use this for counts and statuses only.
#
# Exit status: CMD's own; 77 when qemu, busybox or the kernel package cannot be
# had, or when this system itself runs under user-mode emulation (a skip); 124
# when the guest did not finish within --timeout; 128+N when stopped by signal N (SIGINT,
# SIGTERM: the guest is stopped, nothing of it is copied back).
set -euo pipefail

case "$(uname -m)" in aarch64) arch=arm64 ;; *) arch=amd64 ;; esac
payload= out= timeout=180 mem=1024 smp=2 kver= libs=() step_from= step_until= more_libdirs=() image= console_keep= append= guest_host=
while (($#)); do
  case "$1" in
    --arch) arch=$2; shift 2 ;;
    --libs) libs+=("$2"); shift 2 ;;
    --libdir) IFS=: read -r -a _d <<<"$2"; more_libdirs+=("${_d[@]}"); shift 2 ;;
    --payload) payload=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    --mem) mem=$2; shift 2 ;;
    --smp) smp=$2; shift 2 ;;
    --kver) kver=$2; shift 2 ;;
    --step-from) step_from=$2; shift 2 ;;
    --step-until) step_until=$2; shift 2 ;;
    --kernel) image=$2; shift 2 ;;
    --console) console_keep=$2; shift 2 ;;
    --append) append=$2; shift 2 ;;
    --hostname) guest_host=$2; shift 2
      [[ $guest_host =~ ^[A-Za-z0-9][A-Za-z0-9.-]{0,62}$ ]] ||
        { echo "vm.sh: --hostname: '$guest_host' is not 1 to 63 of A-Z a-z 0-9 . - (a letter or digit first)" >&2; exit 2; } ;;
    --) shift; break ;;
    *) echo "vm.sh: unknown option '$1' (see the header of $0)" >&2; exit 2 ;;
  esac
done
(($#)) || { echo "vm.sh: no command given (use -- CMD...)" >&2; exit 2; }
[[ -z $step_until || -n $step_from ]] || { echo "vm.sh: --step-until needs --step-from" >&2; exit 2; }
skip() { echo "vm.sh: SKIP: $*" >&2; exit 77; }

case "$arch" in
  amd64) qemu=qemu-system-x86_64; dpkg_arch=amd64 ;;
  arm64) qemu=qemu-system-aarch64; dpkg_arch=arm64 ;;
  *) echo "vm.sh: --arch must be amd64 or arm64" >&2; exit 2 ;;
esac
# A system that runs under qemu-user (tests/arm64) sees the host's /proc/cpuinfo: starting
# qemu-system there would emulate an emulator, for hours. Skip instead.
case "$(uname -m)" in
  aarch64) grep -q '^CPU implementer' /proc/cpuinfo ;;
  x86_64) grep -q '^vendor_id' /proc/cpuinfo ;;
esac || skip "this system runs under user-mode emulation (qemu-user): no qemu-system inside it"
command -v "$qemu" >/dev/null || skip "$qemu not installed (Debian: qemu-system-x86 / qemu-system-arm)"
host_arch=$(dpkg --print-architecture 2>/dev/null || echo unknown)
if [[ $arch == "$host_arch" ]]; then
  busybox=/bin/busybox   # busybox-static; the dynamic busybox package would not run in the guest
  [[ -x $busybox ]] && ! ldd "$busybox" >/dev/null 2>&1 || skip "busybox-static not installed"
fi

if [[ -n $image ]]; then
  [[ -f $image ]] || { echo "vm.sh: --kernel $image: no such file" >&2; exit 2; }
  kver=given
elif [[ -z $kver ]]; then
  # The guest's headers, else this machine's (Debian builds every architecture at one ABI).
  for a in "$arch" "$host_arch"; do
    [[ -n $kver ]] || kver=$(dpkg-query -W -f='${Depends}\n' "linux-headers-$a" 2>/dev/null |
         grep -o "linux-headers-[0-9][^ ,]*-$a" | head -1 |
         sed -e "s/^linux-headers-//" -e "s/-$a\$//") || true
  done
  [[ -n $kver ]] || kver=$(apt-cache depends "linux-image-$arch:$dpkg_arch" 2>/dev/null |
         grep -o "linux-image-[0-9][^ ]*-$arch\$" | head -1 |
         sed -e "s/^linux-image-//" -e "s/-$arch\$//") || true
  [[ -n $kver ]] || skip "cannot tell which kernel to boot (install linux-headers-$arch)"
fi

cache=${RG_VM_CACHE:-$HOME/.cache/rgbench-vm}
kdir=$cache/linux-image-$kver-$arch
mkdir -p "$cache"
# Packages are fetched and unpacked once, by one vm.sh at a time: VM tests may start together.
exec 8>"$cache/.lock"
flock 8
if [[ -z $image && ! -f $kdir/.done ]]; then
  pkg=linux-image-$kver-$arch
  [[ $arch == amd64 ]] || pkg=$pkg:$dpkg_arch
  echo "vm.sh: fetching $pkg (once; cached in $cache)" >&2
  (cd "$cache" && rm -f linux-image-"$kver"-"$arch"_*.deb &&
   apt-get download -q "$pkg" >/dev/null 2>&1) ||
   skip "apt-get download $pkg failed (no network to Debian's mirror?)"
  rm -rf "$kdir" && mkdir -p "$kdir"
  dpkg-deb -x "$cache"/linux-image-"$kver"-"$arch"_*.deb "$kdir"
  # Debian's 7.x kernels (trixie-backports) split the image: linux-image-* is a metapackage
  # and the kernel itself is linux-binary-*'s usr/lib/modules/<release>/vmlinuz.
  if ! ls "$kdir"/boot/vmlinuz-* >/dev/null 2>&1; then
    pkg=linux-binary-$kver-$arch
    [[ $arch == amd64 ]] || pkg=$pkg:$dpkg_arch
    echo "vm.sh: no kernel in linux-image-$kver-$arch; fetching $pkg" >&2
    (cd "$cache" && rm -f linux-binary-"$kver"-"$arch"_*.deb &&
     apt-get download -q "$pkg" >/dev/null 2>&1) || skip "apt-get download $pkg failed"
    dpkg-deb -x "$cache"/linux-binary-"$kver"-"$arch"_*.deb "$kdir"
  fi
  touch "$kdir/.done"
fi
vmlinuz=$image
[[ -n $vmlinuz ]] || vmlinuz=$(ls "$kdir"/boot/vmlinuz-* "$kdir"/usr/lib/modules/*/vmlinuz 2>/dev/null | head -1) || true
[[ -n $vmlinuz ]] || skip "no vmlinuz in $kdir"

if [[ $arch != "$host_arch" ]]; then
  bbdir=$cache/busybox-static-$arch
  if [[ ! -f $bbdir/.done ]]; then
    (cd "$cache" && rm -f busybox-static_*_"$arch".deb &&
     apt-get download -q "busybox-static:$arch" >/dev/null 2>&1) || skip "cannot fetch busybox-static:$arch"
    rm -rf "$bbdir" && mkdir -p "$bbdir" && dpkg-deb -x "$cache"/busybox-static_*_"$arch".deb "$bbdir"
    touch "$bbdir/.done"
  fi
  # Debian 12's package has bin/busybox, Debian 13's (merged /usr) usr/bin/busybox.
  busybox=$bbdir/bin/busybox
  [[ -f $busybox ]] || busybox=$bbdir/usr/bin/busybox
  [[ -f $busybox ]] || skip "no busybox in busybox-static:$arch (looked in bin/ and usr/bin/)"
fi
flock -u 8

# Library directories for --libs, searched in order: for an arm64 guest on another host,
# the cross glibc first (the cross-built programs were linked against it), then multiarch.
if [[ $arch == arm64 && $host_arch != arm64 ]]; then
  libdirs=(/usr/aarch64-linux-gnu/lib /usr/lib/aarch64-linux-gnu /lib/aarch64-linux-gnu)
elif [[ $arch == arm64 ]]; then
  libdirs=(/lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu)
else
  libdirs=(/lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /lib64)
fi
libdirs+=("${more_libdirs[@]}")
# copy_libs ELF DEST: ELF's loader and every library it needs, transitively, into DEST.
copy_libs() {
  local todo=("$1") seen=" " f lib d found interp
  mkdir -p "$2/lib"   # (an amd64 loader goes to /lib64: /lib is not made for it)
  interp=$(readelf -lW "$1" 2>/dev/null | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
  if [[ -n $interp ]]; then
    found=
    for d in "${libdirs[@]}"; do [[ -e $d/$(basename "$interp") ]] && { found=$d/$(basename "$interp"); break; }; done
    [[ -n $found ]] || { echo "vm.sh: no loader $interp for $1" >&2; return 1; }
    mkdir -p "$2$(dirname "$interp")"
    cp -L "$found" "$2$interp" || return 1
  fi
  while ((${#todo[@]})); do
    f=${todo[0]}; todo=("${todo[@]:1}")
    for lib in $(readelf -dW "$f" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
      [[ $seen == *" $lib "* ]] && continue
      seen+="$lib "
      found=
      for d in "${libdirs[@]}"; do [[ -e $d/$lib ]] && { found=$d/$lib; break; }; done
      [[ -n $found ]] || { echo "vm.sh: $lib (needed by $f) not found in ${libdirs[*]}" >&2; return 1; }
      cp -L "$found" "$2/lib/$lib" || return 1
      todo+=("$found")
    done
  done
}

work=$(mktemp -d)
trap '[[ -n ${RG_VM_KEEP:-} ]] || rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"/{bin,dev,proc,sys,tmp,out,payload,etc}
cp "$busybox" "$root/bin/busybox"
[[ -n $payload ]] && cp -a "$payload"/. "$root/payload/"
for elf in "${libs[@]}"; do
  copy_libs "$elf" "$root" || exit 1
done
printf '%s\n' "$*" >"$root/etc/rg-cmd"
[[ -n $guest_host ]] && printf '%s\n' "$guest_host" >"$root/etc/hostname"
cat >"$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mkdir -p /sys/fs/bpf && mount -t bpf bpf /sys/fs/bpf 2>/dev/null
ulimit -l unlimited 2>/dev/null
[ -f /etc/hostname ] && hostname -F /etc/hostname
cd /payload
echo "@@RG-BEGIN"
sh /etc/rg-cmd </dev/null 2>&1
rc=$?
echo "@@RG-END"
for f in /out/*; do
  [ -f "$f" ] || continue
  echo "@@RG-FILE $(basename "$f")"
  gzip -1 -c "$f" | base64
  echo "@@RG-EOF"
done
echo "@@RG-EXIT $rc"
poweroff -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initrd.gz"

accel=${RG_VM_ACCEL:-tcg} cpu=${RG_VM_CPU:-max}
[[ $accel == kvm && -z ${RG_VM_CPU:-} ]] && cpu=host
if [[ $arch == amd64 ]]; then
  machine=(-machine q35 -cpu "$cpu" -accel "$accel"); console=ttyS0
else
  # (under KVM the guest's GIC is the host's kind: a GICv3-only host has no GICv2 to give)
  mt=virt; [[ $accel == kvm ]] && mt=virt,gic-version=max
  # An arm64 max CPU has pointer authentication, and Debian's kernel signs and checks the
  # return address of nearly every function with it. TCG computes the architected QARMA5
  # cipher for each, slowly; pauth-impdef=on is qemu's own (implementation-defined, as a
  # real CPU may choose): the same instructions and faults, the same features otherwise.
  # A fork-heavy guest loop took 91 s (62 s of CPU) with it and did not finish in 181 s
  # without (run side by side).
  [[ $accel == tcg && $cpu == max ]] && cpu=max,pauth-impdef=on
  machine=(-machine "$mt" -cpu "$cpu" -accel "$accel"); console=ttyAMA0
fi
log=$work/console.log
read -r -a extra <<<"${RG_VM_QEMU_ARGS:-}"
# -singlestep (qemu 7.2, Debian 12) is the accelerator property one-insn-per-tb in newer
# qemu (10.0, Debian 13), which has no -singlestep option.
for i in "${!extra[@]}"; do
  if [[ ${extra[i]} == -singlestep ]] && ! "$qemu" -help 2>/dev/null | grep -q '^-singlestep'; then
    unset 'extra[i]'
    machine=("${machine[@]/#tcg/tcg,one-insn-per-tb=on}")
  fi
done
monitor=()
[[ -n $step_from ]] && monitor=(-monitor "unix:$work/monitor.sock,server=on,wait=off")
pin=()
[[ -n ${RG_VM_TASKSET:-} ]] && pin=(taskset -c "$RG_VM_TASKSET")
[[ -n ${RG_VM_PIN_VCPUS:-} ]] && monitor+=(-qmp "unix:$work/qmp.sock,server=on,wait=off")
set +e
timeout "$timeout" "${pin[@]}" "$qemu" "${machine[@]}" "${extra[@]}" "${monitor[@]}" -m "$mem" -smp "$smp" \
  -nographic -no-reboot -nic none -kernel "$vmlinuz" -initrd "$work/initrd.gz" \
  -append "console=$console quiet loglevel=4 panic=-1 oops=panic${append:+ $append}" </dev/null >"$log" 2>&1 &
qpid=$!
# A stop signal stops the guest (timeout runs qemu in a process group of its own, so the
# terminal's Ctrl-C reaches only this script): nothing of the guest is copied back.
stop_guest() {
  kill -TERM "$qpid" 2>/dev/null
  wait "$qpid" 2>/dev/null
  [[ -n $console_keep ]] && tr -d '\r' <"$log" >"$console_keep" 2>/dev/null
  echo "vm.sh: stopped by SIG$1; the guest was stopped" >&2
  exit "$2"
}
trap 'stop_guest INT 130' INT
trap 'stop_guest TERM 143' TERM
if [[ -n ${RG_VM_PIN_VCPUS:-} ]]; then
  python3 "$(dirname "$0")/pin_vcpus.py" "$work/qmp.sock" "$RG_VM_PIN_VCPUS" "$work/pin.status" &
  ppid_=$!
fi
if [[ -n $step_from ]]; then
  python3 "$(dirname "$0")/step_from.py" "$step_from" "$log" "$work/monitor.sock" "$work/step.status" \
    ${step_until:+"$step_until"} &
  wpid=$!
fi
wait "$qpid"
qrc=$?
if [[ -n $step_from ]]; then
  kill "$wpid" 2>/dev/null
  wait "$wpid" 2>/dev/null
fi
if [[ -n ${RG_VM_PIN_VCPUS:-} ]]; then
  kill "$ppid_" 2>/dev/null
  wait "$ppid_" 2>/dev/null
  pin_status=$(cat "$work/pin.status" 2>/dev/null || echo "fail the pinning did not finish")
  if [[ $pin_status != ok* ]]; then
    echo "vm.sh: RG_VM_PIN_VCPUS=$RG_VM_PIN_VCPUS: ${pin_status#fail }" >&2
    exit 1
  fi
  echo "vm.sh: vCPU threads pinned: ${pin_status#ok }" >&2
fi
set -e
trap - INT TERM
tr -d '\r' <"$log" >"$log.lf"
[[ -n $console_keep ]] && cp "$log.lf" "$console_keep"
# The command's own output, for the caller and for logs.
sed -n '/@@RG-BEGIN$/,/^@@RG-END$/p' "$log.lf" | sed '1d;$d'
if ! grep -q '^@@RG-EXIT ' "$log.lf"; then
  echo "vm.sh: guest did not finish (qemu exit $qrc); console tail:" >&2
  tail -40 "$log.lf" >&2
  ((qrc == 124)) && exit 124
  exit 1
fi
if [[ -n $step_from ]]; then
  status=$(head -n 1 "$work/step.status" 2>/dev/null) || true
  [[ -n $status ]] || status="fail the guest never printed $step_from"
  if [[ $status != ok* ]]; then
    echo "vm.sh: --step-from $step_from: ${status#fail }" >&2
    exit 1
  fi
  if [[ -n $step_until ]]; then
    off=$(sed -n 2p "$work/step.status" 2>/dev/null) || true
    [[ -n $off ]] || off="fail the guest never printed $step_until"
    if [[ $off == ok* ]]; then
      echo "vm.sh: one instruction per translated block from $step_from to $step_until (monitor: ${status#ok }, ${off#ok })" >&2
    else
      echo "vm.sh: one instruction per translated block from $step_from on; --step-until $step_until: ${off#fail } (single-stepped to the end)" >&2
    fi
  else
    echo "vm.sh: one instruction per translated block from $step_from on (monitor: ${status#ok })" >&2
  fi
fi
# The guest's files come on the console, each gzip'd (-1) then base64: the emulated UART
# takes a byte at a time, and a run's JSON is half a megabyte.
if [[ -n $out ]]; then
  mkdir -p "$out"
  awk -v dir="$out" '
    /^@@RG-FILE / { name = $2; tmp = dir "/" name ".b64"; printf "" > tmp; next }
    /^@@RG-EOF$/ { close(tmp); system("base64 -d \"" tmp "\" | gzip -dc > \"" dir "/" name "\" && rm -f \"" tmp "\""); name = ""; next }
    name != "" { print >> tmp }
  ' "$log.lf"
fi
rc=$(sed -n 's/^@@RG-EXIT \([0-9]*\)$/\1/p' "$log.lf" | tail -1)
exit "${rc:-1}"
