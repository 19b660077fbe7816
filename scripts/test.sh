#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's test command: install what the tests need (deps.sh test), build natively and for aarch64, run
# every test (native; aarch64 under qemu-aarch64 with and without LSE), and the
# unit, stress, analysis, plots, smoke and badinput labels under ASan+UBSan instead, and the
# stress test under TSan. The native tests run beside the sanitizer and aarch64 builds and
# tests (three lanes: the other two's output follows the native tests').
# RG_TEST_ARGS passes extra arguments to the native and aarch64 ctest (e.g. "-L unit");
# RG_TEST_CROSS=0 / RG_TEST_SANITIZE=0 skip the aarch64 / sanitizer builds; RG_TEST_CCACHE=0
# builds without ccache.
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
# The labels the ASan+UBSan build runs (its stage below).
asan_labels='^(unit|stress|analysis|plots|smoke|badinput)$'
# cpu_read: $cpu_now, the CPU time (user + system, ms) of every process this script has waited
# for so far, descendants included: bash's `times` (its second line), run in this shell (in a
# command substitution it would be the subshell's own children's).
cpu_file=$(mktemp) lane_logs=() lane_pids=()
# stop_lanes: a lane still running when this script ends (interrupted, or failed) is stopped
# with its tests: each lane is a process group of its own (start_lane below).
stop_lanes() {
	local p
	for p in "${lane_pids[@]}"; do
		[[ -z $p ]] || kill -TERM -- "-$p" 2>/dev/null || true
	done
}
trap 'stop_lanes; rm -f "$cpu_file" "$cpu_file".* "${lane_logs[@]}"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
cpu_read() {
	local f=$cpu_file.$BASHPID	# (one file per shell: each lane reads its own)
	times >"$f"
	cpu_now=$(awk 'function ms(t, m) { m = t; sub(/m.*/, "", m); sub(/^[0-9]+m/, "", t); sub(/s$/, "", t)
		return (m * 60 + t) * 1000 } NR == 2 { printf "%d\n", ms($1) + ms($2) + 0.5 }' "$f")
}
# stage_start, then stage_time NAME: how long a stage took and the CPU time its processes used
# (the work itself, apart from waits and cores left idle; on a shared VM it still moves with
# the neighbours, less than the wall time), so a slow run says where its time went.
stage_start() { t0=$SECONDS; cpu_read; cpu0=$cpu_now; }
stage_time() {
	cpu_read
	stage_line="== $1: $((SECONDS - t0)) s, $(((cpu_now - cpu0 + 500) / 1000)) s of CPU (run so far: $SECONDS s)"
	echo "$stage_line"
}
# ctest_in DIR ARGS...: ctest in DIR; when a test fails, its failure lines again at the end
# (FAIL, CHECK ... failed, Traceback, error), so that the last lines of a long run (all a CI
# summary keeps) say why, not only which.
ctest_in() {
	local dir=$1 rc=0
	shift
	(cd "$dir" && ctest --output-on-failure "$@") || rc=$?
	((rc == 0)) && return 0
	why_failed "$dir"
	return "$rc"
}
# why_failed DIR: the failure lines of the tests that failed in DIR's last ctest run.
why_failed() {
	local dir=$1
	echo "== why the failed tests in $dir failed (their failure lines; the whole output is above and in $dir/Testing/Temporary/LastTest.log):"
	awk 'NR == FNR { sub(/^[0-9]+:/, ""); failed[$0] = 1; next }
	     /^[0-9]+\/[0-9]+ Test: / { name = failed[$3] ? $3 : ""; n = 0 }
	     /^(FAIL|Traceback)|CHECK\(.*\) failed|[Ee]rror[: ]|FAILED|AddressSanitizer|runtime error|Timeout/ {
	         if (name != "" && n < 12) { print name ": " $0; n++ } }' \
		"$dir/Testing/Temporary/LastTestsFailed.log" "$dir/Testing/Temporary/LastTest.log" 2>/dev/null |
		tail -60 || true
}
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

