// SPDX-License-Identifier: LGPL-2.1-or-later
// LookUp, a byte lookup through a 256-entry LUT on each Highway target; included per target by
// the files that map bytes (lut_map.cpp, packed_map.cpp), after hwy/foreach_target.h, with
// Highway's per-target include guard.
#if defined(HISTEQ_LUT_LOOKUP_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef HISTEQ_LUT_LOOKUP_INL_H_
#undef HISTEQ_LUT_LOOKUP_INL_H_
#else
#define HISTEQ_LUT_LOOKUP_INL_H_
#endif

#include <cstdint>

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace histeq {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// A 256-entry byte lookup from 16-entry byte shuffles (TableLookupBytes looks up within each
// 128-bit block): the low nibble of a sample indexes each 16-entry slice of the LUT, and its
// high nibble selects the slice's answer. Sixteen shuffles and selects per vector of samples
// still beat one load and one store per sample.
template <class D>
HWY_INLINE hn::Vec<D> LookUp(D d, hn::Vec<D> v, const std::uint8_t *HWY_RESTRICT lut) {
  const hn::Vec<D> low = hn::And(v, hn::Set(d, 0x0F));
  const hn::Vec<D> high = hn::ShiftRight<4>(v);
  hn::Vec<D> mapped = hn::TableLookupBytes(hn::LoadDup128(d, lut), low);
  for (int slice = 1; slice < 16; ++slice) {
    const hn::Vec<D> looked_up = hn::TableLookupBytes(hn::LoadDup128(d, lut + 16 * slice), low);
    mapped = hn::IfThenElse(hn::Eq(high, hn::Set(d, std::uint8_t(slice))), looked_up, mapped);
  }
  return mapped;
}

}  // namespace HWY_NAMESPACE
}  // namespace histeq
HWY_AFTER_NAMESPACE();

#endif  // HISTEQ_LUT_LOOKUP_INL_H_
