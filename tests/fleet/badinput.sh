#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rgbench fleet's bad input and faults, over hosts made here (tests/fleet/lib.sh):
#   options and an inventory that does not parse: exit 2, one line, no folder left; an
#     inventory that is a FIFO (refused at once, not read), a bad rgbench option (rgbench's own
#     check, once, before any host), a --out that is a dangling link (not followed)
#     check, once, before any host), a --out that is a dangling link (not followed), a --deb
#     that is not a package, not rgbench's, or a second one for an architecture
#   what the control machine lacks (python3, dpkg-deb, a TMPDIR): exit 1, one line, no folder
#   a host of an architecture no --deb is for, with --no-build: failed at copy, with its reason
#   a full disk where the results go (a small tmpfs): every host failed at fetch with the
#     reason, exit 1, and every file that is there is whole (equal to the host's copy)
#   Ctrl-C (SIGINT to the command's process group) while one host still runs: exit 130,
#     the files already fetched stay, whole; the playbook is stopped
# Usage: badinput.sh SRC BUILD. Exit 0 pass, 1 fail, 77 skipped (not root, no sshd/Ansible).
source "$(dirname "$0")/lib.sh"
fleet_setup "$1" "$2"
opts=(--quick --guards tls --scenarios pair --no-bpf)

# refused RC ARGS... ::: PATTERN: exit RC, exactly one line on stderr matching PATTERN, nothing
# on stdout, no fleet folder (neither results/fleet-* nor $T/o).
refused() {
	local want=$1 args=() rc err
	shift
	while [[ $1 != ::: ]]; do args+=("$1"); shift; done
	fleet_run "${args[@]}" >"$T/out" 2>"$T/err"
	rc=$?
	err=$(cat "$T/err")
	((rc == want)) || fail "${args[*]}: exit $rc, want $want ($err)"
	[[ $(wc -l <"$T/err") == 1 && $err =~ ^rgbench\ fleet:\ $2 ]] || fail "${args[*]}: stderr is not one line '$2': $err"
	[[ ! -s $T/out ]] || fail "${args[*]}: stdout: $(cat "$T/out")"
	! compgen -G "$T/results/fleet-*" >/dev/null || fail "${args[*]}: a fleet folder was left: $(ls "$T/results")"
	[[ ! -e $T/o ]] || fail "${args[*]}: --out $T/o was left"
	echo "ok   ${args[*]}: exit $want, $err"
}
usage() { refused 2 "$@"; }
printf '[fleet\nalpha ansible_host=10.254.1.2\n' >"$T/broken"
printf '[fleet]\n' >"$T/empty"
usage -i "$T/broken" --quick ::: "inventory '$T/broken' does not parse: "
usage -i "$T/empty" ::: "inventory '$T/empty' has no host"
usage -i "$T/nonexistent" ::: "cannot read the inventory '$T/nonexistent'"
usage --quick ::: "-i INVENTORY is required"
usage -i "$T/broken" --forks 0 ::: "--forks: expected 1 to 256 \\(got '0'\\)"
usage -i "$T/broken" -- --out x.csv ::: "'--out' is for the fleet to choose on each host"
# A FIFO: refused at once (Ansible would block reading it until killed).
mkfifo "$T/fifo"
refused 1 -i "$T/fifo" ::: "cannot read the inventory '$T/fifo': not a regular file or folder \\(a FIFO\\)$"
# A bad rgbench option: rgbench's own check, once, here: no host is contacted (this inventory
# does not even parse), not "failed at run" on every host.
usage -i "$T/broken" --quick --bogus ::: "an rgbench option is refused: unknown option '--bogus' \\(see rgbench --help\\)$"
usage -i "$T/broken" --guards nosuch ::: "an rgbench option is refused: --guards: unknown name 'nosuch'"
usage -i "$T/broken" --repetitions=0 --quick ::: "an rgbench option is refused: --repetitions: "
usage -i "$T/broken" -- --plan ::: "an rgbench option is refused: '--plan' makes no run"
usage -i "$T/broken" -- --help ::: "an rgbench option is refused: '--help' makes no run"
# --out a dangling link: refused, not followed (mkdir -p would have made its target).
ln -s "$T/nowhere/x" "$T/dangling"
usage -i "$T/broken" --out "$T/dangling" --quick ::: "--out '$T/dangling' exists: every run gets a new folder"
[[ -L $T/dangling && ! -e $T/nowhere ]] || fail "--out a dangling link: the link or its target changed"
# --deb: a file that is not a package, another package, two for one architecture.
usage -i "$T/broken" --deb "$T/broken" ::: "--deb '$T/broken': not a Debian package \\(dpkg-deb cannot read it\\)$"
usage -i "$T/broken" --deb "$T/nonexistent.deb" ::: "--deb '$T/nonexistent.deb': not a readable file$"
# fakedeb PACKAGE ARCH: an empty package of that name and architecture, $T/PACKAGE_ARCH.deb.
fakedeb() {
	mkdir -p "$T/fake-$1-$2/DEBIAN"
	printf 'Package: %s\nVersion: 1\nArchitecture: %s\nMaintainer: t <t@invalid.example>\nDescription: t\n' "$1" "$2" \
		>"$T/fake-$1-$2/DEBIAN/control"
	dpkg-deb --root-owner-group --build "$T/fake-$1-$2" "$T/$1_$2.deb" >/dev/null || fail "dpkg-deb --build $1 $2"
}
fakedeb notrgbench amd64
fakedeb rgbench arm64
usage -i "$T/broken" --deb "$T/notrgbench_amd64.deb" ::: "--deb '$T/notrgbench_amd64.deb': the package is 'notrgbench', not rgbench$"
usage -i "$T/broken" --deb "$FLEET_DEB" ::: "--deb '$FLEET_DEB': a second package for $(dpkg --print-architecture) \\(one per architecture\\)$"
# What the control machine lacks: one line, exit 1, no --out folder made. PATH without python3,
# or without dpkg-deb: every other command of /usr/bin, /bin, /usr/sbin, /sbin linked into a folder.
# (one ln for the 3000-odd links: one process each took 100 s on a busy VM)
for miss in python3 dpkg-deb; do
	mkdir -p "$T/no-$miss"
	declare -A seen=()
	links=()
	for d in /usr/local/bin /usr/bin /bin /usr/sbin /sbin; do
		for f in "$d"/*; do
			b=${f##*/}
			[[ -x $f && -z ${seen[$b]:-} && $b != "$miss"* ]] && seen[$b]=1 && links+=("$f")
		done
	done
	ln -s -t "$T/no-$miss" -- "${links[@]}" || fail "cannot link the commands into $T/no-$miss"
	unset seen
	PATH=$T/no-$miss refused 1 -i "$T/broken" --out "$T/o" --quick ::: "$miss not found: "
