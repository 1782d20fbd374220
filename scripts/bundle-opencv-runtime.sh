#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copies the shared libraries histeq-cpu-bench needs beyond glibc and libstdc++ (OpenCV, which it
# runs beside histeq, and what OpenCV links) into one folder, for the GPU machine's host, which
# has no OpenCV of its own as a C++ library. Run here after building; carry the folder (it stays
# apart from the GStreamer bundle, which it would push past the size a call can carry) and run
# scripts/gpu-check.sh cpu-bench, which puts its lib/ on the library path.
#   scripts/bundle-opencv-runtime.sh [OUTDIR]        (default .cvrt, ignored by git)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.cvrt}
bench=build/bench/cpu/histeq-cpu-bench
[[ -x $bench ]] || { echo "bundle-opencv-runtime: build $bench first" >&2; exit 1; }
mkdir -p "$out/lib"
ldd "$bench" | awk '$3 ~ /^\// {print $3}' | while read -r lib; do
  case $(basename "$lib") in
    libc.so.* | libm.so.* | ld-linux* | libpthread.so.* | libdl.so.* | librt.so.* | \
      libstdc++.so.* | libgcc_s.so.*) continue ;;
  esac
  cp -L "$lib" "$out/lib/"
done
echo "bundle-opencv-runtime: $out ready ($(du -sh "$out" | cut -f1))"
