#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Output bytes of `report`, `compare`, `plot` and `check` over a fixed set of inputs (the
# fixtures of mkfixtures.c and tests/analysis/fleet/), against tests/analysis/outputs/: a change of
# where the code lives (issue 30) or of how it reads must not change one byte. Each case is
# one file: the command, its exit status, stdout, stderr and any file it wrote. `plot` is run
# with a stand-in for rgplot.py that keeps the one JSON document rgbench hands it (guards.def
# list, rows with their latency, heat map, decision); the pictures the real script draws from them (the
# list of files, the "wrote" lines) are plots.plot's (plot.sh), which draws the same two
# fixtures: 14 s not spent twice.
# A change that means to change an output: RG_UPDATE_GOLDEN=1 rewrites the expected files;
# review the diff before committing it. These are the one set of expected outputs of these
# commands (compare's forms were checked by hand when they were written). What no rewrite may
# accept is checked beside them: the cases run with ok_ exit 0 with nothing on stderr, every
# commit-log form fits a commit message (72 columns), and usage errors print nothing on stdout.
# With RGBENCH (the full command), a module file converted from tests/kmod/data's guest CSV
# goes through `compare --across-suites` and `report` too. The conversion stamps the machine
# it runs on into the rows: it runs under the fixed identity IDENTITY (RG_ENV_FILE, arch/env.c),
# so no expected output carries the machine running the test; ctest runs this script under
# two other ambient identities (tests/identity/a.env, b.env) to prove nothing else leaks in.
# usage: outputs.sh RGBENCH-REPORT FIXTURES FLEET-DIR EXPECTED-DIR [RGBENCH KMOD-RAW-CSV IDENTITY]
set -euo pipefail
R=$1 FX=$2 FLEET=$3 GOLD=$4 RGBENCH=${5:-} KRAW=${6:-} IDENTITY=${7:-}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# Relative names everywhere: the outputs name their inputs.
cp "$FX"/*.json "$FX"/*.csv "$T/"
cp -r "$FLEET" "$T/fleet"
rm -f "$T"/fleet/*.md "$T"/fleet/*.sh "$T"/fleet/*.py
mkdir "$T/dir-base" "$T/dir-new"
cp "$FX"/ab-base.csv "$FX"/ab-base.json "$T/dir-base/"
cp "$FX"/ab-new.csv "$FX"/ab-new.json "$T/dir-new/"
cd "$T"
# The rows carry the version of the build that wrote them, and compare's identification lines
# show it (wrapped at the width): one fixed version in the copies keeps the bytes the same
# from one commit to the next. Each file's own version is read (JSON: the document's
# rgbench_version; CSV: the column of that name in the first row), whatever build wrote it.
fixversion() { python3 -c 'import csv, json, sys
for p in sys.argv[1:]:
    t = open(p, encoding="utf-8").read()
    if p.endswith(".json"):
        v = json.loads(t)["rgbench_version"]
    else:
        v = next(csv.DictReader(t.splitlines()))["rgbench_version"]
    open(p, "w", encoding="utf-8").write(t.replace(v, "0.0.0-test"))' "$@"; }
fixversion ./*.json ./*.csv dir-*/*
export LC_ALL=C COLUMNS=80
unset RG_PLOT_SCRIPT RG_PYTHON RGBENCH_PLOT_SCRIPT RGBENCH_PYTHON
# The stand-in for rgplot.py: records the one document it is given into --out, as a picture
# (plot publishes only *.png and *.svg), one guard, row or cell a line so a change reads.
cat > fake_plot.py <<'PY'
import json, sys
a = dict(zip(sys.argv[1::2], sys.argv[2::2]))
assert sorted(a) == ["--data", "--formats", "--out"], sorted(a)
doc = json.load(open(a["--data"], encoding="utf-8"))
with open(a["--out"] + "/given-data.json.svg", "w", encoding="utf-8") as f:
    f.write("format " + json.dumps(doc.pop("format")) + "\n")
    for k in ("guards", "rows", "heat", "decision"):
        f.write(f"{k} {len(doc[k])}\n")
        for x in doc.pop(k):
            f.write(json.dumps(x, ensure_ascii=False) + "\n")
    assert not doc, sorted(doc)
