# SPDX-License-Identifier: MIT
# The fleet tests' machine room (sourced): a control network namespace and fleet hosts, each
# host a network namespace of its own with its own sshd on its own address and its own host
# name (UTS namespace), joined to the control namespace by a veth pair; keys made for the test.
# Nothing outside the namespaces the test makes gets an address or a process; fleet_cleanup
# (on EXIT) stops every process in them and deletes them. Each host's sshd runs chrooted in an
# overlay over this machine's / (its writes, the package it installs, land in a tmpfs of its own;
# the test's folder $T is the machine's), where every compiler and build tool is a stub that
# records its call in $T/compiler-calls and fails: a fleet host compiles nothing.
#
#   fleet_setup SRC BUILD   checks what is needed (else SKIP, exit 77), makes $T, keys, control ns
#   fleet_host NAME HOSTNAME [ARCH]   a host: 10.254.<n>.2 in namespace rgf<pid>-<n>, sshd on
#                           port 22; ARCH: its `dpkg --print-architecture` says ARCH (a dpkg in
#                           /usr/local/bin that answers that and runs the real one otherwise),
#                           and dpkg takes packages of ARCH: a host of another architecture as far
#                           as the fleet can tell (its programs are still this machine's)
#   fleet_stop_sshd NAME    stops that host's sshd (the host stays: an unreachable host)
#   fleet_inventory FILE LINE...   an INI inventory with the test's connection variables
#   fleet_inventory_yaml FILE NAME HOST...   a YAML inventory: each inventory NAME (any bytes
#                           but NUL: a tab, a newline, a slash) on the address of fleet_host HOST
#   fleet_run ARGS...       rgbench fleet in the control namespace (cwd $T) with --deb $FLEET_DEB,
#                           exit status returned
#   fleet_deb               $FLEET_DEB: $RG_FLEET_DEB (a package built by dpkg-buildpackage), else
#                           an rgbench .deb made here from BUILD (cmake --install, dpkg-deb)
set -uo pipefail
FLEET_PREFIX=rgf$$
FLEET_NS=()		# every namespace made, control first
declare -A FLEET_ADDR FLEET_NSOF FLEET_PID
T=

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

fleet_cleanup() {
	local ns p
	for ns in "${FLEET_NS[@]}"; do
		for p in $(ip netns pids "$ns" 2>/dev/null); do kill -TERM "$p" 2>/dev/null; done
	done
	sleep 0.2
	for ns in "${FLEET_NS[@]}"; do
		for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
		ip netns del "$ns" 2>/dev/null
	done
	[[ -n $T && -d $T ]] && rm -rf --one-file-system "$T"
}

fleet_setup() {
	SRC=$1 BUILD=$2
	[[ $(id -u) == 0 ]] || skip "needs root (network namespaces, sshd)"
	local t
	for t in ip unshare mount ssh ssh-keygen ansible-playbook ansible-inventory python3 dpkg-deb; do
		command -v "$t" >/dev/null || skip "$t not found (scripts/deps.sh test installs what the fleet test needs)"
	done
	[[ -x /usr/sbin/sshd ]] || skip "/usr/sbin/sshd not found (openssh-server; scripts/deps.sh test installs it)"
	[[ -x $BUILD/tools/rgbench ]] || fail "no $BUILD/tools/rgbench"
	git -C "$SRC" rev-parse -q --verify HEAD >/dev/null || skip "$SRC is not a git checkout (rgbench fleet copies a commit)"
	trap fleet_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	T=$(mktemp -d /tmp/rgbench-fleet-test.XXXXXX)
	mkdir -p "$T/ltmp"
	ssh-keygen -q -t ed25519 -N '' -f "$T/id" -C rgbench-fleet-test || fail "ssh-keygen"
	cp "$T/id.pub" "$T/authorized_keys"
	ip netns add "$FLEET_PREFIX-c" || skip "cannot make a network namespace (ip netns add)"
	FLEET_NS+=("$FLEET_PREFIX-c")
	ip netns exec "$FLEET_PREFIX-c" ip link set lo up
	export ANSIBLE_LOCAL_TEMP=$T/ltmp ANSIBLE_HOME=$T/ansible-home
	fleet_deb
}

