// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// The steps from a frame's histogram to its LUT beyond the classic mapping, each written per
// bin in integer arithmetic so that the CPU (tone_map.h, a loop over the bins) and the GPU (one
// thread per bin, block-wide sums and scans) call the same functions and agree to the bit. Sums
// and prefix sums of integers do not depend on their order, so the engines may take them as
// they like.
//
// For a frame with histogram count[v] over `bins` levels and N pixels:
//  1. history  p[v] = count[v] / N, in Q30 (normalized_bin). The stream's smoothed histogram
//              s[v] restarts from p when asked (flush, caps, DISCONT), when there is none yet,
//              or when the total variation distance between p and s over kSceneBands tonal
//              bands, sum_b |p_b - s_b| / 2, exceeds the scene threshold (a scene cut);
//              otherwise s = s * w + p * (1 - w) (smoothed_bin).
//  2. source   the frame's own counts when its LUT owes nothing to the history (w == 0 or a
//              restart: so the defaults stay OpenCV's equalizeHist exactly), else s.
//  3. clip     OpenCV's clipping: limit = max(1, floor(clip * T / bins)); every bin is cut to
//              the limit and the excess spread evenly, the remainder one by one from bin 0 in
//              steps of max(bins / remainder, 1) (clipped_bin). T is the source's nominal
//              total: N for the frame's counts, kUnitQ30 for the smoothed histogram (whose sum
//              differs from it by rounding alone), so the limit is known before the source is
//              summed. Clipping keeps the source's sum.
//  4. classic  lut[v] = equalized_level(v, cdf(v), cdf_min, total) (equalization.h); a CLAHE
//              tile's lut[v] = tile_level(cdf(v), total) (clahe.h).
//  5. strength lut[v] = v + (lut[v] - v) * strength, rounded half up (blended_level).

#include <cstdint>

#include "equalization.h"
#include "host_device.h"
#include "params.h"

namespace histeq {

// Normalized histograms count fractions of the frame in Q30: fine enough that one pixel of an
// 8K frame still counts, coarse enough that sums of 2^16 bins times Q16 weights fit 64 bits.
constexpr std::uint64_t kUnitQ30 = std::uint64_t(1) << 30;

// normalized_bin's multiplier for frames of `total` pixels: 2^62 / total, rounded. The one
// division of the step, taken once per frame and, on the GPU, before the counts are known.
HISTEQ_HOST_DEVICE inline std::uint64_t bin_scale(std::uint64_t total) {
  return total ? ((std::uint64_t(1) << 62) + total / 2) / total : 0;
}

// count / total in Q30, rounded, within one unit of the exact quotient for frames of fewer
// than 2^32 pixels; count <= total keeps the product below 2^63.
HISTEQ_HOST_DEVICE inline std::uint64_t normalized_bin(std::uint64_t count, std::uint64_t scale) {
  return (count * scale + (std::uint64_t(1) << 31)) >> 32;
}

// Scene cuts are judged on tonal bands of bins / kSceneBands levels, not on single levels: an
// exposure drift of a few codes moves the spikes of a histogram from level to level (a distance
// near 1 level by level) but little mass from band to band, while a cut moves mass across bands.
constexpr int kSceneBands = 16;

HISTEQ_HOST_DEVICE inline int scene_band(int v, int bins) {
  return v / (bins / kSceneBands);
}

// The difference p[v] - s[v] of one bin, summed per band to band_distance's arguments.
HISTEQ_HOST_DEVICE inline std::int64_t bin_difference(std::uint64_t now, std::uint64_t history) {
  return std::int64_t(now) - std::int64_t(history);
}

HISTEQ_HOST_DEVICE inline std::uint64_t band_distance(std::int64_t band_difference) {
  return std::uint64_t(band_difference < 0 ? -band_difference : band_difference);
}

// `distance_sum` is sum |p_b - s_b| over the bands (twice the total variation distance).
HISTEQ_HOST_DEVICE inline bool is_scene_cut(std::uint64_t distance_sum, std::uint32_t threshold) {
  return distance_sum > (std::uint64_t(threshold) << 15);
}

HISTEQ_HOST_DEVICE inline std::uint64_t smoothed_bin(std::uint64_t history, std::uint64_t now,
                                                     std::uint32_t weight) {
  return (history * weight + now * (kQ16One - weight) + kQ16One / 2) >> 16;
}

// The largest count a bin keeps (clip_limit is Q16; bins a power of two), for a source of
// nominal total `total`.
HISTEQ_HOST_DEVICE inline std::uint64_t clip_ceiling(std::uint64_t total, std::uint32_t clip_limit,
                                                     int bins) {
  const std::uint64_t limit = std::uint64_t(clip_limit) * total / (std::uint64_t(bins) << 16);
  return limit ? limit : 1;
}

HISTEQ_HOST_DEVICE inline std::uint64_t clip_excess(std::uint64_t count, std::uint64_t ceiling) {
  return count > ceiling ? count - ceiling : 0;
}

// How the excess of one frame is given back: `batch` to every bin, one more to `residual` bins
// (fewer than the bins, so the per-bin arithmetic stays in 32 bits).
struct ClipSpread {
  std::uint64_t ceiling = 0;
  std::uint64_t batch = 0;
  std::uint32_t residual = 0;
  std::uint32_t step = 1;
};

HISTEQ_HOST_DEVICE inline ClipSpread clip_spread(std::uint64_t ceiling, std::uint64_t excess,
                                                 int bins) {
  ClipSpread spread;
  spread.ceiling = ceiling;
  spread.batch = excess / std::uint64_t(bins);
  spread.residual = std::uint32_t(excess - spread.batch * std::uint64_t(bins));
  if (spread.residual) {
    const std::uint32_t step = std::uint32_t(bins) / spread.residual;
    spread.step = step ? step : 1;
  }
  return spread;
}

HISTEQ_HOST_DEVICE inline std::uint64_t clipped_bin(std::uint64_t count, int v,
                                                    const ClipSpread &spread) {
  const std::uint64_t kept = count < spread.ceiling ? count : spread.ceiling;
  const std::uint32_t index = std::uint32_t(v);
  const bool one_more = index % spread.step == 0 && index / spread.step < spread.residual;
  return kept + spread.batch + (one_more ? 1 : 0);
}

HISTEQ_HOST_DEVICE inline std::uint32_t blended_level(std::uint32_t v, std::uint32_t level,
                                                      std::uint32_t strength) {
  // 2^16 times a weighted mean of two levels below 2^16 (strength <= kQ16One), plus a half:
  // below 2^32.
  return (v * (kQ16One - strength) + level * strength + kQ16One / 2) >> 16;
}

}  // namespace histeq