PY
fail=0
n=0

# case NAME CMD...: run CMD, record everything in NAME; files under out/ are appended.
# Its exit status is left in last_rc, its stderr in stderr.txt.
last_rc=0
case_() {
	local name=$1 rc=0 got
	shift
	n=$((n + 1))
	rm -rf out && mkdir out
	got=$T/got-$name
	"$@" > stdout.txt 2> stderr.txt || rc=$?
	last_rc=$rc
	{
		printf '$'; printf ' %s' "${@/#$R/rgbench-report}"; printf '\nexit %d\n' "$rc"
		echo "--- stdout"; cat stdout.txt
		echo "--- stderr"; cat stderr.txt
		for f in $(cd out && find . -type f | LC_ALL=C sort); do
			echo "--- file $f"
			case $f in */given-*) cat "out/$f";; *.png|*.svg) echo "(picture: $(wc -c < "out/$f" | tr -d ' ' | sed 's/.*/drawn/'))";; *) cat "out/$f";; esac
		done
	} | sed 's/[0-9]\{8\}T[0-9]\{6\}Z-[0-9a-f]\{16\}/RUN-ID/g' > "$got"	# mkfixtures draws run ids
	if [[ ${RG_UPDATE_GOLDEN:-0} == 1 ]]; then
		cp "$got" "$GOLD/$name"
	elif ! diff -u "$GOLD/$name" "$got"; then
		echo "FAIL $name: differs from $GOLD/$name"
		fail=1
	fi
}

# ok_ NAME CMD...: case_, and CMD must succeed with nothing on stderr (also when rewriting).
ok_() {
	case_ "$@"
	if [[ $last_rc != 0 || -s stderr.txt ]]; then
		echo "FAIL $1: exit $last_rc, stderr: $(head -c 400 stderr.txt)"
		fail=1
	fi
}

