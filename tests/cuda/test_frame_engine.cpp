// SPDX-License-Identifier: LGPL-2.1-or-later
// Frames through the frame engine: in order, bit-exact with the CPU core, host frames pinned and
// pageable at every depth and by either transfer, and planes in device memory in the same queue.
#include <algorithm>
#include <deque>
#include <memory>
#include <thread>
#include <vector>

#include "frame_engine.h"
#include "gpu_frames.h"
#include "gpu_test_support.h"
#include "pinned_memory.h"

using histeq::cuda::FrameEngine;
using histeq::cuda::HostFrame;

namespace {

// Host memory of either kind, freed the right way.
struct HostBuffer {
  std::uint8_t *data = nullptr;
  bool pinned;
  std::vector<std::uint8_t> pageable;

  HostBuffer(std::size_t bytes, bool use_pinned) : pinned(use_pinned) {
    if (pinned) {
      void *p = nullptr;
      if (histeq::cuda::allocate_pinned(bytes, &p) == cudaSuccess)
        data = static_cast<std::uint8_t *>(p);
    } else {
      pageable.resize(bytes);
      data = pageable.data();
    }
  }
  ~HostBuffer() {
    if (pinned) histeq::cuda::free_pinned(data);
  }
};

// Frame `tag` from src to dst (in place when they are the same), rows `pitch` bytes apart.
HostFrame host_frame(std::uint8_t *src, std::uint8_t *dst, std::size_t pitch, int width, int height,
                     std::uint64_t tag, histeq::OutputRange range = histeq::full_range(8)) {
  HostFrame host;
  host.src = src;
  host.dst = dst;
  host.src_pitch = host.dst_pitch = pitch;
  host.width = width;
  host.height = height;
  host.range = range;
  host.tag = tag;
  return host;
}

class EngineDepth : public ::testing::TestWithParam<std::tuple<int, bool, histeq::cuda::Transfer>> {
 protected:
  void SetUp() override { SKIP_WITHOUT_CUDA_DEVICE(); }
};

}  // namespace

TEST_P(EngineDepth, FramesComeBackInOrderAndBitExact) {
  const auto [depth, pinned, transfer] = GetParam();
  FrameEngine engine;
  ASSERT_CUDA(engine.init(depth, {}, transfer));
  // Sizes change mid-stream and rows are padded, as GStreamer frames may be.
  const int widths[] = {640, 641, 1920, 33};
  const int heights[] = {480, 361, 1080, 17};
  constexpr int kFrames = 12;
  constexpr std::size_t kPadding = 32;
  std::vector<std::unique_ptr<HostBuffer>> buffers;
  std::vector<std::vector<std::uint8_t>> expected;
  std::deque<std::uint64_t> pending;
  std::vector<std::uint64_t> finished;

  for (int i = 0; i < kFrames; ++i) {
    const int w = widths[i % 4], h = heights[i % 4];
    const std::size_t pitch = std::size_t(w) + kPadding;
    const auto content = Content(i % 6);
    const auto frame = make_frame(content, w, h, unsigned(i));
    const bool limited = i % 3 == 0;
    expected.push_back(
        cpu_equalized(frame, w, h, limited ? histeq::limited_range(8) : histeq::full_range(8)));
    buffers.push_back(std::make_unique<HostBuffer>(pitch * h, pinned));
    ASSERT_NE(buffers.back()->data, nullptr);
    std::fill(buffers.back()->data, buffers.back()->data + pitch * h, std::uint8_t(0xEE));
    for (int y = 0; y < h; ++y)
      std::copy_n(frame.begin() + std::ptrdiff_t(y) * w, w, buffers.back()->data + y * pitch);

    if (engine.full()) {
      std::uint64_t tag = 0;
      ASSERT_CUDA(engine.wait(&tag));
      finished.push_back(tag);
    }
    std::uint8_t *data = buffers.back()->data;
    ASSERT_CUDA(
        engine.submit(host_frame(data, data, pitch, w, h, std::uint64_t(i),
                                 limited ? histeq::limited_range(8) : histeq::full_range(8))));
    EXPECT_LE(engine.in_flight(), 2 * depth);
  }
  while (engine.in_flight()) {
    std::uint64_t tag = 0;
    ASSERT_CUDA(engine.wait(&tag));
    finished.push_back(tag);
  }
  ASSERT_EQ(finished.size(), std::size_t(kFrames));
  // Zero-copy when asked, for every staged frame and for the pinned ones whose rows are aligned
  // (widths 640 and 1920); never otherwise.
  const std::uint64_t zero_copied = transfer == histeq::cuda::Transfer::kCopyEngines ? 0
                                    : pinned                                         ? kFrames / 2
                                                                                     : kFrames;
  EXPECT_EQ(engine.zero_copy_frames(), zero_copied);
  for (int i = 0; i < kFrames; ++i) {
    EXPECT_EQ(finished[i], std::uint64_t(i));
    const int w = widths[i % 4], h = heights[i % 4];
    const std::size_t pitch = std::size_t(w) + kPadding;
    for (int y = 0; y < h; ++y) {
      const std::uint8_t *row = buffers[i]->data + y * pitch;
      ASSERT_TRUE(std::equal(row, row + w, expected[i].begin() + std::ptrdiff_t(y) * w))
          << "frame " << i << " row " << y;
      for (std::size_t x = std::size_t(w); x < pitch; ++x)
        ASSERT_EQ(row[x], 0xEE) << "padding written, frame " << i << " row " << y;
    }
  }
}

