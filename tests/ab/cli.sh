#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ab.cli: rgbench ab without a guest: argument errors (one line, exit 2, the exact words), the order of the boots (--plan), the output policy, and the tables from the fixture boots in tests/ab/data (every timing marked emulated, no change called; with KVM the change is called).
# Usage: cli.sh SRC_DIR RGBENCH
set -uo pipefail
src=$1 R=$2
data=$src/tests/ab/data
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# expect_err RC LINE ARGS...: exit RC, stderr exactly LINE (one line), nothing on stdout.
expect_err() {
	local want_rc=$1 want=$2 rc got
	shift 2
	(cd "$T" && "$R" ab "$@") >"$T/out" 2>"$T/err"
	rc=$?
	got=$(cat "$T/err")
	if [[ $rc == "$want_rc" && $got == "$want" && ! -s $T/out ]]; then ok "ab $*: exit $rc, one line"
	else fail "ab $*: exit $rc (want $want_rc), stderr '$got' (want '$want'), stdout $(wc -c <"$T/out") bytes"; fi
}
H="(see rgbench ab --help)"
expect_err 2 "rgbench ab: two or more --kernel LABEL=SPEC are needed (got 0) $H"
expect_err 2 "rgbench ab: two or more --kernel LABEL=SPEC are needed (got 1) $H" --kernel a=6.1.0-57
expect_err 2 "rgbench ab: --kernel: label 'a' given twice $H" --kernel a=6.1.0-57 --kernel a=6.1.0-58
expect_err 2 "rgbench ab: --kernel: '6.1.0-57' is not LABEL=SPEC $H" --kernel 6.1.0-57
expect_err 2 "rgbench ab: --kernel b: '/no/such/bzImage' is neither a file nor a Debian kernel version (e.g. 6.1.0-57) $H" \
	--kernel a=6.1.0-57 --kernel b=/no/such/bzImage
expect_err 2 "rgbench ab: --kernel b: '/' is not a regular file (a kernel image) $H" --kernel a=6.1.0-57 --kernel b=/
expect_err 2 "rgbench ab: --kernel: label 'a b' is not 1 to 32 of A-Z a-z 0-9 . _ - (a letter or digit first) $H" \
	--kernel 'a b=6.1.0-57'
expect_err 2 "rgbench ab: --kernel a=: no kernel given $H" --kernel a=
expect_err 2 "rgbench ab: --rounds: '0' is not a whole number from 1 to 100 $H" --rounds 0
expect_err 2 "rgbench ab: --rounds: 'x' is not a whole number from 1 to 100 $H" --rounds=x
expect_err 2 "rgbench ab: --vcpus: '65' is not a whole number from 1 to 64 $H" --vcpus 65
expect_err 2 "rgbench ab: --memory: '100' is not a whole number from 256 to 65536 $H" --memory 100
expect_err 2 "rgbench ab: --timeout: '5' is not a whole number from 60 to 86400 $H" --timeout 5
expect_err 2 "rgbench ab: --arch: 'riscv64' is not amd64 or arm64 $H" --arch riscv64
expect_err 2 "rgbench ab: --shuffle: '-1' is not a whole number from 0 to 4294967295 $H" --shuffle -1
expect_err 2 "rgbench ab: --pin: '0-' is not a CPU list (e.g. 0-3 or 2,4,6) $H" --pin 0-
expect_err 2 "rgbench ab: --kbench: '/nonexistent' is not an executable file $H" --kbench /nonexistent
expect_err 2 "rgbench ab: --pin: 1 host CPUs for 2 vCPUs (one each is needed) $H" --kernel a=1.0 --kernel b=1.1 --pin 3
expect_err 2 "rgbench ab: --pin: '5-2' runs backwards $H" --kernel a=1.0 --kernel b=1.1 --pin 5-2
expect_err 2 "rgbench ab: --rounds needs a value $H" --rounds
expect_err 2 "rgbench ab: unknown option '--bogus' $H" --bogus
expect_err 2 "rgbench ab: --out: an empty folder name $H" --out ''
expect_err 2 "rgbench ab: --table: '$T' holds no manifest.csv (not an ab folder) $H" --table "$T"
expect_err 2 "rgbench ab: --table reads an earlier ab's folder: no --kernel with it $H" --table "$data" --kernel a=6.1.0-57
# A kernel image is checked before anything is fetched or booted: a file that is not one of
# --arch's kind, a --headers folder that is missing or no kernel build directory, a per-kernel
# option for a label not given, an --arch not this machine's without --guest-rgbench.
printf 'not a kernel\n' >"$T/notakernel"
expect_err 2 "rgbench ab: --kernel b: '$T/notakernel' is not an amd64 kernel image (a bzImage has 'HdrS' at byte 514) $H" \
	--arch amd64 --kernel a=6.1.0-57 --kernel b="$T/notakernel"
