#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rgbench fleet's choice of packages per architecture, over hosts made here (tests/fleet/lib.sh),
# one of them an arm64 host as far as the fleet can tell (its dpkg says arm64 and takes arm64
# packages; its programs are this machine's), and dpkg-buildpackage / dpkg-checkbuilddeps stubs on
# the control machine that record each build and make a package of the asked architecture from
# the test's own .deb (a real arm64 build is install.package.trixie_arm64's):
#   no --deb: one build per architecture the hosts have (native for amd64, -a arm64 for the
#     arm64 host), each shared by its hosts; every host installs the package of its own
#     architecture and version; a host of an architecture debian/control does not build
#     (riscv64) gets none: failed at copy; no compiler called on a host
#   --deb for amd64: only arm64 is built
#   the arm64 Build-Depends missing here: exit 1, one line naming them, nothing built, no folder
#   --no-build without --deb: exit 2
# Usage: arch.sh SRC BUILD. Exit 0 pass, 1 fail, 77 skipped (not root, no sshd/Ansible).
source "$(dirname "$0")/lib.sh"
fleet_setup "$1" "$2"
opts=(--quick --guards tls --scenarios pair --no-bpf)
native=$(dpkg --print-architecture)
[[ $native == amd64 ]] || skip "the cross build the fleet chooses is arm64 on amd64 (this is $native)"
fleet_host alpha rgfleet-a
fleet_host beta rgfleet-b
fleet_host gamma rgfleet-c
fleet_host armhost rgfleet-arm arm64
fleet_host rvhost rgfleet-rv riscv64

# The control machine's stubs: dpkg-buildpackage records its options and makes
# ../rgbench_VERSION_ARCH.deb (the version debian/changelog has) from the test's package, its
# architecture the one asked (-a) or this machine's (an arm64 one without Depends, which this
# machine's arm64 architecture could not satisfy); dpkg-checkbuilddeps fails for -a arm64 when
# $T/no-cross exists.
mkdir -p "$T/stubs"
cat >"$T/stubs/dpkg-buildpackage" <<EOF
#!/bin/bash
echo "\$*" >>"$T/builds"
a=$native
[[ \$1 == -a ]] && a=\$2
v=\$(sed -n '1s/^rgbench (\\([^)]*\\)).*/\\1/p' debian/changelog)
rm -rf ../stub-pkg
dpkg-deb -R "$FLEET_DEB" ../stub-pkg || exit 1
sed -i "s/^Version: .*/Version: \$v/; s/^Architecture: .*/Architecture: \$a/" ../stub-pkg/DEBIAN/control
[[ \$a == $native ]] || sed -i '/^Depends:/d' ../stub-pkg/DEBIAN/control
dpkg-deb --root-owner-group -Zgzip --build ../stub-pkg "../rgbench_\${v}_\$a.deb"
EOF
cat >"$T/stubs/dpkg-checkbuilddeps" <<EOF
#!/bin/bash
if [[ " \$* " == *" -a arm64 "* && -e $T/no-cross ]]; then
	echo "dpkg-checkbuilddeps: error: Unmet build dependencies: crossbuild-essential-arm64 libbpf-dev:arm64" >&2
	exit 1
fi
exit 0
EOF
chmod 755 "$T/stubs/dpkg-buildpackage" "$T/stubs/dpkg-checkbuilddeps"
# fleet ARGS...: rgbench fleet in the control namespace with the stubs first in PATH (no --deb
# unless given).
fleet() {
	(cd "$T" && PATH=$T/stubs:$PATH ip netns exec "$FLEET_PREFIX-c" "$BUILD/tools/rgbench" fleet "$@")
}
on_host() {
	ip netns exec "$FLEET_PREFIX-c" ssh -n -i "$T/id" -o UserKnownHostsFile="$T/known_hosts" \
		-o StrictHostKeyChecking=accept-new -o ConnectTimeout=5 "root@${FLEET_ADDR[$1]}" "$2"
}
# installed NAME ARCH VERSION: the host's rgbench package is of ARCH and VERSION.
installed() {
	local got
	got=$(on_host "$1" "dpkg-query -W -f '\${Architecture} \${Version}' rgbench" 2>&1)
	[[ $got == "$2 $3" ]] || fail "$1: installed rgbench is '$got', want '$2 $3'"
	echo "ok   $1 has rgbench $got installed"
}
commit=$(git -C "$SRC" rev-parse HEAD)

# 1. No --deb: amd64 (alpha, beta) built natively once, arm64 (armhost) cross once, riscv64 not.
fleet_inventory "$T/inv" "alpha ansible_host=${FLEET_ADDR[alpha]}" "beta ansible_host=${FLEET_ADDR[beta]}" \
	"armhost ansible_host=${FLEET_ADDR[armhost]}" "rvhost ansible_host=${FLEET_ADDR[rvhost]}"