// Padding of 32 bytes leaves the rows of widths 640 and 1920 16-byte aligned (zero-copy when
// asked) and those of 641 and 33 not (copy engines whatever was asked); staged pageable frames
// are always aligned.
INSTANTIATE_TEST_SUITE_P(Depths, EngineDepth,
                         ::testing::Combine(::testing::Values(1, 2, 3, 4), ::testing::Bool(),
                                            ::testing::ValuesIn(histeq::cuda::kTransfers)),
                         [](const auto &info) {
                           std::string name =
                               "depth" + std::to_string(std::get<0>(info.param)) +
                               (std::get<1>(info.param) ? "_pinned_" : "_pageable_") +
                               histeq::cuda::to_string(std::get<2>(info.param));
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// The benchmark's shape: frames out of place (input buffer i in, output buffer i out), in
// pinned memory from plain cudaHostAlloc, one size, many more frames than the engine holds.
class EngineOutOfPlace : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { SKIP_WITHOUT_CUDA_DEVICE(); }
};

TEST_P(EngineOutOfPlace, EveryFrameLandsInItsOwnOutputBitExact) {
  const int depth = GetParam();
  FrameEngine engine;
  ASSERT_CUDA(engine.init(depth, {}));
  constexpr int kWidth = 1920, kHeight = 1080, kFrames = 40;
  const std::size_t bytes = std::size_t(kWidth) * kHeight;
  const auto frame = make_frame(Content::kNatural, kWidth, kHeight, 3);
  const auto expected = cpu_equalized(frame, kWidth, kHeight, histeq::full_range(8));
  const int buffers = engine.capacity() + 2;
  std::vector<std::uint8_t *> in(static_cast<std::size_t>(buffers)),
      out(static_cast<std::size_t>(buffers));
  for (int b = 0; b < buffers; ++b) {
    ASSERT_CUDA(cudaHostAlloc(reinterpret_cast<void **>(&in[b]), bytes, cudaHostAllocDefault));
    ASSERT_CUDA(cudaHostAlloc(reinterpret_cast<void **>(&out[b]), bytes, cudaHostAllocDefault));
    std::copy(frame.begin(), frame.end(), in[b]);
  }
  int checked = 0;
  auto check = [&](std::uint64_t tag) {
    std::uint8_t *result = out[tag % std::uint64_t(buffers)];
    EXPECT_TRUE(std::equal(result, result + bytes, expected.begin())) << "frame " << tag;
    std::fill(result, result + bytes, std::uint8_t(0x5A));
    ++checked;
  };
  for (int i = 0; i < kFrames; ++i) {
    std::uint64_t tag = 0;
    if (engine.full()) {
      ASSERT_CUDA(engine.wait(&tag));
      check(tag);
    }
    const cudaError_t status = engine.submit(
        host_frame(in[i % buffers], out[i % buffers], kWidth, kWidth, kHeight, std::uint64_t(i)));
    ASSERT_EQ(status, cudaSuccess) << "frame " << i << ": " << cudaGetErrorName(status);
  }
  while (engine.in_flight()) {
    std::uint64_t tag = 0;
    ASSERT_CUDA(engine.wait(&tag));
    check(tag);
  }
  EXPECT_EQ(checked, kFrames);
  for (int b = 0; b < buffers; ++b) {
    cudaFreeHost(in[b]);
    cudaFreeHost(out[b]);
  }
}

INSTANTIATE_TEST_SUITE_P(Depths, EngineOutOfPlace, ::testing::Values(1, 2, 3),
                         [](const auto &info) { return "depth" + std::to_string(info.param); });

// The cudahisteq element's shape: its streaming thread submits while its output thread waits.
// Pageable frames, so each one's stages are reused while other frames are queued.
TEST(FrameEngine, OneThreadSubmitsWhileAnotherWaits) {
  SKIP_WITHOUT_CUDA_DEVICE();
  FrameEngine engine;
  ASSERT_CUDA(engine.init(2, {}));
  constexpr int kFrames = 48, kWidth = 257, kHeight = 131;
  std::vector<std::vector<std::uint8_t>> frames, expected;
  for (int i = 0; i < kFrames; ++i) {
    frames.push_back(make_frame(Content(i % 6), kWidth, kHeight, unsigned(i)));
    expected.push_back(cpu_equalized(frames.back(), kWidth, kHeight, histeq::full_range(8)));
  }
  std::vector<std::uint64_t> tags;
  std::vector<cudaError_t> waits;
  std::thread waiter([&] {
    while (int(tags.size()) < kFrames) {
      if (engine.in_flight() == 0) {
        std::this_thread::yield();
        continue;
      }
      std::uint64_t tag = 0;
      waits.push_back(engine.wait(&tag));
      tags.push_back(tag);
    }
  });
  for (int i = 0; i < kFrames; ++i) {
    while (engine.full()) std::this_thread::yield();
    std::uint8_t *data = frames[i].data();
    const cudaError_t status =
        engine.submit(host_frame(data, data, kWidth, kWidth, kHeight, std::uint64_t(i)));
    EXPECT_EQ(status, cudaSuccess) << "frame " << i << ": " << cudaGetErrorString(status);
  }
  waiter.join();
  for (int i = 0; i < kFrames; ++i) {
    EXPECT_EQ(waits[i], cudaSuccess) << "frame " << i;
    EXPECT_EQ(tags[i], std::uint64_t(i));
    EXPECT_EQ(frames[i], expected[i]) << "frame " << i;
  }
}

TEST(FrameEngine, RefusesBadDepthsAndSubmitsWhenFull) {
  SKIP_WITHOUT_CUDA_DEVICE();
  FrameEngine too_deep;
  EXPECT_EQ(too_deep.init(FrameEngine::kMaxDepth + 1, {}), cudaErrorInvalidValue);
  FrameEngine empty;
  EXPECT_EQ(empty.init(0, {}), cudaErrorInvalidValue);

  FrameEngine other_kernels;
  histeq::cuda::KernelConfig separate;
  separate.fusion = histeq::cuda::Fusion::kSeparateKernels;
  EXPECT_EQ(other_kernels.init(2, separate, histeq::cuda::Transfer::kZeroCopy),
            cudaErrorInvalidValue);

  // One slot takes two frames, the second queued on its stream behind the first.
  FrameEngine engine;
  ASSERT_CUDA(engine.init(1, {}));
  EXPECT_EQ(engine.capacity(), 2);
  std::vector<std::uint8_t> frame = make_frame(Content::kNatural, 16, 16, 1);
  const HostFrame host = host_frame(frame.data(), frame.data(), 16, 16, 16, 0);
  ASSERT_CUDA(engine.submit(host));
  ASSERT_CUDA(engine.submit(host));
  EXPECT_TRUE(engine.full());
  EXPECT_EQ(engine.submit(host), cudaErrorNotReady);
  ASSERT_CUDA(engine.discard());
  EXPECT_EQ(engine.in_flight(), 0);
  std::uint64_t tag = 0;
  EXPECT_EQ(engine.wait(&tag), cudaErrorNotReady);
}

// Planes in device memory take their turn in the same queue as host frames: frame n on slot
// n % depth whatever its path, handed back in submit order, each bit-exact, nothing written
// outside a device plane's image.
TEST(FrameEngine, DeviceFramesShareTheQueueWithHostFrames) {
  SKIP_WITHOUT_CUDA_DEVICE();
  FrameEngine engine;
  ASSERT_CUDA(engine.init(2, {}));
  constexpr int kFrames = 13, kWidth = 200, kHeight = 75;
  constexpr std::size_t kPitch = 224;
  std::vector<std::vector<std::uint8_t>> host(kFrames), expected;
  std::vector<std::unique_ptr<GuardedDevicePlane>> device(kFrames);
  std::vector<std::uint64_t> tags;
  auto take_one = [&] {
    std::uint64_t tag = 0;
    ASSERT_CUDA(engine.wait(&tag));
    tags.push_back(tag);
  };
  for (int i = 0; i < kFrames; ++i) {
    const auto frame = make_frame(Content(i % 6), kWidth, kHeight, unsigned(i) + 40);
    expected.push_back(cpu_equalized(frame, kWidth, kHeight, histeq::full_range(8)));
    if (engine.full()) take_one();
    if (i % 2 == 0) {
      host[std::size_t(i)] = frame;
      std::uint8_t *data = host[std::size_t(i)].data();
      ASSERT_CUDA(engine.submit(host_frame(data, data, kWidth, kWidth, kHeight, std::uint64_t(i))));
    } else {
      device[std::size_t(i)] = std::make_unique<GuardedDevicePlane>(kWidth, kHeight, kPitch);
      ASSERT_CUDA(device[std::size_t(i)]->upload(frame));
      histeq::cuda::DeviceFrame in_device;
      in_device.plane = device[std::size_t(i)]->plane();
      in_device.tag = std::uint64_t(i);
      ASSERT_CUDA(engine.submit(in_device));
    }
    EXPECT_LE(engine.in_flight(), engine.capacity());
  }
  while (engine.in_flight()) take_one();
  ASSERT_EQ(tags.size(), std::size_t(kFrames));
  for (int i = 0; i < kFrames; ++i) {
    EXPECT_EQ(tags[std::size_t(i)], std::uint64_t(i));
    if (i % 2 == 0) {
      EXPECT_EQ(host[std::size_t(i)], expected[std::size_t(i)]) << "frame " << i;
    } else {
      std::vector<std::uint8_t> out;
      bool guards_intact = false;
      ASSERT_CUDA(device[std::size_t(i)]->download(out, guards_intact));
      EXPECT_TRUE(guards_intact) << "frame " << i;
      EXPECT_EQ(out, expected[std::size_t(i)]) << "frame " << i;
    }
  }
}

TEST(FrameEngine, RefusesBadDeviceFramesAndDeviceFramesWhenFull) {
  SKIP_WITHOUT_CUDA_DEVICE();
  FrameEngine engine;
  histeq::cuda::DeviceFrame frame;
  EXPECT_EQ(engine.submit(frame), cudaErrorInitializationError);
  ASSERT_CUDA(engine.init(1, {}));
  EXPECT_EQ(engine.submit(frame), cudaErrorInvalidValue);  // no plane
  GuardedDevicePlane plane(16, 16, 32);
  ASSERT_CUDA(plane.upload(make_frame(Content::kNatural, 16, 16, 2)));
  frame.plane = plane.plane();
  frame.plane.pitch = 8;
  EXPECT_EQ(engine.submit(frame), cudaErrorInvalidValue);  // rows overlap
  frame.plane = plane.plane();
  ASSERT_CUDA(engine.submit(frame));
  ASSERT_CUDA(engine.submit(frame));
  EXPECT_TRUE(engine.full());
  EXPECT_EQ(engine.submit(frame), cudaErrorNotReady);
  ASSERT_CUDA(engine.discard());
  EXPECT_EQ(engine.in_flight(), 0);
}

TEST(NoDevice, ReasonIsEmptyOnlyWithADevice) {
  int count = 0;
  const bool have_device = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  cudaGetLastError();
  EXPECT_EQ(cuda_device_missing_reason().empty(), have_device);
  if (!have_device) {
    EXPECT_NE(cuda_device_missing_reason().find("CUDA"), std::string::npos);
  }
}
