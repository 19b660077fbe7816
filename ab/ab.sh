#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rgbench ab: two or more kernels, each booted in turn under qemu with rgbench inside (A B B A ...), one result file per boot and one table. `rgbench ab` runs this script (ab/ab_run.c); docs/ab.md.
#
#   rgbench ab --kernel LABEL=SPEC --kernel LABEL=SPEC [...] [--rounds N] [--out DIR] ...
#   rgbench ab --table DIR [--markdown | --commit-log]
#
# Exit: 0 every boot finished; 1 a boot failed (one line each, with the console's tail; the
# other boots' files and the table are kept), or a tool is missing (qemu, python3), or another
# ab writes DIR; 2 usage (a bad option or value, fewer than two kernels, a SPEC that is neither a
# file nor a Debian kernel version, an --out that holds an earlier ab's results); 128+signal
# interrupted (Ctrl-C: the guest is stopped, the finished boots and their table are kept).
set -uo pipefail
me="rgbench ab"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
say() { echo "$me: $*" >&2; }
usage_error() { say "$* (see $me --help)"; exit 2; }

usage() {
	cat <<'EOF'
usage: rgbench ab --kernel LABEL=SPEC --kernel LABEL=SPEC [...] [--rounds N] [--shuffle SEED]
                  [--vcpus N] [--memory MiB] [--arch amd64|arm64] [--no-user] [--timeout S]
                  [--pin CPUS] [--kbench FILE] [--headers LABEL=DIR] [--append LABEL=ARGS]
                  [--guest-rgbench DIR|FILE|FILE.deb] [--out DIR] [--plan]
       rgbench ab --table DIR [--markdown | --commit-log]
Boots each kernel in a fresh qemu guest, in turn (rounds alternate: A B, B A, A B, ...),
with rgbench inside: rgbench bpf (short), rgbench kmod's loop and tramp scenarios (the module
built against that kernel's headers) and the user suite; one result file per boot in DIR,
then per row each kernel's median over its boots with its interval, the change against
the first kernel with its interval and p (the boot is the unit), and the prediction check:
each design's figure from the other kernel's tramp rows against its native boot.
  --kernel LABEL=SPEC   a kernel (two or more; the first is the base): SPEC is a kernel image
                        (bzImage/Image; the build directory found beside it for the module) or
                        a Debian kernel version, e.g. 6.1.0-57 (this system's apt) or
                        trixie:6.12.117+deb13 (that suite's, fetched with apt-get download)
  --rounds N            boots of each kernel (1..100, default 2)
  --shuffle SEED        boots in a seeded random order instead of alternating
  --vcpus N             guest CPUs (1..64, default 2); --memory MiB (256..65536, default 2048)
  --arch amd64|arm64    the guest's architecture (default this machine's); another than this
                        machine's boots under TCG and needs --guest-rgbench
  --guest-rgbench X     the rgbench that runs in the guests when --arch is not this
                        machine's: a cross build's folder (its rgbench), the binary itself,
                        or an rgbench .deb of that architecture (usr/bin/rgbench is taken)
  --headers LABEL=DIR   that kernel's build directory (Makefile, Module.symvers) when it is
                        not beside its image: the module is built against it
  --append LABEL=ARGS   more words on that kernel's command line (repeatable)
  --pin CPUS            vCPU i's thread pinned to the i-th of these host CPUs (e.g. 2-9; at
                        least --vcpus of them), qemu's other threads to the set: the same
                        CPUs for every boot. Default: one CPU per physical core this
                        process may use, CPU 0's core last (no pinning, said, when there
                        are fewer cores than vCPUs)
  --no-pin              the vCPU threads left where the host's scheduler puts them
  --no-user             not the user suite (bpf and kmod only)
  --timeout S           a boot's limit in seconds (60..86400, default 1800)
  --kbench FILE         the kernel's own trigger bench (selftests/bpf bench, e.g. made by
                        tests/bpf/kbench/build.sh) run in every boot too: trig-fentry,
                        trig-fexit, trig-rawtp, trig-tp, trig-kprobe, trig-fmodret; a program
                        of --arch's kind (arm64 guests: build.sh --arch arm64, static)
  --out DIR             where the boots go (default results/ab-<UTC time>; an earlier ab's
                        folder is refused)
  --plan                print the boots in order and stop
  --table DIR           the tables of an earlier ab's folder (nothing booted)
  --markdown            the table as Markdown; --commit-log: 72 columns, for a commit message
KVM is used where /dev/kvm runs a guest (-cpu host), else TCG: every timing is then marked
emulated and no change is called. Progress on stderr: boot k of N, kernel, elapsed.
Needs qemu-system-<arch>, busybox-static, python3, make and a compiler for the module.
Exit: 0 every boot finished, 1 a boot failed (the others kept) or a tool missing, 2 usage,
128+signal interrupted (the finished boots and their table kept).
  -V, --version         the release and commit of this build; -h, --help: this text
