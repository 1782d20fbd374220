#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Makes the README's "which settings for which footage" pictures: one clip (a dark zone plate
# with sensor noise, a bright hazy band on its right and a lamp; 640x360, 3 s) and
# pipelines/compare's before/after of its frame at 2 s for each setting, as small palette PNGs
# next to this script.
#   GST_PLUGIN_PATH=$PWD/build/plugin pipelines/doc/settings-pictures.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
clip=$work/night.mp4
caps=video/x-raw,width=640,height=360,framerate=30/1

gst-launch-1.0 -q -e compositor name=mix background=black sink_1::xpos=440 sink_1::width=200 \
    sink_2::alpha=0.05 sink_3::xpos=470 sink_3::ypos=40 sink_3::width=90 sink_3::height=60 \
    ! "$caps" ! videoconvert ! video/x-raw,format=I420 \
    ! x264enc pass=qual quantizer=12 ! mp4mux ! filesink location="$clip" \
  videotestsrc pattern=zone-plate kx2=20 ky2=20 kt=1 num-buffers=90 ! "$caps" \
    ! videobalance contrast=0.45 brightness=-0.12 ! mix.sink_0 \
  videotestsrc pattern=zone-plate kx2=20 ky2=20 kt=1 num-buffers=90 ! "$caps" \
    ! videobalance contrast=0.2 brightness=0.35 ! mix.sink_1 \
  videotestsrc pattern=snow num-buffers=90 ! "$caps" ! mix.sink_2 \
  videotestsrc pattern=white num-buffers=90 ! video/x-raw,width=90,height=60,framerate=30/1 \
    ! mix.sink_3

picture() {
  local name=$1
  shift
  "$here/../compare" "$clip" "$here/settings-$name.png" --time 2 --dpi 60 --colors 128 \
      --element histeq "$@"
}
picture default
picture clip-limit --clip-limit 2
picture strength --strength 0.5
picture clahe --mode clahe --clip-limit 2
