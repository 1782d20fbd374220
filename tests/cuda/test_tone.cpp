// SPDX-License-Identifier: LGPL-2.1-or-later
// The options (strength, clip limit, smoothing, scene cuts, statistics) on the GPU, bit-exact
// with the CPU core frame by frame: on one stream through DeviceEqualizer and DeviceHistory, in
// both kernel shapes, and through the frame engine at every depth, where the frames' history
// must follow their order, not their slots nor whether each plane was in host or device memory.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "cpu_equalizer.h"
#include "device_equalizer.h"
#include "device_history.h"
#include "frame_engine.h"
#include "gpu_frames.h"
#include "gpu_test_support.h"
#include "params.h"
#include "pinned_memory.h"

using histeq::Settings;
using histeq::cuda::DeviceEqualizer;
using histeq::cuda::DeviceHistory;
using histeq::cuda::DeviceTone;
using histeq::cuda::FrameEngine;
using histeq::cuda::FrameReport;

namespace {

struct Option {
  const char *name;
  Settings settings;
};

Settings with(double strength, double clip, double smoothing, double threshold, bool stats) {
  Settings s;
  s.strength = strength;
  s.clip_limit = clip;
  s.smoothing = smoothing;
  s.scene_threshold = threshold;
  s.statistics = stats;
  return s;
}

const std::vector<Option> &options() {
  static const std::vector<Option> all = {
      {"classic", Settings{}},
      {"strength_half", with(0.5, 0, 0, 0.25, false)},
      {"strength_tenth", with(0.1, 0, 0, 0.25, false)},
      {"clip_2", with(1, 2, 0, 0.25, false)},
      {"clip_0_7", with(1, 0.7, 0, 0.25, false)},
      {"clip_40", with(1, 40, 0, 0.25, false)},
      {"statistics", with(1, 0, 0, 0.25, true)},
      {"smoothing_5", with(1, 0, 5, 0.25, false)},
      {"smoothing_30_cut_0_1", with(1, 0, 30, 0.1, true)},
      {"everything", with(0.8, 3, 5, 0.3, true)},
  };
  return all;
}

// A clip whose histogram moves every frame (a brightness drift) with a cut half way through,
// so that smoothing, cuts and frame order all show in the output.
std::vector<std::vector<std::uint8_t>> make_clip(int width, int height, int frames) {
  std::vector<std::vector<std::uint8_t>> clip;
  for (int i = 0; i < frames; ++i) {
    const bool second_scene = i >= frames / 2;
    auto frame = make_frame(second_scene ? Content::kFlatTiles : Content::kNatural, width, height,
                            second_scene ? 99u : 7u);
    const int drift = (i % 5) * 3 - 6;
    for (auto &p : frame) p = std::uint8_t(std::clamp(int(p) / 2 + 40 + drift, 0, 255));
    clip.push_back(std::move(frame));
  }
  return clip;
}

struct CpuFrame {
  std::vector<std::uint8_t> pixels;
  histeq::LumaHistogram8 histogram;
  bool restarted;
};

// The CPU core over the clip, frame i with params[i], the first frame restarting the history.
std::vector<CpuFrame> cpu_clip(const std::vector<std::vector<std::uint8_t>> &clip, int width,
                               int height, const std::vector<histeq::Params> &params,
                               histeq::OutputRange range) {
  histeq::CpuEqualizer cpu(1);
  std::vector<CpuFrame> out;
  for (std::size_t i = 0; i < clip.size(); ++i) {
    std::vector<std::uint8_t> frame = clip[i];
    cpu.equalize(histeq::LumaPlane8{frame.data(), width, height, width}, range, params[i], i == 0);
    out.push_back({frame, cpu.histogram(), cpu.restarted()});
  }
  return out;
}

// The same with one set of params for every frame.
std::vector<CpuFrame> cpu_clip(const std::vector<std::vector<std::uint8_t>> &clip, int width,
                               int height, const histeq::Params &params,
                               histeq::OutputRange range) {
  return cpu_clip(clip, width, height, std::vector<histeq::Params>(clip.size(), params), range);
}

// What the engine hands back, in the order it does.
struct EngineOutput {
  std::vector<FrameReport> reports;
  std::vector<std::uint64_t> tags;
};

void take_oldest(FrameEngine &engine, EngineOutput *out) {
  FrameReport report;
  std::uint64_t tag = 0;
  ASSERT_CUDA(engine.wait(&tag, &report));
  out->reports.push_back(report);
  out->tags.push_back(tag);
}

// Frame `i` of a clip copied to host rows `pitch` bytes apart at `data`, as the engine takes it
// (in place; the first frame restarts the history).
histeq::cuda::HostFrame clip_host_frame(const std::vector<std::uint8_t> &frame, std::uint8_t *data,
                                        std::size_t pitch, int width, int height,
                                        const histeq::Params &params, int i) {
  for (int y = 0; y < height; ++y)
    std::copy_n(frame.begin() + std::ptrdiff_t(y) * width, width, data + y * pitch);
  histeq::cuda::HostFrame host;
  host.src = host.dst = data;
  host.src_pitch = host.dst_pitch = pitch;
  host.width = width;
  host.height = height;
  host.params = params;
  host.reset = i == 0;
  host.tag = std::uint64_t(i);
  return host;
}

void expect_report(const FrameReport &report, const CpuFrame &cpu, const histeq::Params &params,
                   int frame) {
  if (!params.keep_history) return;
  EXPECT_EQ(report.restarted, cpu.restarted) << "frame " << frame;
  EXPECT_TRUE(std::equal(cpu.histogram.begin(), cpu.histogram.end(), report.histogram.begin(),
                         report.histogram.end()))
      << "frame " << frame;
}

enum class SizeClass { kSmall, kLarge };

using ToneCase = std::tuple<std::size_t, histeq::cuda::Fusion, SizeClass>;

class EveryOption : public ::testing::TestWithParam<ToneCase> {
 protected:
  void SetUp() override { SKIP_WITHOUT_CUDA_DEVICE(); }
};

}  // namespace

