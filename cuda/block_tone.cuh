// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// The steps of core/tone_steps.h for one frame, run by one block with a thread per bin: the
// same functions as the CPU's ToneMap, with its loops' sums as block reductions and its running
// sum as a block scan (integer sums: the order does not change them). Every block of a kernel
// may run it on the same inputs and gets the same LUT; block 0 alone writes what outlives the
// kernel (the smoothed histogram, the report, d_lut).

#include <cstdint>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "device_tone.h"
#include "equalization.h"
#include "kernel_shape.cuh"
#include "tone_steps.h"

namespace histeq::cuda {

struct BlockToneScratch {
  using Count = unsigned long long;
  using BlockScan = cub::BlockScan<Count, kBlock, cub::BLOCK_SCAN_WARP_SCANS>;
  using BlockReduce = cub::BlockReduce<Count, kBlock>;
  union {
    typename BlockScan::TempStorage scan;
    typename BlockReduce::TempStorage reduce;
  } cub;
  Count broadcast[2];  // block_sum's results, alternately
  Count cdf[kLevels];
  int first_present;
};

// The sum of every thread's `value`, in every thread; `call` counts the block's calls from 0.
// One barrier a call: it publishes the sum and frees the reduction's storage for the next
// call, whose sum goes to the other slot while slower threads may still read this one.
__device__ __forceinline__ unsigned long long block_sum(unsigned long long value, int call,
                                                        BlockToneScratch &scratch) {
  const unsigned long long sum = BlockToneScratch::BlockReduce(scratch.cub.reduce).Sum(value);
  if (threadIdx.x == 0) scratch.broadcast[call % 2] = sum;
  __syncthreads();
  return scratch.broadcast[call % 2];
}

// Thread t's band's sum of `difference` (bands of kBlock / kSceneBands consecutive threads,
// within one warp), in every thread of the band.
__device__ __forceinline__ long long band_sum(long long difference) {
  constexpr int kBandLanes = kBlock / kSceneBands;
  static_assert(kBandLanes <= kLanes && kLanes % kBandLanes == 0, "a band lies within a warp");
#pragma unroll
  for (int offset = kBandLanes / 2; offset > 0; offset /= 2)
    difference += __shfl_xor_sync(0xffffffffu, difference, offset);
  return difference;
}

// lut[t] for bin t of a frame whose bin t holds `count` pixels. Ends with a __syncthreads, so
// the block can map with `lut` at once.
__device__ __forceinline__ void build_block_tone_lut(unsigned long long count, OutputRange range,
                                                     const DeviceTone &tone, unsigned *lut,
                                                     BlockToneScratch &scratch,
                                                     std::uint8_t *d_lut) {
  const int t = threadIdx.x;
  const Params &params = tone.params;
  const bool writer = blockIdx.x == 0;
  unsigned long long source = count;
  bool restarted = false;
  bool source_is_count = true;
  unsigned long long count_total = 0;
  int sums = 0;
  if (params.keep_history) {
    const unsigned long long total = count_total = block_sum(count, sums++, scratch);
    const unsigned long long now = normalized_bin(count, total);
    const bool has_history = tone.d_history_in && !tone.reset;
    const unsigned long long before = has_history ? __ldcg(&tone.d_history_in[t]) : 0;
    const long long band = band_sum(bin_difference(now, before));
    const bool band_leader = t % (kBlock / kSceneBands) == 0;
    const unsigned long long distance =
        block_sum(has_history && band_leader ? band_distance(band) : 0, sums++, scratch);
    restarted = !has_history || is_scene_cut(distance, params.scene_threshold);
    const unsigned long long smoothed =
        restarted ? now : smoothed_bin(before, now, params.history_weight);
    if (writer) {
      tone.d_history_out[t] = smoothed;
      tone.d_report->histogram[t] = count;
      if (t == 0) tone.d_report->restarted = restarted;
    }
    if (!restarted && params.history_weight != 0) {
      source = smoothed;
      source_is_count = false;
    }
  }
  if (params.clip_limit) {
    // The frame's own counts were summed already when the history was followed.
    const unsigned long long source_total =
        params.keep_history && source_is_count ? count_total : block_sum(source, sums++, scratch);
    const unsigned long long ceiling = clip_ceiling(source_total, params.clip_limit, kLevels);
    const unsigned long long excess = block_sum(clip_excess(source, ceiling), sums++, scratch);
    source = clipped_bin(source, t, clip_spread(ceiling, excess, kLevels));
  }
  if (t == 0) scratch.first_present = kLevels;
  __syncthreads();
  if (source) atomicMin(&scratch.first_present, t);
  unsigned long long cdf;
  BlockToneScratch::BlockScan(scratch.cub.scan).InclusiveSum(source, cdf);
  scratch.cdf[t] = cdf;
  __syncthreads();
  const unsigned long long total = scratch.cdf[kLevels - 1];
  const unsigned long long cdf_min =
      scratch.first_present < kLevels ? scratch.cdf[scratch.first_present] : 0;
  const std::uint32_t level = equalized_level(std::uint32_t(t), cdf, cdf_min, total, range);
  lut[t] = blended_level(std::uint32_t(t), level, params.strength);
  if (writer) d_lut[t] = std::uint8_t(lut[t]);
  __syncthreads();
}

}  // namespace histeq::cuda
