// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Per-thread work on 16-byte chunks of luma (one uint4 load), shared by the separate histogram
// and map kernels and by the single fused kernel.

#include <cooperative_groups.h>
#include <cuda_runtime.h>

namespace histeq::cuda {

// Counts the 4 bytes of `word` into shared `bins`, adding four equal bytes at once: a flat
// area costs one shared atomic per 4 pixels instead of 4 serialized ones.
__device__ __forceinline__ void count_word(unsigned *bins, unsigned word) {
  if (word == (word & 0xff) * 0x01010101u) {
    atomicAdd(&bins[word & 0xff], 4u);
    return;
  }
  for (int k = 0; k < 4; ++k) atomicAdd(&bins[(word >> (8 * k)) & 0xff], 1u);
}

__device__ __forceinline__ void count_chunk(unsigned *bins, const uint4 &chunk) {
  count_word(bins, chunk.x);
  count_word(bins, chunk.y);
  count_word(bins, chunk.z);
  count_word(bins, chunk.w);
}

// Counts a chunk of `pixels` pixels: when `flat` (all of them at `level`), the chunk is first
// offered to the other lanes holding a flat chunk, and when they all hold the same level (a
// flat area, a constant frame) one lane adds them all with a single atomic instead of each
// queueing on one shared address. Only lanes with a flat chunk take part, so content without
// flat chunks pays a compare, not a warp vote. Any other chunk is counted by `count_each`.
template <class CountEach>
__device__ __forceinline__ void count_flat_voted(unsigned *bins, bool flat, unsigned level,
                                                 unsigned pixels, CountEach count_each) {
  if (flat) {
    const auto flat_lanes = cooperative_groups::coalesced_threads();
    if (flat_lanes.all(level == flat_lanes.shfl(level, 0))) {
      if (flat_lanes.thread_rank() == 0) atomicAdd(&bins[level], pixels * flat_lanes.size());
      return;
    }
  }
  count_each();
}

// count_chunk with the vote of count_flat_voted for a chunk of 16 equal bytes.
__device__ __forceinline__ void count_chunk_voted(unsigned *bins, const uint4 &chunk) {
  const unsigned level = chunk.x & 0xff;
  const bool flat = chunk.x == level * 0x01010101u && chunk.y == chunk.x && chunk.z == chunk.x &&
                    chunk.w == chunk.x;
  count_flat_voted(bins, flat, level, 16u, [&] { count_chunk(bins, chunk); });
}

// A LUT in shared memory, one 32-bit word per entry: a byte table would put four entries in one
// bank word and make neighbouring lanes' lookups contend.
struct SharedLut {
  const unsigned *table;
  __device__ unsigned operator()(unsigned v) const { return table[v]; }
};

template <typename Lut>
__device__ __forceinline__ unsigned map_word(unsigned w, const Lut &lut) {
  return lut(w & 0xff) | lut((w >> 8) & 0xff) << 8 | lut((w >> 16) & 0xff) << 16 |
         lut(w >> 24) << 24;
}

template <typename Lut>
__device__ __forceinline__ uint4 map_chunk(uint4 chunk, const Lut &lut) {
  chunk.x = map_word(chunk.x, lut);
  chunk.y = map_word(chunk.y, lut);
  chunk.z = map_word(chunk.z, lut);
  chunk.w = map_word(chunk.w, lut);
  return chunk;
}

}  // namespace histeq::cuda
