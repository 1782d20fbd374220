// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// The blend of CLAHE's tile LUTs (clahe.h's blend_levels) for one row of byte levels, on the
// CPU's widest SIMD target (Highway's dynamic dispatch), and the scalar loop it must equal.

#include <cstdint>

namespace histeq {

// One row's inputs: for each pixel x, its column's LUT offsets (first and second tile column
// times the bins) and weight of the second; the LUTs of the tile rows above and below
// (tiles_x x bins entries each, as 32-bit integers so that they can be gathered); the row's
// weight of the lower tile row; the largest level.
struct ClaheRow {
  const std::int32_t *first_offset;
  const std::int32_t *second_offset;
  const float *weight;
  const std::int32_t *upper;
  const std::int32_t *lower;
  float row_weight;
  std::uint32_t top;
};

// Replaces levels[0, width) by their blends, in place.
void clahe_blend_row(const ClaheRow &row, std::uint8_t *levels, int width);
void clahe_blend_row_scalar(const ClaheRow &row, std::uint8_t *levels, int width);

}  // namespace histeq
