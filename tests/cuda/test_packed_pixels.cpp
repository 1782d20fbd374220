// SPDX-License-Identifier: LGPL-2.1-or-later
// Packed YUV and packed RGB on the GPU, bit-exact with the CPU core (CpuEqualizer on the same
// views) frame by frame: every layout, odd and large sizes, rows in 16-byte chunks and rows that
// are not, the classic mapping and every option with its history, frames in host memory and in
// device memory through one engine, in place and out of place. Bytes outside the pixels (row
// padding) are never written; alpha and chroma keep their values.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cpu_equalizer.h"
#include "device_equalizer.h"
#include "device_history.h"
#include "frame_engine.h"
#include "gpu_test_support.h"
#include "params.h"

using histeq::cuda::DevicePlane;
using histeq::cuda::FrameEngine;
using histeq::cuda::FrameReport;
using histeq::cuda::Packing;
using histeq::cuda::PixelLayout;

namespace {

struct LayoutCase {
  const char *name;
  PixelLayout layout;
};

const std::vector<LayoutCase> &layouts() {
  using histeq::luma_matrix;
  using histeq::LumaStandard;
  using histeq::cuda::packed_yuv_layout;
  using histeq::cuda::rgb_layout;
  static const std::vector<LayoutCase> all = {
      {"YUY2", packed_yuv_layout(0)},
      {"UYVY", packed_yuv_layout(1)},
      {"RGBx", rgb_layout(4, 0, 1, 2, luma_matrix(LumaStandard::kBt709))},
      {"BGRA", rgb_layout(4, 2, 1, 0, luma_matrix(LumaStandard::kBt601))},
      {"xRGB", rgb_layout(4, 1, 2, 3, luma_matrix(LumaStandard::kBt2020))},
      {"ABGR", rgb_layout(4, 3, 2, 1, luma_matrix(LumaStandard::kBt709))},
      {"RGB", rgb_layout(3, 0, 1, 2, luma_matrix(LumaStandard::kBt709))},
      {"BGR", rgb_layout(3, 2, 1, 0, luma_matrix(LumaStandard::kBt601))},
  };
  return all;
}

histeq::Settings every_option() {
  histeq::Settings s;
  s.strength = 0.8;
  s.clip_limit = 3;
  s.smoothing = 5;
  s.scene_threshold = 0.3;
  s.statistics = true;
  return s;
}

// A clip of `frames` frames of rows `pitch` bytes apart (padding bytes random too): dull,
// tinted pixels whose brightness drifts, with black ones scattered (RGB's rule for luma 0), a
// flat frame (the warp vote's case) and a cut to brighter content, so the smoothing, the cut and
// each pixel rule all show.
std::vector<std::vector<std::uint8_t>> make_clip(const PixelLayout &layout, int width, int height,
                                                 std::size_t pitch, int frames) {
  std::mt19937 rng(unsigned(width * 31 + height + layout.pixel_bytes));
  std::vector<std::vector<std::uint8_t>> clip;
  for (int i = 0; i < frames; ++i) {
    std::vector<std::uint8_t> bytes(pitch * std::size_t(height));
    for (auto &b : bytes) b = std::uint8_t(rng());
    const bool flat = i == 1;
    const int base = i < frames - 2 ? 70 + 4 * i : 150;
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) {
        std::uint8_t *p = &bytes[std::size_t(y) * pitch + std::size_t(x) * layout.pixel_bytes];
        const bool black = !flat && (7 * x + 3 * y) % 29 == 0;
        const int level = flat    ? 90
                          : black ? 0
                                  : base + 50 * (x + y) / (width + height) + int(rng() % 13);
        if (layout.packing != Packing::kRgb) {
          p[layout.luma] = std::uint8_t(level);
          continue;
        }
        for (int c : {layout.red, layout.green, layout.blue}) {
          const int tint = flat || black ? 0 : int(rng() % 81) - 40;
          p[c] = std::uint8_t(std::clamp(level + tint, 0, 255));
        }
      }
    clip.push_back(std::move(bytes));
  }
  return clip;
}

