#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Install what rgbench needs for one purpose, by distribution family and release (idempotent;
# root or sudo). Each README command asks for its purpose first, so a fresh machine needs
# nothing else and installs only what that command uses.
#
# Purposes (each a set of needs of the table below):
#   run    build bpf counters plots     scripts/run.sh: build, run every suite, plot, report
#   test   run + cross vm fleet sshd    scripts/test.sh: + aarch64 cross build, the VM tests,
#          checks cache                 the fleet test (Ansible, sshd in network namespaces),
#                                       the readers a result file is checked with (pandas, sqlite3),
#                                       and ccache (each CI's four builds of the same sources)
#   kmod   build kmod                   rgbench kmod on this machine: the running kernel's
#                                       headers (linux-headers-$(uname -r), kernel-devel-$(uname -r))
#   fleet  fleet build bpf package      rgbench fleet's control machine: Ansible and ssh, and what
#          crosspkg                     building the package there takes (debian/control's
#                                       Build-Depends; not needed with --deb FILE); on amd64 also
#                                       the arm64 package's cross build (crossbuild-essential-arm64,
#                                       the :arm64 Build-Depends) for arm64 hosts
# The table has package names per family: apt (Debian, Ubuntu) and dnf (Fedora, RHEL, Amazon
# Linux). A row is for every architecture (any) or for amd64 / arm64 only:
#   amd64  cross: aarch64 cross toolchain and arm64 libraries (incl. libbpf for the arm64 BPF
#          bench); vm: qemu (user and system) for the aarch64 tests, mmdebstrap and
#          qemu-user-static for tests/arm64 (a Debian arm64 system under binfmt)
#   arm64  no cross toolchain and no qemu-user (they would only emulate what runs natively here)
# A name A|B is the first of A, B that is installed, else the first the release has (asked
# of apt-cache); NAME-VERSION is the newest NAME-<version> installed, else the newest the
# release has (apt-cache pkgnames NAME-); NAME-UNAME is NAME-$(uname -r) (the running
# kernel; a kernel with no such package, e.g. one built by hand, is said in one line). Every
# other name is installed exactly as written.
#
#   scripts/deps.sh [PURPOSE]         install what PURPOSE (default run) is missing, or say all present
#   scripts/deps.sh --list [PURPOSE]  print its package names for this machine, one a line; install nothing
#   scripts/deps.sh --table           print the table itself (NEED FAMILY ARCH NAMES...)
# RG_DEPS_ARCH=arm64|amd64 lists another architecture's names (with --list);
# RG_DEPS_RESOLVE=first takes the first name of each A|B without asking apt (--list for
# another release's root filesystem, tests/arm64/rootfs.sh); RG_DEPS_CROSS=0 / RG_DEPS_VM=0
# leave out the cross / VM-test packages; RG_DEPS_OS_RELEASE names another os-release file;
# RG_DEPS_UNAME stands for $(uname -r).
# Exit: 0 done or all present, 1 install failed or a name is missing from this release
# (nothing installed then), 2 usage, or a distribution that is neither apt nor dnf.
set -euo pipefail

