// SPDX-License-Identifier: LGPL-2.1-or-later
// CLAHE's blend, a vector of pixels at a time: the four LUT entries gathered, then blend_levels'
// single-precision steps as vector multiplies and adds, each rounded on its own (the build's
// -ffp-contract=off keeps the compiler from fusing them), so every lane equals the scalar
// blend_levels.
#include "clahe_blend.h"

#include "clahe.h"
#include "lut_map.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "clahe_blend.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "lut_lookup-inl.h"

HWY_BEFORE_NAMESPACE();
namespace histeq {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

void BlendRow(const ClaheRow &row, std::uint8_t *HWY_RESTRICT levels, int width) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::Rebind<std::uint8_t, decltype(df)> d8;
  const int lanes = HWY_TARGET == HWY_SCALAR ? width + 1 : int(hn::Lanes(df));
  const auto one = hn::Set(df, 1.0f);
  const auto shift = hn::Set(df, 8388608.0f);
  const auto row_weight = hn::Set(df, row.row_weight);
  const auto row_weight1 = hn::Set(df, sub_rn(1.0f, row.row_weight));
  const auto top = hn::Set(di, std::int32_t(row.top));
  const bool one_by_one = gathers_are_slow();
  int x = 0;
  for (; x + lanes <= width; x += lanes) {
    const auto v = hn::PromoteTo(di, hn::LoadU(d8, levels + x));
    const auto left = hn::Add(hn::LoadU(di, row.first_offset + x), v);
    const auto right = hn::Add(hn::LoadU(di, row.second_offset + x), v);
    const auto l11 = hn::ConvertTo(df, GatherLanes(di, row.upper, left, one_by_one));
    const auto l12 = hn::ConvertTo(df, GatherLanes(di, row.upper, right, one_by_one));
    const auto l21 = hn::ConvertTo(df, GatherLanes(di, row.lower, left, one_by_one));
    const auto l22 = hn::ConvertTo(df, GatherLanes(di, row.lower, right, one_by_one));
    const auto w = hn::LoadU(df, row.weight + x);
    const auto w1 = hn::Sub(one, w);
    const auto upper = hn::Add(hn::Mul(l11, w1), hn::Mul(l12, w));
    const auto lower = hn::Add(hn::Mul(l21, w1), hn::Mul(l22, w));
    const auto blended = hn::Add(hn::Mul(upper, row_weight1), hn::Mul(lower, row_weight));
    const auto rounded = hn::ConvertTo(di, hn::Sub(hn::Add(blended, shift), shift));
    hn::StoreU(hn::DemoteTo(d8, hn::Min(rounded, top)), d8, levels + x);
  }
  ClaheRow tail = row;
  tail.first_offset += x;
  tail.second_offset += x;
  tail.weight += x;
  clahe_blend_row_scalar(tail, levels + x, width - x);
}

}  // namespace HWY_NAMESPACE
}  // namespace histeq
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace histeq {

HWY_EXPORT(BlendRow);

void clahe_blend_row(const ClaheRow &row, std::uint8_t *levels, int width) {
  HWY_DYNAMIC_DISPATCH(BlendRow)(row, levels, width);
}

void clahe_blend_row_scalar(const ClaheRow &row, std::uint8_t *levels, int width) {
  for (int x = 0; x < width; ++x) {
    const std::int32_t v = levels[x];
    const std::int32_t left = row.first_offset[x] + v, right = row.second_offset[x] + v;
    levels[x] =
        std::uint8_t(blend_levels(std::uint32_t(row.upper[left]), std::uint32_t(row.upper[right]),
                                  std::uint32_t(row.lower[left]), std::uint32_t(row.lower[right]),
                                  row.weight[x], row.row_weight, row.top));
  }
}

}  // namespace histeq
#endif  // HWY_ONCE
