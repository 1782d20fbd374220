// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// How the single kernel counts and maps the pixels of each PixelLayout (device_plane.h): a
// chunk of whole pixels loaded as kVectors 16-byte vectors, or one pixel of a row's tail. Every
// layout counts one luma per pixel into 256 bins, so the histogram, the options and the LUT are
// the same for all; only these steps differ. Each writes whole pixels to `out` (the input's
// other bytes copied), so a frame equalized out of place keeps its chroma, alpha and padding
// bytes, and one equalized in place has them rewritten with their own values.

#include <cstdint>

#include <cuda_runtime.h>

#include "device_plane.h"
#include "luma_words.cuh"
#include "rgb.h"

namespace histeq::cuda {

template <int kVectors>
struct Chunk {
  uint4 v[kVectors];
};

template <int kVectors>
__device__ __forceinline__ Chunk<kVectors> load_chunk(const std::uint8_t *at) {
  Chunk<kVectors> chunk;
#pragma unroll
  for (int i = 0; i < kVectors; ++i) chunk.v[i] = reinterpret_cast<const uint4 *>(at)[i];
  return chunk;
}

template <int kVectors>
__device__ __forceinline__ void store_chunk(std::uint8_t *at, const Chunk<kVectors> &chunk) {
#pragma unroll
  for (int i = 0; i < kVectors; ++i) reinterpret_cast<uint4 *>(at)[i] = chunk.v[i];
}

template <int kVectors>
__device__ __forceinline__ unsigned &word_of(Chunk<kVectors> &chunk, int w) {
  uint4 &v = chunk.v[w / 4];
  return w % 4 == 0 ? v.x : w % 4 == 1 ? v.y : w % 4 == 2 ? v.z : v.w;
}

template <int kVectors>
__device__ __forceinline__ unsigned word_of(const Chunk<kVectors> &chunk, int w) {
  const uint4 &v = chunk.v[w / 4];
  return w % 4 == 0 ? v.x : w % 4 == 1 ? v.y : w % 4 == 2 ? v.z : v.w;
}

// Counts a chunk of `pixels` pixels by `count_each`, first offering it to the warp's vote of
// count_flat_voted when the kernel takes one (the flat test is dead code otherwise).
template <bool kWarpVote, class CountEach>
__device__ __forceinline__ void count_chunk_of(unsigned *bins, bool flat, unsigned level,
                                               unsigned pixels, CountEach count_each) {
  if constexpr (kWarpVote) {
    count_flat_voted(bins, flat, level, pixels, count_each);
  } else {
    count_each();
  }
}

// Counts the lumas of a chunk of RGB pixels, `flat` when they are all y[0]: then with one
// atomic.
template <bool kWarpVote, int kPixels>
__device__ __forceinline__ void count_lumas(unsigned *bins, const unsigned (&y)[kPixels],
                                            bool flat) {
  count_chunk_of<kWarpVote>(bins, flat, y[0], unsigned(kPixels), [&] {
    if (flat) {
      atomicAdd(&bins[y[0]], unsigned(kPixels));
      return;
    }
#pragma unroll
    for (int p = 0; p < kPixels; ++p) atomicAdd(&bins[y[p]], 1u);
  });
}

// What mapping needs in the block's shared memory: the LUT, one word per entry (SharedLut), and
// for RGB the gain and headroom tables of rgb.h, filled from it.
struct MapTables {
  const unsigned *lut;
  const RgbGainTables *rgb;
};

// A plane of luma bytes: 16 pixels a chunk.
struct LumaPixels {
  static constexpr int kPixelBytes = 1;
  static constexpr int kVectors = 1;
  static constexpr int kChunkPixels = 16;
  static constexpr bool kRgbTables = false;
  explicit __device__ LumaPixels(const PixelLayout &) {}