table() {
	cat <<'EOF'
build    apt any   build-essential cmake ninja-build pkg-config git libbenchmark-dev libhwloc-dev hwloc libjansson-dev scdoc
build    dnf any   gcc gcc-c++ make cmake ninja-build pkgconf-pkg-config git google-benchmark-devel hwloc-devel hwloc jansson-devel scdoc
bpf      apt any   libbpf-dev bpftool|linux-tools-common clang llvm libelf-dev zlib1g-dev
bpf      dnf any   libbpf-devel bpftool clang llvm elfutils-libelf-devel zlib-devel
counters apt any   linux-source|linux-source-VERSION flex bison bc xz-utils libpfm4-dev
counters dnf any   libperf-devel libpfm-devel
plots    apt any   python3 python3-matplotlib python3-numpy python3-scipy libbenchmark-tools
plots    dnf any   python3 python3-matplotlib python3-numpy python3-scipy
cross    apt amd64 gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross binutils-aarch64-linux-gnu qemu-user libbenchmark-dev:arm64 libhwloc-dev:arm64 libjansson-dev:arm64 libbpf-dev:arm64 libelf-dev:arm64 zlib1g-dev:arm64 libpfm4-dev:arm64
cross    dnf amd64 gcc-aarch64-linux-gnu gcc-c++-aarch64-linux-gnu binutils-aarch64-linux-gnu qemu-user-static-aarch64
vm       apt amd64 qemu-system-x86 qemu-system-arm busybox-static cpio linux-headers-amd64 mmdebstrap qemu-user-static binfmt-support arch-test
vm       apt arm64 qemu-system-arm busybox-static cpio linux-headers-arm64
vm       dnf amd64 qemu-system-x86 qemu-system-aarch64 busybox cpio kernel-devel
vm       dnf arm64 qemu-system-aarch64 busybox cpio kernel-devel
kmod     apt any   linux-headers-UNAME
kmod     dnf any   kernel-devel-UNAME
fleet    apt any   ansible-core openssh-client
fleet    dnf any   ansible-core openssh-clients
sshd     apt any   openssh-server iproute2 sudo mount
sshd     dnf any   openssh-server iproute sudo util-linux
checks   apt any   python3-pandas sqlite3
package  apt any   dpkg-dev debhelper dh-dkms libpfm4-dev
crosspkg apt amd64 crossbuild-essential-arm64 libbenchmark-dev:arm64 libhwloc-dev:arm64 libjansson-dev:arm64 libbpf-dev:arm64 libelf-dev:arm64 zlib1g-dev:arm64 libpfm4-dev:arm64
checks   dnf any   python3-pandas sqlite
cache    apt any   ccache
cache    dnf any   ccache
EOF
}
die() { echo "rgbench deps: $2" >&2; exit "$1"; }
# purpose_needs PURPOSE: the table's needs that PURPOSE installs.
purpose_needs() {
	case "$1" in
	run) echo build bpf counters plots ;;
	test) echo build bpf counters plots cross vm fleet sshd checks cache ;;
	kmod) echo build kmod ;;
	fleet) echo fleet build bpf package crosspkg ;;
	*) return 1 ;;
	esac
}

mode=install
if [[ ${1:-} == --table ]]; then
	(($# == 1)) || die 2 "--table takes no other argument"
	table
	exit 0
fi
if [[ ${1:-} == --list ]]; then
	mode=list
	shift
fi
purpose=${1:-run}
case "$purpose" in
-*) die 2 "unknown argument '$purpose' (PURPOSE, --list [PURPOSE] or --table)" ;;
esac
(($# <= 1)) || die 2 "one purpose at most (run, test, kmod or fleet)"
purpose_needs "$purpose" >/dev/null || die 2 "unknown purpose '$purpose' (run, test, kmod or fleet)"

# The family from os-release (ID, then ID_LIKE), and its package tool.
osr=${RG_DEPS_OS_RELEASE:-/etc/os-release}
ID=unknown ID_LIKE= PRETTY_NAME=
[[ -r $osr ]] && . "$osr"
family=
for id in $ID $ID_LIKE; do
	case "$id" in
	debian|ubuntu) family=apt; break ;;
	fedora|rhel|centos|amzn) family=dnf; break ;;
	esac
done
if [[ -z $family ]] || ! command -v "${family/apt/apt-get}" >/dev/null; then
	# Unsupported: the needs, then one line saying what to install; nothing is installed.
	echo "rgbench needs (names as Debian calls them; install your distribution's equivalents):"
	table | awk '$2 == "apt" && $3 != "arm64" {
		printf "  %-9s", $1
		for (i = 4; i <= NF; i++) {
			n = split($i, alt, "|"); out = ""
			for (j = 1; j <= n; j++)
				if (alt[j] ~ /-UNAME$/) out = out (out == "" ? "" : " or ") substr(alt[j], 1, length(alt[j]) - 5) "$(uname -r)"
				else if (alt[j] !~ /-VERSION$/) out = out (out == "" ? "" : " or ") alt[j]
			printf " %s", out
		}
		print ""
	}'
	die 2 "unsupported distribution '${PRETTY_NAME:-$ID}' (no apt-get or dnf): install the needs listed above (build and counters at least), then run the README's commands"