expect_err 2 "rgbench ab: --kernel b: '$T/notakernel' is not an arm64 kernel image (an Image has 'ARMd' at byte 56) $H" \
	--arch arm64 --kernel a=6.1.0-57 --kernel b="$T/notakernel"
expect_err 2 "rgbench ab: --headers b: '$T/no-headers' is not a folder $H" --kernel a=1.0 --headers b="$T/no-headers"
mkdir -p "$T/hdr"
expect_err 2 "rgbench ab: --headers b: '$T/hdr' has no Makefile (not a kernel build directory) $H" --headers b="$T/hdr"
touch "$T/hdr/Makefile"
expect_err 2 "rgbench ab: --headers c: no --kernel c=... is given $H" --kernel a=1.0 --kernel b=1.1 --headers c="$T/hdr"
expect_err 2 "rgbench ab: --append: 'quiet' is not LABEL=VALUE $H" --append quiet --kernel a=1.0
expect_err 2 "rgbench ab: --append c: no --kernel c=... is given $H" --kernel a=1.0 --kernel b=1.1 --append c=panic=1
expect_err 2 "rgbench ab: --guest-rgbench: '/nonexistent' is neither a folder nor a file $H" --guest-rgbench /nonexistent
expect_err 2 "rgbench ab: --guest-rgbench: no rgbench program at '$T/hdr/tools/rgbench' $H" \
	--kernel a=1.0 --kernel b=1.1 --guest-rgbench "$T/hdr"
if [[ $(uname -m) == x86_64 ]]; then
	expect_err 2 "rgbench ab: --arch arm64 on an amd64 machine needs --guest-rgbench: an arm64 rgbench (a cross build's folder, e.g. build-aarch64, or an rgbench .deb) $H" \
		--arch arm64 --kernel a=1.0 --kernel b=1.1
	expect_err 2 "rgbench ab: --guest-rgbench: '$R' is not an arm64 program (Advanced Micro Devices X86-64) $H" \
		--arch arm64 --kernel a=1.0 --kernel b=1.1 --guest-rgbench "$R"
fi

# --kbench is run by the guests: a program of --arch's kind, else one line and exit 2 (before
# anything is fetched or booted). Header-only ELF files of each kind stand in for the programs
# (readelf reads their Machine), so this runs on either architecture; --guest-rgbench is given
# for both --arch values. One of the right kind passes, and --plan names the guests' host name.
python3 - "$T" <<'PY'
import struct, sys
for name, machine in (("elf-arm64", 183), ("elf-amd64", 62)):
    with open(sys.argv[1] + "/" + name, "wb") as f:
        f.write(b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8) +
                struct.pack("<HHIQQQIHHHHHH", 2, machine, 1, 0, 0, 0, 0, 64, 56, 0, 64, 0, 0))
