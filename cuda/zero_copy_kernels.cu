// SPDX-License-Identifier: LGPL-2.1-or-later
#include "zero_copy_kernels.h"

#include <algorithm>

#include "cuda_check.h"
#include "device_bins.cuh"
#include "fused_kernel.h"
#include "item_walk.cuh"
#include "kernel_shape.cuh"
#include "luma_words.cuh"

namespace histeq::cuda {

namespace {

constexpr int kCopies = kFusedHistogramCopies;

__device__ __forceinline__ std::uint8_t *row_of(const DevicePlane &plane, int y) {
  return plane.data + std::size_t(y) * plane.pitch;
}

// One thread per item at a time: each of the many threads keeps one 16-byte load in flight
// over PCIe, which is more than the link's bandwidth-delay product needs.
__global__ void __launch_bounds__(kBlock)
    upload_and_count(DevicePlane src, DevicePlane staging, DeviceCount *d_histogram,
                     DeviceCount *d_next_histogram) {
  __shared__ unsigned bins[kWarps][kLevels];
  const int t = threadIdx.x;
  for (int i = t; i < kWarps * kLevels; i += kBlock) (&bins[0][0])[i] = 0;
  zero_next_bins<kCopies>(d_next_histogram);
  __syncthreads();

  const Items items(src);
  unsigned *mine = bins[t / kLanes];
  for (ItemCursor at(items, src.height, blockIdx.x * (long long)kBlock + t,
                     (long long)gridDim.x * kBlock);
       at.y < src.height; at.next()) {
    const std::uint8_t *in = row_of(src, at.y);
    std::uint8_t *kept = row_of(staging, at.y);
    if (at.c < items.chunks) {
      const uint4 chunk = *reinterpret_cast<const uint4 *>(in + at.c * 16);
      *reinterpret_cast<uint4 *>(kept + at.c * 16) = chunk;
      count_chunk_voted(mine, chunk);
    } else {
      for (int x = items.chunks * 16; x < src.width; ++x) {
        const std::uint8_t level = in[x];
        kept[x] = level;
        atomicAdd(&mine[level], 1u);
      }
    }
  }
  __syncthreads();
  merge_block_bins<kCopies>(bins, d_histogram);
}

__global__ void __launch_bounds__(kBlock)
    map_to_host(DevicePlane staging, DevicePlane dst, DeviceCount *d_histogram, OutputRange range,
                std::uint8_t *d_lut) {
  __shared__ unsigned lut[kLevels];
  __shared__ BlockLutScratch lut_scratch;
  build_block_lut<kCopies>(d_histogram, range, lut, lut_scratch, d_lut);

  const Items items(staging);
  for (ItemCursor at(items, staging.height, blockIdx.x * (long long)kBlock + threadIdx.x,
                     (long long)gridDim.x * kBlock);
       at.y < staging.height; at.next()) {
    const std::uint8_t *kept = row_of(staging, at.y);
    std::uint8_t *out = row_of(dst, at.y);
    if (at.c < items.chunks) {
      const uint4 chunk = __ldcs(reinterpret_cast<const uint4 *>(kept + at.c * 16));
      *reinterpret_cast<uint4 *>(out + at.c * 16) = map_chunk(chunk, SharedLut{lut});
    } else {
      for (int x = items.chunks * 16; x < staging.width; ++x) out[x] = std::uint8_t(lut[kept[x]]);
    }
  }
}

bool valid(const ZeroCopyPlanes &p) {
  return p.src.width == p.staging.width && p.src.height == p.staging.height &&
         p.src.width == p.dst.width && p.src.height == p.dst.height && rows_in_chunks(p.src) &&
         rows_in_chunks(p.staging) && rows_in_chunks(p.dst);
}

// A grid no larger than the frame's items: the spare blocks would only merge empty bins.
int blocks_for(const ZeroCopyLaunch &launch, const DevicePlane &plane) {
  const long long items = ((long long)plane.width + 15) / 16 * plane.height;
  return int(std::clamp<long long>((items + kBlock - 1) / kBlock, 1, std::max(1, launch.blocks)));
}

}  // namespace

cudaError_t zero_copy_grid_size(int *blocks) {
  int device = 0, sm_count = 0, count_per_sm = 0, map_per_sm = 0;
  HISTEQ_CUDA_TRY(cudaGetDevice(&device));
  HISTEQ_CUDA_TRY(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  HISTEQ_CUDA_TRY(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&count_per_sm, upload_and_count, kBlock, 0));
  HISTEQ_CUDA_TRY(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&map_per_sm, map_to_host, kBlock, 0));
  *blocks = sm_count * std::max(1, std::min(count_per_sm, map_per_sm) / 2);
  return cudaSuccess;
}

cudaError_t launch_upload_and_count(const ZeroCopyLaunch &launch, const ZeroCopyPlanes &planes,
                                    cudaStream_t stream) {
  if (!valid(planes)) return cudaErrorInvalidValue;
  HISTEQ_CUDA_BEFORE_LAUNCH();
  upload_and_count<<<blocks_for(launch, planes.src), kBlock, 0, stream>>>(
      planes.src, planes.staging, launch.d_histogram, launch.d_next_histogram);
  HISTEQ_CUDA_TRY_LAUNCH();
  return cudaSuccess;
}

cudaError_t launch_map_to_host(const ZeroCopyLaunch &launch, const ZeroCopyPlanes &planes,
                               OutputRange range, cudaStream_t stream) {
  if (!valid(planes)) return cudaErrorInvalidValue;
  HISTEQ_CUDA_BEFORE_LAUNCH();
  map_to_host<<<blocks_for(launch, planes.src), kBlock, 0, stream>>>(
      planes.staging, planes.dst, launch.d_histogram, range, launch.d_lut);
  HISTEQ_CUDA_TRY_LAUNCH();
  return cudaSuccess;
}

}  // namespace histeq::cuda
