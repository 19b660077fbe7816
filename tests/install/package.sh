#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# install.package (opt-in: RG_TEST_PACKAGE=1, label package; 15 to 30 minutes, about an hour for arm64
# under qemu-user, and Debian's archive):
# the Debian packages built from this checkout's HEAD (git archive) and installed, each step in a
# throw-away overlay over a pristine mmdebstrap root of RELEASE (tests/arm64/rootfs.sh: only apt and
# git, cached in ~/.cache/rgbench):
#   build   apt-get build-dep of debian/control, then dpkg-buildpackage -us -uc -b with no network
#           (unshare -n), no HOME, an empty /sys (nothing of the builder's kernel) and a non-root
#           user; lintian on the result (printed; an E: tag fails)
#   run     apt-get install ./rgbench*.deb (only their declared Depends) and linux-headers-ARCH;
#           rgbench --version, --quick --no-bpf, report, plot, man of every page of docs/man, the
#           completion, dkms build of rgbench-dkms against the chroot's headers (file(1): the .ko
#           is ARCH's code), and the installed rgbench bpf on this machine's kernel (the chroot
#           sees the host's /sys); each long step says how many seconds it took
#   package.sh SRC [RELEASE] [ARCH]   RELEASE: bookworm (default) or trixie; ARCH: amd64 (default)
#                                     or arm64; exit 0, 1 failed, 77 skipped
# ARCH arm64: the build is Debian's cross build on this amd64 machine (the same pristine amd64 root
# with arm64 added as a dpkg architecture, crossbuild-essential-arm64, apt-get build-dep -a arm64,
# dpkg-buildpackage -a arm64); the run is in a pristine arm64 root of RELEASE (mmdebstrap through
# qemu-user-static, binfmt_misc) with linux-headers-arm64. qemu-user runs no BPF program (and the
# kernel under it is this machine's): the installed rgbench bpf is not run there.
# RG_PACKAGE_KEEP=DIR copies the .debs, the logs and lintian's output to DIR; RG_PACKAGE_DEBS=DIR
# skips the build and lintian and installs DIR's rgbench*.deb (a kept build: the run half again).
set -uo pipefail
src=$(cd "$1" && pwd) release=${2:-bookworm} arch=${3:-amd64}
[[ $arch == amd64 || $arch == arm64 ]] || { echo "package.sh: ARCH '$arch': amd64 or arm64" >&2; exit 2; }
[[ ${RG_TEST_PACKAGE:-0} == 1 ]] || { echo "SKIP: opt-in, set RG_TEST_PACKAGE=1 (15 to 30 minutes, Debian's archive)"; exit 77; }
((EUID == 0)) || { echo "SKIP: needs root (chroots)"; exit 77; }
command -v mmdebstrap >/dev/null || { echo "SKIP: mmdebstrap missing"; exit 77; }
command -v unshare >/dev/null || { echo "SKIP: unshare missing (util-linux)"; exit 77; }
[[ $(dpkg --print-architecture 2>/dev/null) == amd64 ]] || { echo "SKIP: the package test runs on amd64"; exit 77; }
export RG_ROOTFS_PRISTINE=1 RG_ROOTFS_ARCH=amd64 RG_ROOTFS_RELEASE=$release
. "$src/tests/arm64/lib.sh"
skip() { echo "SKIP: $*"; exit 77; }
# roots ARCH: $pristine, the cached pristine root of RELEASE for ARCH, and $archives, its apt cache.
roots() {
	local rc
	RG_ROOTFS_ARCH=$1
	rg_rootfs_params || exit 1
	pristine=$(bash "$src/tests/arm64/rootfs.sh" "$src")
	rc=$?
	((rc == 0)) || exit "$rc"
	archives=${RG_ARM64_CACHE:-$HOME/.cache/rgbench}/apt-archives-$rg_rname
	mkdir -p "$archives/partial"
}
# The build's root (amd64: native, or the cross build); the run's (ARCH: under qemu-user) below.
roots amd64
build_root=$pristine build_archives=$archives build_rname=$rg_rname
T=$(mktemp -d "${TMPDIR:-/tmp}/rg-package.XXXXXX")
# RG_PACKAGE_KEEP=DIR: the .debs and every log stay there, whatever the outcome.
keep() { [[ -z ${RG_PACKAGE_KEEP:-} ]] || { mkdir -p "$RG_PACKAGE_KEEP" && cp -r "$T"/. "$RG_PACKAGE_KEEP/"; }; }
trap 'keep; rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
in_root() {	# CMD...: CMD in $root with a clean environment and no HOME
	chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"
}
# prepare: the overlay's apt shares the cache of downloaded packages and the host's resolver, and
# dpkg installs documentation and man pages (the cached root excludes them to stay small).
prepare() {
	apt_lock=$1/.rg-lock
	mount --bind "$1" "$root/var/cache/apt/archives"
	[[ -e $root/etc/resolv.conf ]] || touch "$root/etc/resolv.conf"
	mount --bind /etc/resolv.conf "$root/etc/resolv.conf"
	rm -f "$root/etc/dpkg/dpkg.cfg.d/99mmdebstrap"
}
# INITRD=No: the kernel image linux-headers-* pulls in is never booted here, and its initramfs
# (dracut-install, gzip) took over ten minutes under qemu-user.
# The shared cache is apt's to lock: a second run (another build or run overlay of the same root)
# waits for the first's apt-get instead of failing on "Could not get lock /var/cache/apt/archives/lock".
apt_in() {
	flock -o -w 3600 "$apt_lock" chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive INITRD=No apt-get -o APT::Sandbox::User=root "$@"
}