  template <bool kWarpVote>
  __device__ void count(unsigned *bins, const Chunk<1> &chunk) const {
    if constexpr (kWarpVote) {
      count_chunk_voted(bins, chunk.v[0]);
    } else {
      count_chunk(bins, chunk.v[0]);
    }
  }
  __device__ Chunk<1> map(Chunk<1> chunk, const MapTables &tables) const {
    chunk.v[0] = map_chunk(chunk.v[0], SharedLut{tables.lut});
    return chunk;
  }
  __device__ void count_pixel(unsigned *bins, const std::uint8_t *pixel) const {
    atomicAdd(&bins[*pixel], 1u);
  }
  __device__ void map_pixel(const std::uint8_t *pixel, std::uint8_t *out,
                            const MapTables &tables) const {
    *out = std::uint8_t(tables.lut[*pixel]);
  }
};

// Packed 4:2:2 YUV: 8 pixels a chunk, two in each 32-bit word, their luma bytes kLuma and
// kLuma + 2 (YUY2 and YVYU 0, UYVY 1). As a template parameter the luma's place is known when the
// kernel is compiled: each luma byte is taken out and put back by one byte permute.
template <int kLuma>
struct PackedYuvPixels {
  static constexpr int kPixelBytes = 2;
  static constexpr int kVectors = 1;
  static constexpr int kChunkPixels = 8;
  static constexpr bool kRgbTables = false;
  // __byte_perm selectors: the first and second luma of a word as a number, and a word with byte
  // 0 of the second operand in place of its first and second luma.
  static constexpr unsigned kFirst = 0x4440u | kLuma, kSecond = 0x4440u | (kLuma + 2);
  static constexpr unsigned kWithFirst = 0x3210u + ((4u - kLuma) << 4 * kLuma);
  static constexpr unsigned kWithSecond = 0x3210u + ((4u - (kLuma + 2)) << 4 * (kLuma + 2));
  explicit __device__ PackedYuvPixels(const PixelLayout &) {}

  template <bool kWarpVote>
  __device__ void count(unsigned *bins, const Chunk<1> &chunk) const {
    const auto count_each = [&] {
#pragma unroll
      for (int w = 0; w < 4; ++w) {
        const unsigned word = word_of(chunk, w);
        const unsigned first = __byte_perm(word, 0, kFirst), second = __byte_perm(word, 0, kSecond);
        if (first == second) {
          atomicAdd(&bins[first], 2u);
        } else {
          atomicAdd(&bins[first], 1u);
          atomicAdd(&bins[second], 1u);
        }
      }
    };
    constexpr unsigned kMask = 0x00ff00ffu << 8 * kLuma;
    const unsigned level = __byte_perm(chunk.v[0].x, 0, kFirst);
    const unsigned flat_word = (level * 0x00010001u) << 8 * kLuma;
    const bool flat = (chunk.v[0].x & kMask) == flat_word && (chunk.v[0].y & kMask) == flat_word &&
                      (chunk.v[0].z & kMask) == flat_word && (chunk.v[0].w & kMask) == flat_word;
    count_chunk_of<kWarpVote>(bins, flat, level, 8u, count_each);
  }
  __device__ Chunk<1> map(Chunk<1> chunk, const MapTables &tables) const {
#pragma unroll
    for (int w = 0; w < 4; ++w) {
      unsigned &word = word_of(chunk, w);
      const unsigned first = tables.lut[__byte_perm(word, 0, kFirst)];
      const unsigned second = tables.lut[__byte_perm(word, 0, kSecond)];
      word = __byte_perm(__byte_perm(word, first, kWithFirst), second, kWithSecond);
    }
    return chunk;
  }
  __device__ void count_pixel(unsigned *bins, const std::uint8_t *pixel) const {
    atomicAdd(&bins[pixel[kLuma]], 1u);
  }
  __device__ void map_pixel(const std::uint8_t *pixel, std::uint8_t *out,
                            const MapTables &tables) const {
    out[1 - kLuma] = pixel[1 - kLuma];
    out[kLuma] = std::uint8_t(tables.lut[pixel[kLuma]]);
  }
};

// rgb.h's rule for a pixel of luma y whose R, G and B are bytes 0, 1 and 2 of `rgb`, its channels
// mapped as rgb_scale_q16 leaves them (each level in byte 2 of its word), for byte permutes to
// put in place. The LUT is read only where y is 0, the one luma whose channels are lifted rather
// than scaled.
__device__ __forceinline__ RgbScaled map_rgb(unsigned rgb, unsigned y, const MapTables &tables) {
  return rgb_scale_q16_pixel(std::uint8_t(rgb), std::uint8_t(rgb >> 8), std::uint8_t(rgb >> 16), y,
                             y ? 0u : tables.lut[0], tables.rgb->gain[y], *tables.rgb);
}

// Byte 2 of `low` and of `high`, as bytes 0 and 1 (bytes 2 and 3 are byte 2 of `low` again):
// two mapped levels side by side.
__device__ __forceinline__ unsigned two_levels(unsigned low, unsigned high) {
  return __byte_perm(low, high, 0x2262u);
}

// rgb_luma of the R, G and B bytes of a 32-bit word, by two byte dot products (DP4A) where the
// three weights' products take three multiplies and three byte extractions: each Q15 weight is
// split into its high and low byte, placed at its channel's byte (the byte without a channel
// weighs 0), and the high products' sum is shifted up by 8. The sum is rgb_luma's, so is the luma.
struct LumaDot {
  unsigned high;
  unsigned low;
  __device__ LumaDot(LumaMatrix m, int red, int green, int blue)
      : high((m.red >> 8) << 8 * red | (m.green >> 8) << 8 * green | (m.blue >> 8) << 8 * blue),
        low((m.red & 0xffu) << 8 * red | (m.green & 0xffu) << 8 * green |
            (m.blue & 0xffu) << 8 * blue) {}
  __device__ unsigned operator()(unsigned word) const {
    return ((__dp4a(word, high, 0u) << 8) + __dp4a(word, low, kLumaOne / 2)) >> 15;
  }
};

// Packed RGB of 4 bytes a pixel (RGBx, RGBA, ...): 4 pixels a chunk, one in each word, its
// channels at the layout's bytes; the fourth byte is kept. Mapping permutes each word to R, G, B
// and the kept byte from byte 0 up (one PRMT), so the channels sit at bytes known when the
// kernel is compiled, and three more put the mapped levels and the kept byte in the layout's
// order. A row's tail pixel is gathered into a word and takes the same steps.
struct Rgb4Pixels {
  static constexpr int kPixelBytes = 4;
  static constexpr int kVectors = 1;
  static constexpr int kChunkPixels = 4;
  static constexpr bool kRgbTables = true;
  LumaDot luma_of;
  unsigned to_rgb;    // __byte_perm selector: R, G, B, the kept byte from byte 0 up
  unsigned in_place;  // __byte_perm(R and G, B and the kept byte, in_place): the layout's order
  explicit __device__ Rgb4Pixels(const PixelLayout &layout)
      : luma_of(layout.matrix, layout.red, layout.green, layout.blue) {
    const int kept = 6 - layout.red - layout.green - layout.blue;
    to_rgb = unsigned(layout.red | layout.green << 4 | layout.blue << 8 | kept << 12);
    in_place =
        0u << 4 * layout.red | 1u << 4 * layout.green | 4u << 4 * layout.blue | 5u << 4 * kept;
  }