fleet -i "$T/inv" --out "$T/r1" --forks 4 "${opts[@]}" >"$T/out" 2>"$T/err"
rc=$?
cat "$T/err" "$T/out"
((rc == 1)) || fail "no --deb: exit $rc, want 1 (rvhost has no package)"
[[ $(sort "$T/builds") == $'-a arm64 -us -uc -b\n-us -uc -b' ]] ||
	fail "no --deb: the builds were: $(tr '\n' ';' <"$T/builds"), want one native and one -a arm64"
# (the checkout may have uncommitted changes: the build is of the commit, and says so)
c="rgbench fleet: building the package of commit ${commit:0:12}( \\(uncommitted changes are not in it\\))? for"
grep -Eqx "$c amd64 \\(dpkg-buildpackage -us -uc -b; minutes\\)" "$T/err" &&
	grep -Eqx "$c arm64 \\(cross: dpkg-buildpackage -a arm64 -us -uc -b; minutes\\)" "$T/err" ||
	fail "no --deb: the builds are not said"
v=$(sed -n 's/^rgbench fleet: built rgbench_\(.*\)_arm64\.deb$/\1/p' "$T/err")
[[ -n $v ]] && grep -qx "rgbench fleet: built rgbench_${v}_amd64.deb" "$T/err" || fail "no --deb: 'built' lines"
echo "ok   no --deb: built once per architecture: $(tr '\n' ';' <"$T/builds") (version $v)"
for h in alpha beta armhost; do
	grep -Eq "^rgbench fleet: $h: ok, [0-9]+ files in " "$T/out" || fail "no --deb: $h did not finish"
done
installed alpha amd64 "$v"
installed beta amd64 "$v"
installed armhost arm64 "$v"
grep -Eqx "rgbench fleet: rvhost: failed at copy: no package for this host's architecture riscv64 \(given: (amd64, arm64|arm64, amd64); rgbench fleet --deb FILE, one per architecture\) \(0 files kept\)" "$T/out" ||
	fail "no --deb: rvhost's line"
echo "ok   $(grep '^rgbench fleet: rvhost' "$T/out")"
[[ ! -s $T/compiler-calls ]] || fail "a compiler was called on a host: $(cat "$T/compiler-calls")"
echo "ok   no compiler called on any host"

# 2. --deb for amd64: only arm64 is built. (gamma: a host with no rgbench yet; alpha has the
# build of 1, a later version than the test's package: the given package replaces it.)
: >"$T/builds"
fleet_inventory "$T/inv2" "gamma ansible_host=${FLEET_ADDR[gamma]}" "armhost ansible_host=${FLEET_ADDR[armhost]}" \
	"alpha ansible_host=${FLEET_ADDR[alpha]}"
fleet -i "$T/inv2" --deb "$FLEET_DEB" --out "$T/r2" "${opts[@]}" >"$T/out" 2>"$T/err"
rc=$?
cat "$T/err" "$T/out"
((rc == 0)) || fail "--deb amd64: exit $rc, want 0"
[[ $(cat "$T/builds") == "-a arm64 -us -uc -b" ]] || fail "--deb amd64: the builds were: $(tr '\n' ';' <"$T/builds")"
v2=$(sed -n 's/^rgbench fleet: built rgbench_\(.*\)_arm64\.deb$/\1/p' "$T/err")
installed gamma amd64 "$FLEET_DEB_VERSION"
installed alpha amd64 "$FLEET_DEB_VERSION"
installed armhost arm64 "$v2"
echo "ok   --deb for amd64: only arm64 built ($(cat "$T/builds")), each host has its architecture's"

# 3. The arm64 Build-Depends missing here: one line, exit 1, nothing built, no folder.
: >"$T/builds"
touch "$T/no-cross"
fleet -i "$T/inv2" --out "$T/r3" "${opts[@]}" >"$T/out" 2>"$T/err"
rc=$?
err=$(cat "$T/err")
((rc == 1)) || fail "no cross Build-Depends: exit $rc, want 1 ($err)"
[[ $(wc -l <"$T/err") == 1 && $err == "rgbench fleet: cannot cross-build the package for arm64 here (cross: dpkg-buildpackage -a arm64 -us -uc -b): Unmet build dependencies: crossbuild-essential-arm64 libbpf-dev:arm64 (scripts/deps.sh fleet on amd64 installs them for arm64; or give --deb FILE for arm64)" ]] ||
	fail "no cross Build-Depends: stderr: $err"
[[ ! -s $T/out && ! -s $T/builds && ! -e $T/r3 ]] || fail "no cross Build-Depends: something was built, said or made"
echo "ok   the arm64 Build-Depends missing: exit 1, $err"
rm -f "$T/no-cross"

# 4. --no-build without --deb: usage.
fleet -i "$T/inv2" --no-build --out "$T/r4" "${opts[@]}" >"$T/out" 2>"$T/err"
rc=$?
err=$(cat "$T/err")
((rc == 2)) && [[ $err == "rgbench fleet: --no-build needs --deb FILE (the packages to install) (see rgbench fleet --help)" && ! -e $T/r4 ]] ||
	fail "--no-build without --deb: exit $rc: $err"
echo "ok   --no-build without --deb: exit 2, $err"
echo "PASS: fleet packages per architecture"