mkdir -p "$T/out"
# Native: nothing more. Cross (arm64): Debian's cross build, the Build-Depends of the host
# architecture (:native ones, clang, llvm and bpftool, of this machine's).
cross=() cross_pkgs=()
[[ $arch == amd64 ]] || cross=(-a "$arch") cross_pkgs=("crossbuild-essential-$arch")
if [[ -n ${RG_PACKAGE_DEBS:-} ]]; then
	echo "== build: skipped, the packages of $RG_PACKAGE_DEBS (RG_PACKAGE_DEBS)"
	cp "$RG_PACKAGE_DEBS"/rgbench*.deb "$T/out/" || exit 1
else
echo "== build ($release, $arch${cross:+, cross-built on amd64}): pristine root + Build-Depends, dpkg-buildpackage ${cross[*]}${cross:+ }-us -uc -b offline"
(
	rg_overlay_root "$build_root" "$build_rname-build"
	prepare "$build_archives"
	mkdir -p "$root/build/rgbench"
	git -C "$src" archive HEAD | tar -x -C "$root/build/rgbench" || { echo "FAIL: git archive"; exit 1; }
	t0=$SECONDS
	[[ -z ${cross[*]} ]] || in_root dpkg --add-architecture "$arch" || { echo "FAIL: dpkg --add-architecture $arch"; exit 1; }
	{ apt_in update && apt_in install -y --no-install-recommends build-essential lintian "${cross_pkgs[@]}" &&
		apt_in build-dep -y "${cross[@]}" /build/rgbench; } >"$T/out/build-deps.log" 2>&1 ||
		{ tail -20 "$T/out/build-deps.log"; echo "FAIL: installing the Build-Depends"; exit 1; }
	echo "ok: the Build-Depends installed ($((SECONDS - t0)) s)"
	t0=$SECONDS
	# User nobody (base-passwd; home /nonexistent): nothing of the build may land outside its folder.
	chown -R 65534:65534 "$root/build"
	# Nothing of the builder's kernel: an empty /sys (no /sys/kernel/btf/vmlinux), no network.
	mount -t tmpfs -o size=1m rg-nosys "$root/sys"
	if unshare -n chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		sh -c 'cd /build/rgbench && dpkg-buildpackage "$@" -us -uc -b -j2' sh "${cross[@]}" >"$T/out/dpkg-buildpackage.log" 2>&1; then
		echo "ok: dpkg-buildpackage ${cross[*]}${cross:+ }(offline, no HOME, empty /sys, user nobody; $((SECONDS - t0)) s)"
	else
		tail -40 "$T/out/dpkg-buildpackage.log"; echo "FAIL: dpkg-buildpackage"; exit 1
	fi
	umount "$root/sys"
	# lintian as nobody too (as root it only warns that it should not be).
	chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 setpriv --reuid=65534 --regid=65534 --clear-groups \
		sh -c 'cd /build && lintian --tag-display-limit 0 --info --pedantic --display-experimental *.changes' >"$T/out/lintian.log" 2>&1
	echo "lintian exit: $?, $(in_root lintian --version)" >>"$T/out/lintian.log"
	cp "$root"/build/*.deb "$root"/build/*.changes "$root"/build/*.buildinfo "$T/out/" || exit 1
)
rc=$?
((rc == 0)) || { ((rc == 77)) && exit 77; exit 1; }
echo "lintian says (--pedantic --info --display-experimental):"
grep -v '^N: *$' "$T/out/lintian.log" | grep -E '^([EWIPXO]: |lintian exit)' | sed 's/^/  /'
grep -q '^E: ' "$T/out/lintian.log" && fail "lintian reports errors"
fi
debs=("$T"/out/rgbench_*_"$arch".deb "$T"/out/rgbench-dkms_*_all.deb)
for d in "${debs[@]}"; do [[ -f $d ]] && ok "built ${d##*/}" || { echo "FAIL: no $d"; exit 1; }; done

