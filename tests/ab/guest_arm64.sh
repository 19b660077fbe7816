#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ab.guest_arm64 (opt-in, RG_TEST_AB=1 and RG_AB_TEST_GUEST_RGBENCH): rgbench ab --arch arm64 under qemu TCG, Debian 13's 6.12 against trixie-backports' 7.3, one round, the user suite on and the kernel's bench cross-built for arm64 (tests/bpf/kbench/build.sh --arch arm64): every boot ok with bpf, kmod, user and kbench rows, one guest host name. Counts and statuses only, never a timing.
# Usage: guest_arm64.sh SRC_DIR RGBENCH   (RG_AB_TEST_GUEST_RGBENCH: an arm64 rgbench, a cross
# build's folder, the binary or a .deb, as --guest-rgbench takes; RG_AB_TEST_KERNELS: the two
# --kernel words, default "old=trixie:6.12.117+deb13 new=trixie-backports:7.3.4+deb13";
# RG_VM_CACHE: see ab/vm.sh)
set -uo pipefail
src=$1 R=$2
fail() { echo "ab.guest_arm64: FAIL: $*"; exit 1; }
g=${RG_AB_TEST_GUEST_RGBENCH:-}
[[ -n $g ]] || { echo "ab.guest_arm64: SKIP: set RG_AB_TEST_GUEST_RGBENCH to an arm64 rgbench (e.g. build-aarch64: cmake/toolchain-aarch64.cmake)"; exit 77; }
[[ $(uname -m) == x86_64 ]] || { echo "ab.guest_arm64: SKIP: x86-64 hosts only (the arm64 guests boot under TCG)"; exit 77; }
command -v qemu-system-aarch64 >/dev/null || { echo "ab.guest_arm64: SKIP: no qemu-system-aarch64"; exit 77; }
timeout 20 bash -c 'exec 3<>/dev/tcp/deb.debian.org/80' 2>/dev/null ||
	{ echo "ab.guest_arm64: SKIP: deb.debian.org unreachable (the kernels are fetched with apt-get download)"; exit 77; }
bench=$(bash "$src/tests/bpf/kbench/build.sh" --arch arm64)
rc=$?
((rc == 77)) && { echo "ab.guest_arm64: SKIP: the arm64 kernel bench cannot be built here (the line above says why)"; exit 77; }
((rc == 0)) || fail "tests/bpf/kbench/build.sh --arch arm64: exit $rc"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
read -r -a ks <<<"${RG_AB_TEST_KERNELS:-old=trixie:6.12.117+deb13 new=trixie-backports:7.3.4+deb13}"
args=()
for k in "${ks[@]}"; do args+=(--kernel "$k"); done
# (the guests' suites at their defaults: the user suite's is --quick, its quickest profile)
"$R" ab --arch arm64 --guest-rgbench "$g" "${args[@]}" --rounds 1 --timeout 3600 --kbench "$bench" \
	--out "$T/ab" >"$T/out" 2>"$T/err"
rc=$?
cat "$T/err" "$T/out"
((rc == 0)) || fail "rgbench ab exit $rc"
n=$(grep -c ',ok,' "$T/ab/manifest.csv")
((n == 2)) || fail "$n of 2 boots ok"
python3 - "$T/ab" <<'PY' || fail "rows missing, or host names"
import csv, json, os, sys
hosts = set()
bad = 0
for m in csv.DictReader(open(os.path.join(sys.argv[1], "manifest.csv"))):
    rows = json.load(open(os.path.join(sys.argv[1], m["result"])))["results"]
    hosts |= {r["host"] for r in rows}
    ok = {(r["suite"], r["scenario"].split("-")[0]) for r in rows if r.get("status") in ("ok", "noisy")}
    kb = {r["guard"]: r["status"] for r in rows if r["suite"] == "kbench"}
    need = {("bpf", "syscall"), ("kmod", "loop"), ("kmod", "tramp"), ("user", "pair"), ("kbench", "trig")}
    missing = need - ok
    # every trig-* case has a row; the ones every arm64 kernel with BTF and ftrace allows are ok
    runs = all(kb.get(t) == "ok" for t in ("trig-rawtp", "trig-tp", "trig-kprobe"))
    emulated = all(r["virt"].startswith("emulated") for r in rows)
    print(m["result"], len(rows), "rows; kbench", sorted(kb.items()),
          "; missing: %s" % sorted(missing) if missing else "; bpf, kmod, user and kbench rows there")
    bad += bool(missing) or len(kb) != 6 or not runs or not emulated
print("host names:", sorted(hosts))
sys.exit(1 if bad or len(hosts) != 1 or not next(iter(hosts)).startswith("rgbench-ab-arm64") else 0)
PY
grep -q '^EMULATED: the guests ran under qemu TCG' "$T/out" || fail "the table is not marked emulated"
grep -q '^kbench/trig/trig-rawtp p=1 ' "$T/out" || fail "the table has no kbench trig-rawtp row"
echo "ab.guest_arm64: PASS"
