// SPDX-License-Identifier: LGPL-2.1-or-later
#include "fused_kernel.h"

#include <algorithm>
#include <type_traits>

#include <cooperative_groups.h>

#include "block_tone.cuh"
#include "cuda_check.h"
#include "device_bins.cuh"
#include "item_walk.cuh"
#include "kernel_shape.cuh"
#include "luma_words.cuh"

namespace histeq::cuda {

namespace {

constexpr int kCached = kFusedCachedChunks;

// kTone: the LUT follows the options of tone.params (block_tone.cuh); without, the classic LUT,
// whose instantiation keeps the registers and shared memory of the classic mapping alone.
template <bool kWarpVote, bool kTone>
__global__ void __launch_bounds__(kBlock)
    fused(DevicePlane plane, DevicePlane out, OutputRange range, DeviceCount *d_histogram,
          DeviceCount *d_next_histogram, std::uint8_t *d_lut, DeviceTone tone,
          unsigned long long scale) {
  using LutScratch = std::conditional_t<kTone, BlockToneScratch, BlockLutScratch>;
  __shared__ unsigned bins[kWarps][kLevels];
  __shared__ unsigned lut[kLevels];
  __shared__ LutScratch lut_scratch;

  const int t = threadIdx.x;
  const unsigned long long pixels = (unsigned long long)plane.width * plane.height;
  if constexpr (kTone) start_block_tone(tone, lut_scratch);
  for (int i = t; i < kWarps * kLevels; i += kBlock) (&bins[0][0])[i] = 0;
  zero_next_bins<kFusedHistogramCopies>(d_next_histogram);
  __syncthreads();

  const Items items(plane, out);
  const ItemCursor start(items, plane.height, blockIdx.x * (long long)kBlock + t,
                         (long long)gridDim.x * kBlock);
  unsigned *mine = bins[t / 32];
  uint4 cached[kCached];

  auto row_at = [&](const ItemCursor &at) { return plane.data + (std::size_t)at.y * plane.pitch; };
  // `loaded` holds the item's chunk when the caller loaded it already.
  auto count_item = [&](const ItemCursor &at, const uint4 *loaded) {
    const std::uint8_t *row = row_at(at);
    if (at.c < items.chunks) {
      const uint4 v = loaded ? *loaded : *reinterpret_cast<const uint4 *>(row + at.c * 16);
      if constexpr (kWarpVote) {
        count_chunk_voted(mine, v);
      } else {
        count_chunk(mine, v);
      }
    } else {
      for (int x = items.chunks * 16; x < plane.width; ++x) atomicAdd(&mine[row[x]], 1u);
    }
  };
  auto map_item = [&](const ItemCursor &at, const uint4 *kept) {
    const std::uint8_t *row = row_at(at);
    std::uint8_t *out_row = out.data + (std::size_t)at.y * out.pitch;
    if (at.c < items.chunks) {
      const uint4 v = kept ? *kept : *reinterpret_cast<const uint4 *>(row + at.c * 16);
      *reinterpret_cast<uint4 *>(out_row + at.c * 16) = map_chunk(v, SharedLut{lut});
    } else {
      for (int x = items.chunks * 16; x < plane.width; ++x) out_row[x] = std::uint8_t(lut[row[x]]);
    }
  };

  // Every cached chunk is loaded before any is counted: the loads then overlap in flight instead
  // of each waiting behind the previous chunk's shared atomics.
  ItemCursor at = start;
#pragma unroll
  for (int k = 0; k < kCached; ++k, at.next()) {
    if (at.y < plane.height && at.c < items.chunks)
      cached[k] = *reinterpret_cast<const uint4 *>(row_at(at) + at.c * 16);
  }
  at = start;
#pragma unroll
  for (int k = 0; k < kCached; ++k, at.next()) {
    if (at.y < plane.height) count_item(at, &cached[k]);
  }
  for (; at.y < plane.height; at.next()) count_item(at, nullptr);
  __syncthreads();
  merge_block_bins<kFusedHistogramCopies>(bins, d_histogram);

  cooperative_groups::this_grid().sync();

  if constexpr (kTone) {
    build_block_tone_lut(sum_bin_copies<kFusedHistogramCopies>(d_histogram), pixels, scale, range,
                         tone, lut, lut_scratch, d_lut);
  } else {
    build_block_lut<kFusedHistogramCopies>(d_histogram, range, lut, lut_scratch, d_lut);
  }

  at = start;
#pragma unroll
  for (int k = 0; k < kCached; ++k, at.next()) {
    if (at.y < plane.height) map_item(at, &cached[k]);
  }
  for (; at.y < plane.height; at.next()) map_item(at, nullptr);
}

}  // namespace

template <bool kTone>
const void *fused_kernel(bool warp_vote) {
  return warp_vote ? (const void *)fused<true, kTone> : (const void *)fused<false, kTone>;
}

cudaError_t fused_grid_size(int *blocks, bool tone) {
  int device = 0, sm_count = 0, per_sm = 0;
  HISTEQ_CUDA_TRY(cudaGetDevice(&device));
  HISTEQ_CUDA_TRY(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  // Both instantiations of the mapping must fit the grid: the smaller of their occupancies.
  const void *plain = tone ? fused_kernel<true>(false) : fused_kernel<false>(false);
  const void *voted = tone ? fused_kernel<true>(true) : fused_kernel<false>(true);
  int per_sm_vote = 0;
  HISTEQ_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, plain, kBlock, 0));
  HISTEQ_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_vote, voted, kBlock, 0));
  per_sm = std::min(per_sm, per_sm_vote);
  *blocks = sm_count * per_sm;
  return *blocks > 0 ? cudaSuccess : cudaErrorCooperativeLaunchTooLarge;
}

int fused_blocks_for(const DevicePlane &plane, int max_blocks, int sm_count) {
  const long long chunks = ((long long)plane.width + 15) / 16 * plane.height;
  const long long cached = (chunks + kBlock * kCached - 1) / (kBlock * kCached);
  const long long one_each = (chunks + kBlock - 1) / kBlock;
  const long long wanted = std::max<long long>(cached, std::min<long long>(sm_count, one_each));
  return int(std::clamp<long long>(wanted, 1, std::max(1, max_blocks)));
}

cudaError_t launch_fused(const FusedLaunch &launch, const DevicePlane &plane,
                         const DevicePlane &out, OutputRange range, const DeviceTone &tone,
                         cudaStream_t stream) {
  DevicePlane plane_arg = plane;
  DevicePlane out_arg = out;
  OutputRange range_arg = range;
  DeviceCount *histogram = launch.d_histogram;
  DeviceCount *next_histogram = launch.d_next_histogram;
  std::uint8_t *lut = launch.d_lut;
  DeviceTone tone_arg = tone;
  // normalized_bin's division, once per frame and off the kernel's path.
  unsigned long long scale = histeq::bin_scale((unsigned long long)plane.width * plane.height);
  void *args[] = {&plane_arg,      &out_arg, &range_arg, &histogram,
                  &next_histogram, &lut,     &tone_arg,  &scale};
  const void *kernel =
      tone.classic() ? fused_kernel<false>(launch.warp_vote) : fused_kernel<true>(launch.warp_vote);
  HISTEQ_CUDA_BEFORE_LAUNCH();
  HISTEQ_CUDA_TRY(
      cudaLaunchCooperativeKernel(kernel, dim3(launch.blocks), dim3(kBlock), args, 0, stream));
  HISTEQ_CUDA_TRY_LAUNCH();
  return cudaSuccess;
}

}  // namespace histeq::cuda