TEST_P(EveryOption, FrameByFrameBitExactWithTheCpuCore) {
  const Option &option = options()[std::get<0>(GetParam())];
  histeq::cuda::KernelConfig config;
  config.fusion = std::get<1>(GetParam());
  const histeq::Params params = histeq::to_params(option.settings);
  DeviceEqualizer equalizer;
  ASSERT_CUDA(equalizer.init());
  DeviceHistory history;
  ASSERT_CUDA(history.init());
  const std::size_t report_bytes = histeq::cuda::report_words(256) * sizeof(std::uint64_t);
  unsigned long long *d_report = nullptr;
  ASSERT_CUDA(cudaMalloc(reinterpret_cast<void **>(&d_report), report_bytes));
  struct Size {
    int width, height;
  };
  for (const Size size :
       {Size{1, 1}, Size{67, 33}, Size{385, 289}, Size{1920, 1080}, Size{3840, 2160}}) {
    for (bool limited : {false, true}) {
      const histeq::OutputRange range = limited ? histeq::limited_range(8) : histeq::full_range(8);
      SCOPED_TRACE(std::to_string(size.width) + "x" + std::to_string(size.height) +
                   (limited ? " limited" : " full"));
      const auto clip = make_clip(size.width, size.height, 8);
      const auto expected = cpu_clip(clip, size.width, size.height, params, range);
      GuardedDevicePlane plane(size.width, size.height, std::size_t(size.width) + 19);
      for (std::size_t i = 0; i < clip.size(); ++i) {
        ASSERT_CUDA(plane.upload(clip[i]));
        DeviceTone tone;
        tone.params = params;
        tone.reset = i == 0;
        tone.d_report = d_report;
        ASSERT_CUDA(
            history.attach(nullptr, histeq::cuda::history_shape(plane.plane(), params), &tone));
        ASSERT_CUDA(equalizer.equalize(plane.plane(), range, config, nullptr, tone));
        ASSERT_CUDA(history.attached(nullptr, tone));
        std::vector<std::uint8_t> out;
        bool guards_intact = false;
        ASSERT_CUDA(plane.download(out, guards_intact));
        EXPECT_TRUE(guards_intact);
        ASSERT_TRUE(out == expected[i].pixels) << "frame " << i;
        if (params.keep_history) {
          std::vector<std::uint64_t> words(histeq::cuda::report_words(256));
          ASSERT_CUDA(cudaMemcpy(words.data(), d_report, report_bytes, cudaMemcpyDeviceToHost));
          FrameReport report;
          report.restarted = words[0] != 0;
          report.histogram.assign(words.begin() + 1, words.end());
          expect_report(report, expected[i], params, int(i));
        }
      }
    }
  }
  cudaFree(d_report);
}

