#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs everything the build, the tests and the sample pipelines need on Debian 12 (as root).
# nvcc is not a Debian package: when /usr/local/cuda/bin/nvcc exists the CUDA element is built,
# otherwise only the CPU element.
#   scripts/install-deps.sh [PACKAGE...]   (given packages: those instead, as for the AArch64 tests)
set -euo pipefail

packages=(
  git ca-certificates meson ninja-build pkg-config g++ clang-format
  libgtest-dev libgmock-dev libopencv-imgproc-dev clang libclang-rt-14-dev libhwy-dev
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly gstreamer1.0-libav
  libavformat-dev libavcodec-dev libavutil-dev libavfilter-dev libswscale-dev
  python3-gi python3-gst-1.0 python3-numpy python3-matplotlib gnuplot-nox
  python3-gi-cairo gir1.2-gst-rtsp-server-1.0 ffmpeg
)

(($#)) && packages=("$@")

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # --no-remove: a package that cannot sit beside one already here (an arm64 one beside its
  # amd64 twin) fails the install instead of taking the other away.
  apt-get install -y -qq --no-install-recommends --no-remove "${missing[@]}"
fi
