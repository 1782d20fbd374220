// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Deterministic building blocks for the clips: the same bytes on every machine and every run,
// so the table in the README can be reproduced exactly (no std:: distributions, whose output
// the standard leaves to the library).

#include <cstdint>
#include <vector>

#include "clip.h"

namespace quality {

class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  double uniform();  // [0, 1)
  double gaussian();

 private:
  std::uint64_t state_;
};

// A picture before quantization: levels as doubles, rows of `width`.
struct Canvas {
  int width = 0;
  int height = 0;
  std::vector<double> level;

  Canvas(int w, int h, double fill) : width(w), height(h), level(std::size_t(w) * h, fill) {}
  double &at(int x, int y) { return level[std::size_t(y) * width + x]; }
  double at(int x, int y) const { return level[std::size_t(y) * width + x]; }
  void fill(Rect rect, double value);  // clipped to the canvas
};

// A static scene of levels lo..hi: a diagonal gradient, soft blobs (value noise with cells of
// about `cell` pixels) and a fine fixed pattern, like a lit surface seen through a lens.
Canvas textured_scene(int width, int height, double lo, double hi, int cell, std::uint64_t seed);

// Sensor noise: a table of Gaussian samples read from a random start for each frame, which
// looks independent from frame to frame at a fraction of the cost of fresh samples.
class SensorNoise {
 public:
  SensorNoise(double sigma, std::uint64_t seed);
  // `source` (width x height) seen through a window at column `x0` (a pan), plus this frame's
  // noise, rounded and clamped to 0..255.
  Frame capture(const Canvas &source, int x0, int width, int height);

 private:
  double sigma_;
  std::vector<float> table_;
  Random random_;
};

}  // namespace quality