PY
chmod +x "$T/elf-arm64" "$T/elf-amd64"
printf '#!/bin/sh\n' >"$T/script" && chmod +x "$T/script"
expect_err 2 "rgbench ab: --kbench: '$T/elf-arm64' is not an amd64 program (AArch64): the guests run it (tests/bpf/kbench/build.sh --arch amd64 builds one) $H" \
	--arch amd64 --guest-rgbench "$T/elf-amd64" --kernel a=1.0 --kernel b=1.1 --kbench "$T/elf-arm64"
expect_err 2 "rgbench ab: --kbench: '$T/elf-amd64' is not an arm64 program (Advanced Micro Devices X86-64): the guests run it (tests/bpf/kbench/build.sh --arch arm64 builds one) $H" \
	--arch arm64 --guest-rgbench "$T/elf-arm64" --kernel a=1.0 --kernel b=1.1 --kbench "$T/elf-amd64"
expect_err 2 "rgbench ab: --kbench: '$T/script' is not an arm64 program (not an ELF file): the guests run it (tests/bpf/kbench/build.sh --arch arm64 builds one) $H" \
	--arch arm64 --guest-rgbench "$T/elf-arm64" --kernel a=1.0 --kernel b=1.1 --kbench "$T/script"
(cd "$T" && "$R" ab --arch arm64 --guest-rgbench "$T/elf-arm64" --kernel a=1.0 --kernel b=1.1 --kbench "$T/elf-arm64" \
	--no-pin --plan) >"$T/out" 2>"$T/err"