// The CPU core's frames, in place in copies of the clip.
std::vector<std::vector<std::uint8_t>> cpu_clip(std::vector<std::vector<std::uint8_t>> clip,
                                                const PixelLayout &layout, int width, int height,
                                                std::size_t pitch, histeq::OutputRange range,
                                                const histeq::Params &params,
                                                std::vector<histeq::LumaHistogram8> *histograms) {
  histeq::CpuEqualizer cpu(1);
  for (std::size_t i = 0; i < clip.size(); ++i) {
    const auto stride = std::ptrdiff_t(pitch);
    if (layout.packing == Packing::kLuma) {
      cpu.equalize(histeq::LumaPlane8{clip[i].data(), width, height, stride}, range, params,
                   i == 0);
    } else if (layout.packing == Packing::kPackedYuv) {
      cpu.equalize(histeq::PackedYuvView{clip[i].data(), width, height, stride, layout.luma}, range,
                   params, i == 0);
    } else {
      cpu.equalize(histeq::RgbView{clip[i].data(), width, height, stride, layout.pixel_bytes,
                                   layout.red, layout.green, layout.blue, layout.matrix},
                   range, params, i == 0);
    }
    histograms->push_back(cpu.histogram());
  }
  return clip;
}

// Where two frames of rows `pitch` bytes apart differ: how many bytes, and the first one.
std::string difference(const std::vector<std::uint8_t> &got,
                       const std::vector<std::uint8_t> &expected, std::size_t pitch) {
  std::size_t count = 0, first = got.size();
  for (std::size_t at = 0; at < got.size(); ++at) {
    if (got[at] == expected[at]) continue;
    if (!count++) first = at;
  }
  if (!count) return "identical";
  return std::to_string(count) + " bytes differ, the first at row " +
         std::to_string(first / pitch) + " byte " + std::to_string(first % pitch) + ": " +
         std::to_string(got[first]) + " instead of " + std::to_string(expected[first]);
}

struct Size {
  int width, height;
  int pitch_extra;  // bytes of padding after each row; 16-byte rows when the sum allows
};

std::string size_name(const Size &size) {
  return std::to_string(size.width) + "x" + std::to_string(size.height) + "+" +
         std::to_string(size.pitch_extra);
}

// A pitch with `extra` bytes after each row; rounded up to 16 bytes (chunked rows) unless
// `extra` is odd (rows that are not, walked pixel by pixel).
std::size_t pitch_for(const PixelLayout &layout, const Size &size) {
  const std::size_t row = std::size_t(size.width) * layout.pixel_bytes + size.pitch_extra;
  return size.pitch_extra % 2 ? row : (row + 15) / 16 * 16;
}

// A clip frame in host memory as the engine takes it, in place; the first frame restarts the
// history.
histeq::cuda::HostFrame host_frame(std::vector<std::uint8_t> &bytes, std::size_t pitch,
                                   const Size &size, const PixelLayout &layout,
                                   const histeq::Params &params, std::size_t i) {
  histeq::cuda::HostFrame frame;
  frame.src = frame.dst = bytes.data();
  frame.src_pitch = frame.dst_pitch = pitch;
  frame.width = size.width;
  frame.height = size.height;
  frame.layout = layout;
  frame.params = params;
  frame.reset = i == 0;
  frame.tag = i;
  return frame;
}

// Device memory holding a whole clip frame (padding included).
// (layout, every option or the classic mapping, large frames or small ones: the sanitizers run
// the small ones).
class PackedEngine : public ::testing::TestWithParam<std::tuple<std::size_t, bool, bool>> {
 protected:
  void SetUp() override { SKIP_WITHOUT_CUDA_DEVICE(); }
  const LayoutCase &layout_case() const { return layouts()[std::get<0>(GetParam())]; }
  bool options() const { return std::get<1>(GetParam()); }
  bool large() const { return std::get<2>(GetParam()); }
};

}  // namespace

