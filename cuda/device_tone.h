// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// What a frame's kernels need beyond its pixels to build its LUT with the options of params.h,
// and what they hand back for the statistics. The stream's smoothed histogram lives in device
// memory (DeviceHistory) and is read and written by the frames in their order.

#include <cstdint>

#include "params.h"

namespace histeq::cuda {

// Written by the frame's kernels when it keeps the history: its histogram before equalization
// and whether the history restarted with it.
struct FrameReport {
  std::uint64_t histogram[256];
  unsigned restarted;
};

struct DeviceTone {
  Params params;
  // The smoothed histogram (Q30) after the frame before, or nullptr when there is none (the
  // history restarts with this frame); reset asks for a restart too.
  const unsigned long long *d_history_in = nullptr;
  // Receives this frame's smoothed histogram (when params.keep_history).
  unsigned long long *d_history_out = nullptr;
  bool reset = false;
  FrameReport *d_report = nullptr;  // written when params.keep_history

  bool classic() const { return params.is_classic(); }
};

}  // namespace histeq::cuda