  template <bool kWarpVote>
  __device__ void count(unsigned *bins, const Chunk<1> &chunk) const {
    const unsigned y[4] = {luma_of(chunk.v[0].x), luma_of(chunk.v[0].y), luma_of(chunk.v[0].z),
                           luma_of(chunk.v[0].w)};
    count_lumas<kWarpVote>(bins, y, y[0] == y[1] && y[0] == y[2] && y[0] == y[3]);
  }
  __device__ unsigned map_word(unsigned word, const MapTables &tables) const {
    const unsigned rgb = __byte_perm(word, 0, to_rgb);
    const RgbScaled scaled = map_rgb(rgb, luma_of(word), tables);
    // B's level beside the kept byte (byte 3 of `rgb`).
    const unsigned blue_kept = __byte_perm(scaled.b, rgb, 0x2272u);
    return __byte_perm(two_levels(scaled.r, scaled.g), blue_kept, in_place);
  }
  __device__ Chunk<1> map(Chunk<1> chunk, const MapTables &tables) const {
#pragma unroll
    for (int w = 0; w < 4; ++w) word_of(chunk, w) = map_word(word_of(chunk, w), tables);
    return chunk;
  }
  static __device__ unsigned word_at(const std::uint8_t *pixel) {
    return pixel[0] | pixel[1] << 8 | pixel[2] << 16 | unsigned(pixel[3]) << 24;
  }
  __device__ void count_pixel(unsigned *bins, const std::uint8_t *pixel) const {
    atomicAdd(&bins[luma_of(word_at(pixel))], 1u);
  }
  __device__ void map_pixel(const std::uint8_t *pixel, std::uint8_t *out,
                            const MapTables &tables) const {
    const unsigned mapped = map_word(word_at(pixel), tables);
    for (int k = 0; k < 4; ++k) out[k] = std::uint8_t(mapped >> 8 * k);
  }
};

// Packed RGB of 3 bytes a pixel: 16 pixels in a chunk of three vectors. RGB and BGR differ
// only in which end holds red; as template parameters the channels' places are known when the
// kernel is compiled, so the chunk stays in registers.
template <bool kRedFirst>
struct Rgb3Pixels {
  static constexpr int kPixelBytes = 3;
  static constexpr int kVectors = 3;
  static constexpr int kChunkPixels = 16;
  static constexpr bool kRgbTables = true;
  static constexpr int kRed = kRedFirst ? 0 : 2;
  static constexpr int kBlue = 2 - kRed;
  LumaDot luma_of;
  explicit __device__ Rgb3Pixels(const PixelLayout &layout) : luma_of(layout.matrix, 0, 1, 2) {}

