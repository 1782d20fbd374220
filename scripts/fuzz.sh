#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds the libFuzzer harnesses with clang, ASan and UBSan into ./build-fuzz and runs each for
# SECONDS (default 60): the core's (fuzz/core_fuzzer.cpp: frame size, strides, every option,
# samples) and the histeq element's (fuzz/element_fuzzer.cpp: caps, GstVideoMeta and crop meta,
# buffer size and bytes, through GstHarness). Each starts from its seeds in fuzz/corpus/NAME and
# grows build-fuzz/corpus/NAME. Inputs that crash one are written to build-fuzz/ and belong in
# fuzz/regressions/NAME, which every run replays first. A longer run: scripts/fuzz.sh 3600.
#   scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
flags=(-std=c++17 -O1 -g -ffp-contract=off -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined)
# Every source of the core library (core/meson.build builds them all).
core=(core/*.cpp)
mkdir -p build-fuzz/corpus/core build-fuzz/corpus/element
clang++ "${flags[@]}" -Icore fuzz/core_fuzzer.cpp "${core[@]}" -lhwy -lpthread -o build-fuzz/core_fuzzer
# The element is built into the harness and registered there, instrumented like the core.
# shellcheck disable=SC2046
clang++ "${flags[@]}" -Icore -Iplugin -DGST_USE_UNSTABLE_API -DPACKAGE='"gst-histeq"' \
  -DPACKAGE_VERSION='"fuzz"' fuzz/element_fuzzer.cpp plugin/gsthisteq.cpp plugin/gsthisteqbase.cpp \
  plugin/luma_frame.cpp "${core[@]}" \
  $(pkg-config --cflags --libs gstreamer-check-1.0 gstreamer-video-1.0 gstreamer-base-1.0) \
  -lhwy -lpthread -o build-fuzz/element_fuzzer
for name in core element; do
  if compgen -G "fuzz/regressions/$name/*" >/dev/null; then
    "build-fuzz/${name}_fuzzer" "fuzz/regressions/$name"/*
  fi
  # GLib and GStreamer keep type, caps and quark tables, and threads of their own, for the life
  # of the process, which libFuzzer's per-input leak check and LeakSanitizer's check at exit
  # would report; the element's leaks are the leaks tracer's (scripts/test-leaks.sh).
  leaks=1
  [[ $name == element ]] && leaks=0
  seeds=()
  [[ -d fuzz/corpus/$name ]] && seeds=("fuzz/corpus/$name")
  ASAN_OPTIONS="detect_leaks=$leaks${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
    "build-fuzz/${name}_fuzzer" -max_total_time="$seconds" -detect_leaks=$leaks \
    -artifact_prefix=build-fuzz/ -print_final_stats=1 "build-fuzz/corpus/$name" "${seeds[@]}"
done
