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

void FillRows(LumaPlane8 plane, int row_begin, int row_end, std::uint8_t value) {
  const hn::ScalableTag<std::uint8_t> d;
  const auto filled = hn::Set(d, value);
  const int lanes = int(hn::Lanes(d));
  for (int y = row_begin; y < row_end; ++y) {
    std::uint8_t *HWY_RESTRICT p = plane.row(y);
    int x = 0;
    for (; x + lanes <= plane.width; x += lanes) hn::StoreU(filled, d, p + x);
    for (; x < plane.width; ++x) p[x] = value;
  }
}

#if HISTEQ_BYTE_PERMUTES
// Levels of up to WordLut::kBytePermuteBits, 64 words a step, by byte permutes, where a gather
// loads each entry alone: the levels' low and high bytes packed into a vector each; every
// level looked up in each 128-entry segment of the LUT's low bytes and of its high bytes (one
// VPERMI2B each, which reads its index's low seven bits), each segment's answers kept where the
// level's top bits are that segment; the two answers interleaved back into words.
struct WordPermutes {
  alignas(64) std::uint8_t low_bytes[64];     // from words (first, second): each word's low byte
  alignas(64) std::uint8_t high_bytes[64];    // and its high byte
  alignas(64) std::uint8_t first_words[64];   // from bytes (low, high): words 0-31
  alignas(64) std::uint8_t second_words[64];  // and 32-63
};

constexpr WordPermutes make_word_permutes() {
  WordPermutes permutes{};
  for (int i = 0; i < 64; ++i) {
    permutes.low_bytes[i] = std::uint8_t(2 * i);
    permutes.high_bytes[i] = std::uint8_t(2 * i + 1);
    permutes.first_words[i] = std::uint8_t((i % 2) * 64 + i / 2);
    permutes.second_words[i] = std::uint8_t((i % 2) * 64 + 32 + i / 2);
  }
  return permutes;
}

constexpr WordPermutes kWordPermutes = make_word_permutes();
constexpr int kSegmentLevels = WordLut::kSegmentLevels;
constexpr int kPermuteStepWords = 64;

HWY_INLINE __m512i Segment(const std::uint8_t *table, int segment, __m512i low) {
  const std::uint8_t *entries = table + kSegmentLevels * segment;
  return _mm512_permutex2var_epi8(_mm512_loadu_si512(entries), low,
                                  _mm512_loadu_si512(entries + 64));
}

// Maps the whole steps of a row from x = 0 on; returns the first word it left.
int MapWordStepsByPermutes(std::uint16_t *HWY_RESTRICT p, int width, SampleLayout layout,
                           const WordLut &lut) {
  const int segments = int((layout.levels() + kSegmentLevels - 1) / kSegmentLevels);
  const __m512i low_bytes = _mm512_load_si512(kWordPermutes.low_bytes);
  const __m512i high_bytes = _mm512_load_si512(kWordPermutes.high_bytes);
  const __m512i first_words = _mm512_load_si512(kWordPermutes.first_words);
  const __m512i second_words = _mm512_load_si512(kWordPermutes.second_words);
  const __m128i shift = _mm_cvtsi32_si128(layout.shift);
  const __m512i top = _mm512_set1_epi16(short(layout.levels() - 1));
  const __m512i one = _mm512_set1_epi8(1);
  int x = 0;
  for (; x + kPermuteStepWords <= width; x += kPermuteStepWords) {
    const __m512i first = _mm512_min_epu16(_mm512_srl_epi16(_mm512_loadu_si512(p + x), shift), top);
    const __m512i second =
        _mm512_min_epu16(_mm512_srl_epi16(_mm512_loadu_si512(p + x + 32), shift), top);
    const __m512i low = _mm512_permutex2var_epi8(first, low_bytes, second);
    const __m512i high = _mm512_permutex2var_epi8(first, high_bytes, second);
    // A level's segment: its high byte twice, and one more where its low byte's top bit is set.
    const __m512i twice = _mm512_add_epi8(high, high);
    const __m512i segment = _mm512_mask_add_epi8(twice, _mm512_movepi8_mask(low), twice, one);
    __m512i mapped_low = Segment(lut.low.data(), 0, low);
    __m512i mapped_high = Segment(lut.high.data(), 0, low);
    for (int s = 1; s < segments; ++s) {
      const __mmask64 here = _mm512_cmpeq_epi8_mask(segment, _mm512_set1_epi8(char(s)));
      mapped_low = _mm512_mask_mov_epi8(mapped_low, here, Segment(lut.low.data(), s, low));
      mapped_high = _mm512_mask_mov_epi8(mapped_high, here, Segment(lut.high.data(), s, low));
    }
    _mm512_storeu_si512(
        p + x,
        _mm512_sll_epi16(_mm512_permutex2var_epi8(mapped_low, first_words, mapped_high), shift));
    _mm512_storeu_si512(
        p + x + 32,
        _mm512_sll_epi16(_mm512_permutex2var_epi8(mapped_low, second_words, mapped_high), shift));
  }
  return x;
}
#endif

