// SPDX-License-Identifier: LGPL-2.1-or-later
#include "synth.h"

#include <algorithm>
#include <cmath>

namespace quality {

namespace {

constexpr std::size_t kNoiseTable = std::size_t(1) << 20;
constexpr double kPi = 3.14159265358979323846;

double smoothstep(double t) {
  return t * t * (3 - 2 * t);
}

}  // namespace

std::uint64_t Random::next() {
  // splitmix64
  std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double Random::uniform() {
  return double(next() >> 11) * (1.0 / 9007199254740992.0);
}

double Random::gaussian() {
  // Box-Muller; 1 - u keeps the logarithm finite.
  const double u = 1.0 - uniform();
  const double v = uniform();
  return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * kPi * v);
}

void Canvas::fill(Rect rect, double value) {
  const int x0 = std::max(rect.x, 0), x1 = std::min(rect.x + rect.width, width);
  const int y0 = std::max(rect.y, 0), y1 = std::min(rect.y + rect.height, height);
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) at(x, y) = value;
}

Canvas textured_scene(int width, int height, double lo, double hi, int cell, std::uint64_t seed) {
  Random random(seed);
  const int cols = width / cell + 2, rows = height / cell + 2;
  std::vector<double> lattice(std::size_t(cols) * rows);
  for (double &v : lattice) v = random.uniform();
  Canvas canvas(width, height, 0);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const int cx = x / cell, cy = y / cell;
      const double fx = smoothstep(double(x % cell) / cell);
      const double fy = smoothstep(double(y % cell) / cell);
      auto node = [&](int i, int j) { return lattice[std::size_t(j) * cols + i]; };
      const double top = node(cx, cy) + (node(cx + 1, cy) - node(cx, cy)) * fx;
      const double bottom = node(cx, cy + 1) + (node(cx + 1, cy + 1) - node(cx, cy + 1)) * fx;
      const double blobs = top + (bottom - top) * fy;
      const double gradient = 0.5 * (double(x) / width + double(y) / height);
      const double fine = random.uniform() - 0.5;
      const double t = std::clamp(0.55 * gradient + 0.45 * blobs + 0.08 * fine, 0.0, 1.0);
      canvas.at(x, y) = lo + (hi - lo) * t;
    }
  }
  return canvas;
}

SensorNoise::SensorNoise(double sigma, std::uint64_t seed)
    : sigma_(sigma), table_(kNoiseTable), random_(seed) {
  for (float &v : table_) v = float(random_.gaussian());
}

Frame SensorNoise::capture(const Canvas &source, int x0, int width, int height) {
  Frame frame(std::size_t(width) * height);
  std::size_t n = random_.next() % kNoiseTable;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const double v = source.at(x0 + x, y) + sigma_ * table_[n];
      n = (n + 1) & (kNoiseTable - 1);
      frame[std::size_t(y) * width + x] = std::uint8_t(std::clamp(std::lround(v), 0L, 255L));
    }
  }
  return frame;
}

}  // namespace quality