# The cross-built programs are arm64's (file(1) of this machine, on the package's rgbench).
if [[ $arch != amd64 ]]; then
	mkdir -p "$T/x" && dpkg-deb -x "${debs[0]}" "$T/x" || { echo "FAIL: dpkg-deb -x ${debs[0]##*/}"; exit 1; }
	what=$(file -b "$T/x/usr/bin/rgbench" 2>&1)
	[[ $what == *"ARM aarch64"* ]] && ok "the package's /usr/bin/rgbench: ${what%%, BuildID*}" || fail "the package's rgbench is not aarch64: $what"
	rm -rf "$T/x"
fi

roots "$arch"
run_root=$pristine run_archives=$archives run_rname=$rg_rname
echo "== run ($release, $arch${cross:+, under qemu-user}): the .debs with their declared Depends, linux-headers-$arch"
(
	rg_overlay_root "$run_root" "$run_rname-run"
	prepare "$run_archives"
	mkdir -p "$root/debs"
	cp "${debs[@]}" "$root/debs/"
	t0=$SECONDS
	if { apt_in update && apt_in install -y --no-install-recommends man-db "linux-headers-$arch" &&
		apt_in install -y --no-install-recommends "/debs/${debs[0]##*/}" "/debs/${debs[1]##*/}"; } >"$T/install.log" 2>&1; then
		ok "apt-get install ./rgbench*.deb (Depends only) and linux-headers-$arch ($((SECONDS - t0)) s)"
	else
		tail -30 "$T/install.log"; fail "apt-get install"; exit 1
	fi
	grep -iE 'dkms|rgbench' "$T/install.log" | tail -8 | sed 's/^/  /'
	v=$(in_root rgbench --version 2>&1)
	[[ $v =~ ^rgbench\ [0-9.]+-g[0-9a-f]{12}$ ]] && ok "installed: $v" || fail "rgbench --version: $v"
	for c in cc gcc clang cmake; do in_root sh -c "command -v $c" >/dev/null && echo "note: $c is installed (by a dependency)"; done
	in_root sh -c 'mkdir -p /tmp/r && cd /tmp/r && rgbench --quick --no-bpf --guards tls --scenarios pair \
		--out /tmp/r/q.csv --json /tmp/r/q.json' >"$T/quick.log" 2>&1 && ok "rgbench --quick --no-bpf" ||
		{ tail -10 "$T/quick.log"; fail "rgbench --quick --no-bpf"; }
	grep -qF -- ",${v#rgbench }," "$root/tmp/r/q.csv" 2>/dev/null && ok "the rows carry the version" ||
		fail "the rows do not carry ${v#rgbench }"
	in_root rgbench report /tmp/r/q.json --out /tmp/r/q.md >"$T/report.log" 2>&1 && [[ -s $root/tmp/r/q.md ]] &&
		ok "rgbench report ($(wc -l <"$root/tmp/r/q.md") lines)" || { cat "$T/report.log"; fail "rgbench report"; }
	in_root rgbench plot /tmp/r/q.json --out /tmp/r/plots --format svg >"$T/plot.log" 2>&1 &&
		compgen -G "$root/tmp/r/plots/*.svg" >/dev/null && ok "rgbench plot ($(ls "$root/tmp/r/plots" | wc -l) files)" ||
		{ cat "$T/plot.log"; fail "rgbench plot"; }
	# Every page of docs/man, read by the root's own man (under qemu-user on arm64).
	pages=() npages=0
	for f in "$src"/docs/man/*.1.scd; do f=${f##*/}; pages+=("${f%.1.scd}"); done
	for m in "${pages[@]}"; do
		in_root env MANPAGER=cat man "$m" 2>/dev/null | grep -q "^NAME" && npages=$((npages + 1)) || fail "man $m"
	done
	((npages == ${#pages[@]})) && ok "man: all ${#pages[@]} pages (${pages[*]})"
	[[ -f $root/usr/share/bash-completion/completions/rgbench ]] && ok "bash completion" || fail "no bash completion"

	# DKMS: the module built against the chroot's own headers (the postinst builds it there if it can).
	kver=$(ls "$root/usr/src" | sed -n 's/^linux-headers-\(.*-'"$arch"'\)$/\1/p' | head -1)
	ver=$(ls "$root/usr/src" | sed -n 's/^rgbench-\(.*\)$/\1/p' | head -1)
	dkms_rc=1 t0=$SECONDS
	if [[ -n $kver && -n $ver ]]; then
		in_root dkms build "rgbench/$ver" -k "$kver" >"$T/dkms.log" 2>&1
		dkms_rc=$?
		grep -qi "already built" "$T/dkms.log" && dkms_rc=0
	fi
	dkms_s=$((SECONDS - t0))
	if ((dkms_rc == 0)); then
		ko=$(find "$root/var/lib/dkms/rgbench/$ver/$kver" -name 'rgbench_kmod.ko*' 2>/dev/null | head -1)
		[[ -n $ko ]] && ok "dkms build rgbench/$ver -k $kver ($dkms_s s): ${ko#"$root"}" || fail "dkms build left no rgbench_kmod.ko"
		if [[ -n $ko ]]; then
			in_root modinfo -F vermagic "${ko#"$root"}" | sed 's/^/  vermagic: /'
			# The module is the target's code (file(1) of this machine; -z: a compressed .ko).
			what=$(file -bz "$ko" 2>&1) want=x86-64
			[[ $arch == amd64 ]] || want="ARM aarch64"
			[[ $what == *"$want"* ]] && ok "the module: ${what%%, BuildID*}" || fail "the module is not $want: $what"
		fi
	else
		tail -20 "$T/dkms.log"; fail "dkms build rgbench/${ver:-?} -k ${kver:-?}"
	fi

	# The packaged BPF objects (built offline with an empty /sys, CO-RE) on this machine's kernel.
	if [[ $arch != amd64 ]]; then
		echo "note: rgbench bpf not run: qemu-user runs no BPF program, and the kernel here is amd64's"
	elif [[ -r /sys/kernel/btf/vmlinux ]]; then
		in_root rgbench bpf --attach raw_tp --mode driver --duration 0.05 --repetitions 2 --passes 1 >"$T/bpf.log" 2>&1
		brc=$?
		if ((brc == 0)) && grep -qE '\] raw_tp +driver +p=1 hits' "$T/bpf.log"; then
			ok "installed rgbench bpf on this kernel ($(uname -r)): $(grep -E '\] raw_tp' "$T/bpf.log" | head -1 | cut -c1-70)"
		elif ((brc == 77)); then echo "note: rgbench bpf skipped here (exit 77): $(tail -1 "$T/bpf.log")"
		else cat "$T/bpf.log"; fail "rgbench bpf (exit $brc)"; fi
	fi
	exit $((fails > 0))
)
(($? == 0)) || fails=$((fails + 1))
((fails == 0)) && { echo "install.package ($release, $arch): all passed ($SECONDS s)"; exit 0; }
echo "install.package ($release, $arch): failed ($SECONDS s)"
exit 1
