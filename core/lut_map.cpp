// SPDX-License-Identifier: LGPL-2.1-or-later
#include "lut_map.h"

#include <cstring>

namespace histeq {

namespace {

// Eight lookups gathered into one 64-bit store: half the stores of a byte loop.
inline std::uint64_t map_word(std::uint64_t w, const std::uint8_t *lut) {
  std::uint64_t out = 0;
  for (int shift = 0; shift < 64; shift += 8) {
    out |= std::uint64_t(lut[(w >> shift) & 0xff]) << shift;
  }
  return out;
}

}  // namespace

void apply_lut(LumaPlane8 plane, int row_begin, int row_end, const std::uint8_t *lut) {
  for (int y = row_begin; y < row_end; ++y) {
    std::uint8_t *p = plane.row(y);
    int x = 0;
    for (; x + 8 <= plane.width; x += 8) {
      std::uint64_t w;
      std::memcpy(&w, p + x, 8);
      w = map_word(w, lut);
      std::memcpy(p + x, &w, 8);
    }
    for (; x < plane.width; ++x) p[x] = lut[p[x]];
  }
}

}  // namespace histeq