// Host frames (even frames) and device frames (odd ones) through one engine of depth 2: each
// frame byte-identical with the core's, padding included, and its report's histogram the core's.
TEST_P(PackedEngine, HostAndDeviceFramesEqualTheCore) {
  const PixelLayout &layout = layout_case().layout;
  const histeq::Params params =
      options() ? histeq::to_params(every_option()) : histeq::to_params(histeq::Settings{});
  const std::vector<Size> sizes =
      large() ? std::vector<Size>{{642, 362, 32}, {1920, 1080, 0}}
              : std::vector<Size>{{1, 1, 0}, {17, 3, 0}, {161, 97, 0}, {161, 97, 3}};
  for (const Size size : sizes) {
    for (bool limited : {false, true}) {
      SCOPED_TRACE(size_name(size) + (limited ? " limited" : " full"));
      const histeq::OutputRange range = limited ? histeq::limited_range(8) : histeq::full_range(8);
      const std::size_t pitch = pitch_for(layout, size);
      const auto clip = make_clip(layout, size.width, size.height, pitch, 6);
      std::vector<histeq::LumaHistogram8> histograms;
      const auto expected =
          cpu_clip(clip, layout, size.width, size.height, pitch, range, params, &histograms);
      FrameEngine engine;
      ASSERT_CUDA(engine.init(2, {}));
      std::vector<std::vector<std::uint8_t>> host = clip;
      std::vector<std::unique_ptr<DeviceBytes>> device;
      for (std::size_t i = 0; i < clip.size(); ++i) {
        if (engine.full()) {
          std::uint64_t tag = 0;
          ASSERT_CUDA(engine.wait(&tag));
        }
        if (i % 2 == 0) {
          histeq::cuda::HostFrame frame = host_frame(host[i], pitch, size, layout, params, i);
          frame.range = range;
          ASSERT_CUDA(engine.submit(frame));
        } else {
          device.push_back(std::make_unique<DeviceBytes>(clip[i].size()));
          ASSERT_CUDA(cudaMemcpy(device.back()->data, clip[i].data(), clip[i].size(),
                                 cudaMemcpyHostToDevice));
          // A copy from pageable memory may return before its DMA lands, and the engine's
          // streams do not wait for the legacy stream: the frame must be complete when submitted,
          // as a decoder's is.
          ASSERT_CUDA(cudaDeviceSynchronize());
          histeq::cuda::DeviceFrame frame;
          frame.plane = DevicePlane{device.back()->data, size.width, size.height, pitch, layout};
          frame.range = range;
          frame.params = params;
          frame.tag = i;
          ASSERT_CUDA(engine.submit(frame));
        }
      }
      while (engine.in_flight()) ASSERT_CUDA(engine.wait(nullptr));
      for (std::size_t i = 0; i < clip.size(); ++i) {
        std::vector<std::uint8_t> out = host[i];
        if (i % 2 == 1) {
          ASSERT_CUDA(
              cudaMemcpy(out.data(), device[i / 2]->data, out.size(), cudaMemcpyDeviceToHost));
        }
        ASSERT_TRUE(out == expected[i]) << "frame " << i << (i % 2 ? " (device)" : " (host)")
                                        << ": " << difference(out, expected[i], pitch);
      }
    }
  }
}

class PackedReports : public ::testing::TestWithParam<std::size_t> {
 protected:
  void SetUp() override { SKIP_WITHOUT_CUDA_DEVICE(); }
};

