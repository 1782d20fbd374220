// SPDX-License-Identifier: LGPL-2.1-or-later
#include "ring_chain_floor.h"

#include <memory>

#include <cooperative_groups.h>

#include "check.h"
#include "engine_grid.h"
#include "host_frames.h"
#include "kernel_shape.cuh"

namespace bench {

namespace {

using histeq::cuda::kBlock;

__global__ void __launch_bounds__(kBlock) barrier_only() {
  cooperative_groups::this_grid().sync();
}

// One slot as FrameEngine holds it: a stream, a pitched device plane and an event marking the
// end of its frame's download.
struct Slot {
  cudaStream_t stream = nullptr;
  cudaEvent_t done = nullptr;
  std::uint8_t *d_plane = nullptr;
  std::size_t d_pitch = 0;

  explicit Slot(FrameSize size) {
    // A throwing constructor runs no destructor: what was made so far is released here.
    try {
      BENCH_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
      BENCH_CUDA(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
      BENCH_CUDA(cudaMallocPitch(reinterpret_cast<void **>(&d_plane), &d_pitch,
                                 std::size_t(size.width), std::size_t(size.height)));
    } catch (...) {
      release();
      throw;
    }
  }
  ~Slot() { release(); }
  Slot(const Slot &) = delete;
  Slot &operator=(const Slot &) = delete;

 private:
  // Null handles are skipped: destroying one would leave an error for the next launch check.
  void release() {
    if (stream) cudaStreamSynchronize(stream);
    cudaFree(d_plane);
    if (done) cudaEventDestroy(done);
    if (stream) cudaStreamDestroy(stream);
  }
};

// `host` is declared first so it is destroyed last: the slots wait for their streams before the
// pinned frames their copies use are freed, also when a failure unwinds mid-frame.
struct Chain {
  std::unique_ptr<HostFrames> host;
  std::vector<std::unique_ptr<Slot>> slots;
  int blocks = 0;  // the engine's grid for this frame; 0: no kernel
};

void enqueue(const Chain &chain, Slot &slot, long i) {
  const HostFrames &host = *chain.host;
  const std::size_t width = std::size_t(host.size().width);
  const std::size_t height = std::size_t(host.size().height);
  const std::size_t pitch = std::size_t(host.pitch());
  BENCH_CUDA(cudaMemcpy2DAsync(slot.d_plane, slot.d_pitch, host.in(i), pitch, width, height,
                               cudaMemcpyHostToDevice, slot.stream));
  if (chain.blocks > 0) {
    BENCH_CUDA(cudaLaunchCooperativeKernel((const void *)barrier_only, dim3(chain.blocks),
                                           dim3(kBlock), nullptr, 0, slot.stream));
    BENCH_LAUNCH("barrier_only");
  }
  BENCH_CUDA(cudaMemcpy2DAsync(host.out(i), pitch, slot.d_plane, slot.d_pitch, width, height,
                               cudaMemcpyDeviceToHost, slot.stream));
  BENCH_CUDA(cudaEventRecord(slot.done, slot.stream));
}

EndToEndContender chain_contender(const HostFrame &frame, int depth, bool with_kernel) {
  auto chain = std::make_shared<Chain>();
  for (int s = 0; s < depth; ++s) chain->slots.push_back(std::make_unique<Slot>(frame.size));
  chain->host = std::make_unique<HostFrames>(frame, HostKind::kPinned, depth + 2);
  if (with_kernel) {
    chain->blocks = engine_grid(histeq::cuda::DevicePlane{
        chain->slots[0]->d_plane, frame.size.width, frame.size.height, chain->slots[0]->d_pitch});
  }
  EndToEndContender c;
  c.name = ring_chain_floor_name(depth, with_kernel);
  c.returns_input = true;
  // Frame i goes to slot i % depth; a slot is reused once its previous frame is back, which is
  // when FrameEngine::wait returns that frame.
  c.run = [chain, depth](long first, int count) {
    for (long i = first; i < first + count; ++i) {
      Slot &slot = *chain->slots[std::size_t(i % depth)];
      if (i - first >= depth) BENCH_CUDA(cudaEventSynchronize(slot.done));
      enqueue(*chain, slot, i);
    }
    for (auto &slot : chain->slots) BENCH_CUDA(cudaEventSynchronize(slot->done));
  };
  c.output = [chain](long i) -> const std::uint8_t * { return chain->host->out(i); };
  c.output_pitch = frame.pitch;
  return c;
}

}  // namespace

std::string ring_chain_floor_name(int depth, bool with_kernel) {
  return "ring chain floor depth " + std::to_string(depth) +
         (with_kernel ? ": upload, empty cooperative kernel, download"
                      : ": upload, download (no kernel)");
}

std::vector<EndToEndContender> ring_chain_floor_contenders(const HostFrame &frame, int depth) {
  std::vector<EndToEndContender> list;
  list.push_back(chain_contender(frame, depth, false));
  list.push_back(chain_contender(frame, depth, true));
  return list;
}

}  // namespace bench
