// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "equalization.h"
#include "luma_histogram.h"
#include "plane.h"
#include "row_pool.h"

namespace histeq {

// Equalizes 8-bit luma planes in place on the CPU: histogram, LUT, map. Large frames are split
// by rows over a RowPool; small ones stay on the calling thread, where hand-off costs more
// than the work.
class CpuEqualizer {
 public:
  // threads == 0 means one per core.
  explicit CpuEqualizer(unsigned threads);

  unsigned threads() const { return pool_.size(); }

  // Returns the LUT that was applied, for statistics and tests.
  const std::array<std::uint8_t, kLevels8> &equalize(LumaPlane8 plane, OutputRange range);

 private:
  unsigned bands_for(const LumaPlane8 &plane) const;

  RowPool pool_;
  std::vector<LumaHistogram8> band_histograms_;
  std::array<std::uint8_t, kLevels8> lut_{};
};

}  // namespace histeq