INSTANTIATE_TEST_SUITE_P(
    Options, EveryOption,
    ::testing::Combine(::testing::Range<std::size_t>(0, 10),
                       ::testing::Values(histeq::cuda::Fusion::kSingleKernel,
                                         histeq::cuda::Fusion::kSeparateKernels),
                       ::testing::Values(SizeClass::kSmall, SizeClass::kLarge)),
    [](const auto &info) {
      std::string name = std::string(options()[std::get<0>(info.param)].name) + "_" +
                         histeq::cuda::to_string(std::get<1>(info.param)) +
                         (std::get<2>(info.param) == SizeClass::kSmall ? "_small" : "_large");
      std::replace(name.begin(), name.end(), '-', '_');
      return name;
    });

namespace {

class EngineHistory : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { SKIP_WITHOUT_CUDA_DEVICE(); }
};

}  // namespace

// Frames of a drifting clip with smoothing, in pinned memory, through the engine: each frame's
// output and report equal the CPU core's for the frames before it in submit order. An engine that
// let a slot's previous frame (n - depth) stand in for frame n - 1 fails here from depth 2 on.
// The settings change mid-clip (strength ramps, smoothing and statistics switch off and back
// on), as a controller or a user would change them while playing: the frame after the pause
// writes the buffer an earlier frame, on another slot, may still be reading.
TEST_P(EngineHistory, SmoothingFollowsFrameOrderAcrossSlots) {
  const int depth = GetParam();
  constexpr int kWidth = 641, kHeight = 361, kFrames = 24;
  constexpr std::size_t kPitch = 704;
  const auto clip = make_clip(kWidth, kHeight, kFrames);
  std::vector<histeq::Params> params;
  for (int i = 0; i < kFrames; ++i) {
    const bool off = i >= 15 && i < 17;  // no history kept: the next frame starts afresh
    Settings s = with(0.5 + 0.5 * i / kFrames, 2, off ? 0 : 8, 0.25, !off);
    params.push_back(histeq::to_params(s));
  }
  // The CPU core, frame by frame.
  const auto expected = cpu_clip(clip, kWidth, kHeight, params, histeq::full_range(8));

  FrameEngine engine;
  ASSERT_CUDA(engine.init(depth, {}));
  std::vector<std::uint8_t *> buffers(kFrames, nullptr);
  for (auto &buffer : buffers)
    ASSERT_CUDA(
        histeq::cuda::allocate_pinned(kPitch * kHeight, reinterpret_cast<void **>(&buffer)));
  EngineOutput output;
  auto &reports = output.reports;
  auto &tags = output.tags;
  for (int i = 0; i < kFrames; ++i) {
    const std::size_t f = std::size_t(i);
    const histeq::cuda::HostFrame host =
        clip_host_frame(clip[f], buffers[f], kPitch, kWidth, kHeight, params[f], i);
    if (engine.full()) take_oldest(engine, &output);
    ASSERT_CUDA(engine.submit(host));
  }
  while (engine.in_flight()) take_oldest(engine, &output);
  ASSERT_EQ(tags.size(), std::size_t(kFrames));
  for (int i = 0; i < kFrames; ++i) {
    EXPECT_EQ(tags[std::size_t(i)], std::uint64_t(i));
    for (int y = 0; y < kHeight; ++y) {
      const std::uint8_t *row = buffers[std::size_t(i)] + y * kPitch;
      ASSERT_TRUE(std::equal(row, row + kWidth,
                             expected[std::size_t(i)].pixels.begin() + std::ptrdiff_t(y) * kWidth))
          << "frame " << i << " row " << y;
    }
    expect_report(reports[std::size_t(i)], expected[std::size_t(i)], params[std::size_t(i)], i);
  }
  // The clip's cut restarts the history where the CPU saw it, and only there.
  EXPECT_TRUE(expected[kFrames / 2].restarted);
  for (auto buffer : buffers) histeq::cuda::free_pinned(buffer);
}

