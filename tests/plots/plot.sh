#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `plot` writes one PNG and one SVG per kind that has data, skips the others with a note,
# and writes nothing at all when it fails.
set -euo pipefail
R=$1 FX=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0

is_png() { [[ $(head -c 8 "$1" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]]; }
is_svg() { head -c 300 "$1" | grep -q '<?xml' && grep -q '<svg' "$1" && tail -c 20 "$1" | grep -q '</svg>'; }
size() { stat -c %s "$1"; }

# Two machines, every kind of row: eight pictures (the heat map and the decision of the hosts
# too), two formats each.
"$R" plot "$FX/plot-a.json" "$FX/plot-b.json" --out "$T/all" > "$T/out.txt" 2> "$T/err.txt"
for k in pair-ns threads duty latency-cdf bpf kmod-ns fleet decision; do
	for ext in png svg; do
		f=$T/all/$k.$ext
		if [[ ! -f $f ]]; then echo "FAIL missing $k.$ext"; fail=1; continue; fi
		if [[ $ext == png ]] && ! is_png "$f"; then echo "FAIL $k.png is not a PNG"; fail=1; fi
		if [[ $ext == svg ]] && ! is_svg "$f"; then echo "FAIL $k.svg is not an SVG"; fail=1; fi
		# A real chart with axes, bars or lines and labels is tens of KiB as PNG; as SVG, its
		# text written as <text> (svg.fonttype none), more than empty axes' 8.4 KiB.
		min=15000
		[[ $ext == svg ]] && min=9000
		if (( $(size "$f") < min || $(size "$f") > 2000000 )); then
			echo "FAIL $k.$ext: $(size "$f") bytes"; fail=1
		fi
		if [[ $ext == svg ]] && ! grep -q "<text" "$f"; then echo "FAIL $k.svg: text drawn as paths"; fail=1; fi
		grep -qx "rgbench plot: wrote $f" "$T/err.txt" || { echo "FAIL no 'wrote $f' on stderr"; fail=1; }
	done
done
# PNG dimensions (IHDR) are those of the figure size at 150 dpi, at least 1200x600 (a slide).
w=$(od -An -tu1 -j16 -N4 "$T/all/pair-ns.png" | awk '{print $1*16777216+$2*65536+$3*256+$4}')
h=$(od -An -tu1 -j20 -N4 "$T/all/pair-ns.png" | awk '{print $1*16777216+$2*65536+$3*256+$4}')
if (( w < 1200 || h < 600 )); then echo "FAIL pair-ns.png is ${w}x${h}"; fail=1; fi
# The latency CDF: one line per guard and machine, labelled "guard (host)".
for s in "pcpu-stadd (grace)" "noop (alpha)"; do
	grep -q "$s" "$T/all/latency-cdf.svg" || { echo "FAIL latency-cdf.svg lacks '$s'"; fail=1; }
done
# The two machines are the two bar series, labelled by host; noop is the zero line (its own
# ns per pair in the caption), tls a bar; the SVG's text is text.
for s in alpha grace "noop itself: 0.300 ns (alpha), 0.250 ns (grace)" "<text"; do
	grep -q "$s" "$T/all/pair-ns.svg" || { echo "FAIL pair-ns.svg lacks '$s'"; fail=1; }
done
# Nothing on stdout (streams: the 'wrote' lines are stderr's, like every command's).
[[ ! -s $T/out.txt ]] || { echo "FAIL stdout: $(head -c 400 "$T/out.txt")"; fail=1; }
# The fixtures have no ladder and no tramp rows (tests/plots/drawn.py draws those): two notes.
[[ $(grep -v '^rgbench plot: wrote ' "$T/err.txt") == "note: ladder: skipped, no user 'ladder' rows (rgbench --scenarios ladder)
note: tramp: skipped, no kmod tramp-fentry or tramp-rawtp rows (rgbench kmod --scenarios tramp)" ]] ||
	{ echo "FAIL unexpected stderr: $(cat "$T/err.txt")"; fail=1; }
# No staging left behind.
[[ $(ls -A "$T/all" | wc -l) == 16 ]] || { echo "FAIL extra files: $(ls -A "$T/all")"; fail=1; }

# -q keeps the 'wrote' lines on stderr; -qq and --silent drop them (the notes stay).
for q in -q -qq --silent; do
	"$R" plot "$FX/ab-base.json" --out "$T/q$q" --format png $q > "$T/out.txt" 2> "$T/err.txt" || { echo "FAIL $q: exit $?"; fail=1; }
	n=$(grep -c '^rgbench plot: wrote ' "$T/err.txt" || true)
	want=$(ls "$T/q$q" | wc -l)
	[[ $q != -q ]] && want=0
	[[ ! -s $T/out.txt && $n == "$want" && $(ls "$T/q$q" | wc -l) -gt 0 ]] && grep -q '^note: ' "$T/err.txt" ||
		{ echo "FAIL $q: $n wrote lines (want $want), stdout: $(head -c 200 "$T/out.txt")"; fail=1; }
done

# --format: PDF too (for papers and slides), in any order; an unknown or repeated format is a
# usage error (exit 2) that writes nothing.
"$R" plot "$FX/plot-a.json" --out "$T/pdf" --format pdf,png > /dev/null 2>&1 || { echo "FAIL --format pdf,png"; fail=1; }
[[ $(ls "$T/pdf" | sed 's/.*\.//' | sort -u | tr '\n' ' ') == "pdf png " ]] || { echo "FAIL --format: $(ls "$T/pdf")"; fail=1; }
[[ $(head -c 5 "$T/pdf/pair-ns.pdf") == "%PDF-" ]] || { echo "FAIL pair-ns.pdf is not a PDF"; fail=1; }
for bad in jpg png,png "" svg,; do
	rc=0; "$R" plot "$FX/plot-a.json" --out "$T/badfmt" --format "$bad" 2>"$T/err.txt" || rc=$?
	[[ $rc == 2 && ! -e $T/badfmt ]] && grep -q "^rgbench plot: --format: expected" "$T/err.txt" ||
		{ echo "FAIL --format '$bad': rc=$rc $(cat "$T/err.txt")"; fail=1; }
done

# Only pair and bpf rows: the other three kinds are skipped with a note each.
"$R" plot "$FX/ab-base.csv" --out "$T/some" > "$T/out.txt" 2> "$T/err.txt"
[[ $(ls "$T/some" | tr '\n' ' ') == "bpf.png bpf.svg pair-ns.png pair-ns.svg " ]] ||
	{ echo "FAIL some: $(ls "$T/some")"; fail=1; }
for k in threads duty latency-cdf kmod-ns fleet decision ladder tramp; do
	grep -q "^note: $k: skipped" "$T/err.txt" || { echo "FAIL no note for $k"; fail=1; }
done

# A directory holding two runs, each as .csv and .json: two sources, labelled by file.
mkdir "$T/runs"
cp "$FX"/ab-base.csv "$FX"/ab-base.json "$FX"/ab-new.csv "$FX"/ab-new.json "$T/runs/"
"$R" plot "$T/runs" --out "$T/runs-out" > /dev/null 2>&1 || { echo "FAIL plot of a directory"; fail=1; }
for s in ab-base ab-new; do
	grep -q "$s" "$T/runs-out/pair-ns.svg" || { echo "FAIL runs: no series $s"; fail=1; }
done
grep -q "#3\|runs/" "$T/runs-out/pair-ns.svg" && { echo "FAIL runs: a CSV twin became a series"; fail=1; }

# Failures write nothing: a bad file, no plottable rows, a broken python.
rc=0; "$R" plot "$FX/plot-a.json" /nonexistent.csv --out "$T/bad" 2>/dev/null || rc=$?
[[ $rc != 0 && ! -e $T/bad ]] || { echo "FAIL bad input: rc=$rc"; fail=1; }
sed 's/"status":"ok"/"status":"skipped"/g' "$FX/ab-base.json" > "$T/none.json"
rc=0; "$R" plot "$T/none.json" --out "$T/none" 2>"$T/err.txt" || rc=$?
[[ $rc != 0 && ! -e $T/none ]] && grep -q "no plottable rows" "$T/err.txt" ||
	{ echo "FAIL no rows: rc=$rc $(cat "$T/err.txt")"; fail=1; }
mkdir "$T/keep"
rc=0; RG_PYTHON=/bin/false "$R" plot "$FX/plot-a.json" --out "$T/keep" 2>/dev/null || rc=$?
[[ $rc != 0 && -z $(ls -A "$T/keep") ]] || { echo "FAIL broken python: rc=$rc $(ls -A "$T/keep")"; fail=1; }
rc=0; "$R" plot "$FX/plot-a.json" 2>/dev/null || rc=$?
[[ $rc == 2 ]] || { echo "FAIL missing --out: rc=$rc"; fail=1; }

# Issue 11 item 8: values the plots cannot draw and a python without matplotlib give one
# line and exit 1, never a traceback, and write nothing.
one_line() {	# WHAT RC PATTERN: the last command's exit and err.txt
	if [[ $2 != 1 || $(wc -l < "$T/err.txt") != 1 ]] || ! grep -Eqx "$3" "$T/err.txt"; then
		echo "FAIL $1: rc=$2 stderr: $(head -c 400 "$T/err.txt")"; fail=1
	fi
}
sed -E '0,/"ns_median":0\.(3|29999999999999999),/s//"ns_median":1e300,/' "$FX/plot-a.json" > "$T/huge.json"
rc=0; "$R" plot "$T/huge.json" --out "$T/huge" 2>"$T/err.txt" || rc=$?
one_line "huge value" $rc "rgbench plot: $T/huge.json:3: ns_median 1e\+300 is too large to draw \(over 1e\+15\)"
[[ ! -e $T/huge ]] || { echo "FAIL huge value: $T/huge written"; fail=1; }
printf '#!/bin/sh\nexec /usr/bin/python3 -S "$@"\n' > "$T/nompl"	# -S: no dist-packages
chmod +x "$T/nompl"
rc=0; RG_PYTHON=$T/nompl "$R" plot "$FX/plot-a.json" --out "$T/nompl-out" 2>"$T/err.txt" || rc=$?
one_line "no matplotlib" $rc "rgbench plot: $T/nompl cannot import matplotlib: install python3-matplotlib \(scripts/deps.sh does\) or point RG_PYTHON at a python3 that has it"
[[ ! -e $T/nompl-out ]] || { echo "FAIL no matplotlib: output written"; fail=1; }
# Whatever else fails while drawing is one line too (the script's own net, driven directly).
script=$(dirname "$R")/rgplot.py
# (A row without its host, which no document of rgbench plot lacks: the title cannot name it.)
row='"source":0,"label":"a","cpu_model":"m","suite":"user","scenario":"pair","threads":1,"duty_ns":0,"batch":1000,"status":"ok","ns_stddev":null,"mops_median":null,"mops_stddev":null'
{ echo '{"format":"rgbench-plot-1","guards":[],"heat":[],"decision":[],"rows":['
  echo "{$row,\"host\":\"h\",\"guard\":\"noop\",\"ns_median\":0.3,\"ns_min\":0.2,\"ns_max\":0.4},"
  echo "{$row,\"guard\":\"tls\",\"ns_median\":0.5,\"ns_min\":0.4,\"ns_max\":0.6}]}"; } > "$T/plot.json"
mkdir "$T/direct"
rc=0; /usr/bin/python3 "$script" --data "$T/plot.json" --out "$T/direct" 2>"$T/err.txt" || rc=$?
if [[ $rc != 5 || $(wc -l < "$T/err.txt") != 1 ]] || ! grep -q '^rgbench plot: cannot draw pair-ns: ' "$T/err.txt"; then
	echo "FAIL drawing error: rc=$rc stderr: $(head -c 400 "$T/err.txt")"; fail=1
fi

# Issue 11 item 3: a directory whose x.csv and x.json are from different runs is refused.
mkdir "$T/mism"; cp "$FX/ab-base.csv" "$T/mism/r.csv"; cp "$FX/ab-new.json" "$T/mism/r.json"
rc=0; "$R" plot "$T/mism" --out "$T/mism-out" 2>"$T/err.txt" || rc=$?
one_line "mismatched pair" $rc "rgbench plot: $T/mism/r.csv: not from the same run as $T/mism/r.json .*"

# Issue 36 item 4, for plot: an existing --out DIR replaced by a symbolic link while the script
# draws. The pictures go into the folder that was checked, never through the link.
mkdir -p "$T/swap/out" "$T/elsewhere"
cat > "$T/swap.py" <<PY
import os, sys
a = dict(zip(sys.argv[1::2], sys.argv[2::2]))
open(a["--out"] + "/pair-ns.svg", "w").write("<svg/>")
os.rename("$T/swap/out", "$T/swap/moved")	# the folder checked, under another name
os.symlink("$T/elsewhere", "$T/swap/out")	# and a link where it was
PY
rc=0; RG_PLOT_SCRIPT=$T/swap.py "$R" plot "$FX/ab-base.json" --out "$T/swap/out" >/dev/null 2>"$T/err.txt" || rc=$?
if [[ $rc != 0 || -e $T/elsewhere/pair-ns.svg || ! -f $T/swap/moved/pair-ns.svg ]]; then
	echo "FAIL folder swapped for a link: rc=$rc, through the link: $(ls "$T/elsewhere"), in the folder checked: $(ls "$T/swap/moved") $(cat "$T/err.txt")"; fail=1
fi

[[ $fail == 0 ]] && echo "plot: all passed"
exit $fail
