#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One fleet host's run (fleet/rgbench.yml runs it in the unpacked commit): scripts/run.sh with
# the fleet's options, then the run's result files (the files newer than the run's start, the
# run's own whether it finished or not) in one tar, for one fetch: "ARCHIVE results/.fleet-
# STAMP.tar" on stdout (paths inside relative to results/), and "FILE <path>" per file; when
# run.sh failed, "REASON <its last line on stderr>". Exit: run.sh's status (or 1: no tar).
#   fleet/host.sh COMMIT STAMP [run.sh options...]
# run.sh's output stays in results/.fleet-STAMP.log (the host's copy of what it printed).
set -uo pipefail
commit=$1 stamp=$2
shift 2
cd "$(dirname "$0")/.."
# The unpacked tree is whole (Ansible's unarchive finished): the next run with this commit
# skips the copy.
echo "$commit" >.rgbench-commit
mkdir -p results
mark=results/.fleet-$stamp
log=results/.fleet-$stamp.log
rm -f results/.fleet-*.tar	# an earlier run's, fetched then
: >"$mark"
bash scripts/run.sh "$@" >"$log" 2>"$log.err"
rc=$?
# The CSV, JSON and report first, the plots after: a full disk on the control machine keeps the data.
mapfile -t files < <(cd results && find . -type f -newer "${mark#results/}" ! -name '.*' | sed 's|^\./||' |
	awk '{ print (index($0, "/") ? 1 : 0) "\t" $0 }' | sort | cut -f2-)
if ((${#files[@]})); then
	if tar -cf "$mark.tar" -C results -- "${files[@]}"; then
		echo "ARCHIVE $mark.tar"
		printf 'FILE %s\n' "${files[@]}"
	else
		echo "REASON cannot write $mark.tar (full disk?)"
		rc=${rc/#0/1}
	fi
fi
if ((rc != 0)); then
	why=$(grep -v '^[[:space:]]*$' "$log.err" | tail -n 1)
	[[ -n $why ]] || why=$(grep -v '^[[:space:]]*$' "$log" | tail -n 1)
	echo "REASON ${why:-no output}"
fi
cat "$log.err" >>"$log"
rm -f "$mark" "$log.err"
exit "$rc"
