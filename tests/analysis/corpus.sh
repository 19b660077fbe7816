#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the reader over every file of the fuzz corpus: each must be accepted (exit 0, one
# summary line) or refused cleanly (exit 1, one "rgbench-report check: FILE..." line); never a crash.
set -euo pipefail
R=$1 CORPUS=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0 ok=0 refused=0
for f in "$CORPUS"/*; do
	rc=0
	"$R" check "$f" > "$T/out" 2> "$T/err" || rc=$?
	if [[ $rc == 0 && $(wc -l < "$T/out") == 1 && ! -s $T/err ]]; then
		ok=$((ok + 1))
	elif [[ $rc == 1 && ! -s $T/out && $(wc -l < "$T/err") == 1 ]] &&
	     [[ $(head -n 1 "$T/err") == "rgbench-report check: $f"* ]]; then
		refused=$((refused + 1))
	else
		echo "FAIL $f: rc=$rc stdout=$(head -c 200 "$T/out") stderr=$(head -c 300 "$T/err")"
		fail=1
	fi
done
echo "corpus: $ok accepted, $refused refused cleanly, $((ok + refused)) of $(ls "$CORPUS" | wc -l)"
(( ok >= 3 && refused >= 20 )) || { echo "FAIL corpus lost its variety"; fail=1; }
exit $fail
