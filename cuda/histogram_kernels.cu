// SPDX-License-Identifier: LGPL-2.1-or-later
// The five histogram strategies of the reference reports plus the vectorized one used by
// default. All count into 32-bit shared bins (a block never sees 2^32 pixels) and publish into
// 64-bit device bins, so any frame is counted exactly.
#include "histogram_kernels.h"

#include <algorithm>
#include <cstdint>

#include "cuda_check.h"
#include "kernel_shape.cuh"
#include "luma_words.cuh"

namespace histeq::cuda {

namespace {

constexpr int kReplicas = 8;

// Pixel i of the visible image, in row-major order.
__device__ __forceinline__ std::uint8_t pixel(const DevicePlane &p, long long i) {
  const int y = int(i / p.width);
  const int x = int(i - (long long)y * p.width);
  return p.data[(std::size_t)y * p.pitch + x];
}

__device__ __forceinline__ long long pixel_count(const DevicePlane &p) {
  return (long long)p.width * p.height;
}

__device__ __forceinline__ void publish(const unsigned *bins, int stride,
                                        unsigned long long *d_histogram) {
  for (int v = threadIdx.x; v < kLevels; v += blockDim.x) {
    if (bins[v * stride]) atomicAdd(&d_histogram[v], (unsigned long long)bins[v * stride]);
  }
}

__global__ void global_atomics(DevicePlane plane, unsigned long long *d_histogram) {
  const long long n = pixel_count(plane);
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    atomicAdd(&d_histogram[pixel(plane, i)], 1ull);
}

__global__ void shared_atomics(DevicePlane plane, unsigned long long *d_histogram) {
  __shared__ unsigned bins[kLevels];
  for (int v = threadIdx.x; v < kLevels; v += blockDim.x) bins[v] = 0;
  __syncthreads();
  const long long n = pixel_count(plane);
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    atomicAdd(&bins[pixel(plane, i)], 1u);
  __syncthreads();
  publish(bins, 1, d_histogram);
}

// Each thread walks a contiguous run of pixels and adds a run of equal values once.
__global__ void shared_aggregated(DevicePlane plane, unsigned long long *d_histogram) {
  constexpr int kPerThread = 16;
  __shared__ unsigned bins[kLevels];
  for (int v = threadIdx.x; v < kLevels; v += blockDim.x) bins[v] = 0;
  __syncthreads();
  const long long n = pixel_count(plane);
  const long long threads = (long long)gridDim.x * blockDim.x;
  for (long long start = (blockIdx.x * (long long)blockDim.x + threadIdx.x) * kPerThread; start < n;
       start += threads * kPerThread) {
    const long long end = min(start + kPerThread, n);
    int previous = pixel(plane, start);
    unsigned run = 1;
    for (long long i = start + 1; i < end; ++i) {
      const int v = pixel(plane, i);
      if (v == previous) {
        ++run;
      } else {
        atomicAdd(&bins[previous], run);
        previous = v;
        run = 1;
      }
    }
    atomicAdd(&bins[previous], run);
  }
  __syncthreads();
  publish(bins, 1, d_histogram);
}

__global__ void warp_private(DevicePlane plane, unsigned long long *d_histogram) {
  __shared__ unsigned bins[kWarps][kLevels];
  for (int i = threadIdx.x; i < kWarps * kLevels; i += blockDim.x) (&bins[0][0])[i] = 0;
  __syncthreads();
  unsigned *mine = bins[threadIdx.x / 32];
  const long long n = pixel_count(plane);
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    atomicAdd(&mine[pixel(plane, i)], 1u);
  __syncthreads();
  for (int v = threadIdx.x; v < kLevels; v += blockDim.x) {
    unsigned sum = 0;
    for (int w = 0; w < kWarps; ++w) sum += bins[w][v];
    if (sum) atomicAdd(&d_histogram[v], (unsigned long long)sum);
  }
}

// Consecutive pixels go to different replicas (lane % kReplicas), breaking up the collisions
// of spatially coherent content; bins are interleaved so replicas sit in different banks.
__global__ void replicated(DevicePlane plane, unsigned long long *d_histogram) {
  __shared__ unsigned bins[kLevels * kReplicas];
  for (int i = threadIdx.x; i < kLevels * kReplicas; i += blockDim.x) bins[i] = 0;
  __syncthreads();
  const int replica = threadIdx.x % kReplicas;
  const long long n = pixel_count(plane);
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    atomicAdd(&bins[pixel(plane, i) * kReplicas + replica], 1u);
  __syncthreads();
  for (int v = threadIdx.x; v < kLevels; v += blockDim.x) {
    unsigned sum = 0;
    for (int r = 0; r < kReplicas; ++r) sum += bins[v * kReplicas + r];
    if (sum) atomicAdd(&d_histogram[v], (unsigned long long)sum);
  }
}

// Work item = 16 bytes of one row (one uint4 load) when rows are 16-byte aligned; the row tail
// and unaligned planes go byte by byte. The grid covers the SMs once; each warp has its own
// shared histogram so that warps never contend with each other.
__global__ void vectorized(DevicePlane plane, unsigned long long *d_histogram) {
  __shared__ unsigned bins[kWarps][kLevels];
  for (int i = threadIdx.x; i < kWarps * kLevels; i += blockDim.x) (&bins[0][0])[i] = 0;
  __syncthreads();
  unsigned *mine = bins[threadIdx.x / 32];
  const bool aligned = ((std::uintptr_t)plane.data % 16 == 0) && (plane.pitch % 16 == 0);
  const int chunks = aligned ? plane.width / 16 : 0;
  const int tail = plane.width - chunks * 16;
  const long long items = (long long)(chunks + (tail ? 1 : 0)) * plane.height;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < items;
       i += (long long)gridDim.x * blockDim.x) {
    const int per_row = chunks + (tail ? 1 : 0);
    const int y = int(i / per_row);
    const int c = int(i - (long long)y * per_row);
    const std::uint8_t *row = plane.data + (std::size_t)y * plane.pitch;
    if (c < chunks) {
      const uint4 v = *reinterpret_cast<const uint4 *>(row + c * 16);
      count_chunk(mine, v);
    } else {
      for (int x = chunks * 16; x < plane.width; ++x) atomicAdd(&mine[row[x]], 1u);
    }
  }
  __syncthreads();
  for (int v = threadIdx.x; v < kLevels; v += blockDim.x) {
    unsigned sum = 0;
    for (int w = 0; w < kWarps; ++w) sum += bins[w][v];
    if (sum) atomicAdd(&d_histogram[v], (unsigned long long)sum);
  }
}

int grid_for(long long items, int sm_count, int blocks_per_sm) {
  const long long needed = (items + kBlock - 1) / kBlock;
  return int(
      std::max<long long>(1, std::min<long long>(needed, (long long)sm_count * blocks_per_sm)));
}

}  // namespace

