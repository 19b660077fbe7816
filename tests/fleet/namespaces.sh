#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rgbench fleet for real over three hosts made here (tests/fleet/lib.sh: network namespaces, each
# with its own sshd, address and host name, chrooted in an overlay of this machine with every
# compiler a stub that records its call; keys made for the test), with a tiny run of the package
# (--deb: fleet_deb's, or RG_FLEET_DEB) installed on each host:
#   run 1  alpha, beta, gamma: the package installed by apt on each host (its own root: this
#          machine's dpkg database is unchanged), the installed rgbench run (its version the
#          package's), no compiler called on any host; every host's files arrive under its
#          inventory name, whole (equal to the host's own copy), and the report lists every host
#   run 2  gamma's sshd stopped; delta is alpha's machine again (the same host name);
#          nosudo must install through a sudo that refuses (become to another user: Ansible
#          does not become root when it is root already); badrun's command is missing: gamma,
#          nosudo and badrun are failed with their reason (one line each), the others finish,
#          delta's files stay apart from alpha's, and run 1's folder is untouched; bench is
#          alpha's machine a third time as a user that is not root, with the default folder
#          (~/rgbench-fleet/, its own home) and a sudo that lets it install: it finishes
# Usage: namespaces.sh SRC BUILD. Exit 0 pass, 1 fail, 77 skipped (not root, no sshd/Ansible).
source "$(dirname "$0")/lib.sh"
fleet_setup "$1" "$2"
command -v sudo >/dev/null || skip "sudo not found (scripts/deps.sh test installs it: bench installs through it)"
opts=(--quick --guards tls --scenarios pair --no-bpf)
fleet_host alpha rgfleet-a
fleet_host beta rgfleet-b
fleet_host gamma rgfleet-c
# on_host NAME CMD: CMD over ssh on that host (its own root).
on_host() {
	ip netns exec "$FLEET_PREFIX-c" ssh -n -i "$T/id" -o UserKnownHostsFile="$T/known_hosts" \
		-o StrictHostKeyChecking=accept-new -o ConnectTimeout=5 "root@${FLEET_ADDR[$1]}" "$2"
}
# The stubs work: a compiler called on a host is recorded (then the record is cleared).
on_host alpha 'cc --version; cmake --version; gcc -c x.c' >/dev/null 2>&1
[[ $(wc -l <"$T/compiler-calls" 2>/dev/null) == 3 ]] || fail "the compiler stubs did not record 3 calls on alpha"
rm -f "$T/compiler-calls"
echo "ok   a compiler called on a host is recorded (cc, cmake, gcc on alpha)"
dpkg_before=$(sha256sum </var/lib/dpkg/status)

# tree DIR: every file under DIR with its checksum and mtime (to see that nothing changed).
tree() { (cd "$1" && find . -type f -printf '%p %T@ ' -exec sha256sum {} \; | sort); }
# whole NAME DIR: every file the host NAME fetched into DIR equals the host's own copy.
whole() {
	local f n=0
	while read -r f; do
		cmp -s "$2/$f" "$T/remote/$1/results/$f" || fail "$1: $f differs from the host's copy"
		n=$((n + 1))
	done < <(cd "$2" && find . -type f | sed 's|^\./||')
	((n >= 4)) || fail "$1: $n files fetched, want the CSV, JSON, report and plots"
}
# one_line OUT NAME PATTERN: exactly one line for NAME, and it matches PATTERN.
one_line() {
	local lines
	lines=$(grep -c "^rgbench fleet: $2: " "$1")
	((lines == 1)) || { cat "$1"; fail "$2: $lines summary lines, want 1"; }
	grep -Eq "^rgbench fleet: $2: $3" "$1" || { cat "$1"; fail "$2: the line does not say '$3'"; }
	echo "ok   $(grep "^rgbench fleet: $2: " "$1")"
}

