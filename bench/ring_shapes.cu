// SPDX-License-Identifier: LGPL-2.1-or-later
// histeq-ring-shapes: the stream ring's per-frame chain (pinned frames, pitched 2D copies, the
// engine's equalizer between them, the host waiting for a slot's previous frame before reusing
// it) in two shapes, at depth 1..3, next to the PCIe floor of the same plane:
//   slot streams:      FrameEngine's shape, each slot's upload, kernel and download on its stream;
//   direction streams: one stream for every upload, one for every kernel, one for every
//                      download (the floor's shape), a slot's steps chained by events.
// Each chain's output is checked (against the CPU core, or the input when not equalizing).
// The period is taken by the host's clock over the steady frames; no timing events: recorded
// between the steps, they slowed the slot-stream chain at 4K depth 2 from 183 to 245 us per
// frame on the H100. A diagnostic beside histeq-bench, which holds the goals.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "check.h"
#include "cpu_peer.h"
#include "device_equalizer.h"
#include "floors.h"
#include "frame_engine.h"
#include "frames.h"
#include "host_frames.h"
#include "options.h"
#include "ring_frame.h"
#include "timing.h"

namespace bench {

namespace {

constexpr int kFrames = 400;
constexpr int kSkipped = 40;  // the ring filling
// One run of a chain (360 frames, 65 ms at 4K) read anywhere from 0.80 to 1.00 of the floor on
// the H100, the same chain minutes apart: each row is the median of this many rounds.
constexpr int kRounds = 7;

enum class Shape { kSlotStreams, kDirectionStreams };

// One slot of a chain: its device plane, its equalizer, the events that order its steps and,
// in the slot-stream shape, its stream.
struct Slot {
  std::unique_ptr<Stream> stream;  // slot streams only
  Event uploaded{cudaEventDisableTiming}, equalized{cudaEventDisableTiming},
      downloaded{cudaEventDisableTiming};
  DeviceBuffer plane;
  std::size_t pitch = 0;
  histeq::cuda::DeviceEqualizer equalizer;