# report: one host, two hosts, roles on two architectures, across hosts, width, noisy, units, the fleet, --out.
case_ report-one "$R" report plot-a.json
case_ report-two "$R" report plot-a.json plot-b.json
case_ report-roles "$R" report report-arm.json report-x86.json
case_ report-across "$R" report --across-hosts report-arm.json report-x86.json
case_ report-width "$R" report --width 72 report-arm.json
case_ report-noisy "$R" report --include-noisy report-arm.json
case_ report-cycles "$R" report --unit cycles cyc-base.json
case_ report-fleet "$R" report fleet
case_ report-fleet-emulated "$R" report --allow-emulated fleet
case_ report-dirs "$R" report dir-base dir-new
case_ report-csv "$R" report ab-base.csv
case_ report-out "$R" report ab-base.json --out out/page.md
case_ report-out-silent "$R" report -qq ab-base.json --out out/page.md
case_ report-missing "$R" report nosuch.json
# compare: every form.
ok_ compare-text "$R" compare ab-base.json ab-new.json
ok_ compare-markdown "$R" compare --markdown ab-base.json ab-new.json
ok_ compare-commit-log "$R" compare --commit-log ab-base.json ab-new.json
ok_ compare-all "$R" compare --all ab-base.json ab-new.json
ok_ compare-all-log "$R" compare --all --commit-log ab-base.json ab-new.json
ok_ compare-fleet-log "$R" compare --commit-log fleet/vm-x86.json fleet/xeon.json
ok_ compare-fleet-baseline-log "$R" compare --commit-log --baseline pcpu-xadd fleet/vm-x86.json
ok_ compare-width "$R" compare --width 60 fleet/vm-x86.json fleet/xeon.json
ok_ compare-csv "$R" compare --csv ab-base.json ab-new.json
ok_ compare-csv-input "$R" compare ab-base.csv ab-new.csv
ok_ compare-dirs "$R" compare dir-base dir-new
case_ compare-plot "$R" compare plot-a.json plot-b.json
ok_ compare-across "$R" compare --across-hosts ab-base.json hostb.json
case_ compare-across-md "$R" compare --markdown --across-hosts report-arm.json report-x86.json
ok_ compare-across-log "$R" compare --commit-log --across-hosts ab-base.json hostb.json
case_ compare-across-suites-usage "$R" compare --across-suites plot-a.json
ok_ compare-baseline "$R" compare --baseline tls ab-base.json
case_ compare-baseline-md "$R" compare --markdown --baseline noop report-arm.json
ok_ compare-baseline-log "$R" compare --commit-log --baseline tls ab-base.json
case_ compare-baseline-csv "$R" compare --csv --baseline tls ab-base.json
case_ compare-cycles "$R" compare --unit cycles cyc-base.json cyc-new.json
case_ compare-fleet-emulated "$R" compare --across-hosts fleet
case_ compare-fleet "$R" compare --allow-emulated --across-hosts fleet
case_ compare-fleet-csv "$R" compare --allow-emulated --csv --across-hosts fleet
case_ compare-fleet-width "$R" compare --allow-emulated --across-hosts --width 100 fleet
case_ compare-usage "$R" compare ab-base.json
# compare's row selection on every form: lists, a pattern, a selection that keeps nothing.
case_ compare-select-log "$R" compare --commit-log --guards tls,pcpu-stadd ab-base.json ab-new.json
case_ compare-select-rows "$R" compare --rows 'bpf/*' --csv ab-base.json ab-new.json
case_ compare-select-baseline "$R" compare --baseline tls --scenarios pair --guards pcpu-ldadd ab-base.json
case_ compare-select-fleet "$R" compare --allow-emulated --across-hosts --roles merged-rctx,this-cpu-6.18 fleet
case_ compare-select-none "$R" compare --guards nosuch ab-base.json ab-new.json
case_ compare-select-empty "$R" compare --roles '' ab-base.json ab-new.json
if [[ -n $RGBENCH ]] && RG_ENV_FILE=$IDENTITY "$RGBENCH" kmod --from-raw "$KRAW" --out kmod.csv --json kmod.json > /dev/null &&
   fixversion kmod.json; then
	for form in "" --markdown --csv --commit-log; do
		case_ "compare-across-suites${form:+-}${form#--}" "$R" compare $form --across-suites ab-base.json kmod.json
	done
	# Its text fits --width as the default text does (one record a guard when the table is
	# wider: issue 39), the guard names whole; a width the table fits keeps the table.
	for w in "" 60 100 400; do
		"$R" compare ${w:+--width $w} --across-suites ab-base.json kmod.json > fit.txt 2>/dev/null ||
			{ echo "FAIL compare ${w:+--width $w} --across-suites: exit $?"; fail=1; }
		python3 - fit.txt "${w:-72}" <<'PY' || fail=1
import sys
text = open(sys.argv[1], encoding="utf-8").read()
lines, w = text.splitlines(), int(sys.argv[2])
wide = [l for l in lines if len(l) > w]
assert lines and not wide and "~" not in text, f"--across-suites --width {w}: {wide[:3]}"
heads = [l.split()[0] for l in lines if l and not l[0].isspace() and ":" not in l.split()[0]]
assert all(g in heads for g in ("noop", "pcpu-lock-xadd", "pcpu-lock-inc", "rctx-kernel")), heads
table = any(l.startswith("guard ") and "kmod/user" in l for l in lines)
assert table == (w == 400), f"--across-suites --width {w}: one-line table {table}"
PY
	done
else
	echo "skipped compare --across-suites: no rgbench kmod --from-raw to convert a module CSV"