done
TMPDIR=$T/no-such-tmp refused 1 -i "$T/broken" --out "$T/o" --quick ::: \
	"cannot make a temporary folder in $T/no-such-tmp: No such file or directory \\(TMPDIR\\)$"

fleet_host alpha rgfleet-a
fleet_host beta rgfleet-b
# whole NAME DIR: every file in DIR equals the host NAME's own copy; prints how many.
whole() {
	local f n=0
	while read -r f; do
		cmp -s "$2/$f" "$T/remote/$1/results/$f" || fail "$1: $f is not the host's file (partial?)"
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
	exit $rc' "$T" "$T/full" "$BUILD/tools/rgbench" fleet -i "$T/inv" --deb "$FLEET_DEB" --out "$T/full/run" "${opts[@]}") >"$T/out" 2>"$T/err"
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

# A host whose architecture no --deb is for (only an arm64 package given, --no-build): failed
# at copy, with the reason; nothing built, installed or run (tests/fleet/arch.sh: the builds).
fleet_inventory "$T/inv-a" "alpha ansible_host=${FLEET_ADDR[alpha]}"
(cd "$T" && ip netns exec "$FLEET_PREFIX-c" "$BUILD/tools/rgbench" fleet -i "$T/inv-a" --deb "$T/rgbench_arm64.deb" \
	--no-build --out "$T/arch" "${opts[@]}") >"$T/out" 2>"$T/err"
rc=$?
cat "$T/err" "$T/out"
a=$(dpkg --print-architecture)
((rc == 1)) || fail "no package for the host's architecture: exit $rc, want 1"
grep -qx "rgbench fleet: alpha: failed at copy: no package for this host's architecture $a (given: arm64; rgbench fleet --deb FILE, one per architecture) (0 files kept)" "$T/out" ||
	fail "no package for the host's architecture: not said"
echo "ok   a host of architecture $a with only an arm64 package: $(grep '^rgbench fleet: alpha' "$T/out")"

# Ctrl-C: alpha finishes, slow's run waits (its rgbench sleeps); SIGINT to the process
# group once alpha's tar is in: exit 130, alpha's files are unpacked and stay, slow is interrupted.
printf '#!/bin/sh\nexec sleep 300\n' >"$T/slow-rgbench"
chmod +x "$T/slow-rgbench"
fleet_inventory "$T/inv3" "alpha ansible_host=${FLEET_ADDR[alpha]}" \
	"slow ansible_host=${FLEET_ADDR[beta]} rgbench_command=$T/slow-rgbench"
set -m
(cd "$T" && exec ip netns exec "$FLEET_PREFIX-c" "$BUILD/tools/rgbench" fleet -i "$T/inv3" --deb "$FLEET_DEB" --out "$T/int" "${opts[@]}") \
	>"$T/out" 2>"$T/err" &
pg=$!
set +m
for ((i = 0; i < 3000; i++)); do	# (a wait, not a time limit: one host's run took 82 s on a busy VM)
	[[ -s $T/int/.alpha.tar ]] && break
	kill -0 "$pg" 2>/dev/null || break
	sleep 0.2
done
[[ -s $T/int/.alpha.tar ]] || { cat "$T/err" "$T/out"; fail "Ctrl-C: alpha's files did not arrive"; }
sleep 1
kill -INT -- "-$pg" || fail "Ctrl-C: the fleet had already ended"
for ((i = 0; i < 1200; i++)); do kill -0 "$pg" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pg" 2>/dev/null && fail "Ctrl-C: rgbench fleet still runs 120 s after SIGINT"
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
