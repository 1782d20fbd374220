// SPDX-License-Identifier: LGPL-2.1-or-later
// libFuzzer harness over the core: a short stream of frames of any size, stride and content,
// with any options, through CpuEqualizer. Every frame's output must be the input mapped through
// the LUT ToneMap builds for it with the same history, stay inside [min(v, lo), max(v, hi)],
// leave the row padding alone, and the LUT must never decrease. In CLAHE mode: the frame's own
// histogram, every pixel inside the range (or towards it from its level), the padding alone.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "cpu_equalizer.h"
#include "fuzz_input.h"
#include "params.h"
#include "tone_map.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  fuzz::Bytes in(data, size);
  const int width = 1 + in.byte() % 97;
  const int height = 1 + in.byte() % 61;
  const int padding = in.byte() % 19;
  const bool limited = in.byte() & 1;
  const unsigned threads = 1 + in.byte() % 3;
  histeq::Settings settings;
  settings.strength = in.fraction();
  settings.clip_limit = (in.byte() & 1) ? in.fraction() * 50 : 0;
  settings.smoothing = (in.byte() & 1) ? in.fraction() * 40 : 0;
  settings.scene_threshold = in.fraction();
  settings.statistics = in.byte() & 1;
  const bool tiles = (in.byte() & 3) == 0;
  if (tiles) {
    settings.mode = histeq::Mode::kClahe;
    settings.tiles_x = 1 + in.byte() % 16;
    settings.tiles_y = 1 + in.byte() % 16;
  }
  const histeq::Params params = histeq::to_params(settings);
  const histeq::OutputRange range = limited ? histeq::limited_range(8) : histeq::full_range(8);
  const int frames = 1 + in.byte() % 3;

  histeq::CpuEqualizer equalizer(threads);
  histeq::ToneMap reference(256);
  const std::size_t stride = std::size_t(width + padding);
  for (int f = 0; f < frames; ++f) {
    std::vector<std::uint8_t> plane(stride * std::size_t(height), 0xA5);
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) plane[std::size_t(y) * stride + std::size_t(x)] = in.byte();
    const std::vector<std::uint8_t> before = plane;
    const bool reset = f == 0 || (in.byte() & 7) == 0;
    equalizer.equalize(histeq::LumaPlane8{plane.data(), width, height, std::ptrdiff_t(stride)},
                       range, params, reset);

    histeq::LumaHistogram8 histogram{};
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) histogram[before[std::size_t(y) * stride + std::size_t(x)]]++;
    FUZZ_CHECK(histogram == equalizer.histogram());
    if (tiles) {
      // Each pixel blends four tiles' levels, each inside the range (or the pixel's own level
      // at reduced strength); the padding stays.
      for (int y = 0; y < height; ++y) {
        for (std::size_t x = 0; x < stride; ++x) {
          const std::size_t i = std::size_t(y) * stride + x;
          const std::uint32_t v = before[i];
          if (x >= std::size_t(width))
            FUZZ_CHECK(plane[i] == v);
          else
            FUZZ_CHECK(plane[i] >= std::min(v, range.lo) && plane[i] <= std::max(v, range.hi));
        }
      }
      continue;
    }
    std::uint8_t lut[256];
    const bool restarted = reference.build(histogram.data(), params, range, reset, lut);
    FUZZ_CHECK(restarted == equalizer.restarted());
    for (int v = 1; v < 256; ++v) FUZZ_CHECK(lut[v] >= lut[v - 1]);
    for (int y = 0; y < height; ++y) {
      for (std::size_t x = 0; x < stride; ++x) {
        const std::size_t i = std::size_t(y) * stride + x;
        if (x >= std::size_t(width)) {
          FUZZ_CHECK(plane[i] == before[i]);
          continue;
        }
        const std::uint32_t v = before[i];
        FUZZ_CHECK(plane[i] == lut[v]);
        FUZZ_CHECK(plane[i] >= std::min(v, range.lo) && plane[i] <= std::max(v, range.hi));
      }
    }
  }
  return 0;
}
