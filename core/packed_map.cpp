// SPDX-License-Identifier: LGPL-2.1-or-later
// Packed frames on the widest SIMD target the CPU has (Highway's dynamic dispatch), and their
// scalar references. Packed YUV: luma bytes deinterleaved, looked up and interleaved back.
// Packed RGB: rgb.h's rule in 32-bit lanes, one pixel a lane; 4-byte pixels are read as words
// and their channels taken out (by byte shuffles with AVX-512 VBMI, else shifted out), 3-byte
// pixels permuted (VBMI) or shuffled (elsewhere on x86) into such words, or deinterleaved
// (NEON, SVE). Where one LUT serves the frame, the gain comes from rgb.h's table by the luma
// the count wrote, and the headroom is divided in the lanes for steps where a pixel would clip.
// Where each pixel has its own mapping (CLAHE), both are divided in the lanes.
#include "packed_map.h"

#include <cstddef>
#include <cstring>
#include <type_traits>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "packed_map.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "lut_lookup-inl.h"
#include "lut_map.h"

HWY_BEFORE_NAMESPACE();
namespace histeq {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

using D8 = hn::ScalableTag<std::uint8_t>;
using D32 = hn::ScalableTag<std::uint32_t>;
using V32 = hn::Vec<D32>;

// Pixels per step of a row: a vector of luma bytes (YUV) or of 32-bit lanes (RGB). The scalar
// target's byte tables have no 16 bytes to look up in, so it takes none.
template <class D>
int step_of(D d, int width) {
  return HWY_TARGET == HWY_SCALAR ? width + 1 : int(hn::Lanes(d));
}

void GatherYuvLuma(const PackedYuvView &frame, int y, int x, int n, std::uint8_t *luma) {
  const D8 d;
  const std::uint8_t *p = frame.row(y) + PackedYuvView::kPixelBytes * std::ptrdiff_t(x);
  const int lanes = step_of(d, n);
  int i = 0;
  for (; i + lanes <= n; i += lanes) {
    hn::Vec<D8> first, second;
    hn::LoadInterleaved2(d, p + 2 * i, first, second);
    hn::StoreU(frame.luma_offset == 0 ? first : second, d, luma + i);
  }
  for (; i < n; ++i) luma[i] = p[2 * i + frame.luma_offset];
}

void MapYuvRows(const PackedYuvView &frame, int row_begin, int row_end,
                const std::uint8_t *HWY_RESTRICT lut) {
  const D8 d;
  const int lanes = step_of(d, frame.width);
  for (int y = row_begin; y < row_end; ++y) {
    std::uint8_t *p = frame.row(y);
    int x = 0;
    // Both halves are stored back, so only pixels inside the width are loaded.
    for (; x + lanes <= frame.width; x += lanes) {
      hn::Vec<D8> first, second;
      hn::LoadInterleaved2(d, p + 2 * x, first, second);
      if (frame.luma_offset == 0) {
        first = LookUp(d, first, lut);
      } else {
        second = LookUp(d, second, lut);
      }
      hn::StoreInterleaved2(first, second, d, p + 2 * x);
    }
    for (; x < frame.width; ++x) {
      std::uint8_t &luma = p[2 * x + frame.luma_offset];
      luma = lut[luma];
    }
  }
}

// R, G and B of a step of pixels are three vectors of 32-bit lanes (r, g, b), which the steps
// below take by reference and change in place: SVE's vectors have no size known to the compiler,
// so they cannot be members of a struct. Read, each lane holds its channel's level; mapped, its
// new level times 2^16 plus what its rounding left below (below 2^24), so the level is the lane's
// byte 2 (kMappedShift) and the words are put together without shifting it down first.
constexpr int kMappedShift = 16;

// A step of 4-byte pixels as words, and back; channel c is byte c of each word
// (little-endian). The scalar target has no bytes within a lane: one word, copied.
HWY_INLINE V32 LoadWords(D32 d32, const std::uint8_t *p) {
#if HWY_TARGET == HWY_SCALAR
  std::uint32_t word;
  std::memcpy(&word, p, sizeof word);
  return hn::Set(d32, word);
#else
  const hn::Repartition<std::uint8_t, D32> d8;
  return hn::BitCast(d32, hn::LoadU(d8, p));
#endif
}

HWY_INLINE void StoreWords(D32 d32, V32 words, std::uint8_t *p) {
  static_cast<void>(d32);
#if HWY_TARGET == HWY_SCALAR
  const std::uint32_t word = hn::GetLane(words);
  std::memcpy(p, &word, sizeof word);
#else
  const hn::Repartition<std::uint8_t, D32> d8;
  hn::StoreU(hn::BitCast(d8, words), d8, p);
#endif
}

#if HISTEQ_BYTE_PERMUTES
// Four steps of 3-byte pixels (64 pixels: three vectors of bytes) as four vectors of the words
// of 4-byte pixels whose fourth byte is 0, and back, each vector by one permute of the bytes of
// two. Whole vectors are read and written, so no store overlaps a later load, which would stall
// its forwarding.
static_assert(HWY_LANES(std::uint32_t) == 16, "a step is 16 pixels");
constexpr int kRgb3GroupPixels = 64;

struct Rgb3Permutes {
  alignas(64) std::uint8_t to_words[4][64];  // from byte vectors first_of[k] and the next
  alignas(64) std::uint8_t to_bytes[3][64];  // from word vectors v and v + 1
  int first_of[4];
};

constexpr Rgb3Permutes make_rgb3_permutes() {
  Rgb3Permutes permutes{};
  for (int k = 0; k < 4; ++k) {
    permutes.first_of[k] = (48 * k) / 64;
    for (int i = 0; i < 64; ++i) {
      const int byte = 3 * (16 * k + i / 4) + i % 4;
      permutes.to_words[k][i] = std::uint8_t(i % 4 == 3 ? 0 : byte - 64 * permutes.first_of[k]);
    }
  }
  for (int v = 0; v < 3; ++v) {
    for (int j = 0; j < 64; ++j) {
      const int byte = 64 * v + j, pixel = byte / 3;
      permutes.to_bytes[v][j] = std::uint8_t(64 * (pixel / 16 - v) + 4 * (pixel % 16) + byte % 3);
    }
  }
  return permutes;
}

constexpr Rgb3Permutes kRgb3Permutes = make_rgb3_permutes();

HWY_INLINE void LoadRgb3Group(const std::uint8_t *p, V32 (&words)[4]) {
  const __m512i bytes[4] = {_mm512_loadu_si512(p), _mm512_loadu_si512(p + 64),
                            _mm512_loadu_si512(p + 128), _mm512_setzero_si512()};
  for (int k = 0; k < 4; ++k) {
    const int first = kRgb3Permutes.first_of[k];
    words[k] = V32{_mm512_maskz_permutex2var_epi8(0x7777777777777777ull, bytes[first],
                                                  _mm512_load_si512(kRgb3Permutes.to_words[k]),
                                                  bytes[first + 1])};
  }
}

HWY_INLINE void StoreRgb3Group(const V32 (&words)[4], std::uint8_t *p) {
  for (int v = 0; v < 3; ++v) {
    _mm512_storeu_si512(p + 64 * v, _mm512_permutex2var_epi8(
                                        words[v].raw, _mm512_load_si512(kRgb3Permutes.to_bytes[v]),
                                        words[v + 1].raw));
  }
}
#endif

// Where R, G and B lie in the words of a step of pixels (4-byte pixels, or 3-byte ones permuted
// into words): how ChannelsOf takes them out and how PackWords puts mapped channels back, the
// byte that is none of R, G and B kept from the words read. With AVX-512 VBMI a channel comes out
// by one byte shuffle where shifting and masking take two, and two permutes of the bytes of two
// vectors each put every mapped channel's byte 2 and the kept byte in place, joined by a blend;
// elsewhere the channels are shifted (512-bit shuffles measured slower than shifts on the
// AVX-512 target without VBMI).
struct WordPacking {
  int red, green, blue, kept;
#if HISTEQ_BYTE_PERMUTES
  using D8 = hn::Repartition<std::uint8_t, D32>;
  hn::Vec<D8> pick_red, pick_green, pick_blue;  // ChannelsOf's shuffles
  static hn::Vec<D8> pick(int byte) {
    alignas(16) std::uint8_t block[16];
    for (int i = 0; i < 16; ++i) block[i] = i % 4 == 0 ? std::uint8_t(i + byte) : 0x80;
    return hn::LoadDup128(D8(), block);
  }
  __m512i red_green;  // bytes of (c.r, c.g) to their places
  __m512i blue_kept;  // bytes of (c.b, words) to theirs
  __mmask64 from_red_green;
#endif
  explicit WordPacking(const RgbView &frame)
      : red(frame.red),
        green(frame.green),
        blue(frame.blue),
        kept(6 - frame.red - frame.green - frame.blue)
#if HISTEQ_BYTE_PERMUTES
        ,
        pick_red(pick(frame.red)),
        pick_green(pick(frame.green)),
        pick_blue(pick(frame.blue))
#endif
  {
#if HISTEQ_BYTE_PERMUTES
    alignas(64) std::uint8_t first[64], second[64];
    std::uint64_t mask = 0;
    for (int i = 0; i < 64; ++i) {
      const int lane = i - i % 4, byte = i % 4, mapped = lane + kMappedShift / 8;
      first[i] = std::uint8_t(byte == green ? 64 + mapped : mapped);
      second[i] = std::uint8_t(byte == kept ? 64 + lane + kept : mapped);
      if (byte == red || byte == green) mask |= std::uint64_t(1) << i;
    }
    red_green = _mm512_load_si512(first);
    blue_kept = _mm512_load_si512(second);
    from_red_green = mask;
#endif
  }
};

// R, G and B of a step of words: each channel's byte to byte 0 of its lane, the others zeroed.
HWY_INLINE void ChannelsOf(const WordPacking &packing, V32 words, V32 &r, V32 &g, V32 &b) {
#if HISTEQ_BYTE_PERMUTES
  const WordPacking::D8 d8;
  const auto byte = [&](hn::Vec<WordPacking::D8> pick) {
    return hn::BitCast(D32(), hn::TableLookupBytesOr0(hn::BitCast(d8, words), pick));
  };
  r = byte(packing.pick_red);
  g = byte(packing.pick_green);
  b = byte(packing.pick_blue);
#else
  const auto byte = [&](int at) {
    return hn::And(hn::ShiftRightSame(words, 8 * at), hn::Set(D32(), 0xFFu));
  };
  r = byte(packing.red);
  g = byte(packing.green);
  b = byte(packing.blue);
#endif
}

// Mapped R, G and B back into `words`, whose byte that is none of them is kept.
HWY_INLINE V32 PackWords(const WordPacking &packing, V32 r, V32 g, V32 b, V32 words) {
#if HISTEQ_BYTE_PERMUTES
  const __m512i red_green = _mm512_permutex2var_epi8(r.raw, packing.red_green, g.raw);
  const __m512i blue_kept = _mm512_permutex2var_epi8(b.raw, packing.blue_kept, words.raw);
  return V32{_mm512_mask_blend_epi8(packing.from_red_green, blue_kept, red_green)};
#else
  const D32 d;
  const auto level = [](V32 mapped) { return hn::ShiftRight<kMappedShift>(mapped); };
  const V32 kept = hn::And(words, hn::Set(d, 0xFFu << (8 * packing.kept)));
  return hn::Or(hn::Or(kept, hn::ShiftLeftSame(level(r), 8 * packing.red)),
                hn::Or(hn::ShiftLeftSame(level(g), 8 * packing.green),
                       hn::ShiftLeftSame(level(b), 8 * packing.blue)));
#endif
}

#if !HISTEQ_BYTE_PERMUTES && HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR
// On x86 without VBMI's permutes, 3-byte pixels a step at a time as the words of 4-byte pixels
// whose fourth byte is 0, and back, by byte shuffles within each 128-bit block: block b of a step
// takes the four pixels at bytes 12b to 12b + 11, which a permute of 32-bit lanes moves into it.
// So 3-byte pixels take the 4-byte pixels' steps, where deinterleaving them (Load3) took up to
// 1.5x as long in the map and 1.7x in the count (bench/README.md). A step reads a whole vector,
// four bytes a pixel, a third more than its pixels' bytes. NEON deinterleaves in one instruction.
#define HISTEQ_RGB3_SHUFFLES 1
struct Rgb3Shuffles {
  using D8 = hn::Repartition<std::uint8_t, D32>;
  using Indices = decltype(hn::SetTableIndices(D32(), static_cast<const std::int32_t *>(nullptr)));
  hn::Vec<D8> to_words, to_bytes;
  Indices spread, gather;