# Ninja where there is one (deps.sh installs it): the native build took 49 s of CPU with it
# and 69 s with make (whose makefiles start a cmake for every progress line and dependency
# scan). A tree configured before keeps its generator (CMake reads the variable for new trees).
command -v ninja >/dev/null && export CMAKE_GENERATOR=${CMAKE_GENERATOR:-Ninja}
# ccache where there is one (deps.sh test installs it): every landing's CI builds the same
# sources four times (native, ASan, TSan, aarch64) from a fresh clone; what an earlier run
# compiled is taken from ~/.cache/ccache. Paths under the checkout are hashed relative to it
# (CCACHE_BASEDIR) and the sanitizer builds' -g does not hash the build folder
# (CCACHE_NOHASHDIR), so another clone of the same commit hits. RG_TEST_CCACHE=0 turns it
# off; a tree configured before keeps its launcher (CMake reads these for new trees).
if [[ ${RG_TEST_CCACHE:-1} == 1 ]] && command -v ccache >/dev/null; then
	export CMAKE_C_COMPILER_LAUNCHER=${CMAKE_C_COMPILER_LAUNCHER:-ccache}
	export CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}
	export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}
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

# Every python3 the tests, and the tools under test, start is the one CMake chose for the
# tests (RG_PYTHON3: /usr/bin/python3 where there is one, with the distribution's
# matplotlib): a version manager's shim first in PATH would pick another, and slowly
# (pyenv's shim, a bash script, took 3 s per start on this project's loaded 2-core VM).
py=$(sed -n 's/^RG_PYTHON3:FILEPATH=//p' build/CMakeCache.txt)
if [[ -n $py && -x $py ]]; then
	mkdir -p build/python3-first
	ln -sfn "$py" build/python3-first/python3
	export PATH="$PWD/build/python3-first:$PATH"
fi

echo "== native build ($(uname -m))"
grep '^-- rgbench: ' build/configure.log || true
stage_start
cmake --build build -j"$jobs"
stage_time "native build"
if [[ $quick == 1 ]]; then
  ctest_in build -j"$jobs" -L '^(unit|smoke)$'
  echo "== quick tier passed (unit, smoke; the full run: scripts/test.sh)"
  exit 0
fi
# Two more lanes, each beside the native tests and the other (one stage after another, each
# stage's last long test left a core idle: about 150 core-seconds of a run, and on a fresh
# machine the other trees' builds waited for every native test): the sanitizer lane (its
# builds, the TSan stress test, the ASan+UBSan tests) and the aarch64 lane (the cross build,
# its tests under qemu-aarch64). Each lane's output goes to a file, printed after the native
# tests' (its stage lines at once as well); a lane stops at its first failure, as the whole
# run did. Every lane runs ctest -j$jobs: where one lane's tests wait (ssh, boots, sleeps),
# another's run, and a lane that ends first leaves no core idle. (The sanitizer and aarch64
# lanes at half that each left one at the end: 619 s, against 591 s at -j$jobs.)
lane_sanitizer() {
	# ASan + UBSan over everything the user, analysis and plots code does with its input;
	# any finding aborts the test that hit it.
	echo "== sanitizer build (build-asan: address,undefined): labels unit stress analysis plots smoke badinput"
	stage_start
	cmake --build build-asan -j"$jobs"
	stage_time "sanitizer build"
	echo "$stage_line (sanitizer lane)" >&3
	stage_start
	# ThreadSanitizer over the stress test (threads, signals, oversubscription): the
	# guards tell it what their inline asm orders (rg/guards/tsan_flag.h), so a report
	# is a real race. Fewer iterations: TSan is ~10x slower.
	echo "== sanitizer build (build-tsan: thread): the stress test"
	cmake --build build-tsan -j"$jobs" --target test_stress
	TSAN_OPTIONS=halt_on_error=1 build-tsan/tests/guards/test_stress 200000 50000 10
	stage_time "thread sanitizer build and stress test"
	echo "$stage_line (sanitizer lane)" >&3
	stage_start
	supp="$PWD/tests/lsan.supp"	# leaks inside third-party libraries only
	ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1 \
	LSAN_OPTIONS=suppressions="$supp":print_suppressions=0 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	ctest_in build-asan -j"$jobs" -L "$asan_labels"
	stage_time "sanitizer tests"
	echo "$stage_line (sanitizer lane)" >&3
}
lane_aarch64() {
	echo "== aarch64 cross build, tests under qemu-aarch64 (-cpu max and cortex-a72)"
	grep '^-- rgbench: ' build-aarch64/configure.log || true
	stage_start
	cmake --build build-aarch64 -j"$jobs"
	stage_time "aarch64 build"
	echo "$stage_line (aarch64 lane)" >&3
	stage_start
	ctest_in build-aarch64 -j"$jobs" ${RG_TEST_ARGS:-}
	stage_time "aarch64 tests"
	echo "$stage_line (aarch64 lane)" >&3
}
lanes=()
# start_lane NAME: lane_NAME in the background, its output in a file of its own, in a process
# group of its own (set -m): without job control a background command ignores SIGINT, and
# Ctrl-C would have left it running; stop_lanes stops the group on any exit.
start_lane() {
	local log
	log=$(mktemp)
	set -m
	(exec 3>&1 >"$log" 2>&1 </dev/null; "lane_$1") &
	set +m
	lanes+=("$1") lane_pids+=($!) lane_logs+=("$log")
}
[[ $sanitize == 1 ]] && start_lane sanitizer
[[ $cross == 1 ]] && start_lane aarch64
case ${#lanes[@]} in
	0) ;;
	1) echo "== beside the native tests: the ${lanes[0]} lane (its output after the native tests')" ;;
	*) echo "== beside the native tests: the ${lanes[0]} and ${lanes[1]} lanes (their output after the native tests')" ;;
