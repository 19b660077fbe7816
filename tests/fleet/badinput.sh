#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rgbench fleet's bad input and faults, over hosts made here (tests/fleet/lib.sh):
#   options and an inventory that does not parse: exit 2, one line, no folder left
#   a full disk where the results go (a small tmpfs): every host failed at fetch with the
#     reason, exit 1, and every file that is there is whole (equal to the host's copy)
#   Ctrl-C (SIGINT to the command's process group) while one host still runs: exit 130,
#     the files already fetched stay, whole; the playbook is stopped
# Usage: badinput.sh SRC BUILD. Exit 0 pass, 1 fail, 77 skipped (not root, no sshd/Ansible).
source "$(dirname "$0")/lib.sh"
fleet_setup "$1" "$2"
opts=(--quick --guards tls --scenarios pair --no-bpf)
commit=$(git -C "$SRC" rev-parse HEAD)

# usage ARGS... ::: PATTERN: exit 2, exactly one line on stderr matching PATTERN, no fleet folder.
usage() {
	local args=() rc err
	while [[ $1 != ::: ]]; do args+=("$1"); shift; done
	fleet_run "${args[@]}" >"$T/out" 2>"$T/err"
	rc=$?
	err=$(cat "$T/err")
	((rc == 2)) || fail "${args[*]}: exit $rc, want 2 ($err)"
	[[ $(wc -l <"$T/err") == 1 && $err =~ ^rgbench\ fleet:\ $2 ]] || fail "${args[*]}: stderr is not one line '$2': $err"
	! compgen -G "$T/results/fleet-*" >/dev/null || fail "${args[*]}: a fleet folder was left: $(ls "$T/results")"
	echo "ok   ${args[*]}: exit 2, $err"
}
printf '[fleet\nalpha ansible_host=10.254.1.2\n' >"$T/broken"
printf '[fleet]\n' >"$T/empty"
usage -i "$T/broken" --quick ::: "inventory '$T/broken' does not parse: "
usage -i "$T/empty" ::: "inventory '$T/empty' has no host"
usage -i "$T/nonexistent" ::: "cannot read the inventory '$T/nonexistent'"
usage --quick ::: "-i INVENTORY is required"
usage -i "$T/broken" --forks 0 ::: "--forks: expected 1 to 256 \\(got '0'\\)"
usage -i "$T/broken" -- --out x.csv ::: "'--out' is for run.sh to choose on each host"

fleet_host alpha rgfleet-a
fleet_host beta rgfleet-b
# whole NAME DIR: every file in DIR equals the host NAME's own copy; prints how many.
whole() {
	local f n=0
	while read -r f; do
		cmp -s "$2/$f" "$T/remote/$1/${commit:0:12}/results/$f" || fail "$1: $f is not the host's file (partial?)"
		n=$((n + 1))
	done < <(cd "$2" 2>/dev/null && find . -type f | sed 's|^\./||')
	echo "$n"
}

