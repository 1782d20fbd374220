// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// A frame's device bins, as the kernels that count in one launch and build the LUT in another
// (or after a grid barrier) share them: blocks count into per-warp shared bins, merge them into
// one of kCopies copies of the 256 device bins (block b into copy b % kCopies, so the blocks'
// atomics spread over more addresses), and every block then builds the whole LUT in its own
// shared memory from the copies summed. Blocks use one thread per level (kBlock == kLevels).

#include <cstdint>

#include <cub/block/block_scan.cuh>

#include "equalization.h"
#include "kernel_shape.cuh"

namespace histeq::cuda {

using DeviceCount = unsigned long long;

// The next frame's copies are zeroed by this frame's first blocks, so no memset launch is
// needed between frames.
template <int kCopies>
__device__ __forceinline__ void zero_next_bins(DeviceCount *d_next_histogram) {
  for (int copy = blockIdx.x; copy < kCopies; copy += gridDim.x)
    d_next_histogram[copy * kLevels + threadIdx.x] = 0;
}

// Adds the block's per-warp shared bins (complete: after a __syncthreads) to its copy.
template <int kCopies>
__device__ __forceinline__ void merge_block_bins(const unsigned (&bins)[kWarps][kLevels],
                                                 DeviceCount *d_histogram) {
  DeviceCount *merged = d_histogram + (blockIdx.x % kCopies) * kLevels;
  const int v = threadIdx.x;
  unsigned sum = 0;
  for (int w = 0; w < kWarps; ++w) sum += bins[w][v];
  if (sum) atomicAdd(&merged[v], DeviceCount(sum));
}

// Bin t (the calling thread's) of the finished device bins: every block's counts merged and
// visible, the copies summed.
template <int kCopies>
__device__ __forceinline__ DeviceCount sum_bin_copies(const DeviceCount *d_histogram) {
  DeviceCount count = 0;
#pragma unroll
  for (int copy = 0; copy < kCopies; ++copy)
    count += __ldcg(&d_histogram[copy * kLevels + threadIdx.x]);
  return count;
}

// The shared memory build_block_lut needs besides the LUT itself.
struct BlockLutScratch {
  using BlockScan = cub::BlockScan<DeviceCount, kBlock, cub::BLOCK_SCAN_WARP_SCANS>;
  typename BlockScan::TempStorage scan;
  DeviceCount cdf[kLevels];
  int first_present;
};

// lut[v] = equalized_level(v, ...) from the finished device bins (every block's counts merged
// and visible), with the formula the CPU uses; block 0 also writes it to d_lut (statistics).
// Ends with a __syncthreads, so the block can map with `lut` at once.
template <int kCopies>
__device__ __forceinline__ void build_block_lut(const DeviceCount *d_histogram, OutputRange range,
                                                unsigned *lut, BlockLutScratch &scratch,
                                                std::uint8_t *d_lut) {
  const int t = threadIdx.x;
  if (t == 0) scratch.first_present = kLevels;
  __syncthreads();
  const DeviceCount count = sum_bin_copies<kCopies>(d_histogram);
  if (count) atomicMin(&scratch.first_present, t);
  DeviceCount cdf;
  BlockLutScratch::BlockScan(scratch.scan).InclusiveSum(count, cdf);
  scratch.cdf[t] = cdf;
  __syncthreads();
  const DeviceCount total = scratch.cdf[kLevels - 1];
  const DeviceCount cdf_min =
      scratch.first_present < kLevels ? scratch.cdf[scratch.first_present] : 0;
  lut[t] = equalized_level(std::uint32_t(t), cdf, cdf_min, total, range);
  if (blockIdx.x == 0) d_lut[t] = std::uint8_t(lut[t]);
  __syncthreads();
}

}  // namespace histeq::cuda