  Slot(FrameSize size, Shape shape) {
    if (shape == Shape::kSlotStreams) stream = std::make_unique<Stream>();
    void *d_plane = nullptr;
    BENCH_CUDA(
        cudaMallocPitch(&d_plane, &pitch, std::size_t(size.width), std::size_t(size.height)));
    plane = DeviceBuffer(d_plane, pitch * std::size_t(size.height));
    BENCH_CUDA(equalizer.init());
  }
  // The slot's frames must be done before its plane and scratch are freed.
  ~Slot() { cudaDeviceSynchronize(); }
  Slot(const Slot &) = delete;
  Slot &operator=(const Slot &) = delete;
};

struct Chain {
  Shape shape;
  bool equalize;
  std::unique_ptr<Stream> up, compute, down;  // direction streams only
  std::vector<std::unique_ptr<Slot>> slots;
};

void enqueue(const Chain &chain, Slot &slot, const HostFrames &host, long i) {
  const FrameSize size = host.size();
  const std::size_t width = std::size_t(size.width), height = std::size_t(size.height);
  const std::size_t pitch = std::size_t(host.pitch());
  const bool slot_streams = chain.shape == Shape::kSlotStreams;
  cudaStream_t up = (slot_streams ? slot.stream : chain.up)->get();
  cudaStream_t compute = (slot_streams ? slot.stream : chain.compute)->get();
  cudaStream_t down = (slot_streams ? slot.stream : chain.down)->get();
  BENCH_CUDA(cudaMemcpy2DAsync(slot.plane.get(), slot.pitch, host.in(i), pitch, width, height,
                               cudaMemcpyHostToDevice, up));
  if (!slot_streams) {
    slot.uploaded.record(up);
    BENCH_CUDA(cudaStreamWaitEvent(compute, slot.uploaded.get(), 0));
  }
  if (chain.equalize) {
    const histeq::cuda::DevicePlane plane{slot.plane.get(), size.width, size.height, slot.pitch};
    BENCH_CUDA(slot.equalizer.equalize(plane, histeq::full_range(8), {}, compute));
  }
  if (!slot_streams) {
    slot.equalized.record(compute);
    BENCH_CUDA(cudaStreamWaitEvent(down, slot.equalized.get(), 0));
  }
  BENCH_CUDA(cudaMemcpy2DAsync(host.out(i), pitch, slot.plane.get(), slot.pitch, width, height,
                               cudaMemcpyDeviceToHost, down));
  slot.downloaded.record(down);
}

// After the timed frames, one more frame kFrames goes through the chain into an output buffer
// poisoned first, and must come out as `expected` (the CPU core's, or the input when not
// equalizing): a stale or missing download cannot pass.
void poison_check_frame(const HostFrames &host) {
  std::memset(host.out(kFrames), 0xa5, std::size_t(host.pitch()) * std::size_t(host.size().height));
}

void check_frame(const HostFrames &host, const HostFrame &frame,
                 const std::vector<std::uint8_t> &expected) {
  const std::string check = check_output(host.out(kFrames), host.pitch(), frame, expected);
  if (check != "ok") throw Failure(check);
}

double us_per_steady_frame(std::chrono::steady_clock::time_point start) {
  const auto end = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(end - start).count() / (kFrames - kSkipped);
}

// Microseconds per frame by the host's clock, from frame kSkipped - 1 coming back to frame
// kFrames - 1 coming back: frame periods only, none of the ring's filling or draining.
double period_us(const HostFrame &frame, const std::vector<std::uint8_t> &expected, int depth,
                 Shape shape, bool equalize) {
  // The pinned frames outlive the slots, whose destructors wait for the copies that use them.
  const HostFrames host(frame, HostKind::kPinned, depth + 2);
  Chain chain{shape, equalize, {}, {}, {}, {}};
  if (shape == Shape::kDirectionStreams) {
    chain.up = std::make_unique<Stream>();
    chain.compute = std::make_unique<Stream>();
    chain.down = std::make_unique<Stream>();
  }
  for (int s = 0; s < depth; ++s) chain.slots.push_back(std::make_unique<Slot>(frame.size, shape));
  std::chrono::steady_clock::time_point start;
  for (long i = 0; i < kFrames; ++i) {
    Slot &slot = *chain.slots[std::size_t(i % depth)];
    if (i >= depth) BENCH_CUDA(cudaEventSynchronize(slot.downloaded.get()));
    if (i == kSkipped - 1 + depth) start = std::chrono::steady_clock::now();
    enqueue(chain, slot, host, i);
  }
  BENCH_CUDA(cudaDeviceSynchronize());
  const double us = us_per_steady_frame(start);
  poison_check_frame(host);
  enqueue(chain, *chain.slots[std::size_t(kFrames % depth)], host, kFrames);
  BENCH_CUDA(cudaDeviceSynchronize());
  check_frame(host, frame, expected);
  return us;
}

// FrameEngine itself, as histeq-bench's ring row drives it, timed as period_us times its chains.
double frame_engine_us(const HostFrame &frame, const std::vector<std::uint8_t> &equalized,
                       int depth, histeq::cuda::Transfer transfer) {
  // Outlives the ring's copies, with more buffers than the ring holds frames (two per slot).
  const HostFrames host(frame, HostKind::kPinned, 2 * depth + 2);
  histeq::cuda::FrameEngine ring;
  BENCH_CUDA(ring.init(depth, {}, transfer));
  std::uint64_t tag = 0;
  std::chrono::steady_clock::time_point start;
  for (long i = 0; i < kFrames; ++i) {
    if (ring.full()) BENCH_CUDA(ring.wait(&tag));  // frame i - 2 * depth
    if (i == kSkipped - 1 + ring.capacity()) start = std::chrono::steady_clock::now();
    BENCH_CUDA(ring.submit(ring_frame(host, i)));
  }
  while (ring.in_flight() > 0) BENCH_CUDA(ring.wait(&tag));
  const double us = us_per_steady_frame(start);
  poison_check_frame(host);
  BENCH_CUDA(ring.submit(ring_frame(host, kFrames)));
  BENCH_CUDA(ring.wait(&tag));
  check_frame(host, frame, equalized);
  if (transfer == histeq::cuda::Transfer::kZeroCopy && ring.zero_copy_frames() != kFrames + 1)
    throw Failure("only " + std::to_string(ring.zero_copy_frames()) + " of " +
                  std::to_string(kFrames + 1) + " frames went zero-copy");
  return us;
}

struct Row {
  std::string name;
  std::function<double()> run;
  std::vector<double> us;
};

void measure(FrameSize size) {
  const std::ptrdiff_t pitch = size.width;
  const HostFrame frame = make_frame(Content::kNatural, size, pitch, 0x1234u);
  const std::vector<std::uint8_t> equalized = cpu_reference(frame);
  std::vector<Row> rows;
  for (int depth : {1, 2, 3}) {
    const std::string at = "depth " + std::to_string(depth) + ", ";
    for (Shape shape : {Shape::kSlotStreams, Shape::kDirectionStreams}) {
      const std::string shaped =
          at + (shape == Shape::kSlotStreams ? "slot streams" : "direction streams");
      for (bool equalize : {false, true}) {
        rows.push_back({shaped + (equalize ? ", equalizing" : ", copies only"),
                        [&frame, &equalized, depth, shape, equalize] {
                          return period_us(frame, equalize ? equalized : frame.bytes, depth, shape,
                                           equalize);
                        },
                        {}});
      }
    }
    for (histeq::cuda::Transfer transfer : histeq::cuda::kTransfers) {
      rows.push_back({at + "FrameEngine " + histeq::cuda::to_string(transfer) + ", equalizing",
                      [&frame, &equalized, depth, transfer] {
                        return frame_engine_us(frame, equalized, depth, transfer);
                      },
                      {}});
    }
  }
  // Rounds as in histeq-bench: the floor (taken as histeq-bench takes it), then every row once;
  // medians over the rounds. Batches of 20 frames had put the floor about 1% above what the
  // depth-3 chains then ran at.
  const Repeats floor_repeats = Options().end_to_end_repeats(size);
  std::vector<double> floors;
  for (int round = 0; round < kRounds; ++round) {
    floors.push_back(pcie_floor(size, pitch, floor_repeats).both_us);
    for (Row &row : rows) {
      try {
        row.us.push_back(row.run());
      } catch (const Failure &failure) {
        throw Failure(size.label() + ", " + row.name + ": " + failure.what());
      }
    }
  }
  const double floor_us = median(floors);
  std::printf("\n%s: PCIe floor %.1f us per frame (rounds %.1f..%.1f)\n", size.label().c_str(),
              floor_us, *std::min_element(floors.begin(), floors.end()),
              *std::max_element(floors.begin(), floors.end()));
  std::printf("%-46s %9s %8s %9s %9s\n", "chain", "us/frame", "x floor", "fastest", "slowest");
  for (const Row &row : rows) {
    const double us = median(row.us);
    std::printf("%-46s %9.1f %8.2f %9.1f %9.1f\n", row.name.c_str(), us, floor_us / us,
                *std::min_element(row.us.begin(), row.us.end()),
                *std::max_element(row.us.begin(), row.us.end()));
  }
}

}  // namespace

}  // namespace bench

int main() {
  try {
    BENCH_CUDA(cudaSetDevice(0));
    BENCH_CUDA(cudaFree(nullptr));
    const char *connections = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    std::printf(
        "histeq-ring-shapes: natural content, frame periods %d..%d of each chain, median of %d "
        "rounds; CUDA_DEVICE_MAX_CONNECTIONS=%s\n",
        bench::kSkipped, bench::kFrames - 1, bench::kRounds, connections ? connections : "(unset)");
    for (bench::FrameSize size : {bench::FrameSize{1920, 1080}, bench::FrameSize{3840, 2160}})
      bench::measure(size);
    return 0;
  } catch (const std::exception &e) {
    std::fflush(stdout);
    std::fprintf(stderr, "histeq-ring-shapes: %s\n", e.what());
    return 1;
  }
}
