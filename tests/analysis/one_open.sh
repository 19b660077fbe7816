#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One open per input (issue 28 item 6): report, compare (also --across-hosts over a directory),
# plot and check open each input file once, through the reader's input policy; report used to
# parse each JSON a second time for its timer. Needs strace (skipped without it, or when
# ptrace is not allowed here).
set -euo pipefail
R=$1 FX=$2 FLEET=$3
if ! command -v strace > /dev/null; then echo "skipped: no strace"; exit 77; fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cp "$FX"/report-arm.json "$FX"/ab-base.json "$FX"/ab-new.json "$T/"
mkdir "$T/fleet" && cp "$FLEET"/xeon.json "$FLEET"/ampere.json "$T/fleet/"
cd "$T"
if ! strace -f -o /dev/null true 2> /dev/null; then echo "skipped: strace cannot trace here"; exit 77; fi
fail=0
# opens CMD...: every open of an input by CMD, counted per file.
opens() {
	strace -f -qq -e trace=open,openat -o trace.txt "$@" > /dev/null 2>&1 || true
	grep -v ENOENT trace.txt | grep -o '"[^"]*\.json"' | sort | uniq -c
}
check() {	# what, CMD...
	local what=$1 got
	shift
	got=$(opens "$@")
	if [[ -z $got ]]; then echo "FAIL $what: no input opened?"; fail=1; return; fi
	if grep -qv '^ *1 ' <<< "$got"; then echo "FAIL $what: an input opened more than once:"; echo "$got"; fail=1; fi
}
check "report FILE" "$R" report report-arm.json
check "report FILE FILE" "$R" report --across-hosts report-arm.json ab-base.json
check "report DIR" "$R" report fleet
check "compare" "$R" compare ab-base.json ab-new.json
check "compare --across-hosts DIR" "$R" compare --allow-emulated --across-hosts fleet
check "check" "$R" check ab-base.json report-arm.json
RG_PLOT_SCRIPT=/bin/true check "plot" "$R" plot ab-base.json ab-new.json --out out
[[ $fail == 0 ]] && echo "one_open: each input opened once by report, compare, plot and check"
exit $fail