// Words a vector of 32-bit lanes at a time: each word's level (its bits, as level_of clamps
// them), the LUT gathered from its 32-bit copy, and the level's word back; with AVX-512 VBMI,
// levels of up to WordLut::kBytePermuteBits by byte permutes instead.
void MapWordRows(LumaPlane16 plane, int row_begin, int row_end, SampleLayout layout,
                 const WordLut &lut) {
  const hn::ScalableTag<std::int32_t> di;
  const hn::Rebind<std::uint16_t, decltype(di)> d16;
  const int lanes = HWY_TARGET == HWY_SCALAR ? plane.width + 1 : int(hn::Lanes(di));
  const auto top = hn::Set(di, std::int32_t(layout.levels() - 1));
  const std::int32_t *HWY_RESTRICT wide = lut.wide.data();
  const bool one_by_one = gathers_are_slow();
  for (int y = row_begin; y < row_end; ++y) {
    std::uint16_t *HWY_RESTRICT p = plane.row(y);
    int x = 0;
#if HISTEQ_BYTE_PERMUTES
    if (layout.bits <= WordLut::kBytePermuteBits)
      x = MapWordStepsByPermutes(p, plane.width, layout, lut);
#endif
    for (; x + lanes <= plane.width; x += lanes) {
      const auto words = hn::PromoteTo(di, hn::LoadU(d16, p + x));
      const auto levels = hn::Min(hn::ShiftRightSame(words, layout.shift), top);
      const auto mapped =
          hn::ShiftLeftSame(GatherLanes(di, wide, levels, one_by_one), layout.shift);
      hn::StoreU(hn::DemoteTo(d16, mapped), d16, p + x);
    }
    for (; x < plane.width; ++x) p[x] = layout.word_of(std::uint32_t(wide[layout.level_of(p[x])]));
  }
}

// The target this copy of the file is compiled for, named where dispatch lands.
const char *TargetNameHere() {
  return hwy::TargetName(HWY_TARGET);
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
HWY_EXPORT(FillRows);
HWY_EXPORT(TargetNameHere);

const char *simd_target_name() {
  return HWY_DYNAMIC_DISPATCH(TargetNameHere)();
}

bool gathers_are_slow() {
#if HWY_ARCH_X86 && (defined(__GNUC__) || defined(__clang__))
  static const bool amd = __builtin_cpu_is("amd");
  return amd;
#else
  return false;
#endif
}

void apply_lut(LumaPlane8 plane, int row_begin, int row_end, const std::uint8_t *lut) {
  HWY_DYNAMIC_DISPATCH(MapRows)(plane, row_begin, row_end, lut);
}

void fill_rows(LumaPlane8 plane, int row_begin, int row_end, std::uint8_t value) {
  HWY_DYNAMIC_DISPATCH(FillRows)(plane, row_begin, row_end, value);
}

HWY_EXPORT(MapWordRows);

void WordLut::assign(const std::uint16_t *lut, SampleLayout layout) {
  const std::size_t levels = layout.levels();
  wide.assign(lut, lut + levels);
  low.clear();
  high.clear();
  if (layout.bits > kBytePermuteBits) return;
  const std::size_t padded =
      (levels + WordLut::kSegmentLevels - 1) / WordLut::kSegmentLevels * WordLut::kSegmentLevels;
  low.assign(padded, 0);
  high.assign(padded, 0);
  for (std::size_t v = 0; v < levels; ++v) {
    low[v] = std::uint8_t(lut[v]);
    high[v] = std::uint8_t(lut[v] >> 8);
  }
}

void apply_lut(LumaPlane16 plane, int row_begin, int row_end, SampleLayout layout,
               const WordLut &lut) {
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
