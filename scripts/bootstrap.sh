#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The first command of the README: installs every dependency, builds, and runs the main job
# (a low-contrast sample clip equalized through a GStreamer pipeline) into ./out.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
GST_PLUGIN_PATH="$PWD/build/plugin" pipelines/equalize-sample out
