#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every malformed-input case through the command line: one "rgbench compare: FILE:LINE: problem"
# line (or "rgbench plot: ...") on stderr, non-zero exit, nothing on stdout, and `plot` leaves no directory or file behind.
set -euo pipefail
R=$1 FX=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T"
fail=0
good=$FX/ab-new.json
csv=$FX/ab-base.csv
json=$FX/ab-base.json

# expect FILE PATTERN: PATTERN is an extended regex for the whole stderr line.
expect() {	# FILE PATTERN [noplot]
	local f=$1 pat=$2 rc=0 out nerr
	out=$("$R" compare "$f" "$good" 2>err.txt) || rc=$?
	nerr=$(wc -l < err.txt)
	if [[ $rc == 0 || -n $out || $nerr != 1 ]] || ! grep -Eq "^rgbench compare: $pat\$" err.txt; then
		echo "FAIL compare $f: rc=$rc lines=$nerr stderr: $(head -c 300 err.txt)"; fail=1
	fi
	# The same file on the NEW side is refused the same way.
	rc=0; out=$("$R" compare "$good" "$f" 2>err.txt) || rc=$?
	if [[ $rc == 0 || -n $out ]] || ! grep -Eq "^rgbench compare: $pat\$" err.txt; then
		echo "FAIL compare (new side) $f: rc=$rc stderr: $(head -c 300 err.txt)"; fail=1
	fi
	[[ ${3:-} == noplot ]] && return
	rc=0; out=$("$R" plot "$good" "$f" --out plotdir 2>err.txt) || rc=$?
	if [[ $rc == 0 || -e plotdir ]] || ! grep -Eq "^rgbench plot: $pat\$" err.txt; then
		echo "FAIL plot $f: rc=$rc plotdir exists: $([[ -e plotdir ]] && echo yes || echo no)"; fail=1
		rm -rf plotdir
	fi
}

: > empty.csv
expect empty.csv 'empty.csv:1: empty file'
printf '\n \n' > blank.json
expect blank.json 'blank.json:1: empty file'

# Truncated mid-row (no line end), and a row cut short with its line end.
head -c $(( $(head -n 3 "$csv" | wc -c) - 25 )) "$csv" > trunc.csv
expect trunc.csv 'trunc.csv:3: last line has no line end \(truncated file\?\)'
{ head -n 2 "$csv"; sed -n 3p "$csv" | cut -d, -f1-20; } > short.csv
expect short.csv "short.csv:3: row has 20 fields, the header has $(head -n1 "$csv" | awk -F, '{print NF}') \\(truncated row\\?\\)"
head -c 700 "$json" > trunc.json
expect trunc.json 'trunc.json:[0-9]+: invalid JSON: .*'

# Wrong delimiter.
tr ',' ';' < "$csv" > semi.csv
expect semi.csv "semi.csv:1: header is not comma-separated \\(found ';' as delimiter\\)"
tr ',' '\t' < "$csv" > tab.csv
expect tab.csv "tab.csv:1: header is not comma-separated \\(found '\\\\t' as delimiter\\)"

# Non-numeric, negative, NaN, inf values (line 4: the third data row).
col() { # FILE COLUMN VALUE: set COLUMN of the third data row
	awk -F, -v OFS=, -v c="$2" -v v="$3" 'NR==1{for(i=1;i<=NF;i++) if($i==c) k=i} NR==4{$k=v} {print}' "$csv" > "$1"
}
col nonnum.csv threads four
expect nonnum.csv "nonnum.csv:4: column 'threads': 'four' is not an integer"
col neg.csv ns_median -3.5
expect neg.csv "neg.csv:4: column 'ns_median': negative value -3.5"
col nan.csv ns_median NaN
expect nan.csv "nan.csv:4: column 'ns_median': 'NaN' is not a number \\(schema version 6 writes a missing number as an empty field\\)"
col inf.csv ns_mean inf
expect inf.csv "inf.csv:4: column 'ns_mean': 'inf' is not a number \\(schema version 6 writes a missing number as an empty field\\)"
# Schema 6 writes a missing number as an empty field: the word n/a (versions 1-5) is not one there.
col na.csv ns_median n/a
expect na.csv "na.csv:4: column 'ns_median': 'n/a' is not a number \\(schema version 6 writes a missing number as an empty field\\)"
# (the fixture's median of its samples is the double next to 0.3: the JSON keeps every digit)
sed -E 's/"ns_median":0\.(3|29999999999999999),/"ns_median":-0.3,/' "$json" > neg.json
expect neg.json "neg.json:3: column 'ns_median': negative value -0.3"
sed -E 's/"ns_median":0\.(3|29999999999999999),/"ns_median":NaN,/' "$json" > nan.json
expect nan.json 'nan.json:3: invalid JSON: .*'
sed 's/"threads":1,"batch":1000,"duty_ns":0,"duty_in_ns":null,"repetitions":5,"runs":1,"unit":"ns\/pair","ns_median":50/"threads":"1","batch":1000,"duty_ns":0,"duty_in_ns":null,"repetitions":5,"runs":1,"unit":"ns\/pair","ns_median":50/' "$json" > str.json
expect str.json "str.json:5: 'threads' is not an integer"

