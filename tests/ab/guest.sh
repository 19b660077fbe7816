#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ab.guest (opt-in, RG_TEST_AB=1): rgbench ab for real under qemu TCG, Debian 12's 6.1 against Debian 13's 6.12, one round, no user suite: every boot ok with trigger bench and module rows, the table printed and marked emulated. Counts and statuses only, never a timing.
# Usage: guest.sh SRC_DIR RGBENCH   (RG_AB_TEST_KERNELS: the two --kernel words, default
# "base=6.1.0-57 new=trixie:6.12.117+deb13"; RG_VM_CACHE: see ab/vm.sh)
set -uo pipefail
R=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "ab.guest: FAIL: $*"; exit 1; }
[[ $(uname -m) == x86_64 ]] || { echo "ab.guest: SKIP: x86-64 hosts only"; exit 77; }
command -v qemu-system-x86_64 >/dev/null || { echo "ab.guest: SKIP: no qemu-system-x86_64"; exit 77; }
timeout 20 bash -c 'exec 3<>/dev/tcp/deb.debian.org/80' 2>/dev/null ||
	{ echo "ab.guest: SKIP: deb.debian.org unreachable (the kernels are fetched with apt-get download)"; exit 77; }
read -r -a ks <<<"${RG_AB_TEST_KERNELS:-base=6.1.0-57 new=trixie:6.12.117+deb13}"
args=()
for k in "${ks[@]}"; do args+=(--kernel "$k"); done
RG_AB_GUEST_ARGS_BPF="--attach fentry,raw_tp --duration 10ms --warmup 5ms --repetitions 3 --passes 1" \
RG_AB_GUEST_ARGS_KMOD="--guards noop,rctx-kernel,this-cpu-inc --batch 1000 --repetitions 3 --irq-iters 50" \
	"$R" ab "${args[@]}" --rounds 1 --no-user --out "$T/ab" >"$T/out" 2>"$T/err"
rc=$?
cat "$T/err" "$T/out"
((rc == 0)) || fail "rgbench ab exit $rc"
n=$(grep -c ',ok,' "$T/ab/manifest.csv")
((n == 2)) || fail "$n of 2 boots ok"
for f in "$T"/ab/boot-0[12]-*.json; do
	python3 - "$f" <<'PY' || fail "$(basename "$f"): rows missing"
import json, sys
rows = json.load(open(sys.argv[1]))["results"]
have = {(r["suite"], r["scenario"].split("-")[0]) for r in rows if r.get("status") in ("ok", "noisy")}
need = {("bpf", "syscall"), ("kmod", "loop"), ("kmod", "tramp")}
missing = need - have
print(sys.argv[1], len(rows), "rows;", "missing: %s" % sorted(missing) if missing else "bpf, kmod loop and tramp rows there")
sys.exit(1 if missing else 0)
PY
done
# The boot files are one run (the command's run id), their rows say boot and label, and
# rgbench report and compare read them.
python3 - "$T/ab" <<'PY' || fail "boot files: run ids, ab columns or host names"
import csv, json, os, sys
ids, hosts = set(), set()
for m in csv.DictReader(open(os.path.join(sys.argv[1], "manifest.csv"))):
    rows = json.load(open(os.path.join(sys.argv[1], m["result"])))["results"]
    ids |= {r["run_id"] for r in rows}
    hosts |= {r["host"] for r in rows}
    bad = [r for r in rows if (r["ab_label"], r["ab_boot"]) != (m["label"], int(m["boot"]))]
    print(m["result"], len(rows), "rows,", len(bad), "with another ab_label/ab_boot")
    assert not bad
assert len(ids) == 1, ids
# one host name for every boot's rows: the guests' (ab/ab.sh), not busybox's "(none)"
assert len(hosts) == 1 and next(iter(hosts)).startswith("rgbench-ab-amd64"), hosts
PY
b1=$(ls "$T"/ab/boot-01-*.json) b2=$(ls "$T"/ab/boot-02-*.json)
"$R" report "$b1" >/dev/null 2>"$T/rerr" || fail "report $(basename "$b1"): $(head -c 300 "$T/rerr")"
"$R" compare --allow-emulated "$b1" "$b2" >"$T/cmp" 2>"$T/rerr" || fail "compare: $(head -c 300 "$T/rerr")"
grep -q '^base: rgbench ab boot 1, label ' "$T/cmp" || fail "compare's header names no ab boot: $(head -c 400 "$T/cmp")"
grep -q '^EMULATED: the guests ran under qemu TCG' "$T/out" || fail "the table is not marked emulated"
grep -qE 'faster|slower' "$T/out" && fail "a change was called under emulation"
echo "ab.guest: PASS"
