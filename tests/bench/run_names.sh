#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/run.sh's result names: never the name of an earlier result or of a run in progress.
set -euo pipefail
src=$1
# shellcheck source=../../scripts/run.sh
source "$src/scripts/run.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
want() {	# EXPECTED: result_base's answer now
	local got
	got=$(result_base "$T" host 20260101T000000Z)
	[[ $got == "$T/$1" ]] || { echo "FAIL: got ${got#"$T"/}, want $1"; fail=1; }
}
want host-20260101T000000Z
touch "$T/host-20260101T000000Z.json"		# an earlier run (its JSON is enough)
want host-20260101T000000Z-2
touch "$T/.host-20260101T000000Z-2.csv.lock"	# a run writing this name right now
want host-20260101T000000Z-3
mkdir "$T/host-20260101T000000Z-3-plots"	# only the plots are left of that one
want host-20260101T000000Z-4
touch "$T/host-20260101T000000Z-4.csv"
want host-20260101T000000Z-5
[[ $fail == 0 ]] && echo "run_names: all passed"
exit $fail