# Duplicate keys: a repeated row, a repeated JSON key, a repeated CSV column.
{ cat "$csv"; sed -n 2p "$csv"; } > duprow.csv
expect duprow.csv "duprow.csv:$(( $(wc -l < "$csv") + 1 )): duplicate row user/noop/pair threads=1 duty_ns=0 batch=1000 \\(first at line 2\\)"
sed '3s/"guard":"noop",/"guard":"noop","guard":"tls",/' "$json" > dupkey.json
expect dupkey.json 'dupkey.json:3: invalid JSON: duplicate object key near .*'
sed '1s/^schema_version,/schema_version,suite,/; 2,$s/^2,/2,user,/' "$csv" > dupcol.csv
expect dupcol.csv "dupcol.csv:1: column 'suite' appears twice in the header"
sed '1s/,cpus,/,/' "$csv" > nocol.csv
expect nocol.csv "nocol.csv:1: required column 'cpus' is missing from the header"

# Unknown schema versions.
sed '1s/"schema_version":6,/"schema_version":7,/' "$json" > v7.json
expect v7.json 'v7.json:1: schema version 7 is not supported \(this rgbench reads versions 1 to 6\)'
col v7.csv schema_version 7
expect v7.csv 'v7.csv:4: schema version 7 is not supported \(this rgbench reads versions 1 to 6\)'

# Version 1 has no `events` column, version 2 requires it; versions 3, 4 and 5 add more.
V3COLS=" run_id virt role baseline interleave delta_ns delta_ci_lo delta_ci_hi cpu_ns_median wall_ns_median discarded lat_p50_ns lat_p90_ns lat_p99_ns lat_p999_ns lat_max_ns "
V4COLS=" duty_in_ns delta_ci_level ref_ns_per_cycle ref_cv ref_cycles_per_pair "
V5COLS=" runs aa_floor_ns layout pmu_table prog_runs "
V6COLS=" unit cpus_why ab_label ab_boot "
col v1row.csv schema_version 1
expect v1row.csv "v1row.csv:4: column 'run_id' is not in schema version 1"
drop_cols() { # IN OUT VERSION DROP: the file without the columns in DROP (" a b "), rows set to VERSION
	# (before version 6 a missing number is n/a, not an empty field)
	awk -F, -v OFS=, -v ver="$3" -v drop="$4" 'NR==1{for(i=1;i<=NF;i++) if(index(drop, " " $i " ")) k[i]=1}
		{s=""; n=0; for(i=1;i<=NF;i++) if(!(i in k)) {s=s (n++?OFS:"") (NR>1&&i==1?ver:NR>1&&ver<6&&$i==""?"n/a":$i)}; print s}' "$1" > "$2"
}
drop_cols "$csv" noev.csv 2 " events$V3COLS$V4COLS$V5COLS$V6COLS"
expect noev.csv "noev.csv:2: required column 'events' is missing from the header \\(schema version 2\\)"
drop_cols "$csv" nov3.csv 3 "$V3COLS$V4COLS$V5COLS$V6COLS"
expect nov3.csv "nov3.csv:2: required column 'run_id' is missing from the header \\(schema version 3\\)"
drop_cols "$csv" nov4.csv 4 "$V4COLS$V5COLS$V6COLS"
expect nov4.csv "nov4.csv:2: required column 'duty_in_ns' is missing from the header \\(schema version 4\\)"
drop_cols "$csv" nov5.csv 5 "$V5COLS$V6COLS"
expect nov5.csv "nov5.csv:2: required column 'runs' is missing from the header \\(schema version 5\\)"
drop_cols "$csv" nov6.csv 6 "$V6COLS"
expect nov6.csv "nov6.csv:2: required column 'ab_label' is missing from the header \\(schema version 6\\)"
# A version 5 file writes a missing number as n/a: an empty field there is not a number.
drop_cols "$csv" v5empty.csv 5 "$V6COLS"
awk -F, -v OFS=, 'NR==1{for(i=1;i<=NF;i++) if($i=="ns_median") k=i} NR==4{$k=""} {print}' v5empty.csv > v5e.csv
expect v5e.csv "v5e.csv:4: column 'ns_median': '' is not a number or n/a"
sed '1s/"schema_version":6,/"schema_version":1,/' "$json" > v1ev.json
expect v1ev.json "v1ev.json:3: results\\[0\\]: field 'run_id' is not in schema version 1"
# ... and real version 1 to 5 files (the same rows without the newer columns, n/a for a missing number) are read beside a version 6 one.
# older VERSION: the rows without the columns NEWER added after it, whose header still holds WANT
older_read() {
	local version=$1 newer=$2 want=$3
	drop_cols "$csv" "v$version.csv" "$version" "$newer"
	if ! head -n1 "v$version.csv" | grep -q "$want" ||
	   ! out=$("$R" compare "v$version.csv" "$good" 2>err.txt) || [[ -s err.txt || -z $out ]]; then
		echo "FAIL version $version file refused: $(head -c 300 err.txt)"; fail=1
	fi
}
older_read 1 " events$V3COLS$V4COLS$V5COLS$V6COLS" ',instructions_per_pair,counters,'
older_read 2 "$V3COLS$V4COLS$V5COLS$V6COLS" ',instructions_per_pair,events,counters,'
older_read 3 "$V4COLS$V5COLS$V6COLS" ',duty_ns,repetitions,'
older_read 4 "$V5COLS$V6COLS" ',duty_in_ns,repetitions,ns_median,'
older_read 5 "$V6COLS" ',repetitions,runs,ns_median,'
grep -q ',n/a,' v5.csv || { echo "FAIL the version 5 file holds no n/a"; fail=1; }