  // Pixel p's R, G and B from byte 0 up (one PRMT of the one or two words its bytes lie in).
  static __device__ unsigned rgb_of(const Chunk<3> &chunk, int p) {
    const int k = 3 * p / 4, o = 3 * p % 4;
    return __byte_perm(word_of(chunk, k), word_of(chunk, o <= 1 ? k : k + 1),
                       unsigned((o + kRed) | (o + 1) << 4 | (o + kBlue) << 8));
  }
  template <bool kWarpVote>
  __device__ void count(unsigned *bins, const Chunk<3> &chunk) const {
    unsigned y[kChunkPixels];
    bool flat = true;
#pragma unroll
    for (int p = 0; p < kChunkPixels; ++p) {
      y[p] = luma_of(rgb_of(chunk, p));
      flat = flat && y[p] == y[0];
    }
    count_lumas<kWarpVote>(bins, y, flat);
  }
  // Pixel p's channels, mapped, in the order of its bytes.
  __device__ void map_pixel_at(const Chunk<3> &chunk, int p, const MapTables &tables,
                               unsigned *scaled_bytes) const {
    const unsigned rgb = rgb_of(chunk, p);
    const RgbScaled scaled = map_rgb(rgb, luma_of(rgb), tables);
    scaled_bytes[kRed] = scaled.r;
    scaled_bytes[1] = scaled.g;
    scaled_bytes[kBlue] = scaled.b;
  }
  // Four pixels at a time, whose twelve bytes are three whole words: each word is its four
  // mapped levels, put side by side by three byte permutes.
  __device__ Chunk<3> map(Chunk<3> chunk, const MapTables &tables) const {
#pragma unroll
    for (int quad = 0; quad < kChunkPixels / 4; ++quad) {
      unsigned scaled[12];
#pragma unroll
      for (int p = 0; p < 4; ++p) map_pixel_at(chunk, 4 * quad + p, tables, scaled + 3 * p);
#pragma unroll
      for (int w = 0; w < 3; ++w) {
        const unsigned *levels = scaled + 4 * w;
        word_of(chunk, 3 * quad + w) = __byte_perm(two_levels(levels[0], levels[1]),
                                                   two_levels(levels[2], levels[3]), 0x5410u);
      }
    }
    return chunk;
  }
  static __device__ unsigned rgb_at(const std::uint8_t *pixel) {
    return pixel[kRed] | pixel[1] << 8 | pixel[kBlue] << 16;
  }
  __device__ void count_pixel(unsigned *bins, const std::uint8_t *pixel) const {
    atomicAdd(&bins[luma_of(rgb_at(pixel))], 1u);
  }
  __device__ void map_pixel(const std::uint8_t *pixel, std::uint8_t *out,
                            const MapTables &tables) const {
    const unsigned rgb = rgb_at(pixel);
    const RgbScaled scaled = map_rgb(rgb, luma_of(rgb), tables);
    out[kRed] = std::uint8_t(scaled.r >> 16);
    out[1] = std::uint8_t(scaled.g >> 16);
    out[kBlue] = std::uint8_t(scaled.b >> 16);
  }
};

// Fills the block's RGB tables from its finished LUT, one entry a thread (kBlock == 256).
__device__ __forceinline__ void fill_block_rgb_tables(const unsigned *lut, RgbGainTables &tables) {
  const unsigned v = threadIdx.x;
  tables.gain[v] = v == 0 ? 0 : rgb_gain(v, lut[v]);
  fill_rgb_headroom(int(v), tables);
}

}  // namespace histeq::cuda
