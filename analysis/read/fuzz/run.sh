#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build a libFuzzer target with clang (ASan) and fuzz it for a while: the result reader, or the module's raw CSV converter.
# usage: analysis/read/fuzz/run.sh [SECONDS] [WORKDIR] [reader|kmod_raw]   (default 60 s, build-fuzz/, reader)
# Seeds: tests/analysis/corpus/ (reader), tests/kmod/data/raw_*.csv (kmod_raw).
# New finds land in WORKDIR/corpus[-kmod_raw]; crashes in WORKDIR/.
set -euo pipefail
cd "$(dirname "$0")/../../.."
secs=${1:-60}
work=${2:-build-fuzz}
what=${3:-reader}
case $what in
reader)
	mkdir -p "$work/corpus"
	inc="-Ianalysis/read/include -Ischema/include -Iarch/include"
	# shellcheck disable=SC2086
	clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined $inc \
		analysis/read/fuzz/fuzz_reader.c analysis/read/validate.c analysis/read/read_*.c schema/csv.c schema/rows.c arch/input.c \
		$(pkg-config --cflags --libs jansson) -lm -o "$work/fuzz_reader"
	cp -n tests/analysis/corpus/* "$work/corpus/" 2>/dev/null || true
	"$work/fuzz_reader" -max_total_time="$secs" -max_len=4096 -timeout=10 -rss_limit_mb=1024 \
		-dict=analysis/read/fuzz/reader.dict -artifact_prefix="$work/" -print_final_stats=1 "$work/corpus"
	;;
kmod_raw)
	# The converter needs the schema and the guard registry: a clang CMake build of that target.
	cmake -S . -B "$work/cmake" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
		-DCMAKE_CXX_COMPILER=clang++ >/dev/null
	cmake --build "$work/cmake" --target rg_fuzz_kmod_raw -j2 >/dev/null
	mkdir -p "$work/corpus-kmod_raw"
	cp -n tests/kmod/data/raw_*.csv "$work/corpus-kmod_raw/" 2>/dev/null || true
	"$work/cmake/kernel/kmod/rg_fuzz_kmod_raw" -max_total_time="$secs" -max_len=4096 -timeout=10 \
		-rss_limit_mb=1024 -artifact_prefix="$work/" -print_final_stats=1 "$work/corpus-kmod_raw"
	;;
*)
	echo "usage: $0 [SECONDS] [WORKDIR] [reader|kmod_raw]" >&2
	exit 2
	;;
esac
