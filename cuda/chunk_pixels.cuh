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

__device__ __forceinline__ unsigned byte_at(unsigned word, int shift) {
  return (word >> shift) & 0xffu;
}

__device__ __forceinline__ unsigned with_byte(unsigned word, int shift, unsigned value) {
  return (word & ~(0xffu << shift)) | (value << shift);
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

// Packed 4:2:2 YUV: 8 pixels a chunk, two in each 32-bit word, their luma bytes `shift` and
// `shift` + 16 bits up.
struct PackedYuvPixels {
  static constexpr int kPixelBytes = 2;
  static constexpr int kVectors = 1;
  static constexpr int kChunkPixels = 8;
  static constexpr bool kRgbTables = false;
  int luma;
  int shift;
  explicit __device__ PackedYuvPixels(const PixelLayout &layout)
      : luma(layout.luma), shift(8 * layout.luma) {}

  template <bool kWarpVote>
  __device__ void count(unsigned *bins, const Chunk<1> &chunk) const {
    const auto count_each = [&] {
#pragma unroll
      for (int w = 0; w < 4; ++w) {
        const unsigned word = word_of(chunk, w);
        const unsigned first = byte_at(word, shift), second = byte_at(word, shift + 16);
        if (first == second) {
          atomicAdd(&bins[first], 2u);
        } else {
          atomicAdd(&bins[first], 1u);
          atomicAdd(&bins[second], 1u);
        }
      }
    };
    const unsigned mask = 0x00ff00ffu << shift;
    const unsigned level = byte_at(chunk.v[0].x, shift);
    const unsigned flat_word = (level * 0x00010001u) << shift;
    const bool flat = (chunk.v[0].x & mask) == flat_word && (chunk.v[0].y & mask) == flat_word &&
                      (chunk.v[0].z & mask) == flat_word && (chunk.v[0].w & mask) == flat_word;
    count_chunk_of<kWarpVote>(bins, flat, level, 8u, count_each);
  }
  __device__ Chunk<1> map(Chunk<1> chunk, const MapTables &tables) const {
#pragma unroll
    for (int w = 0; w < 4; ++w) {
      unsigned &word = word_of(chunk, w);
      word = with_byte(word, shift, tables.lut[byte_at(word, shift)]);
      word = with_byte(word, shift + 16, tables.lut[byte_at(word, shift + 16)]);
    }
    return chunk;
  }
  __device__ void count_pixel(unsigned *bins, const std::uint8_t *pixel) const {
    atomicAdd(&bins[pixel[luma]], 1u);
  }
  __device__ void map_pixel(const std::uint8_t *pixel, std::uint8_t *out,
                            const MapTables &tables) const {
    out[1 - luma] = pixel[1 - luma];
    out[luma] = std::uint8_t(tables.lut[pixel[luma]]);
  }
};

// The parts of packed RGB's rule both pixel sizes share.
struct RgbRule {
  LumaMatrix matrix;

  __device__ unsigned luma(unsigned r, unsigned g, unsigned b) const {
    return rgb_luma(r, g, b, matrix);
  }
  // Maps R, G and B in place, by rgb.h's rule with the block's tables.
  __device__ void map(unsigned &r, unsigned &g, unsigned &b, const MapTables &tables) const {
    const unsigned y = luma(r, g, b);
    std::uint8_t r8 = std::uint8_t(r), g8 = std::uint8_t(g), b8 = std::uint8_t(b);
    rgb_scale_pixel(r8, g8, b8, y, tables.lut[y], tables.rgb->gain[y], *tables.rgb);
    r = r8;
    g = g8;
    b = b8;
  }
  // A pixel of a row's tail, its other bytes copied to `out`.
  __device__ void map_pixel(const std::uint8_t *pixel, std::uint8_t *out, int pixel_bytes, int red,
                            int green, int blue, const MapTables &tables) const {
    for (int k = 0; k < pixel_bytes; ++k) out[k] = pixel[k];
    unsigned r = pixel[red], g = pixel[green], b = pixel[blue];
    map(r, g, b, tables);
    out[red] = std::uint8_t(r);
    out[green] = std::uint8_t(g);
    out[blue] = std::uint8_t(b);
  }
};

// Packed RGB of 4 bytes a pixel (RGBx, RGBA, ...): 4 pixels a chunk, one in each word, its
// channels at bit shifts; the fourth byte is kept.
struct Rgb4Pixels {
  static constexpr int kPixelBytes = 4;
  static constexpr int kVectors = 1;
  static constexpr int kChunkPixels = 4;
  static constexpr bool kRgbTables = true;
  RgbRule rule;
  int red, green, blue;
  explicit __device__ Rgb4Pixels(const PixelLayout &layout)
      : rule{layout.matrix}, red(layout.red), green(layout.green), blue(layout.blue) {}

  __device__ unsigned luma_of(unsigned word) const {
    return rule.luma(byte_at(word, 8 * red), byte_at(word, 8 * green), byte_at(word, 8 * blue));
  }
  template <bool kWarpVote>
  __device__ void count(unsigned *bins, const Chunk<1> &chunk) const {
    const unsigned y[4] = {luma_of(chunk.v[0].x), luma_of(chunk.v[0].y), luma_of(chunk.v[0].z),
                           luma_of(chunk.v[0].w)};
    count_lumas<kWarpVote>(bins, y, y[0] == y[1] && y[0] == y[2] && y[0] == y[3]);
  }
  __device__ Chunk<1> map(Chunk<1> chunk, const MapTables &tables) const {
#pragma unroll
    for (int w = 0; w < 4; ++w) {
      unsigned &word = word_of(chunk, w);
      unsigned r = byte_at(word, 8 * red), g = byte_at(word, 8 * green),
               b = byte_at(word, 8 * blue);
      rule.map(r, g, b, tables);
      word = with_byte(with_byte(with_byte(word, 8 * red, r), 8 * green, g), 8 * blue, b);
    }
    return chunk;
  }
  __device__ void count_pixel(unsigned *bins, const std::uint8_t *pixel) const {
    atomicAdd(&bins[rule.luma(pixel[red], pixel[green], pixel[blue])], 1u);
  }
  __device__ void map_pixel(const std::uint8_t *pixel, std::uint8_t *out,
                            const MapTables &tables) const {
    rule.map_pixel(pixel, out, 4, red, green, blue, tables);
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
  RgbRule rule;
  explicit __device__ Rgb3Pixels(const PixelLayout &layout) : rule{layout.matrix} {}

  static __device__ unsigned byte_of(const Chunk<3> &chunk, int k) {
    return byte_at(word_of(chunk, k / 4), 8 * (k % 4));
  }
  static __device__ void set_byte(Chunk<3> &chunk, int k, unsigned value) {
    unsigned &word = word_of(chunk, k / 4);
    word = with_byte(word, 8 * (k % 4), value);
  }
  __device__ unsigned luma_at(const Chunk<3> &chunk, int p) const {
    return rule.luma(byte_of(chunk, 3 * p + kRed), byte_of(chunk, 3 * p + 1),
                     byte_of(chunk, 3 * p + kBlue));
  }
  template <bool kWarpVote>
  __device__ void count(unsigned *bins, const Chunk<3> &chunk) const {
    unsigned y[kChunkPixels];
    bool flat = true;
#pragma unroll
    for (int p = 0; p < kChunkPixels; ++p) {
      y[p] = luma_at(chunk, p);
      flat = flat && y[p] == y[0];
    }
    count_lumas<kWarpVote>(bins, y, flat);
  }
  __device__ Chunk<3> map(Chunk<3> chunk, const MapTables &tables) const {
#pragma unroll
    for (int p = 0; p < kChunkPixels; ++p) {
      unsigned r = byte_of(chunk, 3 * p + kRed), g = byte_of(chunk, 3 * p + 1),
               b = byte_of(chunk, 3 * p + kBlue);
      rule.map(r, g, b, tables);
      set_byte(chunk, 3 * p + kRed, r);
      set_byte(chunk, 3 * p + 1, g);
      set_byte(chunk, 3 * p + kBlue, b);
    }
    return chunk;
  }
  __device__ void count_pixel(unsigned *bins, const std::uint8_t *pixel) const {
    atomicAdd(&bins[rule.luma(pixel[kRed], pixel[1], pixel[kBlue])], 1u);
  }
  __device__ void map_pixel(const std::uint8_t *pixel, std::uint8_t *out,
                            const MapTables &tables) const {
    rule.map_pixel(pixel, out, 3, kRed, 1, kBlue, tables);
  }
};

// Fills the block's RGB tables from its finished LUT, one entry a thread (kBlock == 256).
__device__ __forceinline__ void fill_block_rgb_tables(const unsigned *lut, RgbGainTables &tables) {
  const unsigned v = threadIdx.x;
  tables.gain[v] = v == 0 ? 0 : rgb_gain(v, lut[v]);
  fill_rgb_headroom(int(v), tables);
}

}  // namespace histeq::cuda
