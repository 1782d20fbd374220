// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// A stream's LUTs on the CPU: the steps of tone_steps.h in order, over the bins, with the
// stream's smoothed histogram kept from frame to frame. The CUDA engine runs the same steps per
// bin in its kernels; this is also the reference its tests compare against.
//
//   histeq::ToneMap tone(256);
//   for each frame:
//     bool restarted = tone.build(histogram, params, range, reset, lut);

#include <cstdint>
#include <vector>

#include "equalization.h"
#include "params.h"

namespace histeq {

class ToneMap {
 public:
  explicit ToneMap(int bins);

  int bins() const { return int(smoothed_.size()); }

  // Writes the LUT of a frame with histogram `counts` (bins() values) to `lut`, and returns
  // whether the history restarted with this frame: `reset` asked for it, there was none, or the
  // frame is a scene cut. Without params.keep_history the history is left alone, and the
  // next frame that keeps it starts afresh.
  template <typename Sample>
  bool build(const std::uint64_t *counts, const Params &params, OutputRange range, bool reset,
             Sample *lut);

  // The smoothed histogram (Q30 fractions) after the last frame that kept it.
  const std::vector<std::uint64_t> &smoothed() const { return smoothed_; }
  bool has_history() const { return has_history_; }

 private:
  // The histogram the LUT is built from and its nominal total (tone_steps.h, step 3).
  struct Source {
    const std::uint64_t *bins;
    std::uint64_t total;
  };
  // Steps 1 and 2.
  Source follow(const std::uint64_t *counts, const Params &params, bool reset, bool *restarted);
  // Steps 3 and 4 (clip and classic) into levels_.
  void equalize(const Source &source, const Params &params, OutputRange range);

  std::vector<std::uint64_t> normalized_;  // this frame's histogram, Q30
  std::vector<std::uint64_t> smoothed_;
  std::vector<std::uint64_t> clipped_;
  std::vector<std::uint32_t> levels_;
  bool has_history_ = false;
};

}  // namespace histeq
