// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <cstdint>

#include "plane.h"

namespace histeq {

// The least and the greatest level of rows [row_begin, row_end) of `plane`, on the CPU's widest
// SIMD target: the part of the table of pairs that luma_histogram.cpp's count adds up. An empty
// range gives least 0xff, greatest 0.
struct LevelRange {
  std::uint8_t least = 0xff;
  std::uint8_t greatest = 0;
};

LevelRange level_range(ConstLumaPlane8 plane, int row_begin, int row_end);

}  // namespace histeq
