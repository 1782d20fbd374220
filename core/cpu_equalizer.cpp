// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_equalizer.h"

#include <algorithm>

#include "lut_map.h"

namespace histeq {

namespace {

// Below this many pixels per band, waking a worker costs more than it saves (~a 360p frame
// takes a few tens of microseconds on one core).
constexpr std::uint64_t kMinPixelsPerBand = 128 * 1024;

}  // namespace

CpuEqualizer::CpuEqualizer(unsigned threads) {
  set_threads(threads);
}

void CpuEqualizer::set_threads(unsigned threads) {
  pool_.reset();
  pool_ = std::make_unique<RowPool>(threads);
  band_histograms_.assign(pool_->size(), LumaHistogram8{});
}

unsigned CpuEqualizer::bands_for(const LumaPlane8 &plane) const {
  const std::uint64_t by_size = std::max<std::uint64_t>(1, plane.pixels() / kMinPixelsPerBand);
  const std::uint64_t by_rows = std::max(1, plane.height);
  return unsigned(std::min<std::uint64_t>({by_size, by_rows, pool_->size()}));
}

const std::array<std::uint8_t, kLevels8> &CpuEqualizer::equalize(LumaPlane8 plane,
                                                                 OutputRange range,
                                                                 const Params &params, bool reset) {
  const unsigned bands = bands_for(plane);
  const ConstLumaPlane8 source{plane.data, plane.width, plane.height, plane.stride};
  pool_->run(bands, plane.height, [&](unsigned band, int begin, int end) {
    band_histograms_[band].fill(0);
    accumulate_histogram(source, begin, end, band_histograms_[band]);
  });
  histogram_.fill(0);
  for (unsigned b = 0; b < bands; ++b) {
    for (int v = 0; v < kLevels8; ++v) histogram_[v] += band_histograms_[b][v];
  }
  restarted_ = tone_.build(histogram_.data(), params, range, reset, lut_.data());
  // An identity LUT (a frame of one level, strength 0) leaves the plane as it is: no pass.
  bool identity = true;
  for (int v = 0; v < kLevels8 && identity; ++v) identity = lut_[std::size_t(v)] == v;
  if (!identity)
    pool_->run(bands, plane.height,
               [&](unsigned, int begin, int end) { apply_lut(plane, begin, end, lut_.data()); });
  return lut_;
}

}  // namespace histeq
