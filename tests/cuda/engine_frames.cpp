// SPDX-License-Identifier: LGPL-2.1-or-later
#include "engine_frames.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "cpu_equalizer.h"

using histeq::OutputRange;
using histeq::cuda::DevicePlane;
using histeq::cuda::FrameEngine;
using histeq::cuda::FrameReport;
using histeq::cuda::Packing;
using histeq::cuda::PixelLayout;

PixelFrame random_frame(const PixelLayout &layout, int width, int height, std::size_t pitch,
                        std::mt19937 &rng) {
  PixelFrame frame{layout, width, height, pitch, {}};
  frame.storage.resize((pitch * std::size_t(height) + 1) / 2);
  for (auto &word : frame.storage) word = std::uint16_t(rng());
  return frame;
}

std::vector<std::uint8_t> visible_bytes(const PixelFrame &frame) {
  std::vector<std::uint8_t> packed;
  for (int y = 0; y < frame.height; ++y) {
    const std::uint8_t *row = frame.bytes() + std::size_t(y) * frame.pitch;
    packed.insert(packed.end(), row, row + frame.row_bytes());
  }
  return packed;
}

void set_visible_bytes(PixelFrame &frame, const std::vector<std::uint8_t> &packed) {
  for (int y = 0; y < frame.height; ++y)
    std::copy_n(packed.begin() + std::ptrdiff_t(std::size_t(y) * frame.row_bytes()),
                frame.row_bytes(), frame.bytes() + std::size_t(y) * frame.pitch);
}

DevicePlane device_plane(const GuardedDevicePlane &guarded, const PixelFrame &frame) {
  DevicePlane plane = guarded.plane();
  plane.width = frame.width;
  plane.layout = frame.layout;
  return plane;
}

OutputRange output_range(const PixelLayout &layout, bool limited) {
  const int bits = layout.sample.bits;
  return limited ? histeq::limited_range(bits) : histeq::full_range(bits);
}

histeq::cuda::HostFrame host_frame(PixelFrame &frame, OutputRange range,
                                   const histeq::Params &params) {
  histeq::cuda::HostFrame host;
  host.src = host.dst = frame.bytes();
  host.src_pitch = host.dst_pitch = frame.pitch;
  host.width = frame.width;
  host.height = frame.height;
  host.layout = frame.layout;
  host.range = range;
  host.params = params;
  return host;
}

std::vector<CpuFrame> cpu_clip(const std::vector<PixelFrame> &clip, bool limited,
                               const std::vector<histeq::Params> &params) {
  const PixelLayout &layout = clip.front().layout;
  const OutputRange range = output_range(layout, limited);
  histeq::CpuEqualizer bytes(0);
  histeq::DeepCpuEqualizer words(0, layout.sample);
  std::vector<CpuFrame> out;
  for (std::size_t i = 0; i < clip.size(); ++i) {
    PixelFrame frame = clip[i];
    const histeq::Params &p = params[i % params.size()];
    const auto stride = std::ptrdiff_t(frame.pitch);
    const bool reset = i == 0;
    if (layout.deep()) {
      words.equalize(histeq::LumaPlane16{frame.storage.data(), frame.width, frame.height, stride},
                     range, p, reset);
      out.push_back({std::move(frame), words.histogram(), words.restarted()});
      continue;
    }
    switch (layout.packing) {
      case Packing::kLuma:
        bytes.equalize(histeq::LumaPlane8{frame.bytes(), frame.width, frame.height, stride}, range,
                       p, reset);
        break;
      case Packing::kPackedYuv:
        bytes.equalize(
            histeq::PackedYuvView{frame.bytes(), frame.width, frame.height, stride, layout.luma},
            range, p, reset);
        break;
      case Packing::kRgb:
        bytes.equalize(
            histeq::RgbView{frame.bytes(), frame.width, frame.height, stride, layout.pixel_bytes,
                            layout.red, layout.green, layout.blue, layout.matrix},
            range, p, reset);
        break;
    }
    const histeq::LumaHistogram8 &histogram = bytes.histogram();
    out.push_back({std::move(frame), {histogram.begin(), histogram.end()}, bytes.restarted()});
  }
  return out;
}

std::vector<CpuFrame> cpu_clip(const std::vector<PixelFrame> &clip, bool limited,
                               const histeq::Params &params) {
  return cpu_clip(clip, limited, std::vector<histeq::Params>{params});
}