INSTANTIATE_TEST_SUITE_P(Depths, EngineHistory, ::testing::Values(1, 2, 3, 4),
                         [](const auto &info) { return "depth" + std::to_string(info.param); });

// The same clip on planes in device memory, equalized in place, as many in flight as the engine
// takes at its largest depth: each equal to the core's with its history.
TEST(EngineDeviceHistory, SmoothingFollowsFrameOrderInPlace) {
  SKIP_WITHOUT_CUDA_DEVICE();
  constexpr int kWidth = 385, kHeight = 289, kFrames = 20;
  constexpr std::size_t kPitch = 416;
  const auto clip = make_clip(kWidth, kHeight, kFrames);
  const histeq::Params params = histeq::to_params(with(0.9, 2, 6, 0.25, true));
  const auto expected = cpu_clip(clip, kWidth, kHeight, params, histeq::limited_range(8));
  FrameEngine engine;
  ASSERT_CUDA(engine.init(FrameEngine::kMaxDepth, {}));
  std::vector<std::unique_ptr<GuardedDevicePlane>> planes;
  EngineOutput output;
  auto &reports = output.reports;
  auto &tags = output.tags;
  for (int i = 0; i < kFrames; ++i) {
    planes.push_back(std::make_unique<GuardedDevicePlane>(kWidth, kHeight, kPitch));
    ASSERT_CUDA(planes.back()->upload(clip[std::size_t(i)]));
    if (engine.full()) take_oldest(engine, &output);
    histeq::cuda::DeviceFrame device;
    device.plane = planes.back()->plane();
    device.range = histeq::limited_range(8);
    device.params = params;
    device.reset = i == 0;
    device.tag = std::uint64_t(i);
    ASSERT_CUDA(engine.submit(device));
  }
  while (engine.in_flight()) take_oldest(engine, &output);
  ASSERT_EQ(reports.size(), std::size_t(kFrames));
  for (int i = 0; i < kFrames; ++i) {
    EXPECT_EQ(tags[std::size_t(i)], std::uint64_t(i));
    std::vector<std::uint8_t> out;
    bool guards_intact = false;
    ASSERT_CUDA(planes[std::size_t(i)]->download(out, guards_intact));
    EXPECT_TRUE(guards_intact);
    ASSERT_TRUE(out == expected[std::size_t(i)].pixels) << "frame " << i;
    expect_report(reports[std::size_t(i)], expected[std::size_t(i)], params, i);
  }
}

namespace {

// Where a frame of the mixed clip lives: the paths take turns in a cycle of three, so
// consecutive frames change path, and at depths 1, 2 and 4 each slot sees every path (at depth 3
// each slot keeps one, and every frame's predecessor ran on another slot).
enum class Path { kPinnedHost, kDevice, kPageableHost };

Path path_of(int frame) {
  return Path(frame % 3);
}

class EngineMixedHistory : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { SKIP_WITHOUT_CUDA_DEVICE(); }
};

}  // namespace

