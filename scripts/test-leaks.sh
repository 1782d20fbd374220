#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The element suites under GStreamer's leaks tracer (meson's `leaks` test setup, meson.build):
# any GstObject or GstMiniObject still alive at gst_deinit() fails its suite, and the log lists
# each one with its type (GST_DEBUG=GST_TRACER:7). Run by scripts/test.sh after the main suites,
# in the main build.
#   scripts/test-leaks.sh [meson test arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
meson test -C build --setup leaks --suite element --print-errorlogs --num-processes 2 "$@"