# Too big (sparse, never read), binary junk, bad UTF-8.
truncate -s 100M big.csv
expect big.csv 'big.csv:1: file is 104857600 bytes, over the 64 MiB limit'
printf 'schema_version,suite\n\x7fELF\x02\x01\x01\x00\x00\x00' > junk.csv
expect junk.csv 'junk.csv:2: binary data \(byte 0x7f at offset 21\), not a result file'
printf '{"schema_version":1,"results":[]}\n\xc0\xaf\n' > utf8.json
expect utf8.json 'utf8.json:2: binary data \(invalid UTF-8 byte 0xc0 at offset 34\)'

# Missing files and directories.
expect nosuch.csv 'nosuch.csv: cannot open: No such file or directory'
mkdir emptydir
expect emptydir 'emptydir: no .csv or .json result files in this directory'
mkdir baddir; cp "$json" baddir/a.json; cp neg.json baddir/b.json
expect baddir "baddir/b.json:3: column 'ns_median': negative value -0.3"
# Two runs in the directory of one compare side (plot takes each run as a source).
mkdir dupdir; cp "$json" dupdir/run1.json; cp "$json" dupdir/run2.json
expect dupdir 'dupdir/run2.json:3: duplicate row user/noop/pair threads=1 duty_ns=0 batch=1000 \(also in dupdir/run1.json:3; one side holds one run\)' noplot

# Issue 11 item 12: no rows, and control characters in a name.
head -n 1 "$csv" > hdr.csv
expect hdr.csv 'hdr.csv:1: no rows \(a header and nothing else\)'
printf '{"schema_version":3,"run_id":"r","results":[]}\n' > norows.json
expect norows.json "norows.json:1: no rows \\('results' is empty\\)"
col ctl.csv guard '"tl\ns"'
expect ctl.csv "ctl.csv:4: column 'guard': 'tl\\?s' holds a control character \\(names and texts are one printable line\\)"
sed 's/"guard":"tls"/"guard":"t\\u001bls"/' "$json" > ctl.json
expect ctl.json "ctl.json:[0-9]+: column 'guard': 't\\?ls' holds a control character .*"

# Issue 11 item 3: a directory's x.csv and x.json from different runs are refused.
mkdir mism; cp "$csv" mism/r.csv; cp "$good" mism/r.json
expect mism "mism/r.csv: not from the same run as mism/r.json \\(run_id '[^']+' and '[^']+': a run stopped between writing the two, or two runs wrote these names\\); remove or rename one"

# Issue 11 item 10: a FIFO (or a device) is refused without blocking on it.
mkfifo fifo
fifo_ok=1
for cmd in "compare fifo $good" "compare $good fifo" "plot fifo --out fifoplot"; do
	rc=0; timeout 20 "$R" $cmd > /dev/null 2> err.txt || rc=$?
	if [[ $rc != 1 ]] || ! grep -qx "rgbench ${cmd%% *}: fifo: not a regular file or directory (a FIFO)" err.txt; then
		echo "FAIL $cmd: rc=$rc (124: it blocked) $(head -c 300 err.txt)"; fail=1; fifo_ok=0
	fi
done
[[ $fifo_ok == 1 ]] && expect fifo 'fifo: not a regular file or directory \(a FIFO\)'
expect /dev/null '/dev/null: not a regular file or directory \(a character device\)'

[[ $fail == 0 ]] && echo "malformed: all passed"
exit $fail
