// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "equalization.h"
#include "luma_histogram.h"
#include "params.h"
#include "plane.h"
#include "row_pool.h"
#include "tone_map.h"

namespace histeq {

// The CPU engine: equalizes the 8-bit luma planes of one stream in place (histogram, LUT by
// ToneMap, map), keeping the stream's history from frame to frame. Large frames are split by
// rows over a RowPool; small ones stay on the calling thread, where hand-off costs more than
// the work.
class CpuEqualizer {
 public:
  // threads == 0 means one per core.
  explicit CpuEqualizer(unsigned threads);

  unsigned threads() const { return pool_->size(); }
  // The threads asked for; threads() is fewer when some could not start.
  unsigned requested_threads() const { return pool_->requested(); }
  // Replaces the worker pool; the stream's history is kept.
  void set_threads(unsigned threads);

  // Equalizes `plane` with `params`; `reset` restarts the history (flush, caps, DISCONT).
  // Returns the LUT that was applied.
  const std::array<std::uint8_t, kLevels8> &equalize(LumaPlane8 plane, OutputRange range,
                                                     const Params &params = {}, bool reset = false);

  // Of the last frame: its histogram before equalization, and whether the history restarted.
  const LumaHistogram8 &histogram() const { return histogram_; }
  bool restarted() const { return restarted_; }

 private:
  unsigned bands_for(const LumaPlane8 &plane) const;

  std::unique_ptr<RowPool> pool_;
  std::vector<LumaHistogram8> band_histograms_;
  LumaHistogram8 histogram_{};
  ToneMap tone_{kLevels8};
  std::array<std::uint8_t, kLevels8> lut_{};
  bool restarted_ = false;
};

}  // namespace histeq
