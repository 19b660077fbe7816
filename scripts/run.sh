#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's first quick-start command: install deps, build, run the default
# suite into results/<host>-<UTC time>.csv and .json, then plot it.
# Extra arguments go to rgbench (e.g. --quick, --full, --guards tls,rseq).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"

host=$(uname -n | tr -c 'A-Za-z0-9._\n-' '_')
mkdir -p results
# Never overwrite an earlier result: like rgbench's own default names, take -2, -3, ...
# when this second's name exists (a run on the same name in progress holds its lock,
# and rgbench then refuses to start rather than interleave).
stamp="results/${host}-$(date -u +%Y%m%dT%H%M%SZ)"
base=$stamp
for ((k = 2; k <= 1000; k++)); do
	[[ -e $base.csv || -e $base.json || -e results/.${base#results/}.csv.lock ]] || break
	base="$stamp-$k"
done
build/bench/rgbench --out "$base.csv" --json "$base.json" "$@"

# Plots: `rgbench plot` exists when the report component (target rg_report) is
# part of the build; otherwise the CSV and JSON above are the whole result.
if build/bench/rgbench --list | grep -q '^subcommands:.* plot\( \|$\)' &&
   ! build/bench/rgbench --list | grep -q 'plot (not built)'; then
  build/bench/rgbench plot "$base.json" --out "$base-plots"
  echo "rgbench: plots in $base-plots/"
else
  echo "rgbench: plots skipped: rgbench plot is not built"
fi
echo "rgbench: results in $base.csv and $base.json"