  Rgb3Shuffles()
      : to_words(hn::LoadDup128(D8(), kToWords)),
        to_bytes(hn::LoadDup128(D8(), kToBytes)),
        spread(hn::SetTableIndices(D32(), kSpread)),
        gather(hn::SetTableIndices(D32(), kGather)) {}

  alignas(16) static constexpr std::uint8_t kToWords[16] = {0, 1, 2, 0x80, 3, 4,  5,  0x80,
                                                            6, 7, 8, 0x80, 9, 10, 11, 0x80};
  alignas(16) static constexpr std::uint8_t kToBytes[16] = {0,  1,  2,  4,  5,    6,    8,    9,
                                                            10, 12, 13, 14, 0x80, 0x80, 0x80, 0x80};
  // Lane i of a step from lane 3 (i / 4) + i % 4 of the bytes read; lane j of the bytes written
  // from lane 4 (j / 3) + j % 3 of the packed words (the lanes past three quarters are not kept).
  static constexpr std::int32_t kSpread[16] = {0, 1, 2, 3, 3, 4, 5, 6, 6, 7, 8, 9, 9, 10, 11, 12};
  static constexpr std::int32_t kGather[16] = {0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 0, 0, 0, 0};
};

HWY_INLINE V32 LoadRgb3Words(const Rgb3Shuffles &shuffles, const std::uint8_t *p) {
  const Rgb3Shuffles::D8 d8;
  const V32 spread = hn::TableLookupLanes(hn::BitCast(D32(), hn::LoadU(d8, p)), shuffles.spread);
  return hn::BitCast(D32(), hn::TableLookupBytesOr0(hn::BitCast(d8, spread), shuffles.to_words));
}

// The step's pixels' bytes in its first three quarters.
HWY_INLINE V32 PackRgb3Words(const Rgb3Shuffles &shuffles, V32 words) {
  const Rgb3Shuffles::D8 d8;
  const V32 packed =
      hn::BitCast(D32(), hn::TableLookupBytesOr0(hn::BitCast(d8, words), shuffles.to_bytes));
  return hn::TableLookupLanes(packed, shuffles.gather);
}
#else
#define HISTEQ_RGB3_SHUFFLES 0
#endif

HWY_INLINE void Load3(const RgbView &frame, const std::uint8_t *p, V32 &r, V32 &g, V32 &b) {
  const D32 d32;
  const hn::Rebind<std::uint8_t, D32> d8;
  hn::Vec<decltype(d8)> c0, c1, c2;
  hn::LoadInterleaved3(d8, p, c0, c1, c2);
  // RGB or BGR: red is byte 0 or byte 2.
  r = hn::PromoteTo(d32, frame.red == 0 ? c0 : c2);
  g = hn::PromoteTo(d32, c1);
  b = hn::PromoteTo(d32, frame.red == 0 ? c2 : c0);
}

HWY_INLINE V32 Luma(V32 r, V32 g, V32 b, LumaMatrix m) {
  const D32 d;
  const V32 weighted =
      hn::Add(hn::Add(hn::Mul(r, hn::Set(d, m.red)), hn::Mul(g, hn::Set(d, m.green))),
              hn::Add(hn::Mul(b, hn::Set(d, m.blue)), hn::Set(d, kLumaOne / 2)));
  return hn::ShiftRight<15>(weighted);
}

// Lanes of at most 255 as bytes, one per lane.
HWY_INLINE void StoreBytes(V32 v, std::uint8_t *out) {
  const hn::RebindToSigned<D32> di32;
  const hn::Rebind<std::uint8_t, D32> d8;
  hn::StoreU(hn::DemoteTo(d8, hn::BitCast(di32, v)), d8, out);
}

#if HWY_TARGET != HWY_SCALAR
// rgb_luma of a step of 4-byte pixels from their words: bytes 0 and 2 of each word, then bytes 1
// and 3, as pairs of 16-bit lanes, each pair multiplied by its bytes' weights (the fourth byte's
// 0) and summed into the word's lane. The weights are below 2^15, so the products and their sums
// are those of rgb_luma, exactly. Both products go into one pair of sums before they are put in
// order: the order in which ReorderWidenMulAccumulate leaves its sums is the target's own (on NEON
// the products of the vector's low and high halves), so only RearrangeToOddPlusEven of its two
// sums has each word's total in the word's lane.
HWY_INLINE V32 LumaOfWords(V32 words, V32 even_weights, V32 odd_weights) {
  const D32 d32;
  const hn::Repartition<std::int16_t, D32> d16;
  const hn::RebindToSigned<D32> di32;
  const V32 bytes = hn::Set(d32, 0x00FF00FFu);
  auto sum = hn::Zero(di32), other_sum = hn::Zero(di32);
  const auto add_products = [&](V32 v, V32 weights) {
    sum = hn::ReorderWidenMulAccumulate(di32, hn::BitCast(d16, v), hn::BitCast(d16, weights), sum,
                                        other_sum);
  };
  add_products(hn::And(words, bytes), even_weights);
  add_products(hn::And(hn::ShiftRight<8>(words), bytes), odd_weights);
  const auto all = hn::RearrangeToOddPlusEven(sum, other_sum);
  return hn::ShiftRight<15>(hn::Add(hn::BitCast(d32, all), hn::Set(d32, kLumaOne / 2)));
}

// The Q15 weight of each byte of a 4-byte pixel, bytes 0 and 2 (`even`) and bytes 1 and 3, as
// LumaOfWords takes them.
struct WordWeights {
  std::uint32_t even;
  std::uint32_t odd;
};

HWY_INLINE WordWeights word_weights(const RgbView &frame) {
  std::uint32_t of_byte[4] = {0, 0, 0, 0};
  of_byte[frame.red] = frame.matrix.red;
  of_byte[frame.green] = frame.matrix.green;
  of_byte[frame.blue] = frame.matrix.blue;
  return {of_byte[0] | of_byte[2] << 16, of_byte[1] | of_byte[3] << 16};
}
#endif

void GatherRgbLuma(const RgbView &frame, int y, int x, int n, std::uint8_t *luma) {
  const std::uint8_t *p = frame.row(y) + frame.pixel_bytes * std::ptrdiff_t(x);
  int i = 0;
  // The scalar target takes no steps (step_of), and has no 16-bit halves of a lane.
#if HWY_TARGET != HWY_SCALAR
  const D32 d32;
  const int lanes = step_of(d32, n);
  const WordWeights weights = word_weights(frame);
  const V32 even = hn::Set(d32, weights.even), odd = hn::Set(d32, weights.odd);
  if (frame.pixel_bytes == 4) {
    for (; i + lanes <= n; i += lanes)
      StoreBytes(LumaOfWords(LoadWords(d32, p + 4 * std::ptrdiff_t(i)), even, odd), luma + i);
  } else {
#if HISTEQ_BYTE_PERMUTES
    for (; i + kRgb3GroupPixels <= n; i += kRgb3GroupPixels) {
      V32 words[4];
      LoadRgb3Group(p + 3 * std::ptrdiff_t(i), words);
      for (int k = 0; k < 4; ++k)
        StoreBytes(LumaOfWords(words[k], even, odd), luma + i + lanes * k);
    }
#endif
#if HISTEQ_RGB3_SHUFFLES
    const Rgb3Shuffles shuffles;
    for (; 3 * i + 4 * lanes <= 3 * n; i += lanes) {
      const V32 words = LoadRgb3Words(shuffles, p + 3 * std::ptrdiff_t(i));
      StoreBytes(LumaOfWords(words, even, odd), luma + i);
    }
#endif
    for (; i + lanes <= n; i += lanes) {
      V32 r, g, b;
      Load3(frame, p + 3 * std::ptrdiff_t(i), r, g, b);
      StoreBytes(Luma(r, g, b, frame.matrix), luma + i);
    }
  }
#endif
  for (; i < n; ++i) {
    const std::uint8_t *q = p + frame.pixel_bytes * std::ptrdiff_t(i);
    luma[i] = std::uint8_t(rgb_luma(q[frame.red], q[frame.green], q[frame.blue], frame.matrix));
  }
}

// floor(n / d) for n < 2^24 and 1 <= d <= 255, exactly and without a table: n and d are exact
// in single precision, and the quotient rounded to nearest never reaches the next integer, which
// n / d is at least 1/d below, while half a unit in its last place is under 1/d (n / d < 2^24/d).
// Truncating it gives the floor.
HWY_INLINE V32 DivideExactly(V32 n, V32 d) {
  const hn::RebindToSigned<D32> di;
  const hn::Rebind<float, D32> df;
  const auto to_float = [&](V32 v) { return hn::ConvertTo(df, hn::BitCast(di, v)); };
  return hn::BitCast(D32(), hn::ConvertTo(di, hn::Div(to_float(n), to_float(d))));
}

// rgb_headroom of the largest channels of a step (a largest of 0 is made 1: such a pixel is
// black, and its headroom is not used).
HWY_INLINE V32 Headroom(V32 largest) {
  const D32 d;
  return DivideExactly(hn::Set(d, 255u << 16), hn::Max(largest, hn::Set(d, 1u)));
}

// rgb_scale_q16 in the lanes, a mapped channel: the shift by 16 is the packing's.
static_assert(kMappedShift == 16, "rgb_scale's quotient is the product's bits from 16 up");
HWY_INLINE V32 Scaled(V32 channel, V32 gain) {
  return hn::Add(hn::Mul(channel, gain), hn::Set(D32(), 1u << 15));
}

// rgb_lift in the lanes, as a mapped channel.
HWY_INLINE V32 Lifted(V32 channel, V32 lift) {
  const D32 d;
  return hn::ShiftLeft<kMappedShift>(hn::Min(hn::Add(channel, lift), hn::Set(d, 255u)));
}

// rgb_scale_pixel on a step of pixels of luma `luma` whose gain (rgb_gain) is `gain`, with black
// lifted by `lift` where the row has a black pixel (kBlack). A pixel clips where
// gain * largest > 255 << 16 (at most 255 * 255 << 16, within 32 bits): the gain passes its
// headroom (rgb_headroom is that quotient's floor). Few steps hold such a pixel, so the headroom
// is divided only in those.
template <bool kBlack>
HWY_INLINE void MapChannels(V32 &r, V32 &g, V32 &b, V32 luma, V32 gain, std::uint32_t lift) {
  const D32 d;
  const V32 largest = hn::Max(r, hn::Max(g, b));
  const auto clips = hn::Gt(hn::Mul(gain, largest), hn::Set(d, 255u << 16));
  const V32 applied = hn::AllFalse(d, clips) ? gain : hn::Min(gain, Headroom(largest));
  const auto map = [&](V32 channel) {
    const V32 scaled = Scaled(channel, applied);
    if constexpr (!kBlack) return scaled;
    return hn::IfThenElse(hn::Eq(luma, hn::Zero(d)), Lifted(channel, hn::Set(d, lift)), scaled);
  };
  r = map(r);
  g = map(g);
  b = map(b);
}

// rgb_scale_pixel on a step of pixels of luma `luma` that maps to `mapped`, with rgb_gain and
// rgb_headroom divided in the lanes. Lanes of luma 0 take the lift and their quotients are not
// used; their divisors are made 1.
HWY_INLINE void ScaleChannels(V32 &r, V32 &g, V32 &b, V32 luma, V32 mapped) {
  const D32 d;
  const V32 one = hn::Set(d, 1u);
  const V32 largest = hn::Max(r, hn::Max(g, b));
  const V32 gain = DivideExactly(hn::Add(hn::ShiftLeft<16>(mapped), hn::ShiftRight<1>(luma)),
                                 hn::Max(luma, one));
  const V32 applied = hn::Min(gain, Headroom(largest));
  const auto black = hn::Eq(luma, hn::Zero(d));
  const auto scale = [&](V32 channel) {
    return hn::IfThenElse(black, Lifted(channel, mapped), Scaled(channel, applied));
  };
  r = scale(r);
  g = scale(g);
  b = scale(b);
}

// Row y of `frame` through `step` a step of pixels at a time (step(r, g, b, x) maps the channels
// of pixels x, x + 1, ... in place) and the pixels past the last whole step through `pixel`
// (pixel(r, g, b, x), in place); the fourth byte of 4-byte pixels is kept.
template <class Step, class Pixel>
HWY_INLINE void ForEachRgbStep(const RgbView &view, const WordPacking &shared_packing, int y,
                               const Step &step, const Pixel &pixel) {
  // Copies the row's byte stores cannot alias, so the frame's width and layout and the packing's
  // positions and permutes stay in registers.
  const RgbView frame = view;
  const WordPacking packing = shared_packing;
  const D32 d32;
  const int lanes = step_of(d32, frame.width);
  std::uint8_t *p = frame.row(y);
  // A step's words through `step`, the byte that is none of R, G and B kept.
  const auto step_words = [&](V32 words, int at) {
    V32 r, g, b;
    ChannelsOf(packing, words, r, g, b);
    step(r, g, b, at);
    return PackWords(packing, r, g, b, words);
  };
  int x = 0;
  if (frame.pixel_bytes == 4) {
    for (; x + lanes <= frame.width; x += lanes) {
      std::uint8_t *q = p + 4 * std::ptrdiff_t(x);
      StoreWords(d32, step_words(LoadWords(d32, q), x), q);
    }
  } else {
#if HISTEQ_BYTE_PERMUTES
    for (; x + kRgb3GroupPixels <= frame.width; x += kRgb3GroupPixels) {
      std::uint8_t *q = p + 3 * std::ptrdiff_t(x);
      V32 words[4];
      LoadRgb3Group(q, words);
      for (int k = 0; k < 4; ++k) words[k] = step_words(words[k], x + lanes * k);
      StoreRgb3Group(words, q);
    }
#endif
#if HISTEQ_RGB3_SHUFFLES
    // A step writes a whole vector too: the quarter past its pixels lands on the next step's
    // pixels, which were read before it and are written again by their own step. The last
    // step stores its pixels' bytes alone.
    const Rgb3Shuffles shuffles;
    const auto whole = [&](int at) { return 3 * at + 4 * lanes <= 3 * frame.width; };
    if (whole(x)) {
      V32 words = LoadRgb3Words(shuffles, p + 3 * std::ptrdiff_t(x));
      for (;;) {
        const V32 mapped = PackRgb3Words(shuffles, step_words(words, x));
        std::uint8_t *q = p + 3 * std::ptrdiff_t(x);
        x += lanes;
        if (!whole(x)) {
          hn::BlendedStore(mapped, hn::FirstN(d32, std::size_t(3 * lanes / 4)), d32,
                           reinterpret_cast<std::uint32_t *>(q));
          break;
        }
        words = LoadRgb3Words(shuffles, p + 3 * std::ptrdiff_t(x));
        StoreWords(d32, mapped, q);
      }
    }
#endif
    const hn::Rebind<std::uint8_t, D32> d8;
    const hn::RebindToSigned<D32> di32;
    for (; x + lanes <= frame.width; x += lanes) {
      std::uint8_t *q = p + 3 * std::ptrdiff_t(x);
      V32 r, g, b;
      Load3(frame, q, r, g, b);
      step(r, g, b, x);
      const auto level = [&](V32 mapped) {
        return hn::DemoteTo(d8, hn::BitCast(di32, hn::ShiftRight<kMappedShift>(mapped)));
      };
      if (frame.red == 0) {
        hn::StoreInterleaved3(level(r), level(g), level(b), d8, q);
      } else {
        hn::StoreInterleaved3(level(b), level(g), level(r), d8, q);
      }
    }
  }
  for (; x < frame.width; ++x) {
    std::uint8_t *q = p + frame.pixel_bytes * std::ptrdiff_t(x);
    pixel(q[frame.red], q[frame.green], q[frame.blue], x);
  }
}

#if HISTEQ_BYTE_PERMUTES
// rgb.h's gains (below 2^24) as three tables of their bytes, for LookUp.
struct GainBytes {
  std::uint8_t of[3][256];
};

// The gains of 64 pixels, looked up as three vectors of their bytes, put together as four
// vectors of 16 words by unpacking bytes into words and words into double words. Unpacks work
// within each 128-bit block: block b of output vector k takes bytes 16b + 4k to 16b + 4k + 3 of
// the looked-up vectors, where the step needs the gains of pixels 16k + 4b to 16k + 4b + 3. So
// the levels' 4-byte groups are transposed as a 4x4 matrix before the lookups (TransposeGroups).
// A single-vector permute and eight in-block unpacks took the RGBx map 4% less time than eight
// permutes of the bytes of two vectors.
HWY_INLINE hn::Vec512<std::uint8_t> TransposeGroups(hn::Vec512<std::uint8_t> levels) {
  const __m512i group_of = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  return hn::Vec512<std::uint8_t>{_mm512_permutexvar_epi32(group_of, levels.raw)};
}

HWY_INLINE void StoreGainWords(const hn::Vec512<std::uint8_t> (&bytes)[3], std::uint32_t *out) {
  const __m512i zero = _mm512_setzero_si512();
  const __m512i low_words[2] = {_mm512_unpacklo_epi8(bytes[0].raw, bytes[1].raw),
                                _mm512_unpackhi_epi8(bytes[0].raw, bytes[1].raw)};
  const __m512i high_words[2] = {_mm512_unpacklo_epi8(bytes[2].raw, zero),
                                 _mm512_unpackhi_epi8(bytes[2].raw, zero)};
  for (int half = 0; half < 2; ++half) {
    _mm512_storeu_si512(out + 32 * half, _mm512_unpacklo_epi16(low_words[half], high_words[half]));
    _mm512_storeu_si512(out + 32 * half + 16,
                        _mm512_unpackhi_epi16(low_words[half], high_words[half]));
  }
}
#endif

// One table serves the whole frame. Each row's gains are looked up by its luma: where LookUp is
// a byte permute, as their three bytes, a vector of pixels at a time, put together as words into
// `gain_words` (a row of the frame's width): three lookups, a permute and eight unpacks per 64
// pixels against a gather of 16 lanes per 16; elsewhere gathered.
void MapRgbRows(const RgbView &frame, int row_begin, int row_end,
                const std::uint8_t *HWY_RESTRICT lut, const std::uint8_t *HWY_RESTRICT luma,
                std::ptrdiff_t luma_stride) {
  const D32 d32;
  const hn::Rebind<std::uint8_t, D32> d8_32;
  const hn::RebindToSigned<D32> di32;
  const RgbGainTables tables = rgb_gain_tables(lut);
  const WordPacking packing(frame);
  const std::uint32_t lift = lut[0];
  const bool one_by_one = gathers_are_slow();
  const int width = frame.width;
  std::vector<std::uint32_t> gain_words;
#if HISTEQ_BYTE_PERMUTES
  const D8 d8;
  const int lanes = int(hn::Lanes(d8));
  GainBytes bytes{};
  for (int v = 0; v < 256; ++v)
    for (int b = 0; b < 3; ++b) bytes.of[b][v] = std::uint8_t(tables.gain[v] >> (8 * b));
  gain_words.resize(std::size_t(width));
#endif
  for (int y = row_begin; y < row_end; ++y) {
    const std::uint8_t *row_luma = luma + y * luma_stride;
#if HISTEQ_BYTE_PERMUTES
    int x = 0;
    for (; x + lanes <= width; x += lanes) {
      const hn::Vec<D8> levels = TransposeGroups(hn::LoadU(d8, row_luma + x));
      const hn::Vec<D8> gain_bytes[3] = {LookUp(d8, levels, bytes.of[0]),
                                         LookUp(d8, levels, bytes.of[1]),
                                         LookUp(d8, levels, bytes.of[2])};
      StoreGainWords(gain_bytes, gain_words.data() + x);
    }
    for (; x < width; ++x) gain_words[std::size_t(x)] = tables.gain[row_luma[x]];
#endif
    // Rows without a black pixel, most of a frame, skip the lift and read no luma in the lanes
    // where the gain comes from the row's gain words.
    const auto map_row = [&](auto black) {
      constexpr bool kBlack = decltype(black)::value;
      ForEachRgbStep(
          frame, packing, y,
          [&](V32 &r, V32 &g, V32 &b, int x) {
            V32 levels = hn::Zero(d32);
            if (kBlack || !kLookUpIsPermute)
              levels = hn::PromoteTo(d32, hn::LoadU(d8_32, row_luma + x));
            V32 gain;
            if constexpr (kLookUpIsPermute) {
              gain = hn::LoadU(d32, gain_words.data() + x);
            } else {
              gain = GatherLanes(d32, tables.gain, hn::BitCast(di32, levels), one_by_one);
            }
            MapChannels<kBlack>(r, g, b, levels, gain, lift);
          },
          [&](std::uint8_t &r, std::uint8_t &g, std::uint8_t &b, int x) {
            const std::uint8_t level = row_luma[x];
            rgb_scale_pixel(r, g, b, level, lut[level], tables.gain[level], tables);
          });
    };
    if (std::memchr(row_luma, 0, std::size_t(width))) {
      map_row(std::true_type{});
    } else {
      map_row(std::false_type{});
    }
  }
}

// Each pixel has its own mapping (CLAHE): its gain is divided in the lanes, as is its headroom.
void ScaleRgbRows(const RgbView &frame, int row_begin, int row_end,
                  const std::uint8_t *HWY_RESTRICT luma, const std::uint8_t *HWY_RESTRICT mapped,
                  std::ptrdiff_t stride) {
  const D32 d32;
  const hn::Rebind<std::uint8_t, D32> d8;
  const RgbGainTables tables = rgb_headroom_tables();
  const WordPacking packing(frame);
  for (int y = row_begin; y < row_end; ++y) {
    const std::uint8_t *from = luma + y * stride, *to = mapped + y * stride;
    ForEachRgbStep(
        frame, packing, y,
        [&](V32 &r, V32 &g, V32 &b, int x) {
          ScaleChannels(r, g, b, hn::PromoteTo(d32, hn::LoadU(d8, from + x)),
                        hn::PromoteTo(d32, hn::LoadU(d8, to + x)));
        },
        [&](std::uint8_t &r, std::uint8_t &g, std::uint8_t &b, int x) {
          rgb_rescale_pixel(r, g, b, from[x], to[x], tables);
        });
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace histeq
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace histeq {

HWY_EXPORT(GatherYuvLuma);
HWY_EXPORT(GatherRgbLuma);
HWY_EXPORT(MapYuvRows);
HWY_EXPORT(MapRgbRows);
HWY_EXPORT(ScaleRgbRows);

void gather_luma(const PackedYuvView &frame, int y, int x, int n, std::uint8_t *luma) {
  HWY_DYNAMIC_DISPATCH(GatherYuvLuma)(frame, y, x, n, luma);
}

void gather_luma(const RgbView &frame, int y, int x, int n, std::uint8_t *luma) {
  HWY_DYNAMIC_DISPATCH(GatherRgbLuma)(frame, y, x, n, luma);
}

void gather_luma_scalar(const RgbView &frame, int y, int x, int n, std::uint8_t *luma) {
  const std::uint8_t *p = frame.row(y) + frame.pixel_bytes * std::ptrdiff_t(x);
  for (int i = 0; i < n; ++i, p += frame.pixel_bytes)
    luma[i] = std::uint8_t(rgb_luma(p[frame.red], p[frame.green], p[frame.blue], frame.matrix));
}

void apply_lut(const PackedYuvView &frame, int row_begin, int row_end, const std::uint8_t *lut) {
  HWY_DYNAMIC_DISPATCH(MapYuvRows)(frame, row_begin, row_end, lut);
}

void apply_lut_scalar(const PackedYuvView &frame, int row_begin, int row_end,
                      const std::uint8_t *lut) {
  for (int y = row_begin; y < row_end; ++y) {
    std::uint8_t *p = frame.row(y) + frame.luma_offset;
    for (int x = 0; x < frame.width; ++x, p += PackedYuvView::kPixelBytes) *p = lut[*p];
  }
}

void apply_lut(const RgbView &frame, int row_begin, int row_end, const std::uint8_t *lut,
               const std::uint8_t *luma, std::ptrdiff_t luma_stride) {
  HWY_DYNAMIC_DISPATCH(MapRgbRows)(frame, row_begin, row_end, lut, luma, luma_stride);
}

void apply_lut_scalar(const RgbView &frame, int row_begin, int row_end, const std::uint8_t *lut) {
  const RgbGainTables tables = rgb_gain_tables(lut);
  for (int y = row_begin; y < row_end; ++y) {
    std::uint8_t *p = frame.row(y);
    for (int x = 0; x < frame.width; ++x, p += frame.pixel_bytes)
      rgb_map_pixel(p[frame.red], p[frame.green], p[frame.blue], frame.matrix, lut, tables);
  }
}

void scale_rgb(const RgbView &frame, int row_begin, int row_end, const std::uint8_t *luma,
               const std::uint8_t *mapped, std::ptrdiff_t stride) {
  HWY_DYNAMIC_DISPATCH(ScaleRgbRows)(frame, row_begin, row_end, luma, mapped, stride);
}

void scale_rgb_scalar(const RgbView &frame, int row_begin, int row_end, const std::uint8_t *luma,
                      const std::uint8_t *mapped, std::ptrdiff_t stride) {
  const RgbGainTables tables = rgb_headroom_tables();
  for (int y = row_begin; y < row_end; ++y) {
    std::uint8_t *p = frame.row(y);
    for (int x = 0; x < frame.width; ++x, p += frame.pixel_bytes) {
      rgb_rescale_pixel(p[frame.red], p[frame.green], p[frame.blue], luma[y * stride + x],
                        mapped[y * stride + x], tables);
    }
  }
}

}  // namespace histeq
#endif  // HWY_ONCE