# The programs that build: on a host each is a stub that records its call and fails.
FLEET_COMPILERS="cc c++ gcc g++ clang clang++ cpp ld as make cmake ninja gcc-12 g++-12 clang-14 clang-15 clang-16 gcc-14 x86_64-linux-gnu-gcc x86_64-linux-gnu-gcc-12"

fleet_deb() {
	FLEET_DEB=${RG_FLEET_DEB:-}
	if [[ -n $FLEET_DEB ]]; then
		[[ -f $FLEET_DEB ]] || fail "RG_FLEET_DEB=$FLEET_DEB: no such file"
		fleet_deb_facts
		return 0
	fi
	local p=$T/deb/rgbench a v
	a=$(dpkg --print-architecture) v=0.1.0~fleettest$$
	DESTDIR=$p cmake --install "$BUILD" --prefix /usr >"$T/deb.log" 2>&1 || { cat "$T/deb.log"; fail "cmake --install $BUILD"; }
	mkdir -p "$p/DEBIAN"
	cat >"$p/DEBIAN/control" <<CTL
Package: rgbench
Version: $v
Architecture: $a
Maintainer: rgbench fleet test <rgbench@invalid.example>
Depends: python3, python3-matplotlib, python3-numpy, libbpf1, libelf1, libjansson4, libhwloc15
Description: rgbench as the fleet test builds it (cmake --install of the test's build tree)
CTL
	dpkg-deb --root-owner-group -Zgzip --build "$p" "$T/deb/rgbench_${v}_$a.deb" >>"$T/deb.log" 2>&1 ||
		{ cat "$T/deb.log"; fail "dpkg-deb --build"; }
	FLEET_DEB=$T/deb/rgbench_${v}_$a.deb
	fleet_deb_facts
}

# fleet_deb_facts: $FLEET_DEB_VERSION (the package's) and $FLEET_DEB_RGBENCH (its rgbench --version).
fleet_deb_facts() {
	FLEET_DEB_VERSION=$(dpkg-deb -f "$FLEET_DEB" Version) || fail "dpkg-deb -f $FLEET_DEB"
	rm -rf "$T/debx"
	dpkg-deb -x "$FLEET_DEB" "$T/debx" || fail "dpkg-deb -x $FLEET_DEB"
	FLEET_DEB_RGBENCH=$("$T/debx/usr/bin/rgbench" --version) || fail "the package's rgbench --version"
	rm -rf "$T/debx"
}

# fleet_host NAME HOSTNAME [ARCH]: the next host namespace, its veth pair and sshd.
fleet_host() {
	local name=$1 hn=$2 arch=${3:-} n=$((${#FLEET_NS[@]})) ns d
	ns=$FLEET_PREFIX-$n
	ip netns add "$ns" || fail "ip netns add $ns"
	FLEET_NS+=("$ns")
	ip netns exec "$FLEET_PREFIX-c" ip link add "h$n" type veth peer name eth0 netns "$ns" || fail "veth for $name"
	ip netns exec "$FLEET_PREFIX-c" ip addr add "10.254.$n.1/30" dev "h$n"
	ip netns exec "$FLEET_PREFIX-c" ip link set "h$n" up
	ip netns exec "$ns" ip link set lo up
	ip netns exec "$ns" ip addr add "10.254.$n.2/30" dev eth0
	ip netns exec "$ns" ip link set eth0 up
	d=$T/host-$name
	mkdir -p "$d"
	# The sessions' TMPDIR (SetEnv below): where Ansible's module wrapper unpacks its
	# payload; a task the test interrupts leaves it here, removed with $T, not in /tmp.
	mkdir -p -m 1777 "$T/tmp"
	ssh-keygen -q -t ed25519 -N '' -f "$d/hostkey" -C "$name" || fail "host key for $name"
	cat >"$d/sshd_config" <<CFG
ListenAddress 10.254.$n.2:22
HostKey $d/hostkey
PidFile $d/sshd.pid
AuthorizedKeysFile $T/authorized_keys .ssh/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PrintMotd no
Subsystem sftp /usr/lib/openssh/sftp-server
SetEnv TMPDIR=$T/tmp
CFG
	# Its own host name (UTS) and a private /run (sshd's privilege separation folder) in its
	# own mount namespace: nothing of the machine's is changed. There, root's ~/.bashrc reads
	# as empty: bash sources it for every ssh session, and a developer's shell set-up (this
	# image's pyenv init runs `pyenv rehash` under a lock, seconds per session) made every
	# Ansible task wait on it; a fleet host's own shell set-up is not what the test is about
	# (Ansible uses /usr/bin/python3, ansible_python_interpreter below).
	# Its root: an overlay over / with its writes in a tmpfs (apt and dpkg write there, never
	# to this machine's system), the kernel's file systems, $T itself, and the compiler stubs.
	# Two settings of this machine's that a fleet host does not share, made in the host's own
	# root (what the test checks, apt installing the package, is unchanged): man-db's
	# auto-update (Debian's debconf choice man-db/auto-update=false, as on build machines and
	# containers): with it, every dpkg run rebuilt the whole manual index (mandb, 40-60 s a
	# host on a busy VM); and apt's binary cache, which this container's apt.conf.d turns off
	# (Dir::Cache::pkgcache ""): without it apt parses every package list on each run
	# (Ansible's apt module, which the fleet used before, took 2-3 s of CPU a host for it);
	# a Debian host keeps the cache, as apt's defaults say, built when its lists were last
	# updated (here when the host is made, apt-cache gencaches: else every install of a host
	# listed several times built it at once). And this
	# machine's foreign arm64 architecture (the cross build's): a host made without ARCH is
	# single-architecture, as a fleet host is, so apt reads one Packages list per source,
	# not two (the apt module took 3 s of CPU more per install with both).
	local r=$d/root
	printf 'Dir::Cache::pkgcache "pkgcache.bin";\nDir::Cache::srcpkgcache "srcpkgcache.bin";\n' >"$d/apt.conf"
	[[ -n $arch ]] || printf 'APT::Architectures { "%s"; };\n' "$(dpkg --print-architecture)" >>"$d/apt.conf"
	mkdir -p "$d/ovl" "$r"
	printf '#!/bin/sh\necho "%s: $0 $*" >>"%s/compiler-calls"\necho "$0: no compiler on a fleet host (tests/fleet)" >&2\nexit 127\n' \
		"$name" "$T" >"$d/stub"
	chmod 755 "$d/stub"
	rm -f "$d/dpkg"
	if [[ -n $arch ]]; then
		printf '#!/bin/sh\n[ "$*" = --print-architecture ] && { echo %s; exit 0; }\nexec /usr/bin/dpkg "$@"\n' "$arch" >"$d/dpkg"
		chmod 755 "$d/dpkg"
	fi
	ip netns exec "$ns" unshare --uts --mount --propagation private sh -c \
		"set -e; hostname '$hn'
		mount -t tmpfs -o size=1g,mode=755 rgfleet-ovl '$d/ovl'; mkdir '$d/ovl/u' '$d/ovl/w'
		mount -t overlay rgfleet -o 'lowerdir=/,upperdir=$d/ovl/u,workdir=$d/ovl/w' '$r'
		mount -t proc proc '$r/proc'; mount --rbind /sys '$r/sys'; mount --rbind /dev '$r/dev'
		mount -t tmpfs -o size=1m,mode=755 rgfleet '$r/run'; mkdir -m 755 '$r/run/sshd'
		mount --bind '$T' '$r$T'
		if [ -f '$r/root/.bashrc' ]; then mount --bind /dev/null '$r/root/.bashrc'; fi
		rm -f '$r/var/lib/man-db/auto-update'
		cp '$d/apt.conf' '$r/etc/apt/apt.conf.d/zz-rgbench-fleet-test'
		for c in $FLEET_COMPILERS; do for b in /usr/bin /usr/local/bin; do
			if [ -e '$r'\$b/\$c ] || [ -L '$r'\$b/\$c ] || [ \$b = /usr/bin ]; then
				rm -f '$r'\$b/\$c; cp '$d/stub' '$r'\$b/\$c; fi
		done; done
		if [ -e '$d/dpkg' ]; then cp '$d/dpkg' '$r/usr/local/bin/dpkg'
			chroot '$r' /usr/bin/dpkg --add-architecture '$arch'; fi
		chroot '$r' apt-cache gencaches >/dev/null
		chroot '$r' /usr/sbin/sshd -t -f '$d/sshd_config'
		exec chroot '$r' /usr/sbin/sshd -D -e -f '$d/sshd_config'" \
		>"$d/sshd.log" 2>&1 &
	FLEET_PID[$name]=$!
	FLEET_ADDR[$name]=10.254.$n.2
	FLEET_NSOF[$name]=$ns
	local i
	for ((i = 0; i < 100; i++)); do
		ip netns exec "$FLEET_PREFIX-c" bash -c "exec 3<>/dev/tcp/10.254.$n.2/22" 2>/dev/null && return 0
		sleep 0.1
	done
	cat "$d/sshd.log"
	fail "sshd of $name did not listen on 10.254.$n.2:22"
}

fleet_stop_sshd() {
	local p
	for p in $(ip netns pids "${FLEET_NSOF[$1]}"); do kill -TERM "$p" 2>/dev/null; done
	wait "${FLEET_PID[$1]}" 2>/dev/null
	[[ -z $(ip netns pids "${FLEET_NSOF[$1]}") ]] || fail "$1's sshd did not stop"
}

# fleet_inventory FILE LINE...: LINEs are "NAME [vars]" under [fleet], the test's connection in [fleet:vars].
fleet_inventory() {
	local f=$1 line
	shift
	{
		echo "[fleet]"
		for line in "$@"; do echo "$line"; done
		echo
		echo "[fleet:vars]"
		echo "ansible_user=root"
		echo "ansible_ssh_private_key_file=$T/id"
		echo "ansible_ssh_common_args='-o UserKnownHostsFile=$T/known_hosts -o StrictHostKeyChecking=accept-new -o ConnectTimeout=5'"
		echo "ansible_python_interpreter=/usr/bin/python3"
		echo "ansible_remote_tmp=$T/rtmp"
		echo "rgbench_dir=$T/remote/{{ rg_name }}"
	} >"$f"
}

# fleet_inventory_yaml FILE NAME HOST [NAME HOST...]: the same as YAML (JSON, which YAML
# reads), where an inventory name may hold what INI cannot (a tab, a newline).
fleet_inventory_yaml() {
	local f=$1 args=()
	shift
	while (($#)); do args+=("$1" "${FLEET_ADDR[$2]}"); shift 2; done
	python3 - "$T" "$BUILD" "${args[@]}" >"$f" <<'PY' || fail "cannot write $f"
import json, sys
t, build, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
hosts = {rest[i]: {"ansible_host": rest[i + 1]} for i in range(0, len(rest), 2)}
print(json.dumps({"fleet": {"hosts": hosts, "vars": {
    "ansible_user": "root", "ansible_ssh_private_key_file": f"{t}/id",
    "ansible_ssh_common_args": f"-o UserKnownHostsFile={t}/known_hosts "
                               "-o StrictHostKeyChecking=accept-new -o ConnectTimeout=5",
    "ansible_python_interpreter": "/usr/bin/python3", "ansible_remote_tmp": f"{t}/rtmp",
    "rgbench_dir": t + "/remote/{{ rg_name }}"}}}, indent=1))
PY
}

fleet_run() {
	(cd "$T" && ip netns exec "$FLEET_PREFIX-c" "$BUILD/tools/rgbench" fleet --deb "$FLEET_DEB" "$@")
}
