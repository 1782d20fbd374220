// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// A deliberately plain equalizer, written from OpenCV's equalizeHist (a single-precision scale
// and product, rounded to nearest with ties to even), for checking the optimized core against.
// It shares no code with core/.

#include <cmath>
#include <cstdint>
#include <vector>

namespace reference {

inline std::vector<std::uint8_t> equalize(const std::vector<std::uint8_t> &pixels, int lo, int hi) {
  std::vector<long long> histogram(256, 0);
  for (std::uint8_t p : pixels) histogram[p]++;
  std::vector<long long> cdf(256, 0);
  long long running = 0;
  for (int v = 0; v < 256; ++v) cdf[v] = running += histogram[v];
  long long cdf_min = 0;
  for (int v = 0; v < 256 && cdf_min == 0; ++v) cdf_min = cdf[v];
  const long long n = static_cast<long long>(pixels.size());
  std::vector<std::uint8_t> out(pixels.size());
  for (std::size_t i = 0; i < pixels.size(); ++i) {
    const int v = pixels[i];
    if (n == cdf_min) {
      out[i] = std::uint8_t(v);
    } else {
      const float scale = float(hi - lo) / float(n - cdf_min);
      out[i] = std::uint8_t(lo + std::lrint(float(cdf[v] - cdf_min) * scale));
    }
  }
  return out;
}

}  // namespace reference