# round N INVENTORY FORKS RC: rgbench fleet's Nth run over INVENTORY exits RC and makes the
# Nth fleet folder, $run; its stdout is in $T/outN.
round() {
	local rc runs
	fleet_run -i "$2" --forks "$3" "${opts[@]}" >"$T/out$1" 2>"$T/err$1"
	rc=$?
	cat "$T/err$1" "$T/out$1"
	((rc == $4)) || fail "run $1 exited $rc, want $4"
	mapfile -t runs < <(ls -d "$T"/results/fleet-*)
	((${#runs[@]} == $1)) || fail "run $1: ${#runs[@]} fleet folders, want $1"
	run=${runs[$1 - 1]}
}

# Run 1: three hosts.
fleet_inventory "$T/inv1" "alpha ansible_host=${FLEET_ADDR[alpha]}" "beta ansible_host=${FLEET_ADDR[beta]}" \
	"gamma ansible_host=${FLEET_ADDR[gamma]}"
round 1 "$T/inv1" 3 0
r1=$run
for h in alpha:a beta:b gamma:c; do
	name=${h%%:*} hn=rgfleet-${h#*:}
	one_line "$T/out1" "$name" "ok, [0-9]+ files in $r1/$name\$"
	for ext in csv json md; do
		n=$(find "$r1/$name" -maxdepth 1 -name "$hn-*.$ext" | wc -l)
		((n == 1)) || fail "run 1: $name has $n $hn-*.$ext files, want 1"
	done
	compgen -G "$r1/$name/$hn-*-plots/*.svg" >/dev/null || fail "run 1: $name has no plots"
	whole "$name" "$r1/$name"
done
grep -q "^Which per-CPU recursion guard is cheapest on these machines" "$r1/report.md" || fail "run 1: no several-hosts report"
grep -q "3 files, 3 hosts" "$r1/report.md" || fail "run 1: the report does not say 3 files, 3 hosts"
for hn in rgfleet-a rgfleet-b rgfleet-c; do
	grep -q "^- [A-C] = $hn: " "$r1/report.md" || fail "run 1: the report does not list $hn"
done
echo "ok   run 1: every host's files under its inventory name, whole; the report lists rgfleet-a, -b, -c"
# Installed, not built: the package on each host, the installed command run, no compiler called.
[[ ! -e $T/compiler-calls ]] || fail "run 1: a compiler was called on a host: $(cat "$T/compiler-calls")"
want=$FLEET_DEB_RGBENCH
for name in alpha beta gamma; do
	got=$(head -n 1 "$T"/remote/"$name"/results/.fleet-*.log)	# host.sh's rgbench --version
	[[ $got == "$want" ]] || fail "run 1: $name ran '$got', want the package's '$want'"
	compgen -G "$T/remote/$name/rgbench_*.deb" >/dev/null || fail "run 1: the package was not copied to $name"
done
grep -q 'TASK \[install\]' "$r1/ansible.log" || fail "run 1: no install task in ansible.log"
for name in alpha beta gamma; do
	got=$(on_host "$name" "dpkg-query -W -f '\${Version} \${Status}' rgbench")
	[[ $got == "$FLEET_DEB_VERSION install ok installed" ]] || fail "run 1: on $name, rgbench is '$got'"
done
[[ $(sha256sum </var/lib/dpkg/status) == "$dpkg_before" ]] || fail "run 1: this machine's dpkg database changed"
[[ $(dpkg-query -W -f '${Version}' rgbench 2>/dev/null) != "$FLEET_DEB_VERSION" ]] ||
	fail "run 1: the package was installed on this machine"
echo "ok   run 1: each host installed the package ($want) in its own root, ran it, called no compiler"
left=$(ip netns pids "$FLEET_PREFIX-c")
[[ -z $left ]] || fail "run 1 left processes in the control namespace: $(ps -o comm= -p "${left//$'\n'/,}")"
echo "ok   run 1 left no process behind (Ansible's ssh masters ended)"
before=$(tree "$r1")

# Run 2: gamma unreachable, delta = alpha's machine, nosudo and badrun fail, bench installs
# through sudo. bench: a user of alpha's root with its own key and home; sudo lets it run
# anything as root without a password, as a fleet's sudoers would (alpha's root is its own).
fleet_stop_sshd gamma
on_host alpha 'useradd -m -s /bin/bash -p "*" rgbench-user && install -d -o rgbench-user -m 700 ~rgbench-user/.ssh &&
	echo "rgbench-user ALL=(ALL) NOPASSWD: ALL" >/etc/sudoers.d/rgbench-user' || fail "making rgbench-user on alpha"
on_host alpha "echo '$(cat "$T/id.pub")' >~rgbench-user/.ssh/authorized_keys && chown rgbench-user ~rgbench-user/.ssh/authorized_keys" ||
	fail "rgbench-user's key on alpha"
printf '#!/bin/sh\necho "sudo: a password is required" >&2\nexit 1\n' >"$T/nosudo"
chmod +x "$T/nosudo"
fleet_inventory "$T/inv2" "alpha ansible_host=${FLEET_ADDR[alpha]}" "beta ansible_host=${FLEET_ADDR[beta]}" \
	"gamma ansible_host=${FLEET_ADDR[gamma]}" "delta ansible_host=${FLEET_ADDR[alpha]}" \
	"nosudo ansible_host=${FLEET_ADDR[beta]} rgbench_become=true ansible_become_exe=$T/nosudo ansible_become_user=daemon" \
	"badrun ansible_host=${FLEET_ADDR[beta]} rgbench_command=$T/no-such/rgbench" \
	"bench ansible_host=${FLEET_ADDR[alpha]} ansible_user=rgbench-user rgbench_dir=~/rgbench-fleet/bench ansible_remote_tmp=~/.ansible/tmp"
round 2 "$T/inv2" 7 1
r2=$run
[[ $r2 != "$r1" ]] || fail "run 2 wrote into run 1's folder"
[[ $(tree "$r1") == "$before" ]] || fail "run 2 changed run 1's folder"
echo "ok   run 2: a new folder; run 1's is untouched"
one_line "$T/out2" gamma "failed at copy: unreachable: ssh: connect to host 10\.254\.3\.2 port 22: Connection refused \(0 files kept\)$"
one_line "$T/out2" nosudo "failed at install: Missing sudo password \(0 files kept\)$"
one_line "$T/out2" badrun "failed at run: rgbench exited 1: $T/no-such/rgbench: command not found \(the package is not installed\?\) \(0 files kept\)$"
for name in alpha beta delta bench; do
	one_line "$T/out2" "$name" "ok, [0-9]+ files in $r2/$name\$"
done
whole alpha "$r2/alpha"
whole delta "$r2/delta"
a=$(ls "$r2"/alpha/rgfleet-a-*.json) d=$(ls "$r2"/delta/rgfleet-a-*.json)
[[ -n $a && -n $d ]] && ! cmp -s "$a" "$d" || fail "delta's result is not its own ($a, $d)"
echo "ok   run 2: alpha and delta (host name rgfleet-a both) keep their own files"
[[ ! -e $r2/gamma && ! -e $r2/nosudo && ! -e $r2/badrun ]] || fail "run 2: a folder for a host that fetched nothing"
grep -q "4 files, 2 hosts" "$r2/report.md" || fail "run 2: the report is not over the 4 files of alpha, beta, delta and bench (2 machines)"
# bench: its files made and kept in its own home on alpha, by itself (not root), and fetched whole.
n=0
while read -r f; do
	[[ $(on_host alpha "sha256sum <~rgbench-user/rgbench-fleet/bench/results/$(printf %q "$f")") == "$(sha256sum <"$r2/bench/$f")" ]] ||
		fail "bench: $f differs from its copy in ~rgbench-user/rgbench-fleet/bench/results on alpha"
	n=$((n + 1))
done < <(cd "$r2/bench" && find . -type f | sed 's|^\./||')
((n >= 4)) || fail "bench: $n files fetched, want the CSV, JSON, report and plots"
owner=$(on_host alpha 'stat -c %U ~rgbench-user/rgbench-fleet/bench/results/*.json')
[[ $owner == rgbench-user ]] || fail "bench: its results on alpha belong to '$owner', want rgbench-user"
echo "ok   run 2: bench (not root, ~/rgbench-fleet/bench, sudo) installed, ran as itself, its $n files fetched whole"
[[ ! -e $T/compiler-calls ]] || fail "run 2: a compiler was called on a host: $(cat "$T/compiler-calls")"
echo "PASS: fleet over namespace hosts (run 1: 3 hosts; run 2: 4 finished, one not root through sudo; 3 failed with their reason)"