// The reports the engine hands back (frames that keep a history: every option) carry the core's
// histogram of each frame's luma.
TEST_P(PackedReports, CarryTheCoresHistograms) {
  const PixelLayout &layout = layouts()[GetParam()].layout;
  const histeq::Params params = histeq::to_params(every_option());
  const Size size{333, 211, 0};
  const std::size_t pitch = pitch_for(layout, size);
  const auto clip = make_clip(layout, size.width, size.height, pitch, 5);
  std::vector<histeq::LumaHistogram8> histograms;
  cpu_clip(clip, layout, size.width, size.height, pitch, histeq::full_range(8), params,
           &histograms);
  FrameEngine engine;
  ASSERT_CUDA(engine.init(3, {}));
  std::vector<std::vector<std::uint8_t>> host = clip;
  std::size_t reported = 0;
  const auto take = [&] {
    FrameReport report;
    std::uint64_t tag = 0;
    ASSERT_CUDA(engine.wait(&tag, &report));
    EXPECT_TRUE(std::equal(histograms[tag].begin(), histograms[tag].end(), report.histogram.begin(),
                           report.histogram.end()))
        << "frame " << tag;
    ++reported;
  };
  for (std::size_t i = 0; i < clip.size(); ++i) {
    if (engine.full()) take();
    ASSERT_CUDA(engine.submit(host_frame(host[i], pitch, size, layout, params, i)));
  }
  while (engine.in_flight()) take();
  EXPECT_EQ(reported, clip.size());
}