rc=$?
hn=$(sed -n "s/^rgbench ab: the guests' host name: //p" "$T/err")
if [[ $rc == 0 && $(wc -l <"$T/err") == 1 && $hn =~ ^rgbench-ab-arm64(-[A-Za-z0-9-]+)?$ && ${#hn} -le 63 &&
	$(head -1 "$T/out") == "boot label spec" ]]; then ok "--kbench of --arch's kind: --plan, the guests' host name $hn"
else fail "--kbench of --arch's kind: exit $rc, stderr '$(cat "$T/err")'"; fi

# The order: A B, B A, ... (--rounds 3: A B B A A B), three kernels mirrored likewise; a seeded
# shuffle is the same for the same seed and holds each kernel --rounds times.
order() { (cd "$T" && "$R" ab "$@" --plan) | awk 'NR > 1 { printf "%s", $2 }'; }
[[ $(order --kernel a=6.1.0-57 --kernel b=6.1.0-58 --rounds 3) == abbaab ]] && ok "--rounds 3: a b b a a b" ||
	fail "--rounds 3: $(order --kernel a=6.1.0-57 --kernel b=6.1.0-58 --rounds 3)"
[[ $(order --kernel a=1.0 --kernel b=1.1 --kernel c=1.2 --rounds 2) == abccba ]] && ok "three kernels: a b c c b a" ||
	fail "three kernels: $(order --kernel a=1.0 --kernel b=1.1 --kernel c=1.2 --rounds 2)"
s1=$(order --kernel a=1.0 --kernel b=1.1 --rounds 4 --shuffle 7)
s2=$(order --kernel a=1.0 --kernel b=1.1 --rounds 4 --shuffle 7)
[[ $s1 == "$s2" && $(tr -cd a <<<"$s1" | wc -c) == 4 && ${#s1} == 8 ]] && ok "--shuffle 7: the same order twice ($s1)" ||
	fail "--shuffle 7: '$s1' then '$s2'"
[[ $(cd "$T" && "$R" ab --kernel a=1.0 --kernel b=1.1 --plan | head -1) == "boot label spec" ]] && ok "--plan's header" ||
	fail "--plan's header"

# The vCPUs' host CPUs without --pin: one per physical core, CPU 0's core last, over a fake
# sysfs (RG_TEST_SYSFS_ROOT: 8 CPUs, 4 cores of 2 threads, CPU i and i+4 siblings); fewer
# cores than vCPUs: not pinned, said; --no-pin and --pin: nothing chosen, nothing said.
for c in 0 1 2 3 4 5 6 7; do
	mkdir -p "$T/fs/sys/devices/system/cpu/cpu$c/topology"
	echo "$((c % 4)),$((c % 4 + 4))" >"$T/fs/sys/devices/system/cpu/cpu$c/topology/core_cpus_list"
done
# (--plan's line naming the guests' host name is checked above)
pinline() { (cd "$T" && RG_TEST_SYSFS_ROOT=$T/fs "$R" ab --kernel a=1.0 --kernel b=1.1 --plan "$@" 2>&1 >/dev/null) |
	grep -v "^rgbench ab: the guests' host name: "; }
P="one per physical core, CPU 0's core last (--pin CPUS chooses, --no-pin leaves them free)"
for v in "3 1,2,3" "4 1,2,3,0" "1 1"; do
	set -- $v
	got=$(pinline --vcpus "$1")
	[[ $got == "rgbench ab: vCPUs pinned to host CPUs $2: $P" ]] && ok "--vcpus $1: pinned to $2" ||
		fail "--vcpus $1: '$got' (want CPUs $2)"
done
got=$(pinline --vcpus 5)
[[ $got == "rgbench ab: vCPUs not pinned: 4 physical cores here for 5 vCPUs (--pin CPUS pins them anyway)" ]] &&
	ok "--vcpus 5 on 4 cores: not pinned, said" || fail "--vcpus 5 on 4 cores: '$got'"
rm "$T"/fs/sys/devices/system/cpu/cpu*/topology/core_cpus_list
got=$(pinline --vcpus 3)
[[ $got == "rgbench ab: vCPUs pinned to host CPUs 1,2,3: $P" ]] && ok "no topology files: each CPU its own core" ||
	fail "no topology files: '$got'"
[[ -z $(pinline --no-pin) && -z $(pinline --pin 4-5) ]] && ok "--no-pin, --pin: nothing chosen or said" ||
	fail "--no-pin: '$(pinline --no-pin)', --pin 4-5: '$(pinline --pin 4-5)'"

# The output policy: an earlier ab's folder is refused before anything is fetched or booted;
# a folder another ab writes (its lock held) too.
mkdir -p "$T/old" && cp "$data/manifest.csv" "$T/old/"
expect_err 2 "rgbench ab: --out: '$T/old' holds an earlier ab's results (manifest.csv): they are not replaced; give another --out" \
	--kernel a=1.0 --kernel b=1.1 --out "$T/old"
cmp -s "$data/manifest.csv" "$T/old/manifest.csv" && ok "the earlier manifest is kept" || fail "the earlier manifest changed"
mkdir -p "$T/busy"
exec 7>"$T/busy/.ab.lock"
flock 7
expect_err 1 "rgbench ab: another rgbench ab is writing '$T/busy'" --kernel a=1.0 --kernel b=1.1 --out "$T/busy"
exec 7>&-

# The tables from the fixture boots: exactly the expected text, Markdown and commit log.
for f in text markdown commit-log; do
	opt=()
	[[ $f == text ]] || opt=(--$f)
	"$R" ab --table "$data" "${opt[@]}" >"$T/$f" 2>"$T/err"
	rc=$?
	if [[ $rc == 0 ]] && diff -u "$data/expected.$f" "$T/$f"; then ok "--table $f: as expected"
	else fail "--table $f: exit $rc, differs (above); stderr: $(head -2 "$T/err")"; fi
done
# Every timing of the emulated fixture is marked and no change is called; the commit log fits 72.
n=$(grep -c '^[a-z]*/.* p=' "$T/text")
[[ $n == 4 && $(grep '^[a-z]*/.* p=' "$T/text" | grep -c 'qemu-tcg .*\*.*\*.*not called (emulated)$') == 4 ]] &&
	ok "4 timed rows, each marked emulated, none called" || fail "the emulated marking: $(grep ' p=' "$T/text")"
grep -qE 'faster|slower' "$T/text" "$T/markdown" "$T/commit-log" && fail "a change is called under emulation" ||
	ok "no change called under emulation"
awk 'length > 72 { bad = 1 } END { exit bad }' "$T/commit-log" && ok "the commit log fits 72 columns" ||
	fail "the commit log has lines over 72 columns"
grep -q "boot 05 (new): failed: the kernel panicked: Kernel panic - not syncing: VFS: Unable to mount root fs (fixture)" "$T/text" &&
	ok "the failed boot is one line, the others' rows kept" || fail "the failed boot's line"
# The same boots under KVM: the change is called (p over boots; 2 against 2 never below 1/3).
mkdir -p "$T/kvm" && cp "$data"/boot-*.json "$T/kvm/" && sed 's/,tcg,/,kvm,/' "$data/manifest.csv" >"$T/kvm/manifest.csv"
"$R" ab --table "$T/kvm" >"$T/kvmtext" 2>&1
grep -q 'EMULATED' "$T/kvmtext" && fail "KVM boots marked emulated" || ok "KVM boots not marked emulated"
[[ $(grep -c 'no change called (p=0.33)$' "$T/kvmtext") == 3 && $(grep -c 'no change called (p=1.00)$' "$T/kvmtext") == 1 ]] &&
	ok "KVM: 2 boots a side, p=0.33 at best: no change called" || fail "KVM verdicts: $(grep ' p=' "$T/kvmtext")"
# A kernel without BPF JIT and BTF (a guest with no net.core.bpf_jit_enable, no
# /sys/kernel/btf/vmlinux): its boot is one line saying what it lacks, first.
mkdir -p "$T/nj/out" && printf '@@RG-BEGIN\n== 2 nojit 6.1.158: rgbench bpf\n@@RG-END\n@@RG-EXIT 0\n' >"$T/nj/console.log"
echo 6.1.158 >"$T/nj/out/uname" && echo 0 >"$T/nj/out/rc_bpf" && echo "no module for this kernel" >"$T/nj/out/kmod.err"
nj="the kernel has no BPF JIT (no net.core.bpf_jit_enable) and no BTF (/sys/kernel/btf/vmlinux): none of its BPF rows is compared"
[[ $(python3 "$src/ab/ab_table.py" --why "$T/nj" 0) == "$nj; no kmod rows: no module for this kernel" ]] &&
	ok "no JIT, no BTF: one line, what the kernel lacks first" || fail "no JIT: $(python3 "$src/ab/ab_table.py" --why "$T/nj" 0 2>&1)"
echo 1 >"$T/nj/out/bpf_jit" && echo yes >"$T/nj/out/btf"
[[ $(python3 "$src/ab/ab_table.py" --why "$T/nj" 0) == "no kmod rows: no module for this kernel" ]] &&
	ok "JIT and BTF there: not said" || fail "JIT and BTF: $(python3 "$src/ab/ab_table.py" --why "$T/nj" 0 2>&1)"
# BTF but no JIT (seen on a 6.1 built so, docs/ab.md): its bpf rows load and the interpreter
# times them, said with their count; fentry has no trampoline without the JIT (6.1 refuses its
# load with ENOMEM), said as the cause, never "no BTF".
mkdir -p "$T/nb/out" && cp "$T/nj/console.log" "$T/nb/" && echo 6.1.192 >"$T/nb/out/uname" && echo yes >"$T/nb/out/btf"
echo 0 >"$T/nb/out/rc_bpf" && echo "no module for this kernel" >"$T/nb/out/kmod.err"
cat >"$T/nb/out/bpf.json" <<'EOF'
{"results": [{"suite": "bpf", "scenario": "syscall", "guard": "fentry", "status": "skipped", "reason": "ENOMEM: fentry load Cannot allocate memory"},
 {"suite": "bpf", "scenario": "syscall", "guard": "raw_tp", "status": "ok", "reason": ""},
 {"suite": "bpf", "scenario": "driver", "guard": "fentry", "status": "skipped", "reason": "ENOMEM: fentry load Cannot allocate memory"},
 {"suite": "bpf", "scenario": "driver", "guard": "raw_tp", "status": "skipped", "reason": "ENOENT: kfunc not in this kernel"}]}
EOF
nb="the kernel has no BPF JIT (no net.core.bpf_jit_enable): its BPF rows ran in the BPF interpreter (1 timed), none is compared; no kmod rows: no module for this kernel; fentry needs the BPF JIT (its trampoline): the trigger bench could not attach fentry: ENOMEM: fentry load Cannot allocate memory"
[[ $(python3 "$src/ab/ab_table.py" --why "$T/nb" 0) == "$nb" ]] &&
	ok "BTF, no JIT: one line, the interpreter's rows counted, fentry's cause the JIT" ||
	fail "BTF, no JIT: $(python3 "$src/ab/ab_table.py" --why "$T/nb" 0 2>&1)"
# Its boots in the table (under KVM, where a change would be called): its bpf rows are "no JIT"
# (the interpreter's figure not set beside the JIT's, no change), its other rows compared.
mkdir -p "$T/njt" && cp "$data"/boot-*.json "$T/njt/"
awk -F, -v r="\"$nj; no kmod rows: fixture\"" 'BEGIN { OFS = "," }
	NR > 1 { $5 = "kvm" } NR > 1 && ($1 == "02" || $1 == "03") { $9 = "partial"; $15 = r } { print }' \
	"$data/manifest.csv" >"$T/njt/manifest.csv"
"$R" ab --table "$T/njt" >"$T/njtext" 2>"$T/err" && "$R" ab --table "$T/njt" --commit-log >"$T/njlog" 2>>"$T/err"; rc=$?
if [[ $rc == 0 ]] && grep -qx 'No BPF JIT: new (boots 02, 03): 2 of its bpf and kbench rows ran in the BPF interpreter: not compared ("no JIT").' "$T/njtext" &&
	[[ $(grep -c '^bpf/[a-z]*/raw_tp p=1 *M/s *kvm *[0-9][^ ]* \[[^]]*\] *no JIT *n/a *n/a *n/a$' "$T/njtext") == 2 ]] &&
	grep -q '^kmod/tramp-rawtp/rctx-kernel p=1 .*no change called (p=0.33)$' "$T/njtext" &&
	[[ $(grep -c '^| new  *| no JIT  *|$' "$T/njlog") == 2 ]] && grep -q '^No BPF JIT: new (boots 02, 03)' "$T/njlog" &&
	awk 'length > 72 { bad = 1 } END { exit bad }' "$T/njlog"; then
	ok "no JIT: its bpf rows not compared (no JIT), its kmod rows compared, said in the heading and the commit log"
else
	fail "no JIT in the table: exit $rc: $(head -c 300 "$T/err") $(cat "$T/njtext" "$T/njlog")"
fi
# The boot files are schema rows of one run: rgbench report and compare read them, and the
# rows say their boot and label (ab_label, ab_boot).
for b in 01-base 02-new 03-new 04-base; do
	"$R" report "$data/boot-$b.json" >"$T/rep" 2>"$T/err" && ok "report reads boot-$b.json" ||
		fail "report boot-$b.json: $(head -c 300 "$T/err")"
done
"$R" compare --width 400 "$data/boot-01-base.json" "$data/boot-02-new.json" >"$T/cmp" 2>"$T/err"; rc=$?
if [[ $rc == 0 ]] && grep -q '^base: rgbench ab boot 1, label base$' "$T/cmp" &&
	grep -q '^new:  rgbench ab boot 2, label new$' "$T/cmp" && [[ $(grep -c ' 5 rows$' "$T/cmp") == 2 ]]; then
	ok "compare reads two boot files: 5 rows each, boot 1 base and boot 2 new read back"
else
	fail "compare of two boot files: exit $rc: $(cat "$T/cmp" "$T/err" | head -c 600)"
fi
python3 - "$data" <<'PY' && ok "every boot file: one run id, ab_label and ab_boot as the manifest says" || fail "boot files' run ids or labels"
import csv, json, os, sys
d = sys.argv[1]
ids = set()
for m in csv.DictReader(open(os.path.join(d, "manifest.csv"))):
    if not m["result"]:
        continue
    rows = json.load(open(os.path.join(d, m["result"])))["results"]
    assert len(rows) == 5 and {(r["ab_label"], r["ab_boot"]) for r in rows} == {(m["label"], int(m["boot"]))}, m["result"]
    ids |= {r["run_id"] for r in rows}
assert len(ids) == 1, ids
PY
# A boot file whose rows name another boot than the manifest: one line, exit 1.
mkdir -p "$T/mis" && cp "$data"/boot-*.json "$data/manifest.csv" "$T/mis/" && cp "$data/boot-02-new.json" "$T/mis/boot-03-new.json"
"$R" ab --table "$T/mis" >/dev/null 2>"$T/err"; rc=$?
[[ $rc == 1 && $(wc -l <"$T/err") == 1 ]] && grep -q "boot-03-new.json: a row of boot 2 (new), the manifest says boot 03 (new)" "$T/err" &&
	ok "a boot file of another boot: one line, exit 1" || fail "mislabelled boot file: exit $rc: $(cat "$T/err")"
# The merge: a boot's suites and the kernel bench's summaries as one file of schema rows
# (suite kbench: a refused case skipped with the bench's error line), which report reads.
mkdir -p "$T/g" && cp "$data/boot-01-base.json" "$T/g/bpf.json"
printf 'trig-fentry 0\ntrig-fexit 1\n' >"$T/g/kbench.rc"
printf 'Summary: hits   12.500 \302\261 0.100M/s (12.500M/prod)\n' >"$T/g/kbench-trig-fentry.txt"
printf 'benchmark not found: trig-fexit\n' >"$T/g/kbench-trig-fexit.txt"
if python3 "$src/ab/ab_table.py" --merge "$T/g" "$T/merged.json" base 01 2>"$T/err" &&
	"$R" report "$T/merged.json" >/dev/null 2>>"$T/err" &&
	python3 - "$T/merged.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["results"]
kb = [(r["guard"], r["status"], r["mops_median"], r["ns_median"], r["ab_label"], r["ab_boot"], r["reason"]) for r in rows if r["suite"] == "kbench"]
assert len(rows) == 7 and len({r["run_id"] for r in rows}) == 1, rows
assert kb == [("trig-fentry", "ok", 12.5, 80.0, "base", 1, ""),
              ("trig-fexit", "skipped", None, None, "base", 1, "bench exit 1: benchmark not found: trig-fexit")], kb
PY
then ok "merge: 5 rows and 2 kbench rows (12.5 M/s; trig-fexit skipped), one run, report reads it"
else fail "merge with kbench rows: $(head -c 400 "$T/err")"; fi
# What the guest sets: RG_RUN_ID, RG_AB_LABEL and RG_AB_BOOT become the rows' run_id, ab_label
# and ab_boot (CSV and JSON, read back by compare); a bad value is one line, exit 2.
u=(--guards noop --scenarios pair --duration 1ms --repetitions 1 --runs 1 --quiet)
id=20261203T210000Z-00000000000000cd
if (cd "$T" && RG_RUN_ID=$id RG_AB_LABEL=p.1 RG_AB_BOOT=7 "$R" "${u[@]}" --out env.csv --json env.json) 2>"$T/err" &&
	"$R" compare "$T/env.csv" "$T/env.json" >"$T/cmp" 2>>"$T/err" &&
	[[ $(grep -c '^\(base:\|new: \) rgbench ab boot 7, label p.1$' "$T/cmp") == 2 ]] &&
	[[ $(awk -F, 'NR > 1 { print $3 "," $4 "," $5 }' "$T/env.csv" | sort -u) == "$id,p.1,7" ]]; then
	ok "RG_RUN_ID, RG_AB_LABEL, RG_AB_BOOT: the rows' run_id, ab_label, ab_boot, read back from CSV and JSON"
else
	fail "the ab environment in the rows: $(head -c 400 "$T/err") $(head -c 400 "$T/cmp")"
fi
(cd "$T" && "$R" "${u[@]}" --out noenv.csv) 2>/dev/null
[[ $(awk -F, 'NR > 1 { print $4 "," $5 }' "$T/noenv.csv" | sort -u) == "," ]] &&
	ok "outside ab: ab_label and ab_boot empty" || fail "outside ab: $(cut -d, -f4,5 "$T/noenv.csv" | head -3)"
badenv() {
	local want=$1; shift
	(cd "$T" && env "$@" "$R" "${u[@]}" --out bad.csv) >/dev/null 2>"$T/err"; local rc=$?
	[[ $rc == 2 && $(cat "$T/err") == "$want" && ! -e $T/bad.csv ]] && ok "$*: one line, exit 2" ||
		fail "$*: exit $rc: $(cat "$T/err")"
}
badenv "rgbench: RG_AB_BOOT '0' is not a boot index (1 to 100000)" RG_AB_BOOT=0
badenv "rgbench: RG_AB_BOOT '08x' is not a boot index (1 to 100000)" RG_AB_BOOT=08x
badenv "rgbench: RG_AB_LABEL '-a' is not 1 to 32 of A-Z a-z 0-9 . _ - (a letter or digit first)" RG_AB_LABEL=-a
badenv "rgbench: RG_RUN_ID 'x' is not a run id (YYYYMMDDTHHMMSSZ-16 lowercase hex digits)" RG_RUN_ID=x
# The prediction check's summary line is read from rgbench report's two-boot section, which
# wraps its lines where the host name puts the break (the guests' names are longer than
# busybox's "(none)"): both lines below, one wrapped mid-phrase, give the same summary.
got=$(python3 - "$src/ab" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import ab_table
one = ["- rgbench-ab-amd64-vm, kernels 6.1.0-57-amd64 and 6.12.117+deb13-amd64: both run this-cpu-pre-6.18, nothing to predict"]
two = ["- rgbench-ab-amd64-a-longer-machine-name, kernels 6.1.0-57-amd64 and 6.12.117+deb13-amd64: both run",
       "  this-cpu-pre-6.18, nothing to", "  predict"]
pair = ["rgbench-ab-arm64-vm [EMULATED]: base kernel 6.12.117+deb13-arm64 (runs this-cpu-pre-6.18), patched kernel",
        "7.3.4+deb13-arm64 (runs merged-rctx). The base's ...", "```", "event base pred. interval patched error",
        "fentry/syscall p=1 1.0 2.0 [1.0, 3.0] 4.0 -50.0%", "```"]
print(ab_table.summary(one, "base"))
print(ab_table.summary(two, "base"))
print(ab_table.summary(pair, "old"))
PY
)
want="- this-cpu-pre-6.18: both kernels run it (6.1.0-57-amd64, 6.12.117+deb13-amd64), nothing to predict
- this-cpu-pre-6.18: both kernels run it (6.1.0-57-amd64, 6.12.117+deb13-amd64), nothing to predict
- merged-rctx (7.3.4+deb13-arm64) predicted from old's boot (this-cpu-pre-6.18): 1 events, error median -50.0% (from -50.0% to -50.0%)"
[[ $got == "$want" ]] && ok "the prediction summary read across report's wrapped lines" ||
	fail "the prediction summary: got '$got'"

((fails == 0)) && echo "ab.cli: PASS" || { echo "ab.cli: $fails failed"; exit 1; }
