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
meson compile -C build