// Out of place, the output gets every byte of each pixel: the luma (or R, G, B) mapped, chroma
// or alpha copied from the input; the input and the output's row padding are left as they were.
TEST_P(PackedEngine, OutOfPlaceCopiesTheOtherBytesOfEachPixel) {
  const PixelLayout &layout = layout_case().layout;
  const histeq::Params params =
      options() ? histeq::to_params(every_option()) : histeq::to_params(histeq::Settings{});
  const std::vector<Size> sizes =
      large() ? std::vector<Size>{{3840, 2160, 0}} : std::vector<Size>{{161, 97, 0}, {161, 97, 5}};
  for (const Size size : sizes) {
    SCOPED_TRACE(size_name(size));
    const std::size_t pitch = pitch_for(layout, size);
    const auto clip = make_clip(layout, size.width, size.height, pitch, 1);
    std::vector<histeq::LumaHistogram8> histograms;
    const auto expected = cpu_clip(clip, layout, size.width, size.height, pitch,
                                   histeq::full_range(8), params, &histograms);
    DeviceBytes in(clip[0].size()), out(clip[0].size());
    const std::vector<std::uint8_t> padding_fill(clip[0].size(), 0x5A);
    ASSERT_CUDA(cudaMemcpy(in.data, clip[0].data(), clip[0].size(), cudaMemcpyHostToDevice));
    ASSERT_CUDA(
        cudaMemcpy(out.data, padding_fill.data(), padding_fill.size(), cudaMemcpyHostToDevice));
    histeq::cuda::DeviceEqualizer equalizer;
    ASSERT_CUDA(equalizer.init());
    histeq::cuda::DeviceHistory history;
    ASSERT_CUDA(history.init());
    DeviceBytes report(histeq::cuda::report_words(256) * sizeof(std::uint64_t));
    histeq::cuda::DeviceTone tone;
    tone.params = params;
    tone.reset = true;
    tone.d_report = reinterpret_cast<unsigned long long *>(report.data);
    const DevicePlane in_plane{in.data, size.width, size.height, pitch, layout};
    const DevicePlane out_plane{out.data, size.width, size.height, pitch, layout};
    ASSERT_CUDA(history.attach(nullptr, histeq::cuda::history_shape(in_plane, params), &tone));
    ASSERT_CUDA(equalizer.equalize(in_plane, out_plane, histeq::full_range(8), {}, nullptr, tone));
    ASSERT_CUDA(history.attached(nullptr, tone));
    ASSERT_CUDA(cudaDeviceSynchronize());
    std::vector<std::uint8_t> got(clip[0].size()), input_after(clip[0].size());
    ASSERT_CUDA(cudaMemcpy(got.data(), out.data, got.size(), cudaMemcpyDeviceToHost));
    ASSERT_CUDA(cudaMemcpy(input_after.data(), in.data, got.size(), cudaMemcpyDeviceToHost));
    EXPECT_TRUE(input_after == clip[0]) << "the input was written";
    const std::size_t row_bytes = std::size_t(size.width) * layout.pixel_bytes;
    for (int y = 0; y < size.height; ++y) {
      const std::size_t row = std::size_t(y) * pitch;
      ASSERT_TRUE(
          std::equal(got.begin() + row, got.begin() + row + row_bytes, expected[0].begin() + row))
          << "row " << y;
      ASSERT_TRUE(std::all_of(got.begin() + row + row_bytes, got.begin() + row + pitch,
                              [](std::uint8_t b) { return b == 0x5A; }))
          << "row " << y << "'s padding was written";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, PackedEngine,
                         ::testing::Combine(::testing::Range<std::size_t>(0, 8), ::testing::Bool(),
                                            ::testing::Bool()),
                         [](const auto &info) {
                           return std::string(layouts()[std::get<0>(info.param)].name) +
                                  (std::get<1>(info.param) ? "_every_option" : "_classic") +
                                  (std::get<2>(info.param) ? "_large" : "_small");
                         });

INSTANTIATE_TEST_SUITE_P(Layouts, PackedReports, ::testing::Range<std::size_t>(0, 8),
                         [](const auto &info) { return std::string(layouts()[info.param].name); });

// The separate kernels and their variants take luma planes only: asked for them, a packed frame
// is equalized by the single kernel, with the same bytes.
TEST(PackedEngineConfig, PackedFramesTakeTheSingleKernelWhateverTheConfig) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const PixelLayout layout = layouts()[3].layout;
  const Size size{200, 120, 0};
  const std::size_t pitch = pitch_for(layout, size);
  const auto clip = make_clip(layout, size.width, size.height, pitch, 1);
  std::vector<histeq::LumaHistogram8> histograms;
  const auto expected = cpu_clip(clip, layout, size.width, size.height, pitch,
                                 histeq::full_range(8), {}, &histograms);
  histeq::cuda::KernelConfig separate;
  separate.fusion = histeq::cuda::Fusion::kSeparateKernels;
  FrameEngine engine;
  ASSERT_CUDA(engine.init(1, separate));
  std::vector<std::uint8_t> frame_bytes = clip[0];
  ASSERT_CUDA(engine.submit(host_frame(frame_bytes, pitch, size, layout, {}, 0)));
  ASSERT_CUDA(engine.wait(nullptr));
  EXPECT_TRUE(frame_bytes == expected[0]);
}

// Rows shorter than their pixels are refused, for host and device frames alike.
TEST(PackedEngineConfig, RefusesPitchesShorterThanAPackedRow) {
  SKIP_WITHOUT_CUDA_DEVICE();
  FrameEngine engine;
  ASSERT_CUDA(engine.init(1, {}));
  std::vector<std::uint8_t> bytes(64 * 4 * 2);
  histeq::cuda::HostFrame frame;
  frame.src = frame.dst = bytes.data();
  frame.width = 64;
  frame.height = 2;
  frame.src_pitch = frame.dst_pitch = 64 * 3;  // 3 bytes a pixel for a 4-byte layout
  frame.layout = layouts()[2].layout;
  EXPECT_EQ(engine.submit(frame), cudaErrorInvalidValue);
  DeviceBytes device(bytes.size());
  histeq::cuda::DeviceFrame on_device;
  on_device.plane = DevicePlane{device.data, 64, 2, 64 * 3, layouts()[2].layout};
  EXPECT_EQ(engine.submit(on_device), cudaErrorInvalidValue);
  EXPECT_EQ(engine.in_flight(), 0);
}

// One engine takes frames of one layout after another (a caps change mid-stream): each frame
// equals the core's, the single kernel's grid sized again for each layout.
TEST(PackedEngineConfig, OneEngineTakesLayoutAfterLayout) {
  SKIP_WITHOUT_CUDA_DEVICE();
  const Size size{1920, 1080, 0};
  const PixelLayout sequence[] = {PixelLayout{},       layouts()[5].layout, layouts()[1].layout,
                                  layouts()[7].layout, layouts()[2].layout, PixelLayout{}};
  FrameEngine engine;
  ASSERT_CUDA(engine.init(2, {}));
  std::vector<std::vector<std::uint8_t>> frames, expected;
  std::vector<std::size_t> pitches;
  for (const PixelLayout &layout : sequence) {
    const std::size_t pitch = pitch_for(layout, size);
    const auto clip = make_clip(layout, size.width, size.height, pitch, 1);
    std::vector<histeq::LumaHistogram8> histograms;
    expected.push_back(cpu_clip(clip, layout, size.width, size.height, pitch, histeq::full_range(8),
                                {}, &histograms)[0]);
    frames.push_back(clip[0]);
    pitches.push_back(pitch);
  }
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (engine.full()) {
      ASSERT_CUDA(engine.wait(nullptr));
    }
    ASSERT_CUDA(engine.submit(host_frame(frames[i], pitches[i], size, sequence[i], {}, 0)));
  }
  while (engine.in_flight()) ASSERT_CUDA(engine.wait(nullptr));
  for (std::size_t i = 0; i < frames.size(); ++i)
    EXPECT_TRUE(frames[i] == expected[i])
        << "frame " << i << ": " << difference(frames[i], expected[i], pitches[i]);
}

