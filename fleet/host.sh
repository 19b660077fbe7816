#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One fleet host's run (fleet/rgbench.yml copies it to the host and runs it in the host's rgbench
# folder, once the package is installed): the installed rgbench with the fleet's options into
# results/<host>-<UTC>.csv and .json, its plots and report (what scripts/run.sh makes, with
# nothing built), then the run's result files (the files newer than the run's start, the run's own
# whether it finished or not) in one tar, for one fetch: "ARCHIVE results/.fleet-STAMP.tar" on
# stdout (paths inside relative to results/), and "FILE <path>" per file; when the run failed,
# "REASON <its last line on stderr>". Exit: the run's status (or 1: no tar).
#   host.sh RGBENCH STAMP [rgbench options...]     RGBENCH: the installed command (rgbench)
# The run's output stays in results/.fleet-STAMP.log (the host's copy of what it printed).
set -uo pipefail
rgbench=$1 stamp=$2
shift 2
command -v "$rgbench" >/dev/null || { echo "REASON $rgbench: command not found (the package is not installed?)"; exit 1; }
mkdir -p results
mark=results/.fleet-$stamp
log=results/.fleet-$stamp.log
rm -f results/.fleet-*.tar	# an earlier run's, fetched then
: >"$mark"
# run OPTIONS...: what scripts/run.sh does after its build, with the installed rgbench.
run() {
	local host base b0 k
	host=$("$rgbench" --safe-name "$(uname -n)") || return
	b0=results/$host-$(date -u +%Y%m%dT%H%M%SZ) base=$b0
	for ((k = 2; k <= 1000; k++)); do
		[[ -e $base.csv || -e $base.json || -e $base-plots ]] || break
		base=$b0-$k
	done
	"$rgbench" --version
	"$rgbench" --out "$base.csv" --json "$base.json" "$@" || return
	"$rgbench" plot "$base.json" --out "$base-plots" || return
	"$rgbench" report "$base.json" --out "$base.md" >/dev/null
}
run "$@" >"$log" 2>"$log.err"
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