esac

# A test the sanitizer build runs runs there only: the same assertions on the same
# Release code, with ASan and UBSan watching (running it here as well repeated its work).
# Tests labelled 'native' run here too: in a sanitizer build they do less (fewer pairs,
# fewer rows, a case a sanitizer runtime cannot run).
native_skip=()
if [[ $sanitize == 1 ]]; then
	# A fixture's setup test stays (ctest -E leaves it out, and a test that needs it then
	# finds nothing: analysis.hostile_io failed so from a fresh clone).
	mapfile -t twice < <(cd build && ctest -N -L "$asan_labels" -LE '^native$' |
		sed -n 's/^ *Test *#[0-9]*: //p' |
		grep -vxF -f <(ctest --show-only=json-v1 | python3 -c '
import json, sys
for t in json.load(sys.stdin)["tests"]:
    if any(p["name"] == "FIXTURES_SETUP" for p in t.get("properties", [])):
        print(t["name"])') |
		sed 's/[.]/[.]/g')
	((${#twice[@]} == 0)) || native_skip=(-E "^($(IFS='|'; echo "${twice[*]}"))\$")
	echo "== native tests: all but ${#twice[@]} that run in the sanitizer build only (labels $asan_labels, not native)"
fi
# (in a subshell, whose CPU time is its own: a lane that ended first is this shell's too)
native_rc=0
(
	stage_start
	rc=0
	ctest_in build -j"$jobs" "${native_skip[@]}" ${RG_TEST_ARGS:-} || rc=$?
	stage_time "native tests"
	exit "$rc"
) || native_rc=$?
lane_rc=0
for i in "${!lanes[@]}"; do
	kill -0 "${lane_pids[$i]}" 2>/dev/null && echo "== waiting for the ${lanes[$i]} lane"
	rc=0
	wait "${lane_pids[$i]}" || rc=$?
	lane_pids[i]=	# (ended: its number may be another process's now)
	echo "== the ${lanes[$i]} lane's output:"
	cat "${lane_logs[$i]}"
	rm -f "${lane_logs[$i]}"
	((rc == 0)) || { echo "== the ${lanes[$i]} lane failed (exit $rc): its last stage above says where"; lane_rc=$rc; }
done
if ((native_rc != 0)); then
	why_failed build
	exit "$native_rc"
fi
((lane_rc == 0)) || exit "$lane_rc"
cpu_read
echo "== all tests passed in $SECONDS s, $(((cpu_now + 500) / 1000)) s of CPU"
