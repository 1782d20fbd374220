#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# nvcodec's cudaconvert and cudascale (GStreamer 1.22) compile their kernels at run time with
# NVRTC for compute_52, which NVRTC 13 no longer takes: on a machine with CUDA 13 alone they are
# not registered. This fetches Debian 12's NVRTC 11.8 (non-free: libnvrtc11.2 and its builtins;
# downloaded, not installed) into OUTDIR/nvrtc.tar.xz, compressed to fit the GPU machine's carry
# limit beside .gstrt. scripts/gpu-check.sh unpacks it and names it in GST_CUDA_NVRTC_LIBNAME,
# the variable libgstcuda reads; a user of cudaconvert with CUDA 13 does the same with any
# NVRTC of CUDA 11 or 12.
#   scripts/bundle-nvrtc.sh [OUTDIR]     (default .nvrtc, ignored by git)
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-.nvrtc}")
work=$(mktemp -d)
sources=/etc/apt/sources.list.d/histeq-non-free.sources
trap 'rm -rf "$work" "$sources"' EXIT
printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: non-free\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
  >"$sources"
apt-get update -qq
(cd "$work" && apt-get download -qq libnvrtc11.2 libnvrtc-builtins11.8 2>/dev/null)
for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$work/root"; done
rm -rf "$out"
mkdir -p "$out"
tar -C "$work/root/usr/lib/x86_64-linux-gnu" -cJf "$out/nvrtc.tar.xz" \
  libnvrtc.so.11.2 libnvrtc.so.11.8.89 libnvrtc-builtins.so.11.8 libnvrtc-builtins.so.11.8.89
echo "bundle-nvrtc: $out/nvrtc.tar.xz ready ($(du -h "$out/nvrtc.tar.xz" | cut -f1))"