fi

if [[ -n ${RG_DEPS_ARCH:-} ]]; then
	arch=$RG_DEPS_ARCH
elif [[ $family == apt ]]; then
	arch=$(dpkg --print-architecture)
else
	arch=$(uname -m)
fi
case "$arch" in
amd64|x86_64) arch=amd64 ;;
arm64|aarch64) arch=arm64 ;;
*) die 2 "unsupported architecture '$arch' (amd64 or arm64)" ;;
esac
if [[ $mode == install && -n ${RG_DEPS_ARCH:-} ]]; then
	[[ $family == apt ]] && here=$(dpkg --print-architecture) || here=$(uname -m)
	[[ $arch == "$here" || ($arch == amd64 && $here == x86_64) || ($arch == arm64 && $here == aarch64) ]] ||
		die 2 "RG_DEPS_ARCH=$arch is for --list only; this machine is $here"
fi

# Ubuntu's amd64 archive has no arm64 packages (they are on its ports mirror): the cross
# needs (cross, crosspkg) are left out there unless arm64 is already a dpkg architecture;
# test.sh then skips the cross build, and rgbench fleet says the arm64 Build-Depends are missing.
cross=${RG_DEPS_CROSS:-1}
[[ " $(purpose_needs "$purpose") " == *" cross "* || " $(purpose_needs "$purpose") " == *" crosspkg "* ]] || cross=0
if [[ $cross == 1 && $family == apt && $arch == amd64 && " $ID " == *" ubuntu "* && $mode == install ]] &&
   [[ $'\n'$(dpkg --print-foreign-architectures)$'\n' != *$'\narm64\n'* ]]; then
	echo "rgbench deps: cross left out: Ubuntu's archive has no arm64 packages (add the ports sources and 'dpkg --add-architecture arm64', then run again)"
	cross=0
fi
needs=()
for need in $(purpose_needs "$purpose"); do
	[[ ($need == cross || $need == crosspkg) && $cross != 1 ]] && continue
	[[ $need == vm && ${RG_DEPS_VM:-1} != 1 ]] && continue
	needs+=("$need")
done

# The names of the wanted needs for this family and architecture, table order; NAME-UNAME
# is the running kernel's package.
uname_r=${RG_DEPS_UNAME:-$(uname -r)}
kernel_pkg=
wanted=()
while read -r need fam rarch names; do
	[[ $fam == "$family" && ($rarch == any || $rarch == "$arch") ]] || continue
	[[ " ${needs[*]} " == *" $need "* ]] || continue
	read -ra ns <<<"$names"
	for n in "${ns[@]}"; do
		[[ $n == *-UNAME ]] && { n=${n%UNAME}$uname_r; kernel_pkg=$n; }
		wanted+=("$n")
	done
done < <(table)