# A full disk on the control machine: the results folder on a 128 KiB tmpfs (a private mount):
# a host's tar (about 90 KiB) may fit, two do not; a tar that fits may not unpack beside itself.
fleet_inventory "$T/inv" "alpha ansible_host=${FLEET_ADDR[alpha]}" "beta ansible_host=${FLEET_ADDR[beta]}"
mkdir -p "$T/full" "$T/tmp"
(cd "$T" && ip netns exec "$FLEET_PREFIX-c" unshare --mount --propagation private bash -c '
	full=$1
	mount -t tmpfs -o size=128k rgfleetfull "$full" || exit 99
	shift
	TMPDIR=$0/tmp "$@"
	rc=$?
	mkdir -p "$0/full-copy" && cp -a "$full"/. "$0/full-copy/"
	exit $rc' "$T" "$T/full" "$BUILD/tools/rgbench" fleet -i "$T/inv" --out "$T/full/run" "${opts[@]}") >"$T/out" 2>"$T/err"
rc=$?
cat "$T/err" "$T/out"
((rc != 99)) || skip "cannot mount a tmpfs in a private mount namespace"
((rc == 1)) || fail "full disk: exit $rc, want 1"
for name in alpha beta; do
	line=$(grep "^rgbench fleet: $name: " "$T/out")
	[[ $(wc -l <<<"$line") == 1 && $line =~ ^rgbench\ fleet:\ $name:\ failed\ at\ (fetch|unpack):\ .*No\ space\ left\ on\ device.*\ \([0-9]+\ files\ kept\)$ ]] ||
		fail "full disk: $name: not one line 'failed at fetch|unpack: ... No space left on device': $line"
	n=$(whole "$name" "$T/full-copy/run/$name") || exit 1
	if [[ -e $T/full-copy/run/.$name.tar ]]; then
		tar -tf "$T/full-copy/run/.$name.tar" >/dev/null || fail "full disk: $name's kept tar is not whole"
		n="$n (and the whole tar with the rest)"
	fi
	echo "ok   full disk: ${line#rgbench fleet: }; its $n files there are whole"
done
! compgen -G "$T/full-copy/run/*/.unpack" >/dev/null || fail "full disk: an .unpack folder was left"

# Ctrl-C: alpha finishes, slow's run.sh waits (its rgbench sleeps); SIGINT to the process
# group once alpha's tar is in: exit 130, alpha's files are unpacked and stay, slow is interrupted.
mkdir -p "$T/slow/tools"
printf '#!/bin/sh\nexec sleep 300\n' >"$T/slow/tools/rgbench"
chmod +x "$T/slow/tools/rgbench"
fleet_inventory "$T/inv3" "alpha ansible_host=${FLEET_ADDR[alpha]}" \
	"slow ansible_host=${FLEET_ADDR[beta]} rgbench_prebuilt=$T/slow"
set -m
(cd "$T" && exec ip netns exec "$FLEET_PREFIX-c" "$BUILD/tools/rgbench" fleet -i "$T/inv3" --out "$T/int" "${opts[@]}") \
	>"$T/out" 2>"$T/err" &
pg=$!
set +m
for ((i = 0; i < 300; i++)); do
	[[ -s $T/int/.alpha.tar ]] && break
	kill -0 "$pg" 2>/dev/null || break
	sleep 0.2
done
[[ -s $T/int/.alpha.tar ]] || { cat "$T/err" "$T/out"; fail "Ctrl-C: alpha's files did not arrive"; }
sleep 1
kill -INT -- "-$pg" || fail "Ctrl-C: the fleet had already ended"
for ((i = 0; i < 300; i++)); do kill -0 "$pg" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pg" 2>/dev/null && fail "Ctrl-C: rgbench fleet still runs 30 s after SIGINT"
wait "$pg"
rc=$?
cat "$T/err" "$T/out"
((rc == 130)) || fail "Ctrl-C: exit $rc, want 130"
grep -q "^rgbench fleet: interrupted after [0-9]* s; the files fetched so far stay in $T/int$" "$T/err" || fail "Ctrl-C: no 'interrupted' line"
grep -Eq "^rgbench fleet: slow: interrupted \(0 files kept\)$" "$T/out" || fail "Ctrl-C: slow is not said interrupted"
n=$(whole alpha "$T/int/alpha") || exit 1
((n >= 4)) || fail "Ctrl-C: alpha has $n files, want its CSV, JSON, report and plots"
for p in $(ip netns pids "$FLEET_PREFIX-c"); do
	[[ $(cat "/proc/$p/comm" 2>/dev/null) != ansible-playboo* ]] || fail "Ctrl-C: ansible-playbook $p still runs"
done
echo "ok   Ctrl-C: exit 130, alpha's $n files kept and whole, slow interrupted, the playbook stopped"
echo "PASS: fleet bad input and faults"