// The cudahisteq element's case under CUDAMemory caps, where some buffers are GstCudaMemory and
// some are not: one clip whose frames alternate between host planes (pinned and pageable) and
// planes in device memory. The history passes through every frame in submit order, whatever
// path and slot each took, so each frame's output and report equal the CPU core's (ToneMap) for
// the same sequence. An engine with a history per path, or one that let a path's previous frame
// stand in for frame n - 1, fails here. Smoothing and statistics pause for two frames mid-clip,
// as in EngineHistory.
TEST_P(EngineMixedHistory, SmoothingFollowsFrameOrderAcrossPathsAndSlots) {
  const int depth = GetParam();
  constexpr int kWidth = 641, kHeight = 361, kFrames = 30;
  constexpr std::size_t kPitch = 704;
  const auto clip = make_clip(kWidth, kHeight, kFrames);
  std::vector<histeq::Params> params;
  for (int i = 0; i < kFrames; ++i) {
    const bool off = i >= 19 && i < 21;
    params.push_back(histeq::to_params(with(0.6 + 0.4 * i / kFrames, 2, off ? 0 : 8, 0.4, !off)));
  }
  const auto expected = cpu_clip(clip, kWidth, kHeight, params, histeq::full_range(8));

  FrameEngine engine;
  ASSERT_CUDA(engine.init(depth, {}));
  std::vector<std::uint8_t *> pinned(kFrames, nullptr);
  std::vector<std::vector<std::uint8_t>> pageable(kFrames);
  std::vector<std::unique_ptr<GuardedDevicePlane>> device(kFrames);
  EngineOutput output;
  auto &reports = output.reports;
  auto &tags = output.tags;
  auto host_rows = [&](int i, std::uint8_t *data) {
    return clip_host_frame(clip[std::size_t(i)], data, kPitch, kWidth, kHeight,
                           params[std::size_t(i)], i);
  };
  for (int i = 0; i < kFrames; ++i) {
    if (engine.full()) take_oldest(engine, &output);
    const std::size_t f = std::size_t(i);
    switch (path_of(i)) {
      case Path::kPinnedHost:
        ASSERT_CUDA(
            histeq::cuda::allocate_pinned(kPitch * kHeight, reinterpret_cast<void **>(&pinned[f])));
        ASSERT_CUDA(engine.submit(host_rows(i, pinned[f])));
        break;
      case Path::kPageableHost:
        pageable[f].resize(kPitch * kHeight);
        ASSERT_CUDA(engine.submit(host_rows(i, pageable[f].data())));
        break;
      case Path::kDevice: {
        device[f] = std::make_unique<GuardedDevicePlane>(kWidth, kHeight, kPitch);
        ASSERT_CUDA(device[f]->upload(clip[f]));
        histeq::cuda::DeviceFrame frame;
        frame.plane = device[f]->plane();
        frame.params = params[f];
        frame.reset = i == 0;
        frame.tag = std::uint64_t(i);
        ASSERT_CUDA(engine.submit(frame));
        break;
      }
    }
  }
  while (engine.in_flight()) take_oldest(engine, &output);
  ASSERT_EQ(tags.size(), std::size_t(kFrames));
  for (int i = 0; i < kFrames; ++i) {
    const std::size_t f = std::size_t(i);
    EXPECT_EQ(tags[f], std::uint64_t(i));
    std::vector<std::uint8_t> out;
    if (path_of(i) == Path::kDevice) {
      bool guards_intact = false;
      ASSERT_CUDA(device[f]->download(out, guards_intact));
      EXPECT_TRUE(guards_intact) << "frame " << i;
    } else {
      const std::uint8_t *data = path_of(i) == Path::kPinnedHost ? pinned[f] : pageable[f].data();
      for (int y = 0; y < kHeight; ++y)
        out.insert(out.end(), data + y * kPitch, data + y * kPitch + kWidth);
    }
    ASSERT_TRUE(out == expected[f].pixels) << "frame " << i;
    expect_report(reports[f], expected[f], params[f], i);
  }
  // Scene threshold 0.4 lets the history run through the drift: it restarts with the first
  // frame, at the clip's cut and after the pause, and nowhere else, so most frames take the
  // history of a frame on another path.
  for (int i = 0; i < kFrames; ++i)
    EXPECT_EQ(expected[std::size_t(i)].restarted, i == 0 || i == kFrames / 2 || i == 21)
        << "frame " << i;
  for (auto buffer : pinned) histeq::cuda::free_pinned(buffer);
}

INSTANTIATE_TEST_SUITE_P(Depths, EngineMixedHistory, ::testing::Values(1, 2, 3, 4),
                         [](const auto &info) { return "depth" + std::to_string(info.param); });