// A layout the kernels do not walk is refused before anything is enqueued.
TEST(PackedEngineConfig, RefusesLayoutsTheKernelsDoNotWalk) {
  SKIP_WITHOUT_CUDA_DEVICE();
  FrameEngine engine;
  ASSERT_CUDA(engine.init(1, {}));
  std::vector<std::uint8_t> bytes(64 * 4 * 2);
  PixelLayout two_byte_rgb = layouts()[2].layout;
  two_byte_rgb.pixel_bytes = 2;
  const Size size{64, 2, 0};
  EXPECT_EQ(engine.submit(host_frame(bytes, 64 * 4, size, two_byte_rgb, {}, 0)),
            cudaErrorInvalidValue);
  DeviceBytes device(bytes.size());
  histeq::cuda::DeviceFrame on_device;
  on_device.plane = DevicePlane{device.data, 64, 2, 64 * 4, two_byte_rgb};
  EXPECT_EQ(engine.submit(on_device), cudaErrorInvalidValue);
  EXPECT_EQ(engine.in_flight(), 0);
}

// Which layouts the kernels walk; no GPU needed.
TEST(PixelLayouts, OnlyLayoutsTheKernelsWalkAreValid) {
  for (const LayoutCase &c : layouts()) EXPECT_TRUE(histeq::cuda::valid_layout(c.layout)) << c.name;
  EXPECT_TRUE(histeq::cuda::valid_layout(PixelLayout{}));
  const auto changed = [](PixelLayout layout, auto change) {
    change(layout);
    return layout;
  };
  const PixelLayout rgbx = layouts()[2].layout, rgb = layouts()[6].layout;
  const PixelLayout invalid[] = {
      changed(PixelLayout{}, [](PixelLayout &l) { l.pixel_bytes = 2; }),
      changed(layouts()[0].layout, [](PixelLayout &l) { l.luma = 2; }),
      changed(layouts()[0].layout, [](PixelLayout &l) { l.pixel_bytes = 1; }),
      changed(rgbx, [](PixelLayout &l) { l.pixel_bytes = 2; }),
      changed(rgbx, [](PixelLayout &l) { l.blue = 4; }),
      changed(rgbx, [](PixelLayout &l) { l.green = l.red; }),
      changed(rgbx, [](PixelLayout &l) { l.matrix.green += 1; }),
      changed(rgb,
              [](PixelLayout &l) {
                l.red = 1;
                l.green = 0;
              }),
  };
  for (const PixelLayout &layout : invalid)
    EXPECT_FALSE(histeq::cuda::valid_layout(layout))
        << int(layout.packing) << " " << layout.pixel_bytes << " " << layout.red << layout.green
        << layout.blue << " luma " << layout.luma;
}
