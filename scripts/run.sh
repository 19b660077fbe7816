#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's first quick-start command: install what running needs (deps.sh run), build, run the default
# suite into results/<host>-<UTC time>.csv and .json, then plot it.
# Extra arguments go to rgbench (e.g. --quick, --full, --guards tls,rseq).
set -euo pipefail

# DIR/<host>-<UTC time>, or -2, -3, ... when a result (CSV, JSON, plots or a run in
# progress, which holds .NAME.csv.lock) of that name exists: never an earlier result's.
result_base() {	# DIR HOST STAMP
	local base="$1/$2-$3" k
	for ((k = 2; k <= 1000; k++)); do
		[[ -e $base.csv || -e $base.json || -e $base-plots || -e $1/.${base##*/}.csv.lock ]] || break
		base="$1/$2-$3-$k"
	done
	echo "$base"
}
# Sourced (tests/bench/run_names.sh): the function only.
[[ ${BASH_SOURCE[0]} != "$0" ]] && return 0

cd "$(dirname "$0")/.."
bash scripts/deps.sh run
# The configure log stays in build/; its rgbench lines say what is built and what is off, and why.
build=build
mkdir -p build
# Ninja where there is one (deps.sh installs it): a third less CPU than make for the same build
# here. A tree configured before keeps its generator (CMake reads the variable for new trees only).
command -v ninja >/dev/null && export CMAKE_GENERATOR=${CMAKE_GENERATOR:-Ninja}
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >build/configure.log ||
  { cat build/configure.log >&2; exit 1; }
grep '^-- rgbench: ' build/configure.log || true
# Only what running needs: the rgbench command (and what it links), not the test programs.
cmake --build build -j"$(nproc)" --target rgbench

# The host name as a file name: rgbench's one rule (rg/safe_name.h), as its own default name has it.
host=$("$build"/tools/rgbench --safe-name "$(uname -n)")
# The output policy's exit code for an output that cannot be written before any work: 2 (README).
mkdir -p results 2>/dev/null && [[ -d results && -w results ]] ||
  { echo "scripts/run.sh: results: cannot create or write the results folder here" >&2; exit 2; }
base=$(result_base results "$host" "$(date -u +%Y%m%dT%H%M%SZ)")
"$build"/tools/rgbench --out "$base.csv" --json "$base.json" "$@"

# Plots: `rgbench plot` exists when the plots component (target rg_plots) is
# part of the build; otherwise the CSV and JSON above are the whole result.
if "$build"/tools/rgbench --list | grep -q '^subcommands:.* plot\( \|$\)' &&
   ! "$build"/tools/rgbench --list | grep -q 'plot (not built)'; then
  "$build"/tools/rgbench plot "$base.json" --out "$base-plots"
  echo "rgbench: plots in $base-plots/"
else
  echo "rgbench: plots skipped: rgbench plot is not built"
fi
echo "rgbench: results in $base.csv and $base.json"

# The one-page answer beside the CSV and JSON (links the plots above), and its answer section.
if "$build"/tools/rgbench report "$base.json" --out "$base.md" > /dev/null; then
  echo "rgbench: report in $base.md; its answer:"
  awk '/^## Answer$/ { on = 1; next } on && /^## / { exit } on' "$base.md"
else
  echo "rgbench: report skipped (see the message above)"
fi
