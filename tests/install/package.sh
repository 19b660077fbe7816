#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# install.package (opt-in: RG_TEST_PACKAGE=1, label package; about 15 minutes and Debian's archive):
# the Debian packages built from this checkout's HEAD (git archive) with dpkg-buildpackage -us -uc -b
# in a pristine mmdebstrap chroot of RELEASE (no HOME), lintian on them, then installed into another
# pristine chroot with only their declared dependencies (and linux-headers-ARCH for DKMS), where
# rgbench --version, a --quick --no-bpf run, report, plot, the man pages, DKMS's build of the module
# and the installed rgbench bpf on this machine's kernel run.
#   package.sh SRC [RELEASE]      RELEASE: bookworm (default) or trixie; exit 0, 1 failed, 77 skipped
set -uo pipefail
src=$1 release=${2:-bookworm}
[[ ${RG_TEST_PACKAGE:-0} == 1 ]] || { echo "SKIP: opt-in, set RG_TEST_PACKAGE=1 (about 15 minutes, Debian's archive)"; exit 77; }
((EUID == 0)) || { echo "SKIP: needs root (chroots)"; exit 77; }
command -v mmdebstrap >/dev/null || { echo "SKIP: mmdebstrap missing"; exit 77; }
arch=$(dpkg --print-architecture)
T=$(mktemp -d "${TMPDIR:-/tmp}/rg-package.XXXXXX")
mounted=()
cleanup() {
	local m
	for m in "${mounted[@]}"; do umount -l "$m" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
in_root() {	# ROOT CMD...: CMD in ROOT with a clean environment and no HOME
	local root=$1
	shift
	chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"
}
mount_api() {	# ROOT: /proc, /sys and /dev for what runs inside
	local d
	for d in proc sys dev; do
		mount --rbind "/$d" "$1/$d" && mounted=("$1/$d" "${mounted[@]}")
	done
}
# The host's downloaded packages seed each chroot's apt cache (fewer downloads; apt checks them).
seed='mkdir -p "$1"/var/cache/apt/archives && cp /var/cache/apt/archives/*.deb "$1"/var/cache/apt/archives/ 2>/dev/null || true'
build_deps=$(sed -n '/^Build-Depends:/,/^[A-Z]/p' "$src/debian/control" | sed '1s/^Build-Depends://;$d' |
	tr ',' '\n' | sed 's/(.*)//; s/^ *//; s/ *$//' | grep -v '^debhelper-compat' | grep . | paste -sd,)

echo "== build chroot ($release, $arch): debhelper and Build-Depends ($build_deps)"
mmdebstrap --variant=buildd --include="debhelper,lintian,$build_deps" --setup-hook="$seed" \
	--customize-hook='rm -f "$1"/var/cache/apt/archives/*.deb' "$release" "$T/build" >"$T/mmdebstrap-build.log" 2>&1 ||
	{ tail -20 "$T/mmdebstrap-build.log"; echo "FAIL: mmdebstrap of the build chroot"; exit 1; }
mkdir -p "$T/build/src/rgbench"
git -C "$src" archive HEAD | tar -x -C "$T/build/src/rgbench" || { echo "FAIL: git archive"; exit 1; }
echo "== dpkg-buildpackage -us -uc -b (no HOME)"
if in_root "$T/build" sh -c 'cd /src/rgbench && dpkg-buildpackage -us -uc -b' >"$T/dpkg-buildpackage.log" 2>&1; then
	ok "dpkg-buildpackage"
else
	tail -40 "$T/dpkg-buildpackage.log"; echo "FAIL: dpkg-buildpackage"; exit 1
fi
debs=("$T"/build/src/rgbench_*_"$arch".deb "$T"/build/src/rgbench-dkms_*_all.deb)
for d in "${debs[@]}"; do [[ -f $d ]] && ok "built ${d##*/}" || fail "no $d"; done
in_root "$T/build" sh -c 'cd /src && lintian --tag-display-limit 0 *.changes' >"$T/lintian.log" 2>&1
echo "lintian says:"; sed 's/^/  /' "$T/lintian.log"
grep -q '^E: ' "$T/lintian.log" && fail "lintian reports errors"

echo "== install chroot ($release): the .debs with their declared dependencies, and linux-headers-$arch"
mmdebstrap --variant=apt --setup-hook="$seed" --customize-hook='rm -f "$1"/var/cache/apt/archives/*.deb' \
	"$release" "$T/run" >"$T/mmdebstrap-run.log" 2>&1 ||
	{ tail -20 "$T/mmdebstrap-run.log"; echo "FAIL: mmdebstrap of the install chroot"; exit 1; }
cp "${debs[@]}" "$T/run/tmp/"
mount_api "$T/run"
if in_root "$T/run" sh -c 'apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y /tmp/*.deb linux-headers-'"$arch" \
	>"$T/install.log" 2>&1; then ok "apt-get install of the .debs"; else tail -30 "$T/install.log"; fail "apt-get install"; fi
grep -iE 'dkms|rgbench' "$T/install.log" | tail -8 | sed 's/^/  /'

v=$(in_root "$T/run" rgbench --version 2>&1)
[[ $v =~ ^rgbench\ [0-9.]+-g[0-9a-f]{12}$ ]] && ok "installed: $v" || fail "rgbench --version: $v"
in_root "$T/run" sh -c 'mkdir -p /tmp/r && cd /tmp/r && rgbench --quick --no-bpf --guards tls --scenarios pair \
	--out /tmp/r/q.csv --json /tmp/r/q.json' >"$T/quick.log" 2>&1 && ok "rgbench --quick --no-bpf" ||
	{ tail -10 "$T/quick.log"; fail "rgbench --quick --no-bpf"; }
grep -qF -- ",${v#rgbench }," "$T/run/tmp/r/q.csv" && ok "the rows carry the version" ||
	fail "the rows do not carry ${v#rgbench }"
in_root "$T/run" rgbench report /tmp/r/q.json --out /tmp/r/q.md >"$T/report.log" 2>&1 && [[ -s $T/run/tmp/r/q.md ]] &&
	ok "rgbench report" || { cat "$T/report.log"; fail "rgbench report"; }
in_root "$T/run" rgbench plot /tmp/r/q.json --out /tmp/r/plots --format svg >"$T/plot.log" 2>&1 &&
	compgen -G "$T/run/tmp/r/plots/*.svg" >/dev/null && ok "rgbench plot" || { cat "$T/plot.log"; fail "rgbench plot"; }
for m in rgbench rgbench-compare rgbench-kmod; do
	[[ -f $T/run/usr/share/man/man1/$m.1.gz ]] && ok "man page $m.1.gz" || fail "no man page $m.1.gz"
done
[[ -f $T/run/usr/share/bash-completion/completions/rgbench ]] && ok "bash completion" || fail "no bash completion"

# DKMS: the module built against the chroot's own headers.
kver=$(ls "$T/run/usr/src" | sed -n 's/^linux-headers-\(.*-'"$arch"'\)$/\1/p' | head -1)
ver=$(ls "$T/run/usr/src" | sed -n 's/^rgbench-\(.*\)$/\1/p' | head -1)
dkms_rc=1
if [[ -n $kver && -n $ver ]]; then
	in_root "$T/run" dkms build "rgbench/$ver" -k "$kver" >"$T/dkms.log" 2>&1
	dkms_rc=$?
	grep -qi "already built" "$T/dkms.log" && dkms_rc=0	# the package's postinst built it
fi
if ((dkms_rc == 0)); then
	ko=$(find "$T/run/var/lib/dkms/rgbench/$ver/$kver" -name 'rgbench_kmod.ko*' | head -1)
	[[ -n $ko ]] && ok "dkms build rgbench/$ver -k $kver: ${ko#"$T"/run}" || fail "dkms build left no rgbench_kmod.ko"
else
	tail -20 "$T/dkms.log"; fail "dkms build rgbench/$ver -k $kver"
fi

# The packaged BPF objects (built in the chroot, CO-RE) on this machine's kernel.
if [[ -r /sys/kernel/btf/vmlinux ]]; then
	in_root "$T/run" rgbench bpf --attach raw_tp --mode driver --duration 0.05 --repetitions 2 --passes 1 \
		>"$T/bpf.log" 2>&1
	rc=$?
	if ((rc == 0)) && grep -qE '\] raw_tp +driver +p=1 hits' "$T/bpf.log"; then
		ok "installed rgbench bpf on this kernel ($(uname -r)): $(grep -E '\] raw_tp' "$T/bpf.log" | head -1 | cut -c1-60)"
	elif ((rc == 77)); then echo "note: rgbench bpf skipped here (exit 77)"; else cat "$T/bpf.log"; fail "rgbench bpf (exit $rc)"; fi
fi
((fails == 0)) && { echo "install.package ($release): all passed"; exit 0; }
echo "install.package ($release): $fails failed"
exit 1