cudaError_t launch_histogram(HistogramMethod method, const DevicePlane &plane,
                             unsigned long long *d_histogram, int sm_count, cudaStream_t stream) {
  const long long pixels = (long long)plane.width * plane.height;
  if (pixels == 0) return cudaSuccess;
  HISTEQ_CUDA_BEFORE_LAUNCH();
  switch (method) {
    case HistogramMethod::kGlobalAtomics:
      global_atomics<<<grid_for(pixels, sm_count, 8), kBlock, 0, stream>>>(plane, d_histogram);
      break;
    case HistogramMethod::kSharedAtomics:
      shared_atomics<<<grid_for(pixels, sm_count, 8), kBlock, 0, stream>>>(plane, d_histogram);
      break;
    case HistogramMethod::kSharedAggregated:
      shared_aggregated<<<grid_for((pixels + 15) / 16, sm_count, 8), kBlock, 0, stream>>>(
          plane, d_histogram);
      break;
    case HistogramMethod::kWarpPrivate:
      warp_private<<<grid_for(pixels, sm_count, 8), kBlock, 0, stream>>>(plane, d_histogram);
      break;
    case HistogramMethod::kReplicated:
      replicated<<<grid_for(pixels, sm_count, 8), kBlock, 0, stream>>>(plane, d_histogram);
      break;
    case HistogramMethod::kVectorized:
    case HistogramMethod::kAuto:
      vectorized<<<grid_for((pixels + 15) / 16, sm_count, 8), kBlock, 0, stream>>>(plane,
                                                                                   d_histogram);
      break;
  }
  HISTEQ_CUDA_TRY_LAUNCH();
  return cudaSuccess;
}

}  // namespace histeq::cuda
