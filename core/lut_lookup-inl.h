// SPDX-License-Identifier: LGPL-2.1-or-later
// LookUp, a byte lookup through a 256-entry LUT on each Highway target, and GatherLanes, a
// lookup of wider entries by lane; included per target by the files that map samples through
// tables (lut_map.cpp, packed_map.cpp, clahe_blend.cpp), after hwy/foreach_target.h, with
// Highway's per-target include guard.
#if defined(HISTEQ_LUT_LOOKUP_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef HISTEQ_LUT_LOOKUP_INL_H_
#undef HISTEQ_LUT_LOOKUP_INL_H_
#else
#define HISTEQ_LUT_LOOKUP_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace histeq {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// Slices [0, 2^kLevel) from `slices` on: the answer of slice 0 at level 0, else that of the
// half that the sample's bit 3 + kLevel picks. (Recursion rather than arrays of vectors, which
// SVE's sizeless vector types cannot form.)
template <int kLevel, class D>
HWY_INLINE hn::Vec<D> PickSlice(D d, hn::Vec<D> v, hn::Vec<D> low,
                                const std::uint8_t *HWY_RESTRICT slices) {
  if constexpr (kLevel == 0) {
    return hn::TableLookupBytes(hn::LoadDup128(d, slices), low);
  } else {
    const hn::Vec<D> upper = PickSlice<kLevel - 1>(d, v, low, slices + (16 << (kLevel - 1)));
    const hn::Vec<D> lower = PickSlice<kLevel - 1>(d, v, low, slices);
    return hn::IfThenElse(hn::TestBit(v, hn::Set(d, std::uint8_t(8 << kLevel))), upper, lower);
  }
}

// A 256-entry byte lookup from 16-entry byte shuffles (TableLookupBytes looks up within each
// 128-bit block): the low nibble of a sample indexes each 16-entry slice of the LUT, and the
// high nibble's bits pick the slice's answer, bit 4 between neighbouring slices, bit 5 between
// those pairs' picks, and so on: sixteen shuffles, four bit tests and fifteen selects per vector
// of samples.
template <class D>
HWY_INLINE hn::Vec<D> LookUp(D d, hn::Vec<D> v, const std::uint8_t *HWY_RESTRICT lut) {
  return PickSlice<4>(d, v, hn::And(v, hn::Set(d, 0x0F)), lut);
}

// table[index] in each lane. With AVX2 on a CPU whose gathers are slow (gathers_are_slow), one
// lane at a time: the empty asm keeps the compiler from turning the loop back into a gather.
// Elsewhere Highway's GatherIndex: a gather instruction where the target has one (AVX-512's
// 16-lane gather measured no slower than 16 scalar loads whose vector is then read back from
// memory), lanes one by one where it has not (SSE4).
template <class D, typename T = hn::TFromD<D>>
HWY_INLINE hn::Vec<D> GatherLanes(D d, const T *HWY_RESTRICT table,
                                  hn::Vec<hn::RebindToSigned<D>> index, bool one_by_one) {
#if HWY_TARGET == HWY_AVX2
  if (one_by_one) {
    const hn::RebindToSigned<D> di;
    alignas(HWY_MAX_BYTES) hn::TFromD<decltype(di)> at[HWY_MAX_BYTES / sizeof(T)];
    alignas(HWY_MAX_BYTES) T out[HWY_MAX_BYTES / sizeof(T)];
    hn::Store(index, di, at);
    for (std::size_t i = 0; i < hn::Lanes(d); ++i) {
      auto k = at[i];
      asm("" : "+r"(k));
      out[i] = table[k];
    }
    return hn::Load(d, out);
  }
#else
  static_cast<void>(one_by_one);
#endif
  return hn::GatherIndex(d, table, index);
}

// HISTEQ_BYTE_PERMUTES: whether this target has AVX-512 VBMI's permutes of the bytes of a
// whole 512-bit vector, which the files that include this one may also name.
#undef HISTEQ_BYTE_PERMUTES
#if HWY_TARGET == HWY_AVX3_DL || (defined(HWY_AVX3_ZEN4) && HWY_TARGET == HWY_AVX3_ZEN4) || \
    (defined(HWY_AVX3_SPR) && HWY_TARGET == HWY_AVX3_SPR)
#define HISTEQ_BYTE_PERMUTES 1
#else
#define HISTEQ_BYTE_PERMUTES 0
#endif
// Whether LookUp is the permute below.
constexpr bool kLookUpIsPermute = HISTEQ_BYTE_PERMUTES;

#if HISTEQ_BYTE_PERMUTES
// With AVX-512 VBMI one permute looks a byte up in 128 (VPERMI2B uses its index's low seven
// bits): two of them cover the LUT's halves and the sample's top bit picks between them, three
// instructions where the shuffles above take about fifty. Highway 1.0 has no byte-lane
// TableLookupLanes that would say this portably, so the permutes are named here.
HWY_INLINE hn::Vec512<std::uint8_t> LookUp(hn::Full512<std::uint8_t> d, hn::Vec512<std::uint8_t> v,
                                           const std::uint8_t *HWY_RESTRICT lut) {
  const __m512i low = hn::LoadU(d, lut).raw;
  const __m512i low_up = hn::LoadU(d, lut + 64).raw;
  const __m512i high = hn::LoadU(d, lut + 128).raw;
  const __m512i high_up = hn::LoadU(d, lut + 192).raw;
  const __m512i from_low = _mm512_permutex2var_epi8(low, v.raw, low_up);
  const __m512i from_high = _mm512_permutex2var_epi8(high, v.raw, high_up);
  return hn::Vec512<std::uint8_t>{
      _mm512_mask_blend_epi8(_mm512_movepi8_mask(v.raw), from_low, from_high)};
}
#endif

}  // namespace HWY_NAMESPACE
}  // namespace histeq
HWY_AFTER_NAMESPACE();

#endif  // HISTEQ_LUT_LOOKUP_INL_H_
