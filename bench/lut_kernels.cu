// SPDX-License-Identifier: LGPL-2.1-or-later
#include "lut_kernels.h"

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cuda/functional>

#include "check.h"

namespace bench {

namespace {

constexpr int kBins = 256;
constexpr int kMapThreads = 256;

template <typename Entry>
__global__ void build_lut(const unsigned *histogram, std::uint64_t total, histeq::OutputRange range,
                          Entry *lut) {
  using Scan = cub::BlockScan<unsigned long long, kBins>;
  using Reduce = cub::BlockReduce<unsigned long long, kBins>;
  __shared__ typename Scan::TempStorage scan_storage;
  __shared__ typename Reduce::TempStorage reduce_storage;
  __shared__ unsigned long long cdf_min;
  const int v = threadIdx.x;
  unsigned long long cdf = 0;
  Scan(scan_storage).InclusiveSum((unsigned long long)histogram[v], cdf);
  // cdf is non-decreasing, so the first non-zero value is the smallest non-zero one.
  const unsigned long long candidate = cdf > 0 ? cdf : ~0ull;
  const unsigned long long smallest = Reduce(reduce_storage).Reduce(candidate, cuda::minimum<>{});
  if (v == 0) cdf_min = smallest;
  __syncthreads();
  lut[v] = Entry(histeq::equalized_level(unsigned(v), cdf, cdf_min, total, range));
}

__global__ void map_bytes(const std::uint8_t *src, std::ptrdiff_t src_pitch, std::uint8_t *dst,
                          std::ptrdiff_t dst_pitch, int width, int height,
                          const std::uint8_t *lut) {
  __shared__ unsigned table[kBins];
  for (int i = threadIdx.x; i < kBins; i += blockDim.x) table[i] = lut[i];
  __syncthreads();
  const long long n = (long long)width * height;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    const long long y = i / width, x = i % width;
    dst[y * dst_pitch + x] = std::uint8_t(table[src[y * src_pitch + x]]);
  }
}

__device__ inline unsigned map_word(unsigned w, const unsigned *table) {
  return table[w & 0xff] | table[(w >> 8) & 0xff] << 8 | table[(w >> 16) & 0xff] << 16 |
         table[w >> 24] << 24;
}

// One uint4 (16 pixels) per thread and step; rows are whole uint4s (checked by the caller).
__global__ void map_vec16(const std::uint8_t *src, std::ptrdiff_t src_pitch, std::uint8_t *dst,
                          std::ptrdiff_t dst_pitch, int vecs_per_row, int height,
                          const std::uint8_t *lut) {
  __shared__ unsigned table[kBins];
  for (int i = threadIdx.x; i < kBins; i += blockDim.x) table[i] = lut[i];
  __syncthreads();
  const long long n = (long long)vecs_per_row * height;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    const long long y = i / vecs_per_row, x = i % vecs_per_row;
    uint4 v = reinterpret_cast<const uint4 *>(src + y * src_pitch)[x];
    v.x = map_word(v.x, table);
    v.y = map_word(v.y, table);
    v.z = map_word(v.z, table);
    v.w = map_word(v.w, table);
    reinterpret_cast<uint4 *>(dst + y * dst_pitch)[x] = v;
  }
}

int grid_for(long long items, int sms) {
  const long long wanted = (items + kMapThreads - 1) / kMapThreads;
  const long long cap = (long long)sms * 8;
  return int(wanted < cap ? (wanted > 0 ? wanted : 1) : cap);
}

}  // namespace

void enqueue_build_lut(const unsigned *d_histogram, std::uint64_t total, histeq::OutputRange range,
                       std::uint8_t *d_lut, cudaStream_t stream) {
  build_lut<<<1, kBins, 0, stream>>>(d_histogram, total, range, d_lut);
  BENCH_LAUNCH("build_lut<uint8>");
}

void enqueue_build_lut(const unsigned *d_histogram, std::uint64_t total, histeq::OutputRange range,
                       std::int32_t *d_lut, cudaStream_t stream) {
  build_lut<<<1, kBins, 0, stream>>>(d_histogram, total, range, d_lut);
  BENCH_LAUNCH("build_lut<int32>");
}

void enqueue_map(const std::uint8_t *d_src, std::ptrdiff_t src_pitch, std::uint8_t *d_dst,
                 std::ptrdiff_t dst_pitch, int width, int height, const std::uint8_t *d_lut,
                 int sms, cudaStream_t stream) {
  const bool aligned = width % 16 == 0 && src_pitch % 16 == 0 && dst_pitch % 16 == 0 &&
                       reinterpret_cast<std::uintptr_t>(d_src) % 16 == 0 &&
                       reinterpret_cast<std::uintptr_t>(d_dst) % 16 == 0;
  if (aligned) {
    const int vecs = width / 16;
    map_vec16<<<grid_for((long long)vecs * height, sms), kMapThreads, 0, stream>>>(
        d_src, src_pitch, d_dst, dst_pitch, vecs, height, d_lut);
    BENCH_LAUNCH("map_vec16");
  } else {
    map_bytes<<<grid_for((long long)width * height, sms), kMapThreads, 0, stream>>>(
        d_src, src_pitch, d_dst, dst_pitch, width, height, d_lut);
    BENCH_LAUNCH("map_bytes");
  }
}

}  // namespace bench
