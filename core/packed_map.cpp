// SPDX-License-Identifier: LGPL-2.1-or-later
// Packed frames on the widest SIMD target the CPU has (Highway's dynamic dispatch), and their
// scalar references. Packed YUV: luma bytes deinterleaved, looked up and interleaved back.
// Packed RGB: rgb.h's rule in 32-bit lanes, one pixel a lane; 4-byte pixels are read as words
// and their channels shifted out, 3-byte pixels deinterleaved (or, with AVX-512 VBMI, permuted
// into words). Where one LUT serves the frame, the gain comes from rgb.h's table by the luma the
// count wrote, and the headroom is divided in the lanes for steps where a pixel would clip. Where
// each pixel has its own mapping (CLAHE), both are divided in the lanes.
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

// R, G and B of a step of pixels in 32-bit lanes.
struct Channels {
  V32 r, g, b;
};

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
#if HWY_TARGET == HWY_SCALAR
  const std::uint32_t word = hn::GetLane(words);
  static_cast<void>(d32);
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

HWY_INLINE V32 ByteOf(V32 words, int byte) {
  return hn::And(hn::ShiftRightSame(words, 8 * byte), hn::Set(D32(), 0xFFu));
}

// R, G and B of a step of words, and words of new channels (their fourth byte 0).
HWY_INLINE Channels ChannelsOf(const RgbView &frame, V32 words) {
  return Channels{ByteOf(words, frame.red), ByteOf(words, frame.green), ByteOf(words, frame.blue)};
}

HWY_INLINE V32 WordsOf(const RgbView &frame, const Channels &c) {
  return hn::Or(
      hn::ShiftLeftSame(c.r, 8 * frame.red),
      hn::Or(hn::ShiftLeftSame(c.g, 8 * frame.green), hn::ShiftLeftSame(c.b, 8 * frame.blue)));
}

HWY_INLINE Channels Load3(const RgbView &frame, const std::uint8_t *p) {
  const D32 d32;
  const hn::Rebind<std::uint8_t, D32> d8;
  hn::Vec<decltype(d8)> c0, c1, c2;
  hn::LoadInterleaved3(d8, p, c0, c1, c2);
  // RGB or BGR: red is byte 0 or byte 2.
  const V32 first = hn::PromoteTo(d32, c0), second = hn::PromoteTo(d32, c1),
            third = hn::PromoteTo(d32, c2);
  return frame.red == 0 ? Channels{first, second, third} : Channels{third, second, first};
}

