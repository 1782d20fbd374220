// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// The steps of core/tone_steps.h for one frame, run by one block with a thread per bin: the
// same functions as the CPU's ToneMap, with its loops' sums as block sums and its running sum
// as a block scan (integer sums: the order does not change them). Every block of a kernel
// may run it on the same inputs and gets the same LUT; block 0 alone writes what outlives the
// kernel (the smoothed histogram, the report, d_lut).
//
// It runs between the kernel's grid barrier and its mapping, where every thread of the GPU
// waits on it, so its chain of dependent steps is kept short: one barrier for every sum the
// options need, then the scan, and no integer division (the clip spread's quotients come from a
// table). Frames have fewer than 2^32 pixels (DeviceEqualizer refuses larger ones with
// options), so every count, Q30 fraction and sum of them fits 32 bits, and the sums and the scan
// run on 32-bit words.

#include <cstdint>

#include <cub/block/block_scan.cuh>

#include "device_tone.h"
#include "equalization.h"
#include "kernel_shape.cuh"
#include "tone_steps.h"

namespace histeq::cuda {

struct BlockToneScratch {
  using BlockScan = cub::BlockScan<unsigned, kBlock, cub::BLOCK_SCAN_WARP_SCANS>;
  typename BlockScan::TempStorage scan;
  unsigned warp_sums[kWarps][3];  // block_sums' per-warp partial sums
  unsigned cdf_min;
};

__device__ __forceinline__ bool has_history(const DeviceTone &tone) {
  return tone.params.keep_history && tone.d_history_in && !tone.reset;
}

// Bin t's smoothed history before this frame (0 without one). Its load is issued before the
// caller's histogram loads are summed, so their L2 latencies overlap.
__device__ __forceinline__ unsigned long long history_before(const DeviceTone &tone) {
  return has_history(tone) ? __ldcg(&tone.d_history_in[threadIdx.x]) : 0ull;
}

// The sums over the block of every thread's values[i], in every thread, behind one barrier.
// Once per kernel: the partial sums' slots are not freed for a second call.
template <int kValues>
__device__ __forceinline__ void block_sums(unsigned (&values)[kValues], BlockToneScratch &scratch) {
  static_assert(kValues <= 3, "warp_sums holds three sums");
  const int warp = threadIdx.x / kLanes;
#pragma unroll
  for (int i = 0; i < kValues; ++i) {
    const unsigned sum = warp_sum(values[i]);
    if (threadIdx.x % kLanes == 0) scratch.warp_sums[warp][i] = sum;
  }
  __syncthreads();
  // Each warp's first kWarps lanes read the partial sums and one REDUX adds them: fewer
  // instructions than every thread reading all of them, and every block of the grid runs this.
  static_assert(kWarps <= kLanes, "a warp's lanes read every warp's partial sum");
  const int lane = threadIdx.x % kLanes;
#pragma unroll
  for (int i = 0; i < kValues; ++i)
    values[i] = warp_sum(lane < kWarps ? scratch.warp_sums[lane][i] : 0u);
}

// Thread t's band's sum of `difference` (bands of kBlock / kSceneBands consecutive threads,
// within one warp), in every thread of the band.
__device__ __forceinline__ int band_sum(int difference) {
  constexpr int kBandLanes = kBlock / kSceneBands;
  static_assert(kBandLanes <= kLanes && kLanes % kBandLanes == 0, "a band lies within a warp");
#pragma unroll
  for (int offset = kBandLanes / 2; offset > 0; offset /= 2)
    difference += __shfl_xor_sync(0xffffffffu, difference, offset);
  return difference;
}

// clip_spread's step and clipped_bin's index / step for 256 bins, by table: for a residual r
// (1..255), step = 256 / r and reciprocal = ceil(2^16 / step), with which
// (v * reciprocal) >> 16 == v / step for every level v (checked below for all of them).
struct ClipStep {
  unsigned step = 1;
  unsigned reciprocal = 1u << 16;
};
struct ClipSteps {
  ClipStep of[kLevels];
};

constexpr ClipSteps make_clip_steps() {
  ClipSteps steps{};
  for (unsigned r = 1; r < kLevels; ++r) {
    const unsigned step = kLevels / r;
    steps.of[r] = {step, ((1u << 16) + step - 1) / step};
  }
  return steps;
}

constexpr bool clip_steps_divide_exactly() {
  const ClipSteps steps = make_clip_steps();
  for (unsigned r = 1; r < kLevels; ++r)
    for (unsigned v = 0; v < kLevels; ++v)
      if ((v * steps.of[r].reciprocal) >> 16 != v / steps.of[r].step) return false;
  return true;
}
static_assert(clip_steps_divide_exactly(), "a clip step's reciprocal must divide every level");

__constant__ const ClipSteps kClipSteps = make_clip_steps();

// clipped_bin(count, v, clip_spread(ceiling, excess, 256)), the same value without a division.
__device__ __forceinline__ unsigned clipped_level_bin(unsigned count, unsigned v, unsigned ceiling,
                                                      unsigned excess) {
  const unsigned batch = excess / kLevels;
  const unsigned residual = excess % kLevels;
  const ClipStep step = kClipSteps.of[residual];
  const unsigned quotient = (v * step.reciprocal) >> 16;
  const bool one_more = residual && quotient * step.step == v && quotient < residual;
  return (count < ceiling ? count : ceiling) + batch + (one_more ? 1u : 0u);
}

// lut[t] for bin t of a frame of `pixels` pixels whose bin t holds `count` and whose smoothed
// history held `before` (history_before); `scale` is bin_scale(pixels), taken on the host.
// Whether the source of the LUT is the frame's counts or the smoothed histogram is known only
// once the scene distance is summed, so the clip excess of both is summed with it, against their
// nominal totals (tone_steps.h, step 3), known ahead. Clipping keeps the source's sum, which the
// scan returns. Ends with a __syncthreads, so the block can map with `lut` at once.
__device__ __forceinline__ void build_block_tone_lut(
    unsigned long long count, unsigned long long before, unsigned long long pixels,
    unsigned long long scale, OutputRange range, const DeviceTone &tone, unsigned *lut,
    BlockToneScratch &scratch, std::uint8_t *d_lut) {
  const int t = threadIdx.x;
  const Params &params = tone.params;
  const bool writer = blockIdx.x == 0;
  const bool followed = has_history(tone);
  unsigned source = unsigned(count);
  unsigned ceiling = unsigned(clip_ceiling(pixels, params.clip_limit, kLevels));
  unsigned now = 0;
  unsigned smoothed = 0;
  // The scene distance, then the clip excess of the counts and of the smoothed histogram.
  unsigned sums[3] = {0, unsigned(clip_excess(source, ceiling)), 0};
  if (params.keep_history) {
    now = unsigned(normalized_bin(count, scale));
    smoothed = unsigned(smoothed_bin(before, now, params.history_weight));
    const int band = band_sum(int(bin_difference(now, before)));
    const bool band_leader = t % (kBlock / kSceneBands) == 0;
    sums[0] = followed && band_leader ? unsigned(band_distance(band)) : 0u;
    sums[2] = unsigned(clip_excess(smoothed, clip_ceiling(kUnitQ30, params.clip_limit, kLevels)));
  }
  if (params.keep_history || params.clip_limit) block_sums(sums, scratch);
  unsigned excess = sums[1];
  if (params.keep_history) {
    const bool restarted = !followed || is_scene_cut(sums[0], params.scene_threshold);
    if (writer) {
      tone.d_history_out[t] = restarted ? now : smoothed;
      tone.d_report[1 + t] = count;
      if (t == 0) tone.d_report[0] = restarted;
    }
    if (!restarted && params.history_weight != 0) {
      source = smoothed;
      ceiling = unsigned(clip_ceiling(kUnitQ30, params.clip_limit, kLevels));
      excess = sums[2];
    }
  }
  if (params.clip_limit) source = clipped_level_bin(source, unsigned(t), ceiling, excess);
  unsigned cdf = 0;
  unsigned total = 0;
  BlockToneScratch::BlockScan(scratch.scan).InclusiveSum(source, cdf, total);
  // The darkest present level is the one thread whose bin is the first with any count.
  if (source && cdf == source) scratch.cdf_min = cdf;
  __syncthreads();
  const unsigned cdf_min = total ? scratch.cdf_min : 0u;
  const std::uint32_t level =
      equalized_level<std::uint32_t>(std::uint32_t(t), cdf, cdf_min, total, range);
  lut[t] = blended_level(std::uint32_t(t), level, params.strength);
  if (writer) d_lut[t] = std::uint8_t(lut[t]);
  __syncthreads();
}

}  // namespace histeq::cuda