void run_engine(const std::vector<PixelFrame> &clip, int depth, bool limited,
                const std::vector<histeq::Params> &params, EngineOutput *out) {
  out->frames = clip;
  out->reports.assign(clip.size(), {});
  // Declared before the engine, whose destructor waits for the frames in flight on them.
  std::vector<std::unique_ptr<GuardedDevicePlane>> device(clip.size());
  FrameEngine engine;
  ASSERT_CUDA(engine.init(depth, {}));
  const auto take_oldest = [&] {
    std::uint64_t tag = 0;
    FrameReport report;
    ASSERT_CUDA(engine.wait(&tag, &report));
    ASSERT_LT(tag, clip.size());
    out->reports[tag] = std::move(report);
  };
  for (std::size_t i = 0; i < clip.size(); ++i) {
    if (engine.full()) {
      ASSERT_NO_FATAL_FAILURE(take_oldest());
    }
    PixelFrame &frame = out->frames[i];
    const OutputRange range = output_range(frame.layout, limited);
    const histeq::Params &p = params[i % params.size()];
    if (i % 2 == 0) {
      histeq::cuda::HostFrame host = host_frame(frame, range, p);
      host.reset = i == 0;
      host.tag = i;
      ASSERT_CUDA(engine.submit(host));
    } else {
      device[i] =
          std::make_unique<GuardedDevicePlane>(int(frame.row_bytes()), frame.height, frame.pitch);
      ASSERT_CUDA(device[i]->upload(visible_bytes(frame)));
      histeq::cuda::DeviceFrame on_device;
      on_device.plane = device_plane(*device[i], frame);
      on_device.range = range;
      on_device.params = p;
      on_device.tag = i;
      ASSERT_CUDA(engine.submit(on_device));
    }
  }
  while (engine.in_flight()) ASSERT_NO_FATAL_FAILURE(take_oldest());
  for (std::size_t i = 1; i < clip.size(); i += 2) {
    std::vector<std::uint8_t> packed;
    bool guards_intact = false;
    ASSERT_CUDA(device[i]->download(packed, guards_intact));
    EXPECT_TRUE(guards_intact) << "frame " << i << ": padding or guard bands written";
    set_visible_bytes(out->frames[i], packed);
  }
}

void run_engine(const std::vector<PixelFrame> &clip, int depth, bool limited,
                const histeq::Params &params, EngineOutput *out) {
  run_engine(clip, depth, limited, std::vector<histeq::Params>{params}, out);
}

namespace {

unsigned sample_at(const PixelFrame &frame, std::size_t byte) {
  return frame.layout.deep() ? frame.storage[byte / 2] : frame.bytes()[byte];
}

}  // namespace

std::string difference(const PixelFrame &got, const PixelFrame &expected) {
  const std::size_t unit = got.layout.deep() ? 2 : 1;
  std::size_t count = 0, first = 0;
  for (std::size_t at = 0; at + unit <= got.pitch * std::size_t(got.height); at += unit) {
    if (std::memcmp(got.bytes() + at, expected.bytes() + at, unit) == 0) continue;
    if (!count++) first = at;
  }
  if (!count) return "identical";
  return std::to_string(count) + " samples differ, the first at row " +
         std::to_string(first / got.pitch) + " byte " + std::to_string(first % got.pitch) + ": " +
         std::to_string(sample_at(got, first)) + " instead of " +
         std::to_string(sample_at(expected, first));
}

void expect_equal_to_the_core(const EngineOutput &out, const std::vector<CpuFrame> &expected,
                              const std::vector<histeq::Params> &params) {
  ASSERT_EQ(out.frames.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_TRUE(out.frames[i].storage == expected[i].frame.storage)
        << "frame " << i << (i % 2 ? " (device)" : " (host)") << ": "
        << difference(out.frames[i], expected[i].frame);
    const FrameReport &report = out.reports[i];
    if (!params[i % params.size()].keep_history) {
      EXPECT_TRUE(report.histogram.empty()) << "frame " << i;
      continue;
    }
    EXPECT_EQ(report.restarted, expected[i].restarted) << "frame " << i;
    ASSERT_EQ(report.histogram.size(), expected[i].histogram.size()) << "frame " << i;
    const auto [got, want] = std::mismatch(report.histogram.begin(), report.histogram.end(),
                                           expected[i].histogram.begin());
    EXPECT_TRUE(got == report.histogram.end())
        << "frame " << i << ": level " << (got - report.histogram.begin()) << " counted " << *got
        << " instead of " << *want;
  }
}

void expect_equal_to_the_core(const EngineOutput &out, const std::vector<CpuFrame> &expected,
                              const histeq::Params &params) {
  expect_equal_to_the_core(out, expected, std::vector<histeq::Params>{params});
}
