#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ab.guest_nojit (opt-in, RG_TEST_AB=1 and RG_AB_TEST_NOJIT=bzImage): rgbench ab under qemu TCG, a Debian kernel against one built without BPF JIT (with or without BTF): that boot one line saying what it lacks (manifest, stderr, table), its bpf rows "no JIT" and never compared, the base's boot and rows kept, exit 1. Statuses only, never a timing.
# Usage: guest_nojit.sh SRC_DIR RGBENCH   (RG_AB_TEST_NOJIT: a bzImage built with CONFIG_BPF_SYSCALL=y,
# CONFIG_BPF_JIT unset, with or without CONFIG_DEBUG_INFO_BTF (what the guest saw decides what is
# checked: without BTF no bpf row runs; with it raw_tp runs in the interpreter and fentry, which
# needs the JIT's trampoline, does not), its console, initramfs and ACPI built in:
# docs/ab.md "A kernel without BPF JIT" has the lines that make one; RG_AB_TEST_ABI: the Debian
# 12 kernel ABI of the base, default 6.1.0-57; RG_VM_CACHE: see ab/vm.sh)
set -uo pipefail
R=$2
abi=${RG_AB_TEST_ABI:-6.1.0-57}
img=${RG_AB_TEST_NOJIT:-}
fail() { echo "ab.guest_nojit: FAIL: $*"; exit 1; }
[[ -n $img ]] || { echo "ab.guest_nojit: SKIP: set RG_AB_TEST_NOJIT to a bzImage built without BPF JIT (docs/ab.md says how)"; exit 77; }
[[ -f $img ]] || fail "RG_AB_TEST_NOJIT=$img: no such file"
[[ $(uname -m) == x86_64 ]] || { echo "ab.guest_nojit: SKIP: x86-64 hosts only"; exit 77; }
command -v qemu-system-x86_64 >/dev/null || { echo "ab.guest_nojit: SKIP: no qemu-system-x86_64"; exit 77; }
if [[ ! -f ${RG_VM_CACHE:-$HOME/.cache/rgbench-vm}/ab-$abi-amd64/.done ]]; then
	timeout 20 bash -c 'exec 3<>/dev/tcp/deb.debian.org/80' 2>/dev/null ||
		{ echo "ab.guest_nojit: SKIP: deb.debian.org unreachable (the base kernel is fetched with apt-get download)"; exit 77; }
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# (the image alone in a folder: no build directory beside it, so no module for it)
mkdir -p "$T/nojit" && cp "$img" "$T/nojit/bzImage"
RG_AB_GUEST_ARGS_BPF="--attach fentry,raw_tp --duration 10ms --warmup 5ms --repetitions 3 --passes 1" \
RG_AB_GUEST_ARGS_KMOD="--guards noop,rctx-kernel --batch 1000 --repetitions 3 --irq-iters 50" \
	"$R" ab --kernel base="$abi" --kernel nojit="$T/nojit/bzImage" \
	--rounds 1 --no-user --timeout 900 --out "$T/ab" >"$T/out" 2>"$T/err"
rc=$?
cat "$T/err" "$T/out"
((rc == 1)) || fail "rgbench ab exit $rc (want 1: a boot partial)"
# (the guest's own word on BTF: out/btf is there when it had /sys/kernel/btf/vmlinux)
btf=0 && [[ -f $T/ab/boot-02-nojit/out/btf ]] && btf=1
echo "ab.guest_nojit: the guest $([[ $btf == 1 ]] && echo had || echo had no) BTF"
python3 - "$T/ab/manifest.csv" "$btf" <<'PY' || fail "the manifest"
import csv, re, sys
m = {r["label"]: r for r in csv.DictReader(open(sys.argv[1]))}
btf = sys.argv[2] == "1"
for label in ("base", "nojit"):
    r = m[label]
    print(label, r["status"], "|", r["reason"], "|", r["console_tail"])
assert m["base"]["status"] == "ok" and m["base"]["result"], "base"
r = m["nojit"]
assert r["status"] == "partial" and r["result"], "nojit: not partial with its rows"
lacks = "the kernel has no BPF JIT (no net.core.bpf_jit_enable)"
if btf:
    # raw_tp loads with BTF and the interpreter times it; fentry has no trampoline without the JIT
    assert re.match(re.escape(lacks) + r": its BPF rows ran in the BPF interpreter \([1-9][0-9]* timed\), "
                    "none is compared; ", r["reason"]), "nojit: reason (BTF, no JIT)"
    assert "no BTF" not in r["reason"], "nojit: says no BTF, the guest had it"
    assert "fentry needs the BPF JIT (its trampoline): the trigger bench could not attach fentry: " in r["reason"], \
        "nojit: fentry's cause not the JIT"
else:
    assert r["reason"].startswith(lacks + " and no BTF (/sys/kernel/btf/vmlinux): none of its BPF rows is "
                                  "compared"), "nojit: reason (no JIT, no BTF)"
assert r["console_tail"], "nojit: no console tail"
PY
[[ $(grep -c "^rgbench ab: boot 2: nojit partial: the kernel has no BPF JIT (no net.core.bpf_jit_enable).*; console tail: " "$T/err") == 1 ]] ||
	fail "nojit: not one line on stderr"
if [[ $btf == 1 ]]; then
	grep -qE '^No BPF JIT: nojit \(boot 02\): [1-9][0-9]* of its bpf and kbench rows ran in the BPF interpreter' "$T/out" ||
		fail "the table does not say nojit's rows ran in the BPF interpreter"
	# raw_tp timed by the interpreter: "no JIT" beside the base's figure, no change
	grep -qE '^bpf/syscall/raw_tp p=1 +M/s +(qemu-tcg|kvm) +[0-9][^ ]* \[[^]]*\]\*? +no JIT +n/a +n/a +n/a$' "$T/out" ||
		fail "bpf/syscall/raw_tp: not the base's figure beside 'no JIT'"
else
	grep -qE '^No BPF JIT: nojit \(boot 02\): none of its bpf and kbench rows ran' "$T/out" ||
		fail "the table does not say nojit ran no BPF row"
fi
# (under TCG every timing marked emulated; a host with /dev/kvm runs the guests under KVM)
grep -qE '^benchmark +unit +virt +base +nojit ' "$T/out" || fail "no table"
grep -q ' qemu-tcg ' "$T/out" && ! grep -q '^EMULATED: the guests ran under qemu TCG' "$T/out" &&
	fail "TCG rows not marked emulated"
# every bpf row the base timed: its figure beside "no JIT" or "n/a", never a change
python3 - "$T/ab/table.txt" <<'PY' || fail "the base's bpf rows"
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.startswith("bpf/")]
timed = [r for r in rows if r[4] != "n/a"]
print(len(rows), "bpf rows,", len(timed), "timed on base;", sum(" ".join(r).count("no JIT") for r in rows), "no JIT cells")
assert timed, "no bpf row of the base's"
for r in timed:
    line = " ".join(r)
    assert "%" not in line.split("]", 1)[1], "a change beside the interpreter: " + line
PY
ls "$T"/ab/boot-01-base.json "$T"/ab/boot-02-nojit.json >/dev/null || fail "a boot's file is missing"
echo "ab.guest_nojit: PASS"
