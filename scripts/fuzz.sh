#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds the core's libFuzzer harness (fuzz/core_fuzzer.cpp) with clang, ASan and UBSan into
# ./build-fuzz and runs it for SECONDS (default 60), starting from the seeds in fuzz/corpus/core
# and growing build-fuzz/corpus. Inputs that crash it are written to build-fuzz/ and belong in
# fuzz/regressions/core, which every run replays first. A longer run: scripts/fuzz.sh 3600.
#   scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
mkdir -p build-fuzz/corpus
clang++ -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -Icore fuzz/core_fuzzer.cpp core/cpu_equalizer.cpp core/frame_stats.cpp core/luma_histogram.cpp \
  core/lut_map.cpp core/params.cpp core/row_pool.cpp core/tone_map.cpp -lpthread \
  -o build-fuzz/core_fuzzer
if compgen -G 'fuzz/regressions/core/*' >/dev/null; then
  build-fuzz/core_fuzzer fuzz/regressions/core/*
fi
build-fuzz/core_fuzzer -max_total_time="$seconds" -artifact_prefix=build-fuzz/ \
  -print_final_stats=1 build-fuzz/corpus fuzz/corpus/core
