#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Makes the relocatable GStreamer bundle for the GPU machine with the GPU workplace's own
# make-gst-runtime.sh (GST_RUNTIME_MAKER names it), then adds what the main job
# (pipelines/equalize-sample), the scripts and the tests use beyond it: videofilter
# (videobalance), compositor and png (pngenc), videocrop (the crop-metadata tests), x265 (the
# 10-bit HEVC clips that the NVDEC Main10 test decodes), rtsp, rtp, rtpmanager, udp and
# gst-rtsp-server's library (pipelines/serve and its clients), video4linux2 (the camera source),
# with the libraries they need that the bundle lacks, libgstcontroller (the options tests drive
# a property through a GstController) and libhwy (the CPU core's SIMD). Run here; carry the
# folder, and source its env.sh there before scripts/gpu-check.sh.
#   GST_RUNTIME_MAKER=PATH/make-gst-runtime.sh scripts/bundle-gst-runtime.sh [OUTDIR]
#   (OUTDIR defaults to .gstrt, ignored by git)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.gstrt}
maker=${GST_RUNTIME_MAKER:-}
if [[ -z $maker || ! -f $maker ]]; then
  echo "bundle-gst-runtime: set GST_RUNTIME_MAKER to the GPU workplace's make-gst-runtime.sh" \
    "(now: '${maker}')" >&2
  exit 1
fi
bash "$maker" "$out"
plugins=$(pkg-config --variable=pluginsdir gstreamer-1.0)
libdir=$(pkg-config --variable=libdir gstreamer-1.0)
# Copies $1 to $2 with the libraries it links that the bundle lacks. glibc, libstdc++ and libgcc
# stay behind, as make-gst-runtime.sh leaves them: the GPU machine has its own.
copy_with_libraries() {
  cp -L "$1" "$2"
  ldd "$1" | awk '$3 ~ /^\// {print $3}' | while read -r lib; do
    name=$(basename "$lib")
    case $name in
      libc.so.* | libm.so.* | ld-linux* | libpthread.so.* | libdl.so.* | librt.so.* | \
        libstdc++.so.* | libgcc_s.so.* | libresolv.so.* | libutil.so.*) continue ;;
    esac
    [[ -e $out/lib/$name ]] || cp -L "$lib" "$out/lib/$name"
  done
}
for plugin in videofilter compositor png videocrop x265 rtsp rtp rtpmanager udp video4linux2; do
  copy_with_libraries "$plugins/libgst$plugin.so" "$out/lib/gstreamer-1.0/"
done
copy_with_libraries "$libdir/libgstrtspserver-1.0.so.0" "$out/lib/"
cp -L "$(pkg-config --variable=libdir gstreamer-controller-1.0)/libgstcontroller-1.0.so.0" "$out/lib/"
# The CPU core's SIMD library, which the plugin, the tests and the benchmarks link.
cp -L "$(pkg-config --variable=libdir libhwy)/libhwy.so.1" "$out/lib/"
echo "bundle-gst-runtime: $out ready (plus videofilter, compositor, png, videocrop, x265, rtsp," \
  "rtp, rtpmanager, udp, video4linux2, libgstrtspserver, libgstcontroller, libhwy)"
