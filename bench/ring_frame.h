// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Frame i of a HostFrames set as FrameEngine takes it: input i in, output i out, full range,
// tagged with i. For the programs built with the engine.

#include <cstddef>
#include <cstdint>

#include "host_frames.h"
#include "frame_engine.h"

namespace bench {

inline histeq::cuda::HostFrame ring_frame(const HostFrames &host, long i) {
  histeq::cuda::HostFrame f;
  f.src = host.in(i);
  f.src_pitch = std::size_t(host.pitch());
  f.dst = host.out(i);
  f.dst_pitch = std::size_t(host.pitch());
  f.width = host.size().width;
  f.height = host.size().height;
  f.range = histeq::full_range(8);
  f.tag = std::uint64_t(i);
  return f;
}

}  // namespace bench
