#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Boot Debian's 6.1 kernel (fentry/fexit/kprobe allowed there) and check those rows run and count exactly.
# Usage: vm_fentry.sh VM_SH RGBENCH_BPF_STATIC CHECK_VM_PY    (exit 77: no qemu/kernel -> skip)
#        vm_fentry.sh --from DIR RGBENCH_BPF_STATIC CHECK_VM_PY
#   --from: no boot of its own; the same payload ran as case V of kmod.qemu's boot of the same
#   kernel (tests/kmod/qemu_kmod.sh --vm-fentry DIR), which left its files (v_*) in DIR;
#   77 when DIR has none (kmod.qemu skipped).
set -euo pipefail
from=
if [[ $1 == --from ]]; then from=$2; shift 2; set -- - "$@"; fi
vm=$1 bin=$2 check=$3
ldd "$bin" >/dev/null 2>&1 && { echo "FAIL: $bin is not statically linked"; exit 1; }
if [[ -n $from ]]; then
  [[ -f $from/v_release ]] || { echo "SKIP: no files of case V in $from (kmod.qemu skipped?)"; exit 77; }
  cat "$from/v_run.txt" 2>/dev/null || true
  echo "guest kernel: $(cat "$from/v_release") (kmod.qemu's boot, case V)"
  exec python3 "$check" "$from/v_bpf.csv" "$from/v_timed.csv" 2000 2
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/payload"
cp "$bin" "$tmp/payload/rgbench-bpf"
# Timings under TCG mean nothing; counts, statuses and the row layout do.
cat >"$tmp/payload/run.sh" <<'GUEST'
uname -r > /out/release
./rgbench-bpf --mode all --triggers 2000 --batch 100 -p 2 --out /out/bpf.csv --json /out/bpf.json
echo "rgbench-bpf exit $?" 
./rgbench-bpf --mode driver --attach fentry --duration 0.2 --repetitions 3 --warmup 0.1 --out /out/timed.csv
echo "rgbench-bpf timed exit $?"
GUEST
set +e
bash "$vm" --payload "$tmp/payload" --out "$tmp/out" --smp 2 --timeout 400 -- sh run.sh
rc=$?
set -e
((rc == 77)) && exit 77
((rc == 0)) || { echo "FAIL: guest run exited $rc"; exit 1; }
echo "guest kernel: $(cat "$tmp/out/release" 2>/dev/null)"
python3 "$check" "$tmp/out/bpf.csv" "$tmp/out/timed.csv" 2000 2