fi
# The commit-log form fits a commit message: at most 72 columns, for two runs, two hosts, a
# baseline, and the plot fixtures (every kind of row), by default and with --all.
for args in "ab-base.json ab-new.json" "--across-hosts ab-base.json hostb.json" \
	    "--baseline tls ab-base.json" "plot-a.json plot-b.json" "--all plot-a.json plot-b.json" \
	    "--all --baseline pcpu-xadd fleet/vm-x86.json"; do
	# shellcheck disable=SC2086
	w=$("$R" compare --commit-log $args |
	    python3 -c 'import sys; print(max(map(len, sys.stdin.buffer.read().decode().splitlines())))')
	if (( w > 72 )); then echo "FAIL commit-log $args: $w columns"; fail=1; fi
done
# A commit-log table of two default runs (the fleet's two real runs of this VM) fits a commit
# message as it is: at most 72 columns and 20 lines, its decision rows alone (the kernel
# designs' one-thread pair rows), the rows measured on neither side (the arm64-only guards the
# x86-64 file skipped, read from its JSON) counted in one line. The text form names each of
# them once in its folded line.
"$R" compare --commit-log fleet/vm-x86.json fleet/xeon.json > log.txt
"$R" compare fleet/vm-x86.json fleet/xeon.json > text.txt
python3 - fleet/vm-x86.json log.txt text.txt <<'PY' || fail=1
import json, sys
rows = json.load(open(sys.argv[1], encoding="utf-8"))["results"]
lines = open(sys.argv[2], encoding="utf-8").read().splitlines()
skipped = [r["guard"] for r in rows if r["status"] == "skipped" and r["reason"] == "arm64 only"]
assert len(lines) <= 20 and max(map(len, lines)) <= 72, (len(lines), max(map(len, lines)))
assert sum(l.startswith("%d rows with nothing measured to compare" % len(skipped)) for l in lines) == 1, lines
table = [l for l in lines if "->" in l][1:]
assert table and all(l.split()[0].endswith("/pair") for l in table), table
assert not any(l.split("/")[0] in skipped for l in table), table
text = open(sys.argv[3], encoding="utf-8").read().splitlines()
head = [i for i, l in enumerate(text) if l.startswith("Skipped on both sides (arm64 only), %d rows:" % len(skipped))]
assert len(head) == 1, text
fold, i = text[head[0]], head[0] + 1
while i < len(text) and text[i].startswith("  "):
    fold += text[i]
    i += 1
named = fold.split(":", 1)[1].replace(" ", "").rstrip(".").split(",")
assert sorted(named) == sorted(set(skipped)) and len(skipped) >= 10, (named, skipped)
PY
# Names are never cut (issue 39): with --all at --width 72 (and 60) every line's name stands
# whole (pcpu-lock-xadd/falseshare-packed t2 on a line of its own above its figures), and host
# names too long for the commit log's narrow columns give way to base/new: no '~' anywhere.
python3 - hostb.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
long = "build-server-with-a-long-name.example.org"
d["machine"]["host"] = long
for r in d["results"]:
    r["host"] = long
json.dump(d, open("hostlong.json", "w", encoding="utf-8"))
PY
for args in "--width 72 ab-base.json ab-new.json" "--width 60 ab-base.json ab-new.json" \
	    "--baseline pcpu-lock-xadd ab-base.json" "--across-hosts ab-base.json hostlong.json"; do
	# shellcheck disable=SC2086
	"$R" compare --commit-log --all $args > names.txt 2>/dev/null || { echo "FAIL --commit-log --all $args: exit $?"; fail=1; }
	python3 - names.txt "$args" <<'PY' || fail=1
import sys
text = open(sys.argv[1], encoding="utf-8").read()
lines, args = text.splitlines(), sys.argv[2]
w = 60 if "--width 60" in args else 72
assert "~" not in text, f"{args}: a '~' in\n{text}"
assert all(len(l) <= w for l in lines), f"{args}: lines wider than {w}: {[l for l in lines if len(l) > w]}"
names = [l.split("  ")[0] for l in lines if l and not l.startswith(" ")]
if "--across-hosts" in args:
    assert any(l.startswith("guard/scenario") and "base ->" in l and l.split()[3] == "new" for l in lines), text
    assert "pcpu-ldadd/pair" in names, text
