#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# vm.sh must run a command in Debian's kernel (this machine's architecture), pass its exit status and copy /out back, switch to one instruction per block at a marker (--step-from) and back at another (--step-until).
set -euo pipefail
vm=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/payload"
printf 'uname -r > /out/release\nprintf "a,b\\n1,2\\n" > /out/t.csv\necho guest-says-hi\necho @@RG-STEP\nsleep 1\necho @@RG-STEP-END\nexit 7\n' >"$tmp/payload/t.sh"
set +e
bash "$vm" --payload "$tmp/payload" --out "$tmp/out" --timeout 240 --step-from @@RG-STEP --step-until @@RG-STEP-END -- sh t.sh \
  >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
set -e
cat "$tmp/stderr" >&2
((rc == 77)) && exit 77
[[ $rc == 7 ]] || { echo "FAIL: exit status $rc, want 7"; cat "$tmp/stdout"; exit 1; }
grep -Eq '^vm.sh: one instruction per translated block from @@RG-STEP to @@RG-STEP-END \(monitor: (one-insn-per-tb|singlestep) on, (one-insn-per-tb|singlestep) off\)$' "$tmp/stderr" ||
  { echo "FAIL: --step-from/--step-until did not report both switches"; exit 1; }
# --step-until alone: a usage error, nothing booted.
set +e
err=$(bash "$vm" --step-until X -- true 2>&1)
rc=$?
set -e
[[ $rc == 2 && $err == "vm.sh: --step-until needs --step-from" ]] || { echo "FAIL: --step-until alone: exit $rc: $err"; exit 1; }
grep -qx guest-says-hi "$tmp/stdout" || { echo "FAIL: command output missing"; cat "$tmp/stdout"; exit 1; }
[[ "$(cat "$tmp/out/t.csv")" == $'a,b\n1,2' ]] || { echo "FAIL: /out/t.csv not copied back intact"; exit 1; }
arch=$(dpkg --print-architecture)
# Debian's kernel release: X.Y.0-ABI-ARCH up to Debian 12 (6.1.0-57-amd64),
# X.Y.Z+debN-ARCH since Debian 13 (6.12.118+deb13-amd64); nothing else.
grep -Eq "^[0-9]+\.[0-9]+\.(0-[0-9]+|[0-9]+\+deb[0-9]+)-$arch\$" "$tmp/out/release" ||
  { echo "FAIL: guest kernel $(cat "$tmp/out/release")"; exit 1; }
# vm.sh boots the ABI of the installed linux-headers-<arch> when there is one: exactly that.
want=$(dpkg-query -W -f='${Depends}\n' "linux-headers-$arch" 2>/dev/null |
       grep -o "linux-headers-[0-9][^ ,]*-$arch" | head -1 | sed 's/^linux-headers-//') || true
[[ -z $want || "$(cat "$tmp/out/release")" == "$want" ]] ||
  { echo "FAIL: guest kernel $(cat "$tmp/out/release"), want $want (linux-headers-$arch)"; exit 1; }
[[ "$(cat "$tmp/out/release")" != "$(uname -r)" ]] || { echo "FAIL: ran on the host kernel?"; exit 1; }
echo "vm.sh ok: guest kernel $(cat "$tmp/out/release")"
