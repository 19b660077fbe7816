#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's test command: install what the tests need (deps.sh test), build natively and for aarch64, run
# every test (native; aarch64 under qemu-aarch64 with and without LSE), and the
# unit, stress, analysis, plots, smoke and badinput labels again under ASan+UBSan, and the
# stress test under TSan.
# RG_TEST_ARGS passes extra arguments to the native and aarch64 ctest (e.g. "-L unit");
# RG_TEST_CROSS=0 / RG_TEST_SANITIZE=0 skip the aarch64 / sanitizer builds.
# RG_TEST_ARM64_NATIVE=1 also runs both README commands in a Debian arm64 system under
# qemu-user (test arm64.native, label arm64-native: about an hour; see tests/arm64/native.sh;
# RG_ROOTFS_RELEASE=trixie for Debian 13). RG_TEST_DISTRO=1 runs the README's first command
# and this one in a pristine Debian 13 amd64 chroot (test distro.debian13_amd64, label distro).
# RG_TEST_KBENCH=1 builds the kernel's own BPF bench from linux-source and reports rgbench bpf's
# raw_tp rate and producer CPU time against it (test bpf.kbench, label kbench; a table of ratios
# printed, never asserted).
# RG_TEST_KMOD13=1 runs the module's guest tests in a Debian 13 amd64 root against its 6.12
# kernel, x86-64 and arm64 (test kmod.debian13, label debian13; docs/kmod-versions.md).
# scripts/test.sh --quick: the edit-build-test loop (native build, labels unit and smoke,
# no sanitizer or aarch64 builds): about a minute on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
quick=0
case "${1:-}" in
  --quick) quick=1 ;;
  "") ;;
  *) echo "scripts/test.sh: unknown argument '$1' (only --quick)" >&2; exit 2 ;;
esac

bash scripts/deps.sh test

# Which builds this run makes. Under user-mode emulation (tests/arm64's Debian arm64
# system) /proc/cpuinfo is the host's; the sanitizer runtimes do not work there
# (LeakSanitizer cannot run at all).
sanitize=${RG_TEST_SANITIZE:-1}
cross=${RG_TEST_CROSS:-1}
if [[ $quick == 1 ]]; then
  sanitize=0 cross=0
fi
if [[ $sanitize == 1 ]] && ! case "$(uname -m)" in
    aarch64) grep -q '^CPU implementer' /proc/cpuinfo ;;
    *) true ;;
  esac; then
  echo "== sanitizer builds skipped: this system runs under user-mode emulation (qemu-user)"
  sanitize=0
fi
# The cross build needs the arm64 libraries deps.sh installs on Debian (multiarch); a system
# without them (Ubuntu without its ports sources, Fedora) says so and skips it.
if [[ $cross == 1 && "$(uname -m)" == aarch64 ]]; then
  cross=0
elif [[ $cross == 1 && ! -d /usr/lib/aarch64-linux-gnu/cmake/benchmark ]]; then
  echo "== aarch64 cross build skipped: no arm64 Google Benchmark (/usr/lib/aarch64-linux-gnu/cmake/benchmark; RG_TEST_CROSS=0 says this on purpose)"
  cross=0
fi

# Every build tree is configured at once (configuring is one process each, mostly
# waiting on compiler checks): DIR, then its cmake arguments. Each log is DIR/configure.log.
configure() {
  local dir=$1
  shift
  mkdir -p "$dir"
  # The test trees share one extraction of libperf's sources (an opt-in cache, cmake/libperf.cmake).
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release ${HOME:+"-DRG_LIBPERF_CACHE=$HOME/.cache/rgbench/libperf-src"} \
    "$@" >"$dir/configure.log" 2>&1
}
pids=() dirs=()
start_configure() { configure "$@" & pids+=($!) dirs+=("$1"); }
# analysis.corpus runs its own ASan+UBSan reader in a plain build; with the sanitizer
# build below it runs there, through the sanitized rgbench-report, and once.
if [[ $sanitize == 1 ]]; then
  start_configure build -DRG_ANALYSIS_ASAN_CORPUS=OFF
else
  start_configure build -DRG_ANALYSIS_ASAN_CORPUS=ON
fi
if [[ $sanitize == 1 ]]; then
  start_configure build-asan -DRG_SANITIZE=address,undefined
  start_configure build-tsan -DRG_SANITIZE=thread
fi
if [[ $cross == 1 ]]; then
  start_configure build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64.cmake
fi
failed=()
for i in "${!pids[@]}"; do	# all of them, so that none is left running after a failure
  wait "${pids[$i]}" || failed+=("${dirs[$i]}")
done
for dir in "${failed[@]}"; do
  cat "$dir/configure.log" >&2
  echo "scripts/test.sh: configuring $dir failed" >&2
done
((${#failed[@]} == 0)) || exit 1

echo "== native build ($(uname -m))"
grep '^-- rgbench: ' build/configure.log || true
cmake --build build -j"$jobs"
if [[ $quick == 1 ]]; then
  (cd build && ctest --output-on-failure -j"$jobs" -L '^(unit|smoke)$')
  echo "== quick tier passed (unit, smoke; the full run: scripts/test.sh)"
  exit 0
fi
(cd build && ctest --output-on-failure -j"$jobs" ${RG_TEST_ARGS:-})

if [[ "$sanitize" == 1 ]]; then
	# ASan + UBSan over everything the user, analysis and plots code does with its input;
	# any finding aborts the test that hit it.
	echo "== sanitizer build (build-asan: address,undefined): labels unit stress analysis plots smoke badinput"
	cmake --build build-asan -j"$jobs"
	supp="$PWD/tests/lsan.supp"	# leaks inside third-party libraries only
	(cd build-asan &&
	 ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1 \
	 LSAN_OPTIONS=suppressions="$supp":print_suppressions=0 \
	 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	 ctest --output-on-failure -j"$jobs" -L '^(unit|stress|analysis|plots|smoke|badinput)$')
	# ThreadSanitizer over the stress test (threads, signals, oversubscription): the
	# guards tell it what their inline asm orders (rg/guards/tsan_flag.h), so a report
	# is a real race. Fewer iterations: TSan is ~10x slower.
	echo "== sanitizer build (build-tsan: thread): the stress test"
	cmake --build build-tsan -j"$jobs" --target test_stress
	TSAN_OPTIONS=halt_on_error=1 build-tsan/tests/guards/test_stress 200000 50000 10
fi

if [[ $cross == 1 ]]; then
  echo "== aarch64 cross build, tests under qemu-aarch64 (-cpu max and cortex-a72)"
  grep '^-- rgbench: ' build-aarch64/configure.log || true
  cmake --build build-aarch64 -j"$jobs"
  (cd build-aarch64 && ctest --output-on-failure -j"$jobs" ${RG_TEST_ARGS:-})
fi
echo "== all tests passed"