elif "--baseline" in args:
    assert "noop/pair" in names and "global-atomic/pair" in names, text
else:
    for n in ("pcpu-lock-xadd/falseshare-packed t2", "pcpu-lock-xadd/falseshare-padded t2",
              "global-atomic/pair", "pcpu-stadd/pair", "raw_tp/driver"):
        assert n in names, f"{args}: {n} not whole on a line of its own or the table's:\n{text}"
PY
done
# --width: an identification line longer than the width wraps at spaces, every line within it,
# the kernel release whole on one line (never cut with '~').
"$R" compare --width 60 fleet/vm-x86.json fleet/xeon.json > wide.txt
python3 - wide.txt <<'PY' || fail=1
import sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
top = lines[:lines.index("")]
assert len(top) > 2 and all(len(l) <= 60 for l in top) and "~" not in "".join(top), top
base = top[:[i for i, l in enumerate(top) if l.startswith("new:")][0]]
assert len(base) >= 2 and "6.18.44-fixture-v1045," in " ".join(base).split(), base
PY
# The default shows the lines that decide; --all shows every one (more table rows).
# (A record per row when the table is wider than --width: its name "suite/guard/...".)
nd=$("$R" compare ab-base.json ab-new.json | grep -cE '^(user|bpf|kmod)/' || true)
na=$("$R" compare --all ab-base.json ab-new.json | grep -cE '^(user|bpf|kmod)/' || true)
if ! (( nd >= 1 && na > nd )); then echo "FAIL --all: $na table rows, default $nd"; fail=1; fi
# The text form fits its width (default 72, --width N): every line of two fixture runs'
# compare, by default, with --all and with --baseline, within it (issue 39: it was 229 wide);
# a width the whole table fits keeps the one-line table.
for w in "" 60 100 400; do
	for args in "ab-base.json ab-new.json" "--all ab-base.json ab-new.json" \
		    "--all --baseline noop ab-new.json" "--all fleet/vm-x86.json fleet/xeon.json"; do
		# shellcheck disable=SC2086
		"$R" compare ${w:+--width $w} $args > fit.txt 2>/dev/null || { echo "FAIL compare ${w:+--width $w} $args: exit $?"; fail=1; }
		python3 - fit.txt "${w:-72}" "$args" <<'PY' || fail=1
import sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
w = int(sys.argv[2])
wide = [l for l in lines if len(l) > w]
assert lines and not wide, f"compare --width {w} {sys.argv[3]}: {len(wide)} lines wider: {wide[:3]}"
if w == 400:
    assert any(l.startswith("suite  guard") for l in lines), f"--width 400 {sys.argv[3]}: no one-line table"
PY
	done
done
# Usage errors: non-zero, nothing on stdout (their messages: compare-usage, ...-suites-usage).
for args in "" "ab-base.json" "--baseline tls ab-base.json ab-new.json" \
	    "--markdown --csv ab-base.json ab-new.json" "--baseline nosuch ab-base.json"; do
	rc=0
	# shellcheck disable=SC2086
	out=$("$R" compare $args 2>/dev/null) || rc=$?
	if [[ $rc == 0 || -n $out ]]; then echo "FAIL usage '$args': rc=$rc out=$out"; fail=1; fi
done
# plot: what rgbench hands the drawing script, and its lines.
export RG_PLOT_SCRIPT=$T/fake_plot.py
case_ plot-data "$R" plot plot-a.json plot-b.json --out out/p
case_ plot-data-some "$R" plot ab-base.csv --out out/p
case_ plot-data-dir "$R" plot dir-base --out out/p
case_ plot-data-fleet "$R" plot fleet --out out/p
unset RG_PLOT_SCRIPT
# check: the standalone reader.
case_ check "$R" check ab-base.json ab-new.csv plot-a.json report-x86.json
case_ check-fleet "$R" check fleet
case_ check-fleet-one "$R" check fleet/xeon.json fleet/ampere.json

[[ $fail == 0 ]] && echo "outputs: $n cases, all the same"
exit $fail