HWY_INLINE V32 Luma(const Channels &c, LumaMatrix m) {
  const D32 d;
  const V32 weighted =
      hn::Add(hn::Add(hn::Mul(c.r, hn::Set(d, m.red)), hn::Mul(c.g, hn::Set(d, m.green))),
              hn::Add(hn::Mul(c.b, hn::Set(d, m.blue)), hn::Set(d, kLumaOne / 2)));
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
// are those of rgb_luma, exactly.
HWY_INLINE V32 LumaOfWords(V32 words, V32 even_weights, V32 odd_weights) {
  const D32 d32;
  const hn::Repartition<std::int16_t, D32> d16;
  const hn::RebindToSigned<D32> di32;
  const V32 bytes = hn::Set(d32, 0x00FF00FFu);
  const auto pairs = [&](V32 v, V32 weights, hn::Vec<decltype(di32)> sum) {
    auto unused = hn::Zero(di32);
    sum = hn::ReorderWidenMulAccumulate(di32, hn::BitCast(d16, v), hn::BitCast(d16, weights), sum,
                                        unused);
    return hn::RearrangeToOddPlusEven(sum, unused);
  };
  const auto even = pairs(hn::And(words, bytes), even_weights, hn::Zero(di32));
  const auto all = pairs(hn::And(hn::ShiftRight<8>(words), bytes), odd_weights, even);
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
    for (; i + lanes <= n; i += lanes)
      StoreBytes(Luma(Load3(frame, p + 3 * std::ptrdiff_t(i)), frame.matrix), luma + i);
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

// rgb_scale in the lanes.
HWY_INLINE V32 Scaled(V32 channel, V32 gain) {
  return hn::ShiftRight<16>(hn::Add(hn::Mul(channel, gain), hn::Set(D32(), 1u << 15)));
}

// rgb_scale_pixel on a step of pixels of luma `luma` whose gain (rgb_gain) is `gain`, with black
// lifted by `lift` where the row has a black pixel (kBlack). A pixel clips where
// gain * largest > 255 << 16 (at most 255 * 255 << 16, within 32 bits): the gain passes its
// headroom (rgb_headroom is that quotient's floor). Few steps hold such a pixel, so the headroom
// is divided only in those.
template <bool kBlack>
HWY_INLINE Channels MapChannels(const Channels &c, V32 luma, V32 gain, std::uint32_t lift) {
  const D32 d;
  const V32 largest = hn::Max(c.r, hn::Max(c.g, c.b));
  const auto clips = hn::Gt(hn::Mul(gain, largest), hn::Set(d, 255u << 16));
  const V32 applied = hn::AllFalse(d, clips) ? gain : hn::Min(gain, Headroom(largest));
  const auto map = [&](V32 channel) {
    const V32 scaled = Scaled(channel, applied);
    if constexpr (!kBlack) return scaled;
    const V32 lifted = hn::Min(hn::Add(channel, hn::Set(d, lift)), hn::Set(d, 255u));
    return hn::IfThenElse(hn::Eq(luma, hn::Zero(d)), lifted, scaled);
  };
  return Channels{map(c.r), map(c.g), map(c.b)};
}

// rgb_scale_pixel on a step of pixels of luma `luma` that maps to `mapped`, with rgb_gain and
// rgb_headroom divided in the lanes. Lanes of luma 0 take the lift and their quotients are not
// used; their divisors are made 1.
HWY_INLINE Channels ScaleChannels(const Channels &c, V32 luma, V32 mapped) {
  const D32 d;
  const V32 one = hn::Set(d, 1u);
  const V32 largest = hn::Max(c.r, hn::Max(c.g, c.b));
  const V32 gain = DivideExactly(hn::Add(hn::ShiftLeft<16>(mapped), hn::ShiftRight<1>(luma)),
                                 hn::Max(luma, one));
  const V32 applied = hn::Min(gain, Headroom(largest));
  const auto black = hn::Eq(luma, hn::Zero(d));
  const auto scale = [&](V32 channel) {
    const V32 scaled = Scaled(channel, applied);
    const V32 lifted = hn::Min(hn::Add(channel, mapped), hn::Set(d, 255u));
    return hn::IfThenElse(black, lifted, scaled);
  };
  return Channels{scale(c.r), scale(c.g), scale(c.b)};
}

// Row y of `frame` through `step` a step of pixels at a time (step(channels, x) gives the new
// channels of pixels x, x + 1, ...) and the pixels past the last whole step through `pixel`
// (pixel(r, g, b, x), in place); the fourth byte of 4-byte pixels is kept.
template <class Step, class Pixel>
HWY_INLINE void ForEachRgbStep(const RgbView &view, int y, const Step &step, const Pixel &pixel) {
  // A copy the row's stores cannot alias, so its channel positions stay in registers.
  const RgbView frame = view;
  const D32 d32;
  const int lanes = step_of(d32, frame.width);
  std::uint8_t *p = frame.row(y);
  int x = 0;
  if (frame.pixel_bytes == 4) {
    // The byte of a 4-byte pixel that is none of R, G and B, kept from the words read.
    const std::uint32_t kept = 0xFFu << (8 * (6 - frame.red - frame.green - frame.blue));
    for (; x + lanes <= frame.width; x += lanes) {
      std::uint8_t *q = p + 4 * std::ptrdiff_t(x);
      const V32 words = LoadWords(d32, q);
      const Channels out = step(ChannelsOf(frame, words), x);
      StoreWords(d32, hn::Or(hn::And(words, hn::Set(d32, kept)), WordsOf(frame, out)), q);
    }
  } else {
#if HISTEQ_BYTE_PERMUTES
    for (; x + kRgb3GroupPixels <= frame.width; x += kRgb3GroupPixels) {
      std::uint8_t *q = p + 3 * std::ptrdiff_t(x);
      V32 words[4];
      LoadRgb3Group(q, words);
      for (int k = 0; k < 4; ++k)
        words[k] = WordsOf(frame, step(ChannelsOf(frame, words[k]), x + lanes * k));
      StoreRgb3Group(words, q);
    }
#endif
    const hn::Rebind<std::uint8_t, D32> d8;
    const hn::RebindToSigned<D32> di32;
    for (; x + lanes <= frame.width; x += lanes) {
      std::uint8_t *q = p + 3 * std::ptrdiff_t(x);
      const Channels out = step(Load3(frame, q), x);
      const auto r = hn::DemoteTo(d8, hn::BitCast(di32, out.r));
      const auto g = hn::DemoteTo(d8, hn::BitCast(di32, out.g));
      const auto b = hn::DemoteTo(d8, hn::BitCast(di32, out.b));
      if (frame.red == 0) {
        hn::StoreInterleaved3(r, g, b, d8, q);
      } else {
        hn::StoreInterleaved3(b, g, r, d8, q);
      }
    }
  }
  for (; x < frame.width; ++x) {
    std::uint8_t *q = p + frame.pixel_bytes * std::ptrdiff_t(x);
    pixel(q[frame.red], q[frame.green], q[frame.blue], x);
  }
}

// rgb.h's gains (below 2^24) as three tables of their bytes, for LookUp.
struct GainBytes {
  std::uint8_t of[3][256];
};

// One table serves the whole frame. Each row's gains are looked up by its luma: where LookUp is
// a byte permute, as their three bytes, a vector of pixels at a time, into `gain_bytes` (three
// rows of the frame's width), and put together in the lanes: three permutes per 64 pixels
// against a gather of 16 lanes per 16; elsewhere gathered.
void MapRgbRows(const RgbView &frame, int row_begin, int row_end,
                const std::uint8_t *HWY_RESTRICT lut, const std::uint8_t *HWY_RESTRICT luma,
                std::ptrdiff_t luma_stride) {
  const D8 d8;
  const D32 d32;
  const hn::Rebind<std::uint8_t, D32> d8_32;
  const hn::RebindToSigned<D32> di32;
  const RgbGainTables tables = rgb_gain_tables(lut);
  const std::uint32_t lift = lut[0];
  GainBytes bytes{};
  std::vector<std::uint8_t> gain_bytes;
  if constexpr (kLookUpIsPermute) {
    for (int v = 0; v < 256; ++v)
      for (int b = 0; b < 3; ++b) bytes.of[b][v] = std::uint8_t(tables.gain[v] >> (8 * b));
    gain_bytes.resize(3 * std::size_t(frame.width));
  }
  const int width = frame.width;
  const auto gain_byte = [&](int b) { return gain_bytes.data() + b * std::size_t(width); };
  const int lanes = int(hn::Lanes(d8));
  for (int y = row_begin; y < row_end; ++y) {
    const std::uint8_t *row_luma = luma + y * luma_stride;
    if constexpr (kLookUpIsPermute) {
      int x = 0;
      for (; x + lanes <= width; x += lanes) {
        const hn::Vec<D8> levels = hn::LoadU(d8, row_luma + x);
        for (int b = 0; b < 3; ++b)
          hn::StoreU(LookUp(d8, levels, bytes.of[b]), d8, gain_byte(b) + x);
      }
      for (; x < width; ++x)
        for (int b = 0; b < 3; ++b) gain_byte(b)[x] = bytes.of[b][row_luma[x]];
    }
    // Rows without a black pixel, most of a frame, skip the lift and read no luma in the lanes
    // where the gain comes from its bytes.
    const auto map_row = [&](auto black) {
      constexpr bool kBlack = decltype(black)::value;
      ForEachRgbStep(
          frame, y,
          [&](const Channels &c, int x) {
            V32 levels = hn::Zero(d32);
            if (kBlack || !kLookUpIsPermute)
              levels = hn::PromoteTo(d32, hn::LoadU(d8_32, row_luma + x));
            V32 gain;
            if constexpr (kLookUpIsPermute) {
              const auto byte = [&](int b) {
                return hn::PromoteTo(d32, hn::LoadU(d8_32, gain_byte(b) + x));
              };
              gain = hn::Or(byte(0), hn::Or(hn::ShiftLeft<8>(byte(1)), hn::ShiftLeft<16>(byte(2))));
            } else {
              gain = hn::GatherIndex(d32, tables.gain, hn::BitCast(di32, levels));
            }
            return MapChannels<kBlack>(c, levels, gain, lift);
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
  for (int y = row_begin; y < row_end; ++y) {
    const std::uint8_t *from = luma + y * stride, *to = mapped + y * stride;
    ForEachRgbStep(
        frame, y,
        [&](const Channels &c, int x) {
          return ScaleChannels(c, hn::PromoteTo(d32, hn::LoadU(d8, from + x)),
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
