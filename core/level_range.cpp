// SPDX-License-Identifier: LGPL-2.1-or-later
// level_range on the widest SIMD target the CPU has (Highway's dynamic dispatch).
#include "level_range.h"

#include <algorithm>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "level_range.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace histeq {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

LevelRange LevelRangeOf(ConstLumaPlane8 plane, int row_begin, int row_end) {
  const hn::ScalableTag<std::uint8_t> d;
  const int lanes = int(hn::Lanes(d));
  // Two of each, so that a vector's minimum does not wait for the one before.
  auto low0 = hn::Set(d, 0xff), low1 = low0, high0 = hn::Zero(d), high1 = high0;
  LevelRange range;
  for (int y = row_begin; y < row_end; ++y) {
    const std::uint8_t *HWY_RESTRICT p = plane.row(y);
    int x = 0;
    for (; x + 2 * lanes <= plane.width; x += 2 * lanes) {
      const auto v0 = hn::LoadU(d, p + x), v1 = hn::LoadU(d, p + x + lanes);
      low0 = hn::Min(low0, v0);
      high0 = hn::Max(high0, v0);
      low1 = hn::Min(low1, v1);
      high1 = hn::Max(high1, v1);
    }
    for (; x < plane.width; ++x) {
      range.least = std::min(range.least, p[x]);
      range.greatest = std::max(range.greatest, p[x]);
    }
  }
  // Highway 1.0 (Debian 12's) has no minimum or maximum of byte lanes on every target: the
  // lanes are stored and reduced one by one, once a call.
  HWY_ALIGN std::uint8_t lows[HWY_MAX_BYTES], highs[HWY_MAX_BYTES];
  hn::Store(hn::Min(low0, low1), d, lows);
  hn::Store(hn::Max(high0, high1), d, highs);
  for (int i = 0; i < lanes; ++i) {
    range.least = std::min(range.least, lows[i]);
    range.greatest = std::max(range.greatest, highs[i]);
  }
  return range;
}

}  // namespace HWY_NAMESPACE
}  // namespace histeq
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace histeq {

HWY_EXPORT(LevelRangeOf);

LevelRange level_range(ConstLumaPlane8 plane, int row_begin, int row_end) {
  return HWY_DYNAMIC_DISPATCH(LevelRangeOf)(plane, row_begin, row_end);
}

}  // namespace histeq
#endif  // HWY_ONCE
