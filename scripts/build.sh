#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Configures (once) and builds the project in ./build. Extra arguments go to `meson setup`.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/cuda/bin:$PATH
if [[ ! -f build/build.ninja ]]; then
  meson setup build "$@"
elif (($#)); then
  meson configure build "$@"
fi
# meson 1.0 gets no dependency files from nvcc, so a CUDA object is not rebuilt when only a
# header it includes changes (a stale object then sees an old class layout). Every CUDA object
# older than the newest project header is dropped and rebuilt.
newest=$(find core cuda bench tests \( -name '*.h' -o -name '*.cuh' \) -printf '%T@\n' |
  sort -n | tail -1)
find build -name '*.cu.o' ! -newermt "@$newest" -delete
meson compile -C build
