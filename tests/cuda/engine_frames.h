// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Frames of any pixel layout through the GPU frame engine and through the CPU core, for the
// engine tests that compare the two frame by frame: host frames (pageable, even frames of a
// clip) and device frames (GuardedDevicePlane, odd ones) through one engine, each frame's bytes,
// padding included, and its report against the core's.

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "device_plane.h"
#include "device_tone.h"
#include "equalization.h"
#include "frame_engine.h"
#include "gpu_test_support.h"
#include "params.h"

// A frame of `layout` pixels, rows `pitch` bytes apart, kept in 16-bit words so that rows of
// words are aligned for them (pitch even for words, as GStreamer's strides of 16-bit formats
// are).
struct PixelFrame {
  histeq::cuda::PixelLayout layout;
  int width = 0;
  int height = 0;
  std::size_t pitch = 0;
  std::vector<std::uint16_t> storage;

  std::uint8_t *bytes() { return reinterpret_cast<std::uint8_t *>(storage.data()); }
  const std::uint8_t *bytes() const {
    return reinterpret_cast<const std::uint8_t *>(storage.data());
  }
  std::uint8_t *pixel(int x, int y) {
    return bytes() + std::size_t(y) * pitch + std::size_t(x) * std::size_t(layout.pixel_bytes);
  }
  std::uint16_t *word_row(int y) { return storage.data() + std::size_t(y) * (pitch / 2); }
  const std::uint16_t *word_row(int y) const {
    return storage.data() + std::size_t(y) * (pitch / 2);
  }
  std::size_t row_bytes() const { return layout.row_bytes(width); }
};

// A frame of random bytes, row padding included, so that a write there shows.
PixelFrame random_frame(const histeq::cuda::PixelLayout &layout, int width, int height,
                        std::size_t pitch, std::mt19937 &rng);

// The pixels' bytes, rows packed (what GuardedDevicePlane uploads and downloads), and back.
std::vector<std::uint8_t> visible_bytes(const PixelFrame &frame);
void set_visible_bytes(PixelFrame &frame, const std::vector<std::uint8_t> &packed);

// `guarded`'s plane as `frame`'s pixels (GuardedDevicePlane counts its width in bytes).
histeq::cuda::DevicePlane device_plane(const GuardedDevicePlane &guarded, const PixelFrame &frame);

histeq::OutputRange output_range(const histeq::cuda::PixelLayout &layout, bool limited);

// `frame` as the engine takes it from host memory, equalized in place.
histeq::cuda::HostFrame host_frame(PixelFrame &frame, histeq::OutputRange range,
                                   const histeq::Params &params);

struct CpuFrame {
  PixelFrame frame;
  std::vector<std::uint64_t> histogram;
  bool restarted;
};

// The CPU core over `clip` (frames of one layout), each frame equalized in a copy with
// params[i % params.size()]; the first frame restarts the history.
std::vector<CpuFrame> cpu_clip(const std::vector<PixelFrame> &clip, bool limited,
                               const std::vector<histeq::Params> &params);
std::vector<CpuFrame> cpu_clip(const std::vector<PixelFrame> &clip, bool limited,
                               const histeq::Params &params);

// What the engine made of a clip: each frame (a device frame's row padding is its input's, its
// own checked untouched) and its report.
struct EngineOutput {
  std::vector<PixelFrame> frames;
  std::vector<histeq::cuda::FrameReport> reports;
};

// `clip` through one engine of `depth` slots, even frames from pageable host memory and odd ones
// from device memory, each in place with its layout's range and params[i % params.size()]; the
// first frame restarts the history. The device frames' guard bands and padding must be intact.
void run_engine(const std::vector<PixelFrame> &clip, int depth, bool limited,
                const std::vector<histeq::Params> &params, EngineOutput *out);
void run_engine(const std::vector<PixelFrame> &clip, int depth, bool limited,
                const histeq::Params &params, EngineOutput *out);

// Where two frames differ, padding included: how many samples, and the first one.
std::string difference(const PixelFrame &got, const PixelFrame &expected);

// Each frame identical with the core's, padding included; a frame that keeps the history reports
// the core's histogram (one bin per level) and restart, one that does not reports nothing.
void expect_equal_to_the_core(const EngineOutput &out, const std::vector<CpuFrame> &expected,
                              const std::vector<histeq::Params> &params);
void expect_equal_to_the_core(const EngineOutput &out, const std::vector<CpuFrame> &expected,
                              const histeq::Params &params);
