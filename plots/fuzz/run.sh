#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build the reader's libFuzzer target with clang (ASan) and fuzz it for a while.
# usage: plots/fuzz/run.sh [SECONDS] [WORKDIR]   (default 60 s, build-fuzz/)
# Seeds: tests/plots/corpus/. New finds land in WORKDIR/corpus; crashes in WORKDIR/.
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-60}
work=${2:-build-fuzz}
mkdir -p "$work/corpus"
inc="-Iplots/include -Ischema/include -Iarch/include"
# shellcheck disable=SC2086
clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined $inc \
	plots/fuzz/fuzz_reader.c plots/validate.c plots/read_*.c schema/csv.c $(pkg-config --cflags --libs jansson) -lm \
	-o "$work/fuzz_reader"
cp -n tests/plots/corpus/* "$work/corpus/" 2>/dev/null || true
"$work/fuzz_reader" -max_total_time="$secs" -max_len=4096 -timeout=10 -rss_limit_mb=1024 \
	-dict=plots/fuzz/reader.dict -artifact_prefix="$work/" -print_final_stats=1 "$work/corpus"
