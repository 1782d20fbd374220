#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The CPU test suites under AddressSanitizer and UndefinedBehaviorSanitizer, in ./build-asan
# (the CUDA engine left out: its tests need a GPU and compute-sanitizer), through the meson
# test setup `sanitized` (meson.build), which preloads the runtimes into the tests only. Every
# suite keeps its own registry. Any ASan or UBSan report fails the run. Run by scripts/test.sh after the main
# suites.
#   scripts/test-sanitized.sh [meson test arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
# Warnings are the main build's job (-Dwerror=true there): GCC 12 warns falsely inside
# <regex> once ASan instruments it (maybe-uninitialized).
if [[ ! -f build-asan/build.ninja ]]; then
  meson setup build-asan -Dcuda=disabled -Dbench=disabled -Db_sanitize=address,undefined \
    -Db_lundef=false -Dbuildtype=debugoptimized
fi
meson compile -C build-asan
meson test -C build-asan --setup sanitized --print-errorlogs --num-processes 2 "$@"
