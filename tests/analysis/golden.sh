#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Golden tests of `compare`: every output form on the small fixtures, checked against files
# whose numbers were checked by hand. RG_UPDATE_GOLDEN=1 rewrites the expected files.
set -euo pipefail
R=$1 FX=$2 GOLD=$3
# A folder of its own: ctest runs this under two identities at once (tests/analysis/CMakeLists.txt).
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cp "$FX"/*.json "$FX"/*.csv "$T/"
cd "$T"
fail=0
mkdir -p dir-base dir-new
cp ab-base.csv ab-base.json dir-base/
cp ab-new.csv ab-new.json dir-new/

check() {	# name args...
	local name=$1 out rc=0
	shift
	out=$("$R" compare "$@" 2>stderr.txt) || rc=$?
	if [[ $rc != 0 || -s stderr.txt ]]; then
		echo "FAIL $name: rc=$rc stderr: $(cat stderr.txt)"; fail=1; return
	fi
	if [[ ${RG_UPDATE_GOLDEN:-0} == 1 ]]; then
		printf '%s\n' "$out" > "$GOLD/$name"
		return
	fi
	if ! diff -u "$GOLD/$name" <(printf '%s\n' "$out"); then
		echo "FAIL $name: output differs from $GOLD/$name"; fail=1
	fi
}

check compare-text.txt ab-base.json ab-new.json
check compare-markdown.md --markdown ab-base.json ab-new.json
check compare-commit-log.txt --commit-log ab-base.json ab-new.json
check compare-csv.csv --csv ab-base.json ab-new.json
check compare-csv-input.txt ab-base.csv ab-new.csv
check compare-dirs.txt dir-base dir-new
check across-hosts.txt --across-hosts ab-base.json hostb.json
check across-hosts-commit-log.txt --commit-log --across-hosts ab-base.json hostb.json
check baseline-tls.txt --baseline tls ab-base.json
check baseline-tls-commit-log.txt --commit-log --baseline tls ab-base.json

# The commit-log form fits a commit message.
for args in "ab-base.json ab-new.json" "--across-hosts ab-base.json hostb.json" \
	    "--baseline tls ab-base.json" "plot-a.json plot-b.json"; do
	# shellcheck disable=SC2086
	w=$("$R" compare --commit-log $args | python3 -c 'import sys; print(max(len(l.rstrip("\n")) for l in sys.stdin))')
	if (( w > 72 )); then echo "FAIL commit-log $args: $w columns"; fail=1; fi
done

# Usage errors: non-zero, nothing on stdout.
for args in "" "ab-base.json" "--baseline tls ab-base.json ab-new.json" \
	    "--markdown --csv ab-base.json ab-new.json" "--baseline nosuch ab-base.json"; do
	rc=0
	# shellcheck disable=SC2086
	out=$("$R" compare $args 2>/dev/null) || rc=$?
	if [[ $rc == 0 || -n $out ]]; then echo "FAIL usage '$args': rc=$rc out=$out"; fail=1; fi
done
[[ $fail == 0 ]] && echo "golden: all passed"
exit $fail
