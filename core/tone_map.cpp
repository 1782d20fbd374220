// SPDX-License-Identifier: LGPL-2.1-or-later
#include "tone_map.h"

#include "clahe.h"
#include "tone_steps.h"

namespace histeq {

ToneMap::ToneMap(int bins)
    : normalized_(std::size_t(bins)),
      smoothed_(std::size_t(bins)),
      clipped_(std::size_t(bins)),
      levels_(std::size_t(bins)) {}

ToneMap::Source ToneMap::follow(const std::uint64_t *counts, const Params &params, bool reset,
                                bool *restarted) {
  *restarted = false;
  const int n = bins();
  std::uint64_t total = 0;
  for (int v = 0; v < n; ++v) total += counts[v];
  if (!params.keep_history) {
    has_history_ = false;
    return {counts, total};
  }
  const std::uint64_t scale = bin_scale(total);
  std::int64_t bands[kSceneBands] = {};
  for (int v = 0; v < n; ++v) {
    normalized_[v] = normalized_bin(counts[v], scale);
    bands[scene_band(v, n)] += bin_difference(normalized_[v], smoothed_[v]);
  }
  std::uint64_t distance = 0;
  for (std::int64_t band : bands) distance += band_distance(band);
  *restarted = reset || !has_history_ || is_scene_cut(distance, params.scene_threshold);
  for (int v = 0; v < n; ++v) {
    smoothed_[v] = *restarted ? normalized_[v]
                              : smoothed_bin(smoothed_[v], normalized_[v], params.history_weight);
  }
  has_history_ = true;
  if (*restarted || params.history_weight == 0) return {counts, total};
  return {smoothed_.data(), kUnitQ30};
}

void ToneMap::equalize(const Source &source, const Params &params, OutputRange range) {
  const int n = bins();
  const std::uint64_t *counts = source.bins;
  if (params.clip_limit) {
    const std::uint64_t ceiling = clip_ceiling(source.total, params.clip_limit, n);
    std::uint64_t excess = 0;
    for (int v = 0; v < n; ++v) excess += clip_excess(counts[v], ceiling);
    const ClipSpread spread = clip_spread(ceiling, excess, n);
    for (int v = 0; v < n; ++v) clipped_[v] = clipped_bin(counts[v], v, spread);
    counts = clipped_.data();
  }
  if (params.mode == Mode::kClahe) {
    // A tile's mapping (clahe.h): its cdf over its total, no cdf_min.
    std::uint64_t cdf = 0;
    for (int v = 0; v < n; ++v) {
      cdf += counts[v];
      levels_[v] = tile_level(cdf, source.total, range);
    }
    return;
  }
  build_equalization_lut(counts, n, range, levels_.data());
}

template <typename Sample>
bool ToneMap::build(const std::uint64_t *counts, const Params &params, OutputRange range,
                    bool reset, Sample *lut) {
  bool restarted = false;
  equalize(follow(counts, params, reset, &restarted), params, range);
  for (int v = 0; v < bins(); ++v)
    lut[v] = Sample(blended_level(std::uint32_t(v), levels_[v], params.strength));
  return restarted;
}

template bool ToneMap::build(const std::uint64_t *, const Params &, OutputRange, bool,
                             std::uint8_t *);
template bool ToneMap::build(const std::uint64_t *, const Params &, OutputRange, bool,
                             std::uint16_t *);

}  // namespace histeq
