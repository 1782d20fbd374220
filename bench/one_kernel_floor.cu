// SPDX-License-Identifier: LGPL-2.1-or-later
#include "one_kernel_floor.h"

#include <cstdint>

#include <cooperative_groups.h>

#include "check.h"
#include "fused_kernel.h"
#include "kernel_shape.cuh"

namespace bench {

namespace {

using histeq::cuda::kBlock;
constexpr int kCached = histeq::cuda::kFusedCachedChunks;

// Row y, item c of a plane walked as the engine walks it: 16-byte chunks, then one item for a
// row's tail bytes; stepped with an add and a compare.
struct Cursor {
  int y, c, rows_step, items_step, per_row;
  __device__ void next() {
    y += rows_step;
    c += items_step;
    if (c >= per_row) {
      c -= per_row;
      ++y;
    }
  }
};

__global__ void __launch_bounds__(kBlock)
    read_barrier_write(std::uint8_t *data, std::size_t pitch, int width, int height,
                       unsigned *sink) {
  const bool aligned = std::uintptr_t(data) % 16 == 0 && pitch % 16 == 0;
  const int chunks = aligned ? width / 16 : 0;
  const int per_row = chunks + (width > chunks * 16 ? 1 : 0);
  const long long first = blockIdx.x * (long long)kBlock + threadIdx.x;
  const long long stride = (long long)gridDim.x * kBlock;
  Cursor start{height, 0, int(stride / per_row), int(stride % per_row), per_row};
  if (first < (long long)per_row * height) {
    start.y = int(first / per_row);
    start.c = int(first % per_row);
  }
  auto row = [&](const Cursor &at) { return data + std::size_t(at.y) * pitch; };
  auto chunk = [&](const Cursor &at) { return reinterpret_cast<uint4 *>(row(at) + at.c * 16); };

  uint4 cached[kCached];
  unsigned folded = 0;  // what was read and not kept, so that reading it is not optimized away
  Cursor at = start;
#pragma unroll
  for (int k = 0; k < kCached; ++k, at.next()) {
    if (at.y >= height) continue;
    if (at.c < chunks) {
      cached[k] = *chunk(at);
    } else {
      for (int x = chunks * 16; x < width; ++x) folded ^= row(at)[x];
    }
  }
  for (; at.y < height; at.next()) {
    if (at.c < chunks) {
      const uint4 v = *chunk(at);
      folded ^= v.x ^ v.y ^ v.z ^ v.w;
    } else {
      for (int x = chunks * 16; x < width; ++x) folded ^= row(at)[x];
    }
  }

  cooperative_groups::this_grid().sync();

  at = start;
#pragma unroll
  for (int k = 0; k < kCached; ++k, at.next()) {
    if (at.y >= height) continue;
    if (at.c < chunks) {
      *chunk(at) = cached[k];
    } else {
      for (int x = chunks * 16; x < width; ++x) row(at)[x] = row(at)[x];
    }
  }
  for (; at.y < height; at.next()) {
    if (at.c < chunks) {
      *chunk(at) = *chunk(at);
    } else {
      for (int x = chunks * 16; x < width; ++x) row(at)[x] = row(at)[x];
    }
  }
  if (folded == 0xFFFFFFFFu && first == 0) *sink = folded;
}

}  // namespace

double one_kernel_floor_us(const DevicePlanes &planes, cudaStream_t stream, const Repeats &r,
                           Launch launch) {
  int device = 0, sms = 0, per_sm = 0, engine_blocks = 0;
  BENCH_CUDA(cudaGetDevice(&device));
  BENCH_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  BENCH_CUDA(histeq::cuda::fused_grid_size(&engine_blocks));
  BENCH_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, read_barrier_write, kBlock, 0));
  const FrameSize size = planes.size();
  const histeq::cuda::DevicePlane whole{planes.src(0), size.width, size.height,
                                        std::size_t(planes.pitch())};
  const int blocks = histeq::cuda::fused_blocks_for(whole, engine_blocks, sms);
  if (blocks > per_sm * sms)
    throw Failure("one-kernel floor: the engine's grid of " + std::to_string(blocks) +
                  " blocks does not fit at once");
  DeviceBuffer sink = device_buffer(sizeof(unsigned));
  return us_per_frame(launch, stream, r, [&](long i) {
    std::uint8_t *data = planes.src(i);
    std::size_t pitch = std::size_t(planes.pitch());
    int width = size.width, height = size.height;
    unsigned *sink_ptr = sink.as<unsigned>();
    void *args[] = {&data, &pitch, &width, &height, &sink_ptr};
    BENCH_CUDA(cudaLaunchCooperativeKernel((const void *)read_barrier_write, dim3(blocks),
                                           dim3(kBlock), args, 0, stream));
    BENCH_LAUNCH("read_barrier_write");
  });
}

}  // namespace bench
