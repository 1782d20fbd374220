// SPDX-License-Identifier: LGPL-2.1-or-later
// apply_lut on the widest SIMD target the CPU has (Highway's dynamic dispatch: SSE4, AVX2,
// AVX-512, NEON, ...), and apply_lut_scalar, the reference it must equal byte for byte.
#include "lut_map.h"

#include <cstddef>
#include <cstring>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "lut_map.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "lut_lookup-inl.h"

HWY_BEFORE_NAMESPACE();
namespace histeq {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

void MapRows(LumaPlane8 plane, int row_begin, int row_end, const std::uint8_t *HWY_RESTRICT lut) {
  const hn::ScalableTag<std::uint8_t> d;
  // The scalar target's vectors are one sample: its tables have no 16 bytes to look up in.
  const int lanes = HWY_TARGET == HWY_SCALAR ? plane.width + 1 : int(hn::Lanes(d));
  for (int y = row_begin; y < row_end; ++y) {
    std::uint8_t *HWY_RESTRICT p = plane.row(y);
    int x = 0;
    // Two vectors at a time share the loads of the LUT's slices.
    for (; x + 2 * lanes <= plane.width; x += 2 * lanes) {
      const auto mapped0 = LookUp(d, hn::LoadU(d, p + x), lut);
      const auto mapped1 = LookUp(d, hn::LoadU(d, p + x + lanes), lut);
      hn::StoreU(mapped0, d, p + x);
      hn::StoreU(mapped1, d, p + x + lanes);
    }
    for (; x + lanes <= plane.width; x += lanes)
      hn::StoreU(LookUp(d, hn::LoadU(d, p + x), lut), d, p + x);
    for (; x < plane.width; ++x) p[x] = lut[p[x]];
  }
}

// Words a vector of 32-bit lanes at a time: each word's level (its bits, as level_of clamps
// them), the LUT gathered from a 32-bit copy, and the level's word back.
void MapWordRows(LumaPlane16 plane, int row_begin, int row_end, SampleLayout layout,
                 const std::int32_t *HWY_RESTRICT lut) {
  const hn::ScalableTag<std::int32_t> di;
  const hn::Rebind<std::uint16_t, decltype(di)> d16;
  const int lanes = HWY_TARGET == HWY_SCALAR ? plane.width + 1 : int(hn::Lanes(di));
  const auto top = hn::Set(di, std::int32_t(layout.levels() - 1));
  for (int y = row_begin; y < row_end; ++y) {
    std::uint16_t *HWY_RESTRICT p = plane.row(y);
    int x = 0;
    for (; x + lanes <= plane.width; x += lanes) {
      const auto words = hn::PromoteTo(di, hn::LoadU(d16, p + x));
      const auto levels = hn::Min(hn::ShiftRightSame(words, layout.shift), top);
      const auto mapped = hn::ShiftLeftSame(hn::GatherIndex(di, lut, levels), layout.shift);
      hn::StoreU(hn::DemoteTo(d16, mapped), d16, p + x);
    }
    for (; x < plane.width; ++x) p[x] = layout.word_of(std::uint32_t(lut[layout.level_of(p[x])]));
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace histeq
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
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

HWY_EXPORT(MapRows);

void apply_lut(LumaPlane8 plane, int row_begin, int row_end, const std::uint8_t *lut) {
  HWY_DYNAMIC_DISPATCH(MapRows)(plane, row_begin, row_end, lut);
}

HWY_EXPORT(MapWordRows);

void apply_lut(LumaPlane16 plane, int row_begin, int row_end, SampleLayout layout,
               const std::int32_t *lut) {
  HWY_DYNAMIC_DISPATCH(MapWordRows)(plane, row_begin, row_end, layout, lut);
}

void apply_lut_scalar(LumaPlane16 plane, int row_begin, int row_end, SampleLayout layout,
                      const std::uint16_t *lut) {
  for (int y = row_begin; y < row_end; ++y) {
    std::uint16_t *p = plane.row(y);
    for (int x = 0; x < plane.width; ++x) p[x] = layout.word_of(lut[layout.level_of(p[x])]);
  }
}

void apply_lut_scalar(LumaPlane8 plane, int row_begin, int row_end, const std::uint8_t *lut) {
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
#endif  // HWY_ONCE
