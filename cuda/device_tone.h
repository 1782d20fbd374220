// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// What a frame's kernels need beyond its pixels to build its LUT with the options of params.h,
// and what they hand back for the statistics. The stream's smoothed histogram lives in device
// memory (DeviceHistory) and is read and written by the frames in their order.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "params.h"

namespace histeq::cuda {

// The most levels a sample has (16-bit words): the size of the history and report buffers.
constexpr int kMaxLevels = 1 << 16;

// What the host learns of a frame that kept the history: its histogram before equalization (one
// count per level of its samples: 256, or 2^bits for deep luma) and whether the history
// restarted with it.
struct FrameReport {
  std::vector<std::uint64_t> histogram;
  bool restarted = false;
};

// The report as a frame's kernels write it, in device memory: report_words(levels) 64-bit words,
// word 0 whether the history restarted (0 or 1), word 1 + v the count of level v.
constexpr std::size_t report_words(int levels) {
  return 1 + std::size_t(levels);
}

struct DeviceTone {
  Params params;
  // The smoothed histogram (Q30) after the frame before, or nullptr when there is none (the
  // history restarts with this frame); reset asks for a restart too.
  const unsigned long long *d_history_in = nullptr;
  // Receives this frame's smoothed histogram (when params.keep_history).
  unsigned long long *d_history_out = nullptr;
  bool reset = false;
  unsigned long long *d_report = nullptr;  // written when params.keep_history (report_words)

  bool classic() const { return params.is_classic(); }
};

}  // namespace histeq::cuda