# (Output is read whole, never piped to grep -q: with pipefail, a writer cut off by SIGPIPE
# would turn a match into a failure.)
installed() {	# NAME
	if [[ $family == apt ]]; then
		[[ $(dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null) == *"install ok installed"* ]]
	else
		rpm -q --quiet "$1" 2>/dev/null
	fi
}
available() {	# NAME: the release has a candidate for it
	if [[ $family == apt ]]; then
		[[ $'\n'$(apt-cache policy "$1" 2>/dev/null) =~ $'\n'"  Candidate: "[^\(] ]]
	else
		dnf -q info "$1" >/dev/null 2>&1
	fi
}
# newest_versioned PREFIX installed|available: PREFIX<digits and dots>, highest version.
newest_versioned() {
	local n best=
	while read -r n; do
		[[ ${n#"$1"} =~ ^[0-9][0-9.]*$ ]] || continue
		if [[ $2 == installed ]]; then installed "$n" || continue; fi
		best+="$n"$'\n'
	done < <(apt-cache pkgnames "$1" 2>/dev/null)
	printf '%s' "$best" | sort -V | tail -n 1
}
# resolve GROUP: the one name to use for A|B|NAME-VERSION, "" when the release has none.
resolve() {
	local alts a n pass
	IFS='|' read -ra alts <<<"$1"
	if [[ ${RG_DEPS_RESOLVE:-} == first ]]; then echo "${alts[0]}"; return; fi
	for pass in installed available; do
		for a in "${alts[@]}"; do
			if [[ $a == *-VERSION ]]; then
				[[ $family == apt ]] || continue
				n=$(newest_versioned "${a%VERSION}" "$pass")
			else
				n=$a
				"$pass" "$n" || n=
			fi
			[[ -n $n ]] && { echo "$n"; return; }
		done
	done
	echo ""
}

# Apt's lists are needed to ask about alternatives (a fresh system or chroot has none).
updated=0
SUDO=
if [[ $(id -u) != 0 ]] && command -v sudo >/dev/null; then SUDO=sudo; fi
apt_update() {
	[[ $updated == 1 ]] && return 0
	if [[ " ${wanted[*]} " == *":arm64"* && $'\n'$(dpkg --print-foreign-architectures)$'\n' != *$'\narm64\n'* ]]; then
		$SUDO dpkg --add-architecture arm64
	fi
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
	updated=1
}
want=() unres=()
for w in "${wanted[@]}"; do
	if [[ $w != *'|'* && $w != *-VERSION ]]; then want+=("$w"); continue; fi
	n=$(resolve "$w")
	if [[ -z $n && $family == apt && $mode == install ]]; then
		[[ $(id -u) == 0 || -n $SUDO ]] || die 1 "need root or sudo (apt-get update, to find a package for '$w')"
		apt_update
		n=$(resolve "$w")
	fi
	[[ -n $n ]] && want+=("$n") || unres+=("$w")
done
((${#unres[@]} == 0)) ||
	die 1 "this release has no package for: ${unres[*]} (apt-get update first?); nothing installed"

if [[ $mode == list ]]; then
	printf '%s\n' "${want[@]}"
	exit 0
fi

missing=()
for p in "${want[@]}"; do installed "$p" || missing+=("$p"); done
if ((${#missing[@]} == 0)); then
	echo "rgbench deps: all ${#want[@]} packages for $purpose present ($arch)"
	exit 0
fi
[[ $(id -u) == 0 || -n $SUDO ]] || die 1 "need root or sudo to install: ${missing[*]}"
[[ $family == apt ]] && apt_update
# The running kernel's headers exist as a package only for the distribution's own kernels.
if [[ -n $kernel_pkg && " ${missing[*]} " == *" $kernel_pkg "* ]] && ! available "$kernel_pkg"; then
	die 1 "no package $kernel_pkg for the running kernel $uname_r (not the distribution's kernel?): install that kernel's build tree (its 'make modules_prepare' output) and pass rgbench kmod --kdir DIR; nothing installed"
fi
echo "rgbench deps: installing for $purpose ($family, $arch) ${missing[*]}"
if [[ $family == apt ]]; then
	# Every name must exist in this release before anything is installed.
	absent=()
	for p in "${missing[@]}"; do available "$p" || absent+=("$p"); done
	((${#absent[@]} == 0)) ||
		die 1 "${PRETTY_NAME:-this release} has no package named: ${absent[*]}; nothing installed"
	$SUDO env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
	# dnf resolves the whole transaction first: a missing name installs nothing.
	$SUDO dnf install -y -q "${missing[@]}"
fi
echo "rgbench deps: done"
