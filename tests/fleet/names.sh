#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rgbench fleet with hostile inventory names (issue 36), over two hosts made here (tests/fleet/
# lib.sh), each listed under several names in a YAML inventory:
#   x/../../y          a path: its files land in DIR/x_.._.._y, nothing outside DIR
#   a<TAB>b, a_b       a tab; and a name with the same safe form: two folders, neither clobbered
#   n<NL>rgbench fleet: forged, ok<ESC>]0;pwned<BEL>   a newline and an escape sequence (a
#                      terminal title; Ansible's host patterns refuse "["): no forged line, no raw
#                      control character on the terminal, its files fetched and reported ok
#   ...                only dots: a visible folder (_..), not a hidden one or DIR's parent
#   report.md          the fleet's own report's name: the report is still written
#   L x 100            a long name: cut to 64 bytes
# Every host finishes (exit 0), each folder holds what that host made (equal to its own copy,
# the JSON of the right machine), and DIR holds the folders, report.md, status.tsv and
# ansible.log only.
# Usage: names.sh SRC BUILD. Exit 0 pass, 1 fail, 77 skipped (not root, no sshd/Ansible).
source "$(dirname "$0")/lib.sh"
fleet_setup "$1" "$2"
opts=(--quick --guards tls --scenarios pair --no-bpf)
fleet_host alpha rgfleet-a
fleet_host beta rgfleet-b
long=$(printf 'L%.0s' {1..100})
forge=$'n\nrgbench fleet: forged, ok\e]0;pwned\a'
names=("x/../../y" $'a\tb' "a_b" "$forge" "..." "report.md" "$long")
# The same names as the terminal shows them (a backslash, \t, \n, \xHH).
shown=("x/../../y" 'a\tb' "a_b" 'n\nrgbench fleet: forged, ok\x1b]0;pwned\x07' "..." "report.md" "$long")
machine=(alpha beta alpha beta alpha beta alpha)
inv=()
for i in "${!names[@]}"; do inv+=("${names[$i]}" "${machine[$i]}"); done
fleet_inventory_yaml "$T/inv.yml" "${inv[@]}"

fleet_run -i "$T/inv.yml" --forks 7 --out "$T/results/run" "${opts[@]}" >"$T/out" 2>"$T/err"
rc=$?
cat "$T/err" "$T/out"
((rc == 0)) || fail "exit $rc, want 0"
run=$T/results/run

# Nothing outside DIR: results/ holds the run only (x/../../y's files went to DIR/../y/ and
# its tar to DIR/.x/../../y.tar before), and nothing named y* is anywhere else.
[[ $(ls -A "$T/results") == run ]] || fail "results/ holds more than the run: $(ls -A "$T/results")"
stray=$(find "$T" -path "$T/remote" -prune -o -path "$run" -prune -o -name 'y*' -print)
[[ -z $stray ]] || fail "x/../../y wrote outside DIR: $stray"
echo "ok   nothing written outside DIR"

# The terminal: no raw control character (but the newline ending each line), no forged line.
LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$T/out" "$T/err" && fail "a raw control character reached the terminal"
grep -q "^rgbench fleet: forged" "$T/out" "$T/err" && fail "a newline in a name forged a line"
echo "ok   no raw control character, no forged line"

# One ok line per host, under its inventory name as shown (\t, \n, \x1b), with its folder.
declare -A want=(
	["x/../../y"]=x_.._.._y
	['a\tb']=a_b
	[a_b]=a_b-2
	['n\nrgbench fleet: forged, ok\x1b]0;pwned\x07']=n_rgbench_fleet__forged__ok__0_pwned_
	[...]=_..
	[report.md]=report.md-2
	["$long"]=${long:0:64}
)
for as in "${!want[@]}"; do
	n=$(grep -cF "rgbench fleet: $as: " "$T/out")
	((n == 1)) || fail "'$as': $n lines, want 1"
	line=$(grep -F "rgbench fleet: $as: " "$T/out")
	[[ $line == "rgbench fleet: $as: ok, "[0-9]*" files in $run/${want[$as]}" ]] ||
		fail "'$as': not 'ok, N files in $run/${want[$as]}': $line"
	echo "ok   $line"
done

# DIR: the seven folders and the fleet's three files, nothing hidden, nothing else.
got=$(cd "$run" && ls -A | sort)
exp=$( (printf '%s\n' "${want[@]}"; printf '%s\n' report.md status.tsv ansible.log) | sort)
[[ $got == "$exp" ]] || fail "DIR holds $(echo $got), want $(echo $exp)"
echo "ok   DIR holds the 7 folders, report.md, status.tsv and ansible.log only"

# Each folder is that host's own run (equal to its copy), made on the machine it was listed on:
# a<TAB>b (beta) and a_b (alpha) share a safe form and keep two folders.
for i in "${!names[@]}"; do
	d=${want[${shown[$i]}]} hn=rgfleet-${machine[$i]:0:1}
	n=0
	while read -r f; do
		cmp -s "$run/$d/$f" "$T/remote/$d/results/$f" || fail "$d: $f differs from the host's copy"
		n=$((n + 1))
	done < <(cd "$run/$d" && find . -type f | sed 's|^\./||')
	((n >= 4)) || fail "$d: $n files, want the CSV, JSON, report and plots"
	[[ $(find "$run/$d" -maxdepth 1 -name "$hn-*.json" | wc -l) == 1 ]] || fail "$d: no $hn JSON (another host's files?)"
done
echo "ok   each folder is its host's own run, on the machine it was listed on"
grep -q "7 files, 2 hosts" "$run/report.md" || fail "the report is not over 7 files of 2 machines"
echo "PASS: fleet with hostile inventory names"
