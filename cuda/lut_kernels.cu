// SPDX-License-Identifier: LGPL-2.1-or-later
#include "lut_kernels.h"

#include <cub/block/block_scan.cuh>

#include "block_tone.cuh"
#include "cuda_check.h"
#include "kernel_shape.cuh"

namespace histeq::cuda {

namespace {

using Count = unsigned long long;

// Each scan turns s[0..255] into its inclusive prefix sum; thread t owns element t.
__device__ void kogge_stone(Count *s) {
  const int t = threadIdx.x;
  for (int offset = 1; offset < kLevels; offset *= 2) {
    __syncthreads();
    const Count add = t >= offset ? s[t - offset] : 0;
    __syncthreads();
    s[t] += add;
  }
  __syncthreads();
}

// Reads one buffer and writes the other, trading the second barrier per step for memory.
__device__ void kogge_stone_double_buffer(Count *s, Count *scratch) {
  const int t = threadIdx.x;
  Count *in = s;
  Count *out = scratch;
  __syncthreads();
  for (int offset = 1; offset < kLevels; offset *= 2) {
    out[t] = in[t] + (t >= offset ? in[t - offset] : 0);
    __syncthreads();
    Count *swap = in;
    in = out;
    out = swap;
  }
  if (in != s) s[t] = in[t];
  __syncthreads();
}

// Up-sweep builds partial sums in a tree, down-sweep distributes them: 2n additions in all.
__device__ void brent_kung(Count *s) {
  const int t = threadIdx.x;
  for (int stride = 1; stride < kLevels; stride *= 2) {
    __syncthreads();
    const int i = (t + 1) * stride * 2 - 1;
    if (i < kLevels) s[i] += s[i - stride];
  }
  for (int stride = kLevels / 4; stride > 0; stride /= 2) {
    __syncthreads();
    const int i = (t + 1) * stride * 2 - 1;
    if (i + stride < kLevels) s[i + stride] += s[i];
  }
  __syncthreads();
}

template <ScanMethod Method>
__global__ void build_lut(Count *d_histogram, OutputRange range, std::uint8_t *d_lut) {
  using WarpScan = cub::BlockScan<Count, kLevels, cub::BLOCK_SCAN_WARP_SCANS>;
  __shared__ Count cdf[kLevels];
  __shared__ Count scratch[kLevels];
  __shared__ typename WarpScan::TempStorage cub_storage;
  __shared__ int first_present;

  const int t = threadIdx.x;
  const Count count = d_histogram[t];
  d_histogram[t] = 0;
  if (t == 0) first_present = kLevels;
  __syncthreads();
  if (count) atomicMin(&first_present, t);

  if constexpr (Method == ScanMethod::kWarpShuffle) {
    Count inclusive;
    WarpScan(cub_storage).InclusiveSum(count, inclusive);
    cdf[t] = inclusive;
    __syncthreads();
  } else {
    cdf[t] = count;
    if constexpr (Method == ScanMethod::kKoggeStone) kogge_stone(cdf);
    if constexpr (Method == ScanMethod::kKoggeStoneDoubleBuffer)
      kogge_stone_double_buffer(cdf, scratch);
    if constexpr (Method == ScanMethod::kBrentKung) brent_kung(cdf);
  }
  const Count total = cdf[kLevels - 1];
  const Count cdf_min = first_present < kLevels ? cdf[first_present] : 0;
  d_lut[t] = std::uint8_t(equalized_level(std::uint32_t(t), cdf[t], cdf_min, total, range));
}

__global__ void build_tone_lut(Count *d_histogram, Count pixels, Count scale, OutputRange range,
                               DeviceTone tone, std::uint8_t *d_lut) {
  __shared__ unsigned lut[kLevels];
  __shared__ BlockToneScratch scratch;
  const unsigned long long before = history_before(tone);
  const Count count = d_histogram[threadIdx.x];
  build_block_tone_lut(count, before, pixels, scale, range, tone, lut, scratch, d_lut);
  d_histogram[threadIdx.x] = 0;
}

}  // namespace

cudaError_t launch_build_tone_lut(unsigned long long *d_histogram, unsigned long long pixels,
                                  OutputRange range, const DeviceTone &tone, std::uint8_t *d_lut,
                                  cudaStream_t stream) {
  HISTEQ_CUDA_BEFORE_LAUNCH();
  build_tone_lut<<<1, kLevels, 0, stream>>>(d_histogram, pixels, bin_scale(pixels), range, tone,
                                            d_lut);
  HISTEQ_CUDA_TRY_LAUNCH();
  return cudaSuccess;
}

cudaError_t launch_build_lut(ScanMethod method, unsigned long long *d_histogram, OutputRange range,
                             std::uint8_t *d_lut, cudaStream_t stream) {
  HISTEQ_CUDA_BEFORE_LAUNCH();
  switch (method) {
    case ScanMethod::kKoggeStone:
      build_lut<ScanMethod::kKoggeStone><<<1, kLevels, 0, stream>>>(d_histogram, range, d_lut);
      break;
    case ScanMethod::kKoggeStoneDoubleBuffer:
      build_lut<ScanMethod::kKoggeStoneDoubleBuffer>
          <<<1, kLevels, 0, stream>>>(d_histogram, range, d_lut);
      break;
    case ScanMethod::kBrentKung:
      build_lut<ScanMethod::kBrentKung><<<1, kLevels, 0, stream>>>(d_histogram, range, d_lut);
      break;
    case ScanMethod::kWarpShuffle:
    case ScanMethod::kAuto:
      build_lut<ScanMethod::kWarpShuffle><<<1, kLevels, 0, stream>>>(d_histogram, range, d_lut);
      break;
  }
  HISTEQ_CUDA_TRY_LAUNCH();
  return cudaSuccess;
}

}  // namespace histeq::cuda
