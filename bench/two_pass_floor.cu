// SPDX-License-Identifier: LGPL-2.1-or-later
#include "two_pass_floor.h"

#include <cstddef>
#include <string>

#include "check.h"
#include "resources.h"

namespace bench {

namespace {

constexpr int kThreads = 256;
// Chunks a thread has in flight at once: loads issued together, as the engine's passes do.
constexpr int kInFlight = 4;

// Hands each of `count` chunks to use(index, chunk), a thread's kInFlight chunks loaded before
// the first is used.
template <typename Chunk, typename Use>
__device__ void each_chunk(Chunk *chunks, std::size_t count, Use use) {
  const std::size_t stride = std::size_t(gridDim.x) * kThreads;
  for (std::size_t i = blockIdx.x * std::size_t(kThreads) + threadIdx.x; i < count;
       i += kInFlight * stride) {
    uint4 v[kInFlight];
#pragma unroll
    for (int k = 0; k < kInFlight; ++k)
      if (i + k * stride < count) v[k] = chunks[i + k * stride];
#pragma unroll
    for (int k = 0; k < kInFlight; ++k)
      if (i + k * stride < count) use(i + k * stride, v[k]);
  }
}

// Reads every 16-byte chunk and folds it into a word that is stored only if it equals ~zero
// (`zero` is 0 at every launch, which the compiler cannot know), so the loads stay.
__global__ void __launch_bounds__(kThreads)
    read_pass(const uint4 *chunks, std::size_t count, unsigned zero, unsigned *sink) {
  unsigned folded = 0;
  each_chunk(chunks, count, [&](std::size_t, uint4 v) { folded ^= v.x ^ v.y ^ v.z ^ v.w; });
  if (folded == ~zero) *sink = folded;
}

// Writes every chunk back as read, xor `zero`: a real load and store per chunk.
__global__ void __launch_bounds__(kThreads)
    rewrite_pass(uint4 *chunks, std::size_t count, unsigned zero) {
  each_chunk(chunks, count, [&](std::size_t at, uint4 v) {
    chunks[at] = make_uint4(v.x ^ zero, v.y ^ zero, v.z ^ zero, v.w ^ zero);
  });
}

int resident_blocks(const void *kernel) {
  int device = 0, sms = 0, per_sm = 0;
  BENCH_CUDA(cudaGetDevice(&device));
  BENCH_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  BENCH_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, 0));
  return sms * per_sm;
}

}  // namespace

double two_pass_floor_us(const DevicePlanes &planes, cudaStream_t stream, const Repeats &r) {
  const std::size_t bytes = planes.plane_bytes();
  if (bytes % sizeof(uint4) != 0)
    throw Failure("two-pass floor: a frame of " + std::to_string(bytes) +
                  " bytes is not whole 16-byte chunks");
  const std::size_t count = bytes / sizeof(uint4);
  const int read_blocks = resident_blocks((const void *)read_pass);
  const int rewrite_blocks = resident_blocks((const void *)rewrite_pass);
  DeviceBuffer sink = device_buffer(sizeof(unsigned));
  return graph_us_per_frame(stream, r, [&](long i) {
    auto *chunks = reinterpret_cast<uint4 *>(planes.src(i));
    read_pass<<<read_blocks, kThreads, 0, stream>>>(chunks, count, 0u, sink.as<unsigned>());
    BENCH_LAUNCH("read_pass");
    rewrite_pass<<<rewrite_blocks, kThreads, 0, stream>>>(chunks, count, 0u);
    BENCH_LAUNCH("rewrite_pass");
  });
}

}  // namespace bench
