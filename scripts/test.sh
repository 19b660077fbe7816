#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's test command: install deps, build natively and for aarch64, run
# every test (native; aarch64 under qemu-aarch64 with and without LSE).
# RG_TEST_ARGS passes extra arguments to ctest (e.g. "-L unit").
# RG_TEST_ARM64_NATIVE=1 also runs both README commands in a Debian arm64 system under
# qemu-user (test arm64.native, label arm64-native: about an hour; see tests/arm64/native.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

bash scripts/deps.sh

echo "== native build ($(uname -m))"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs" ${RG_TEST_ARGS:-})

if [[ "${RG_TEST_CROSS:-1}" == 1 && "$(uname -m)" != aarch64 ]]; then
  echo "== aarch64 cross build, tests under qemu-aarch64 (-cpu max and cortex-a72)"
  cmake -S . -B build-aarch64 -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64.cmake >/dev/null
  cmake --build build-aarch64 -j"$jobs"
  (cd build-aarch64 && ctest --output-on-failure -j"$jobs" ${RG_TEST_ARGS:-})
fi
echo "== all tests passed"
