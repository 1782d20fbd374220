#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The second command of the README, and what CI runs: installs every dependency, builds with
# warnings as errors, and runs every test; then the element suites under GStreamer's leaks
# tracer (scripts/test-leaks.sh), the CPU suites again under ASan and UBSan
# (scripts/test-sanitized.sh), the core's suite on AArch64 under qemu-user
# (scripts/test-aarch64.sh) and a one-minute fuzz run of each harness, the core's and the
# histeq element's (scripts/fuzz.sh). GPU tests skip (with the reason) without a device.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh -Dwerror=true
meson test -C build --print-errorlogs --num-processes 2 "$@"
scripts/test-leaks.sh
scripts/test-sanitized.sh
scripts/test-aarch64.sh
scripts/fuzz.sh 60