Examples:
  rgbench ab --kernel base=6.1.0-57 --kernel new=trixie:6.12.117+deb13 --rounds 2
  rgbench ab --kernel base=~/linux-base/arch/arm64/boot/Image \
             --kernel patched=~/linux/arch/arm64/boot/Image --rounds 5 --vcpus 8
  rgbench ab --arch arm64 --guest-rgbench build-aarch64 --kernel old=trixie:6.12.117+deb13 \
             --kernel new=trixie-backports:7.3.4+deb13 --rounds 2
  rgbench ab --table results/ab-20261203T2100Z --commit-log
EOF
}

pin= pin_auto=1 kbench= guest_rgbench= labels=() specs=() hdr_opts=() app_opts=() rounds=2 seed= vcpus=2 memory=2048 out= plan=0 user=1 table= fmt=text timeout=1800
case "$(uname -m)" in aarch64) arch=arm64 ;; *) arch=amd64 ;; esac
# need OPT: the option takes a value.
need() { (($2 >= 2)) || usage_error "$1 needs a value"; }
# number OPT VALUE LO HI: an integer in [LO, HI].
number() {
	[[ $2 =~ ^[0-9]+$ ]] && ((10#$2 >= $3 && 10#$2 <= $4)) ||
		usage_error "$1: '$2' is not a whole number from $3 to $4"
}
while (($#)); do
	case "$1" in
	--kernel) need "$1" $#; kspec=$2; shift ;;
	--kernel=*) kspec=${1#*=} ;;
	--rounds|--shuffle|--vcpus|--memory|--arch|--out|--table|--timeout|--kbench|--pin|--headers|--append|--guest-rgbench)
		need "$1" $#; set -- "$1=$2" "${@:3}"; continue ;;
	--rounds=*) rounds=${1#*=}; number --rounds "$rounds" 1 100; shift; continue ;;
	--shuffle=*) seed=${1#*=}; number --shuffle "$seed" 0 4294967295; shift; continue ;;
	--vcpus=*) vcpus=${1#*=}; number --vcpus "$vcpus" 1 64; shift; continue ;;
	--memory=*) memory=${1#*=}; number --memory "$memory" 256 65536; shift; continue ;;
	--timeout=*) timeout=${1#*=}; number --timeout "$timeout" 60 86400; shift; continue ;;
	--arch=*) arch=${1#*=}; [[ $arch == amd64 || $arch == arm64 ]] ||
		usage_error "--arch: '$arch' is not amd64 or arm64"; shift; continue ;;
	--out=*) out=${1#*=}; [[ -n $out ]] || usage_error "--out: an empty folder name"; shift; continue ;;
	--table=*) table=${1#*=}; [[ -n $table ]] || usage_error "--table: an empty folder name"; shift; continue ;;
	--kbench=*) kbench=${1#*=}; [[ -f $kbench && -x $kbench ]] ||
		usage_error "--kbench: '$kbench' is not an executable file"; shift; continue ;;
	--no-pin) pin_auto=0 pin=; shift; continue ;;
	--pin=*) pin=${1#*=} pin_auto=0; [[ $pin =~ ^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$ ]] ||
		usage_error "--pin: '$pin' is not a CPU list (e.g. 0-3 or 2,4,6)"; shift; continue ;;
	--headers=*|--append=*) x=${1#*=} o=${1%%=*}
		[[ $x == *=* && -n ${x%%=*} ]] || usage_error "$o: '$x' is not LABEL=VALUE"
		if [[ $o == --headers ]]; then
			[[ -d ${x#*=} ]] || usage_error "--headers ${x%%=*}: '${x#*=}' is not a folder"
			[[ -f ${x#*=}/Makefile ]] || usage_error "--headers ${x%%=*}: '${x#*=}' has no Makefile (not a kernel build directory)"
			hdr_opts+=("$x")
		else app_opts+=("$x"); fi
		shift; continue ;;
	--guest-rgbench=*) guest_rgbench=${1#*=}; [[ -f $guest_rgbench || -d $guest_rgbench ]] ||
		usage_error "--guest-rgbench: '$guest_rgbench' is neither a folder nor a file"; shift; continue ;;
	--no-user) user=0; shift; continue ;;
	--plan) plan=1; shift; continue ;;
	--markdown) fmt=markdown; shift; continue ;;
	--commit-log) fmt=commit-log; shift; continue ;;
	-h|--help) usage; exit 0 ;;
	-V|--version) exec "${RGBENCH:-rgbench}" --version ;;
	*) usage_error "unknown option '$1'" ;;
	esac
	# --kernel LABEL=SPEC
	[[ $kspec == *=* ]] || usage_error "--kernel: '$kspec' is not LABEL=SPEC"
	l=${kspec%%=*} s=${kspec#*=}
	[[ $l =~ ^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$ ]] ||
		usage_error "--kernel: label '$l' is not 1 to 32 of A-Z a-z 0-9 . _ - (a letter or digit first)"
	[[ -n $s ]] || usage_error "--kernel $l=: no kernel given"
	for x in "${labels[@]}"; do [[ $x != "$l" ]] || usage_error "--kernel: label '$l' given twice"; done
	if [[ -e $s ]]; then
		[[ -f $s ]] || usage_error "--kernel $l: '$s' is not a regular file (a kernel image)"
	elif ! [[ $s =~ ^([a-z][a-z0-9-]*:)?[0-9]+\.[0-9]+[0-9A-Za-z.+~-]*$ ]]; then
		usage_error "--kernel $l: '$s' is neither a file nor a Debian kernel version (e.g. 6.1.0-57)"
	fi
	labels+=("$l") specs+=("$s")
	shift
	continue
done

if [[ -n $table ]]; then
	((${#labels[@]} == 0)) || usage_error "--table reads an earlier ab's folder: no --kernel with it"
	[[ -f $table/manifest.csv ]] || usage_error "--table: '$table' holds no manifest.csv (not an ab folder)"
	python3 "$here/ab_table.py" --format "$fmt" "$table" || exit
	[[ -f $table/prediction.txt ]] && { echo; cat "$table/prediction.txt"; }
	exit 0
fi
((${#labels[@]} >= 2)) || usage_error "two or more --kernel LABEL=SPEC are needed (got ${#labels[@]})"
# label_index OPT LABEL: the kernel LABEL names (--headers, --append), else a usage error.
label_index() {
	local j
	for ((j = 0; j < ${#labels[@]}; j++)); do [[ ${labels[j]} == "$2" ]] && { echo "$j"; return; }; done
	usage_error "$1 $2: no --kernel $2=... is given"
}
headers=() appends=()
for x in "${hdr_opts[@]}"; do j=$(label_index --headers "${x%%=*}") || exit; headers[j]=$(realpath "${x#*=}"); done
for x in "${app_opts[@]}"; do j=$(label_index --append "${x%%=*}") || exit; appends[j]+=${appends[j]:+ }${x#*=}; done
# A kernel image is of --arch's kind before anything is fetched or booted: amd64 a bzImage
# ("HdrS" at byte 514), arm64 an Image ("ARMd" at 56), its EFI zboot form ("zimg" at 4) or gzip'd.
at() { od -An -c -j"$2" -N"$3" "$1" 2>/dev/null | tr -d ' '; }
for ((i = 0; i < ${#labels[@]}; i++)); do
	[[ -f ${specs[i]} ]] || continue
	case $arch in
	amd64) [[ $(at "${specs[i]}" 514 4) == HdrS ]] ||
		usage_error "--kernel ${labels[i]}: '${specs[i]}' is not an amd64 kernel image (a bzImage has 'HdrS' at byte 514)" ;;
	arm64) [[ $(at "${specs[i]}" 56 4) == ARMd || $(at "${specs[i]}" 4 4) == zimg || $(at "${specs[i]}" 0 2) == '037213' ]] ||
		usage_error "--kernel ${labels[i]}: '${specs[i]}' is not an arm64 kernel image (an Image has 'ARMd' at byte 56)" ;;
	esac
done
host_arch=$(dpkg --print-architecture 2>/dev/null || echo amd64)
# elf_machine FILE: readelf's Machine of FILE, if it is --arch's (else 1, with what it is).
elf_machine() {
	local want=AArch64 m
	[[ $arch == amd64 ]] && want=X86-64
	m=$(LC_ALL=C readelf -h "$1" 2>/dev/null | sed -n 's/^ *Machine: *//p')
	[[ $m == *"$want" ]] || { echo "${m:-not an ELF file}"; return 1; }
}
# The guest's rgbench: this one for this machine's architecture, else --guest-rgbench (a cross
# build's folder, the binary, or a .deb: its usr/bin/rgbench), which must be of --arch.
guest_deb=
if [[ -n $guest_rgbench ]]; then
	g=$guest_rgbench
	# (a build folder has it in tools/)
	if [[ -d $g ]]; then [[ -f $g/rgbench ]] && g=$g/rgbench || g=$g/tools/rgbench; fi
	if [[ $g == *.deb ]]; then
		dpkg-deb --contents "$g" 2>/dev/null | grep -q ' \./usr/bin/rgbench$' ||
			usage_error "--guest-rgbench: '$g' is not a .deb holding usr/bin/rgbench"
		guest_deb=$(realpath "$g") g=
	elif [[ ! -f $g || ! -x $g ]]; then
		usage_error "--guest-rgbench: no rgbench program at '$g'"
	else
		m=$(elf_machine "$g") || usage_error "--guest-rgbench: '$g' is not an $arch program ($m)"
		g=$(realpath "$g")
	fi
	guest_rgbench=$g
elif [[ $arch != "$host_arch" ]]; then
	usage_error "--arch $arch on an $host_arch machine needs --guest-rgbench: an $arch rgbench (a cross build's folder, e.g. build-aarch64, or an rgbench .deb)"
fi
# The kernel's bench runs in the guests: a program of --arch's (e.g. tests/bpf/kbench/build.sh
# --arch arm64 for arm64 guests, static: nothing to copy beside it into the busybox guest).
if [[ -n $kbench ]]; then
	m=$(elf_machine "$kbench") ||
		usage_error "--kbench: '$kbench' is not an $arch program ($m): the guests run it (tests/bpf/kbench/build.sh --arch $arch builds one)"
fi
# One host CPU per physical core, when --pin is not given: the first CPU of each core
# (sysfs topology/core_cpus_list, else thread_siblings_list) that this process may run on,
# in CPU order with CPU 0's core last (it takes the machine's housekeeping and most of its
# interrupts), the first --vcpus of them. Fewer cores than vCPUs: none (two vCPUs on one
# core's threads would measure each other). RG_TEST_SYSFS_ROOT (tests): another
# sys/devices/system/cpu, every CPU it lists allowed. Prints the list, or nothing and why
# on stderr.
auto_pin() {
	python3 - "$vcpus" "${RG_TEST_SYSFS_ROOT:-}" <<'PY'
import os, re, sys
n, root = int(sys.argv[1]), sys.argv[2]
base = os.path.join(root or "/", "sys/devices/system/cpu")

def cpulist(text):
    out = []
    for part in text.strip().split(","):
        if part:
            lo, _, hi = part.partition("-")
            out.extend(range(int(lo), int(hi or lo) + 1))
    return out

try:
    cpus = sorted(int(m[1]) for m in (re.fullmatch(r"cpu(\d+)", d) for d in os.listdir(base)) if m)
except OSError as e:
    sys.exit(f"cannot read {base} ({e.strerror})")
allowed = set(cpus) if root else os.sched_getaffinity(0)
first = {}
for c in cpus:
    if c not in allowed:
        continue
    sib = None
    for f in ("core_cpus_list", "thread_siblings_list"):
        try:
            sib = cpulist(open(os.path.join(base, f"cpu{c}", "topology", f)).read())
            break
        except (OSError, ValueError):
            pass
    key = min(sib) if sib else c
    first.setdefault(key, c)
zero = [c for k, c in first.items() if k == 0]
cores = [c for c in sorted(first.values()) if c not in zero] + zero
if len(cores) < n:
    sys.exit(f"{len(cores)} physical cores here for {n} vCPUs")
print(",".join(map(str, cores[:n])))
PY
}
# (said with --plan, and when the boots start: after every refusal, which is one line)
pin_said=
if ((pin_auto)) && [[ -z $table ]]; then
	if pin=$(auto_pin 2>&1); then
		pin_said="vCPUs pinned to host CPUs $pin: one per physical core, CPU 0's core last (--pin CPUS chooses, --no-pin leaves them free)"
	else
		pin_said="vCPUs not pinned: $pin (--pin CPUS pins them anyway)"
		pin=
	fi
fi
if [[ -n $pin ]]; then
	npin=0
	IFS=, read -r -a _parts <<<"$pin"
	for p in "${_parts[@]}"; do
		lo=${p%-*} hi=${p#*-}
		((10#$hi >= 10#$lo)) || usage_error "--pin: '$p' runs backwards"
		npin=$((npin + 10#$hi - 10#$lo + 1))
	done
	((npin >= vcpus)) || usage_error "--pin: $npin host CPUs for $vcpus vCPUs (one each is needed)"
fi

# The order of the boots: rounds alternate (A B, B A, ...), or a seeded shuffle of them all.
order=()
if [[ -n $seed ]]; then
	mapfile -t order < <(python3 -c 'import random, sys
k, r, s = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
b = [i for _ in range(r) for i in range(k)]
random.Random(s).shuffle(b)
print("\n".join(map(str, b)))' "${#labels[@]}" "$rounds" "$seed")
else
	for ((r = 0; r < rounds; r++)); do
		for ((i = 0; i < ${#labels[@]}; i++)); do
			((r % 2 == 0)) && order+=("$i") || order+=("$((${#labels[@]} - 1 - i))")
		done
	done
fi
nboots=${#order[@]}
# The guests' host name (the rows' host column): one for every boot of this command, so that
# rgbench report and compare take the boots for one machine (its two-boot prediction check
# pairs boots of one host; which kernel and boot a row is, ab_label and ab_boot say): the
# guests' architecture and the machine that booted them, e.g. rgbench-ab-arm64-buildbox.
me_host=$(uname -n | tr -c 'A-Za-z0-9-\n' '-')
guest_host=rgbench-ab-$arch${me_host:+-$me_host}
guest_host=${guest_host:0:63}
if ((plan)); then
	[[ -z $pin_said ]] || say "$pin_said"
	say "the guests' host name: $guest_host"
	echo "boot label spec"
	for ((b = 0; b < nboots; b++)); do
		printf '%d %s %s\n' "$((b + 1))" "${labels[order[b]]}" "${specs[order[b]]}"
	done
	exit 0
fi

# The one output policy: a new folder, or an empty one; never an earlier ab's results, and
# one ab at a time (the lock).
[[ -n $out ]] || out=results/ab-$(date -u +%Y%m%dT%H%M%SZ)
if [[ -e $out && ! -d $out ]]; then usage_error "--out: '$out' exists and is not a folder"; fi
if [[ -e $out/manifest.csv ]]; then
	say "--out: '$out' holds an earlier ab's results (manifest.csv): they are not replaced; give another --out"
	exit 2
fi
mkdir -p "$out" 2>/dev/null || usage_error "--out: cannot make '$out'"
exec 9>"$out/.ab.lock" || usage_error "--out: cannot write in '$out'"
flock -n 9 || { say "another rgbench ab is writing '$out'"; exit 1; }
[[ -z $pin_said ]] || say "$pin_said"

for t in python3 make; do command -v "$t" >/dev/null || { say "'$t' is not installed"; exit 1; }; done
case $arch in amd64) qemu=qemu-system-x86_64 ;; arm64) qemu=qemu-system-aarch64 ;; esac
command -v "$qemu" >/dev/null || { say "$qemu is not installed (Debian: qemu-system-x86 / qemu-system-arm)"; exit 1; }
rgbench=${RGBENCH:-$(command -v rgbench)}
[[ -x $rgbench ]] || { say "no rgbench to put into the guests (RGBENCH)"; exit 1; }
if [[ -n $guest_deb ]]; then
	mkdir -p "$out/guest-rgbench" && dpkg-deb -x "$guest_deb" "$out/guest-rgbench" ||
		{ say "--guest-rgbench: cannot unpack '$guest_deb'"; exit 1; }
	guest_rgbench=$out/guest-rgbench/usr/bin/rgbench
	m=$(elf_machine "$guest_rgbench") ||
		{ say "--guest-rgbench: '$guest_deb' holds an rgbench that is not an $arch program ($m)"; exit 2; }
fi
guest=${guest_rgbench:-$rgbench}
# The module for another architecture: cross-compiled (module.sh: RG_AB_CROSS, RG_AB_KARCH).
if [[ $arch != "$host_arch" ]]; then
	export RG_AB_KARCH=$arch RG_AB_CROSS=${RG_AB_CROSS:-aarch64-linux-gnu-}
	[[ $arch == amd64 ]] && RG_AB_CROSS=${RG_AB_CROSS/aarch64-linux-gnu-/x86_64-linux-gnu-} RG_AB_KARCH=x86
fi

# KVM where /dev/kvm runs a guest: tried once, and the reason said when not.
accel=tcg
if [[ -e /dev/kvm ]]; then
	# (a guest that starts stopped, -S, runs until the timeout: 124 is KVM working)
	kvm_err=$(timeout 5 "$qemu" -accel kvm -cpu host -machine none -display none -monitor none \
		-serial none -S </dev/null 2>&1)
	(($? == 124)) && accel=kvm
	[[ $accel == kvm ]] || say "KVM: /dev/kvm is there but does not run a guest ($(head -1 <<<"$kvm_err")): TCG, every timing emulated"
else
	say "KVM: no /dev/kvm here: TCG (emulated), every timing marked emulated and no change called"
fi

cache=${RG_VM_CACHE:-$HOME/.cache/rgbench-vm}
mkdir -p "$cache"
kmod_src=${RG_AB_KMOD_SRC:-}
kmod_gen=${RG_AB_KMOD_GEN:-$kmod_src}

# suite_apt SUITE: apt-get options for SUITE's package lists, kept in the cache (apt-get update
# once per day); the kernel packages are then fetched with apt-get download.
suite_apt() {
	local d=$cache/apt-$1
	apt_opts=(-o "Dir::Etc::SourceList=$d/sources.list" -o Dir::Etc::SourceParts=/nonexistent
		-o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/cache")
	mkdir -p "$d/lists/partial" "$d/cache"
	if [[ ! -f $d/sources.list ]]; then
		# (a backports suite with its base suite: the newer C library its tools may need)
		for x in "$1" ${1%-backports}; do
			echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${RG_AB_MIRROR:-http://deb.debian.org/debian} $x main"
		done | uniq >"$d/sources.list"
	fi
	if [[ -z $(find "$d/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null) ]]; then
		apt-get "${apt_opts[@]}" update -q >"$d/update.log" 2>&1 || return 1
	fi
}

# wrap_newer_glibc DIR GLIBC: every program under DIR this system's C library cannot run (a
# newer suite's kbuild tools: objtool, modpost) runs through GLIBC's loader instead.
wrap_newer_glibc() {
	# (the build tools are this machine's, whatever the guest's architecture)
	local f ld=$2/ld-linux-x86-64.so.2
	[[ $host_arch == arm64 ]] && ld=$2/ld-linux-aarch64.so.1
	while IFS= read -r f; do
		[[ $f == *.bin ]] && continue
		[[ $(ldd "$f" 2>&1) == *"version "*" not found"* ]] || continue
		mv "$f" "$f.bin"
		printf '#!/bin/sh\nexec "%s" --library-path "%s" "%s" "$@"\n' "$ld" "$2" "$f.bin" >"$f"
		chmod +x "$f"
	done < <(find "$1" -type f -perm -u+x)
}

# debian_kernel SPEC: fetch (once, into the cache) the image and headers of a Debian kernel
# version ([SUITE:]ABI) and set image= and kdir=. Returns 1 with a line on failure.
debian_kernel() {
	local spec=$1 suite= abi root pkgs p deb kb q=
	# another architecture's packages are named with it (the build tools stay this machine's)
	[[ $arch == "$host_arch" ]] || q=:$arch
	[[ $spec == *:* ]] && suite=${spec%%:*}
	abi=${spec#*:}
	root=$cache/ab-$abi-$arch
	apt_opts=()
	if [[ ! -f $root/.done ]]; then
		if [[ -n $suite ]]; then suite_apt "$suite" || { say "apt-get update for $suite failed (see $cache/apt-$suite/update.log)"; return 1; }; fi
		kb=$(apt-cache "${apt_opts[@]}" depends "linux-headers-$abi-$arch$q" 2>/dev/null | sed -n 's/.*Depends: \(linux-kbuild-[^ :]*\)\(:[a-z0-9]*\)\?$/\1/p' | head -1)
		pkgs=("linux-image-$abi-$arch$q" "linux-headers-$abi-$arch$q" "linux-headers-$abi-common" ${kb:+"$kb"})
		# Debian's 7.x kernels split the image: linux-image-* is a metapackage, the kernel is
		# linux-binary-*'s usr/lib/modules/<release>/vmlinuz.
		apt-cache "${apt_opts[@]}" show "linux-binary-$abi-$arch$q" >/dev/null 2>&1 && pkgs+=("linux-binary-$abi-$arch$q")
		rm -rf "$root.tmp" && mkdir -p "$root.tmp/debs"
		say "fetching ${pkgs[*]} (once; cached in $root)"
		(cd "$root.tmp/debs" && apt-get "${apt_opts[@]}" download -q "${pkgs[@]}" >../download.log 2>&1) ||
			{ say "apt-get download of $spec's packages failed: $(grep -m1 -E '^E:' "$root.tmp/download.log")"; return 1; }
		for deb in "$root.tmp"/debs/*.deb; do dpkg-deb -x "$deb" "$root.tmp/root"; done
		# Debian's headers include their common part by absolute path (/usr/src/...).
		for p in "$root.tmp"/root/usr/src/linux-headers-*-"$arch"/Makefile; do
			sed -i "s|/usr/src/|$root/root/usr/src/|" "$p"
		done
		# A newer suite's build tools may need a newer C library than this system's.
		if [[ -n $suite && $(find "$root.tmp/root/usr/lib" -path '*kbuild*' -type f -perm -u+x -exec ldd {} + 2>&1) == *"version "*" not found"* ]]; then
			(cd "$root.tmp/debs" && apt-get "${apt_opts[@]}" download -q libc6 >>../download.log 2>&1) ||
				{ say "apt-get download libc6 ($suite) failed"; return 1; }
			mkdir -p "$root.tmp/glibc" && dpkg-deb -x "$root.tmp"/debs/libc6_*.deb "$root.tmp/glibc"
		fi
		rm -rf "$root.tmp/debs"
		rm -rf "$root" && mv "$root.tmp" "$root" && touch "$root/.done"
		[[ -d $root/glibc ]] && wrap_newer_glibc "$root/root/usr/lib" "$(dirname "$(find "$root/glibc" -name 'ld-linux*' | head -1)")"
		sed -i "s|$root.tmp/|$root/|" "$root"/root/usr/src/linux-headers-*-"$arch"/Makefile
	fi
	image=$(ls "$root"/root/boot/vmlinuz-* "$root"/root/usr/lib/modules/*/vmlinuz 2>/dev/null | head -1)
	kdir=$(ls -d "$root"/root/usr/src/linux-headers-*-"$arch" 2>/dev/null | head -1)
	[[ -n $image ]] || { say "no kernel image in $spec's packages"; return 1; }
}

# image_kernel PATH: a kernel image; its build directory (Makefile and Module.symvers) is
# looked for beside it and up to three folders above (arch/x86/boot/bzImage of a build tree).
image_kernel() {
	local d
	image=$(realpath "$1") kdir=
	d=$(dirname "$image")
	for _ in 1 2 3 4; do
		[[ -f $d/Makefile && -f $d/Module.symvers ]] && { kdir=$d; break; }
		d=$(dirname "$d")
	done
	[[ -n $kdir ]] || kdir=$(ls -d "$(dirname "$image")"/lib/modules/*/build 2>/dev/null | head -1)
}

# Every kernel made ready once: the image, and the module built against its headers.
# nomods[i]: why kernel i has no module (the guest puts it into kmod.err: the manifest's reason).
images=() mods=() kerrs=() nomods=()
for ((i = 0; i < ${#labels[@]}; i++)); do
	image= kdir=
	if [[ -f ${specs[i]} ]]; then image_kernel "${specs[i]}"; else debian_kernel "${specs[i]}" || { images+=(""); mods+=(""); kerrs+=("fetch"); nomods+=(""); continue; }; fi
	[[ -n ${headers[i]:-} ]] && kdir=${headers[i]}
	mod= why=
	if [[ -z $kmod_src ]]; then
		why="the module's sources are not found (RG_AB_KMOD_SRC)"
	elif [[ -z $kdir ]]; then
		why="no build directory beside ${specs[i]} (Makefile and Module.symvers; --headers ${labels[i]}=DIR names one)"
	else
		say "${labels[i]}: building the module against $kdir"
		if bash "$here/module.sh" "$kdir" "$kmod_src" "$kmod_gen" "$out/module-${labels[i]}" >&2; then
			mod=$out/module-${labels[i]}/rgbench_kmod.ko
		else
			why="the module did not build against $kdir (module-${labels[i]}/build.log)"
		fi
	fi
	[[ -n $why ]] && say "${labels[i]}: $why: no kmod rows"
	images+=("$image") mods+=("$mod") kerrs+=("") nomods+=("$why")
done

manifest=$out/manifest.csv
echo "boot,label,spec,round,accel,arch,vcpus,memory_mib,status,exit,elapsed_s,kernel_release,result,console,reason,console_tail" >"$manifest.tmp"
# row BOOT LABEL SPEC ROUND STATUS EXIT ELAPSED RELEASE RESULT CONSOLE REASON [TAIL]: one manifest line.
row() {
	local f out_line= v
	for v in "$1" "$2" "$3" "$4" "$accel" "$arch" "$vcpus" "$memory" "${@:5}"; do
		v=${v//\"/\"\"}
		[[ $v == *[,\"]* ]] && v="\"$v\""
		out_line+=${out_line:+,}$v
	done
	echo "$out_line" >>"$manifest.tmp"
}
cp "$manifest.tmp" "$manifest"

stopped=0 vpid=
on_signal() {
	stopped=$1
	[[ -n $vpid ]] && kill -TERM "$vpid" 2>/dev/null
}
trap 'on_signal 130' INT
trap 'on_signal 143' TERM
trap 'on_signal 129' HUP

t_start=$(date +%s)
# One run id for the whole command: every suite of every boot writes it (RG_RUN_ID), so a
# boot's merged file is one run that rgbench report and compare read.
run_id=$(date -u +%Y%m%dT%H%M%SZ)-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
failed=0
for ((b = 0; b < nboots; b++)); do
	((stopped)) && break
	i=${order[b]} l=${labels[i]}
	n=$(printf '%02d' "$((b + 1))")
	round=$(( $(printf '%s\n' "${order[@]:0:b+1}" | grep -cx "$i") ))
	bdir=$out/boot-$n-$l
	now=$(date +%s)
	eta=
	((b > 0)) && eta=", about $(( (now - t_start) * (nboots - b) / b / 60 )) min left"
	say "boot $((b + 1)) of $nboots: $l (${specs[i]}), round $round; $((now - t_start)) s elapsed$eta"
	if [[ ${kerrs[i]} == fetch ]]; then
		row "$n" "$l" "${specs[i]}" "$round" failed "" 0 "" "" "" "the kernel could not be fetched" ""
		failed=1
		continue
	fi
	mkdir -p "$bdir/payload" "$bdir/out"
	cp "$guest" "$bdir/payload/rgbench"
	[[ -n ${mods[i]} ]] && cp "${mods[i]}" "$bdir/payload/rgbench_kmod.ko"
	cp "$here/guest.sh" "$bdir/payload/guest.sh"
	kb_libs=()
	[[ -n $kbench ]] && cp "$kbench" "$bdir/payload/bench" && kb_libs=(--libs "$kbench")
	# RG_AB_BOOT: the boot's index as a number (10#: "08" is not octal)
	printf 'RG_AB_USER=%s\nRG_AB_LABEL=%s\nRG_AB_BOOT=%s\nRG_RUN_ID=%s\n' "$user" "$l" "$((10#$n))" "$run_id" >"$bdir/payload/ab.env"
	[[ -n ${nomods[i]} ]] && printf 'RG_AB_NOMOD="%s"\n' "${nomods[i]//[\"\$\`\\]/}" >>"$bdir/payload/ab.env"
	# the suites' options in the guest, when given (RG_AB_GUEST_ARGS_BPF, _KMOD, _USER)
	for v in GUEST_ARGS_BPF GUEST_ARGS_KMOD GUEST_ARGS_USER KBENCH_TESTS KBENCH_SECONDS; do
		eval "x=\${RG_AB_$v:-}"
		[[ -n $x ]] && printf 'RG_AB_%s="%s"\n' "$v" "$x" >>"$bdir/payload/ab.env"
	done
	t0=$(date +%s)
	RG_VM_ACCEL=$accel RG_VM_TASKSET=$pin RG_VM_PIN_VCPUS=$pin bash "$here/vm.sh" --arch "$arch" --kernel "${images[i]}" --payload "$bdir/payload" --out "$bdir/out" \
		--hostname "$guest_host" \
		--libs "$guest" "${kb_libs[@]}" --timeout "$timeout" --mem "$memory" --smp "$vcpus" --console "$bdir/console.log" \
		${appends[i]:+--append "${appends[i]}"} \
		-- sh ./guest.sh >"$bdir/guest.log" 2>"$bdir/vm.err" &
	vpid=$!
	wait "$vpid"
	rc=$?
	# a signal to this script returns wait early: wait again for vm.sh to stop its guest
	((stopped)) && { wait "$vpid" 2>/dev/null; rc=$stopped; }
	vpid=
	el=$(($(date +%s) - t0))
	rm -rf "$bdir/payload"
	rel=$(cat "$bdir/out/uname" 2>/dev/null)
	if ((stopped)); then
		row "$n" "$l" "${specs[i]}" "$round" interrupted "$rc" "$el" "$rel" "" "boot-$n-$l/console.log" "stopped by a signal" ""
		say "boot $((b + 1)): stopped; the guest was stopped, the finished boots are kept"
		break
	fi
	result=
	if ((rc == 0)) && python3 "$here/ab_table.py" --merge "$bdir/out" "$out/boot-$n-$l.json" "$l" "$n" 2>"$bdir/merge.err"; then
		result=boot-$n-$l.json
	fi
	reason=$(python3 "$here/ab_table.py" --why "$bdir" "$rc" 2>/dev/null)
	if [[ -n $result && -z $reason ]]; then
		row "$n" "$l" "${specs[i]}" "$round" ok 0 "$el" "$rel" "$result" "boot-$n-$l/console.log" "" ""
		say "boot $((b + 1)): $l done in $el s ($rel)"
	else
		[[ -n $reason ]] || reason="no rows came back ($(head -c 200 "$bdir/merge.err" | tr '\n' ' '))"
		status=failed
		[[ -n $result ]] && status=partial
		# the console's last two lines with something printable, escapes and controls dropped
		# (the guest's files, base64 between @@RG-FILE and @@RG-EOF, are not the console's words;
		# a panic's tail is its line and the next, which names the task, not its stack's end)
		tail=$(sed -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\x1b[A-Za-z]//g' -e 's/[[:cntrl:]]//g' -e 's/^ *//' \
			"$bdir/console.log" 2>/dev/null | awk '/^@@RG-FILE /{f=1} /^@@RG-EOF/{f=0; next} !f && !/^@@RG-/ && NF' |
			awk '/Kernel panic - not syncing/ && !p { p = NR } { l[NR] = $0 }
				END { a = p ? p : NR - 1; for (i = a; i <= a + 1 && i <= NR; i++) if (i > 0) print l[i] }' |
			paste -sd'|' | sed 's/|/ | /' | cut -c1-240)
		row "$n" "$l" "${specs[i]}" "$round" "$status" "$rc" "$el" "$rel" "$result" "boot-$n-$l/console.log" "$reason" "${tail:-(empty)}"
		say "boot $((b + 1)): $l $status: $reason; console tail: ${tail:-(empty)}"
		failed=1
	fi
	cp "$manifest.tmp" "$manifest"
done
cp "$manifest.tmp" "$manifest" && rm -f "$manifest.tmp"
trap - INT TERM HUP
if grep -q ',ok,\|,partial,' "$manifest"; then
	python3 "$here/ab_table.py" --format text "$out" | tee "$out/table.txt"
	python3 "$here/ab_table.py" --format markdown "$out" >"$out/table.md"
	python3 "$here/ab_table.py" --format commit-log "$out" >"$out/commit-log.txt"
	echo
	python3 "$here/ab_table.py" --predict "$out" "$rgbench" | tee "$out/prediction.txt"
	say "results: $out (manifest.csv, boot-*.json, table.txt, table.md, commit-log.txt, prediction.txt)"
fi
((stopped)) && { say "interrupted after $((b)) of $nboots boots"; exit "$stopped"; }
exit "$failed"
