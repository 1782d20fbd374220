// SPDX-License-Identifier: LGPL-2.1-or-later
#include "one_kernel_floor.h"

#include <cstdint>

#include <cooperative_groups.h>

#include "check.h"
#include "engine_grid.h"
#include "fused_kernel.h"
#include "item_walk.cuh"
#include "kernel_shape.cuh"

namespace bench {

namespace {

using histeq::cuda::kBlock;
constexpr int kCached = histeq::cuda::kFusedCachedChunks;

// `zero` is 0 at every launch; the compiler cannot know that, so writing back v ^ zero is a real
// load and store, as the engine's lookup is (a plain *p = *p may be optimized away).
__global__ void __launch_bounds__(kBlock)
    read_barrier_write(histeq::cuda::DevicePlane plane, unsigned zero, unsigned *sink) {
  using histeq::cuda::ItemCursor;
  const histeq::cuda::Items items(plane);
  const long long first = blockIdx.x * (long long)kBlock + threadIdx.x;
  const ItemCursor start(items, plane.height, first, (long long)gridDim.x * kBlock);
  auto row = [&](const ItemCursor &at) { return plane.data + std::size_t(at.y) * plane.pitch; };
  auto chunk = [&](const ItemCursor &at) { return reinterpret_cast<uint4 *>(row(at) + at.c * 16); };
  // What was read and not kept, so that reading it is not optimized away.
  unsigned folded = 0;
  auto fold_tail = [&](const ItemCursor &at) {
    for (int x = items.chunks * 16; x < plane.width; ++x) folded ^= row(at)[x];
  };
  auto rewrite_tail = [&](const ItemCursor &at) {
    for (int x = items.chunks * 16; x < plane.width; ++x)
      row(at)[x] = std::uint8_t(row(at)[x] ^ zero);
  };
  auto passed_through = [&](uint4 v) {
    return make_uint4(v.x ^ zero, v.y ^ zero, v.z ^ zero, v.w ^ zero);
  };

  uint4 cached[kCached];
  ItemCursor at = start;
#pragma unroll
  for (int k = 0; k < kCached; ++k, at.next()) {
    if (at.y >= plane.height) continue;
    if (at.c < items.chunks) {
      cached[k] = *chunk(at);
    } else {
      fold_tail(at);
    }
  }
  for (; at.y < plane.height; at.next()) {
    if (at.c < items.chunks) {
      const uint4 v = *chunk(at);
      folded ^= v.x ^ v.y ^ v.z ^ v.w;
    } else {
      fold_tail(at);
    }
  }

  cooperative_groups::this_grid().sync();

  at = start;
#pragma unroll
  for (int k = 0; k < kCached; ++k, at.next()) {
    if (at.y >= plane.height) continue;
    if (at.c < items.chunks) {
      *chunk(at) = passed_through(cached[k]);
    } else {
      rewrite_tail(at);
    }
  }
  for (; at.y < plane.height; at.next()) {
    if (at.c < items.chunks) {
      *chunk(at) = passed_through(*chunk(at));
    } else {
      rewrite_tail(at);
    }
  }
  // Compared with a launch argument, so `folded` is live in every thread.
  if (folded == ~zero) *sink = folded;
}

}  // namespace

double one_kernel_floor_us(const DevicePlanes &planes, cudaStream_t stream, const Repeats &r,
                           Launch launch) {
  int device = 0, sms = 0, per_sm = 0;
  BENCH_CUDA(cudaGetDevice(&device));
  BENCH_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  BENCH_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, read_barrier_write, kBlock, 0));
  const FrameSize size = planes.size();
  const int blocks = engine_grid(histeq::cuda::DevicePlane{planes.src(0), size.width, size.height,
                                                           std::size_t(planes.pitch())});
  if (blocks > per_sm * sms)
    throw Failure("one-kernel floor: the engine's grid of " + std::to_string(blocks) +
                  " blocks does not fit at once");
  DeviceBuffer sink = device_buffer(sizeof(unsigned));
  return us_per_frame(launch, stream, r, [&](long i) {
    histeq::cuda::DevicePlane plane{planes.src(i), size.width, size.height,
                                    std::size_t(planes.pitch())};
    unsigned zero = 0;
    unsigned *sink_ptr = sink.as<unsigned>();
    void *args[] = {&plane, &zero, &sink_ptr};
    BENCH_CUDA(cudaLaunchCooperativeKernel((const void *)read_barrier_write, dim3(blocks),
                                           dim3(kBlock), args, 0, stream));
    BENCH_LAUNCH("read_barrier_write");
  });
}

}  // namespace bench
