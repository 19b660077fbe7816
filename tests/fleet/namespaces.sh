#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rgbench fleet for real over three hosts made here (tests/fleet/lib.sh: network namespaces, each
# with its own sshd, address and host name; keys made for the test), with a tiny run:
#   run 1  alpha, beta, gamma: every host's files arrive under its inventory name, whole (equal
#          to the host's own copy), and the report lists every host
#   run 2  gamma's sshd stopped; delta is alpha's machine again (the same host name);
#          nosudo must install through a sudo that refuses (become to another user: Ansible
#          does not become root when it is root already); badrun's run.sh fails: gamma,
#          nosudo and badrun are failed with their reason (one line each), the others finish,
#          delta's files stay apart from alpha's, and run 1's folder is untouched
# Usage: namespaces.sh SRC BUILD. Exit 0 pass, 1 fail, 77 skipped (not root, no sshd/Ansible).
source "$(dirname "$0")/lib.sh"
fleet_setup "$1" "$2"
opts=(--quick --guards tls --scenarios pair --no-bpf)
fleet_host alpha rgfleet-a
fleet_host beta rgfleet-b
fleet_host gamma rgfleet-c
commit=$(git -C "$SRC" rev-parse HEAD)

# tree DIR: every file under DIR with its checksum and mtime (to see that nothing changed).
tree() { (cd "$1" && find . -type f -printf '%p %T@ ' -exec sha256sum {} \; | sort); }
# whole NAME DIR: every file the host NAME fetched into DIR equals the host's own copy.
whole() {
	local f n=0
	while read -r f; do
		cmp -s "$2/$f" "$T/remote/$1/${commit:0:12}/results/$f" || fail "$1: $f differs from the host's copy"
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
left=$(ip netns pids "$FLEET_PREFIX-c")
[[ -z $left ]] || fail "run 1 left processes in the control namespace: $(ps -o comm= -p "${left//$'\n'/,}")"
echo "ok   run 1 left no process behind (Ansible's ssh masters ended)"
before=$(tree "$r1")

# Run 2: gamma unreachable, delta = alpha's machine, nosudo and badrun fail.
fleet_stop_sshd gamma
printf '#!/bin/sh\necho "sudo: a password is required" >&2\nexit 1\n' >"$T/nosudo"
chmod +x "$T/nosudo"
fleet_inventory "$T/inv2" "alpha ansible_host=${FLEET_ADDR[alpha]}" "beta ansible_host=${FLEET_ADDR[beta]}" \
	"gamma ansible_host=${FLEET_ADDR[gamma]}" "delta ansible_host=${FLEET_ADDR[alpha]}" \
	"nosudo ansible_host=${FLEET_ADDR[beta]} rgbench_become=true ansible_become_exe=$T/nosudo ansible_become_user=daemon" \
	"badrun ansible_host=${FLEET_ADDR[beta]} rgbench_prebuilt=$T/no-such-build"
round 2 "$T/inv2" 6 1
r2=$run
[[ $r2 != "$r1" ]] || fail "run 2 wrote into run 1's folder"
[[ $(tree "$r1") == "$before" ]] || fail "run 2 changed run 1's folder"
echo "ok   run 2: a new folder; run 1's is untouched"
one_line "$T/out2" gamma "failed at copy: unreachable: ssh: connect to host 10\.254\.3\.2 port 22: Connection refused \(0 files kept\)$"
one_line "$T/out2" nosudo "failed at deps: Missing sudo password \(0 files kept\)$"
one_line "$T/out2" badrun "failed at run: scripts/run.sh exited 1: scripts/run.sh: RG_RUN_PREBUILT=$T/no-such-build has no tools/rgbench \(0 files kept\)$"
for name in alpha beta delta; do
	one_line "$T/out2" "$name" "ok, [0-9]+ files in $r2/$name\$"
done
whole alpha "$r2/alpha"
whole delta "$r2/delta"
a=$(ls "$r2"/alpha/rgfleet-a-*.json) d=$(ls "$r2"/delta/rgfleet-a-*.json)
[[ -n $a && -n $d ]] && ! cmp -s "$a" "$d" || fail "delta's result is not its own ($a, $d)"
echo "ok   run 2: alpha and delta (host name rgfleet-a both) keep their own files"
[[ ! -e $r2/gamma && ! -e $r2/nosudo && ! -e $r2/badrun ]] || fail "run 2: a folder for a host that fetched nothing"
grep -q "3 files, 2 hosts" "$r2/report.md" || fail "run 2: the report is not over the 3 files of alpha, beta and delta (2 machines)"
echo "PASS: fleet over namespace hosts (run 1: 3 hosts; run 2: 3 finished, 3 failed with their reason)"
