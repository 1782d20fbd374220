// SPDX-License-Identifier: LGPL-2.1-or-later
#include "params.h"

#include <algorithm>
#include <cmath>

namespace histeq {

namespace {

std::uint32_t to_q16(double value, double max) {
  return std::uint32_t(std::lround(std::clamp(value, 0.0, max) * kQ16One));
}

}  // namespace

Params to_params(const Settings &settings) {
  Params params;
  params.strength = to_q16(settings.strength, 1.0);
  params.clip_limit = to_q16(settings.clip_limit, kMaxClipLimit);
  const double smoothing = std::clamp(settings.smoothing, 0.0, kMaxSmoothing);
  // A time constant of `smoothing` frames: a frame's weight falls by 1/e after that many.
  params.history_weight = smoothing > 0 ? to_q16(std::exp(-1.0 / smoothing), 1.0) : 0;
  params.scene_threshold = to_q16(settings.scene_threshold, 1.0);
  params.keep_history = params.history_weight != 0 || settings.statistics;
  params.mode = settings.mode;
  params.tiles_x = std::clamp(settings.tiles_x, 1, kMaxTiles);
  params.tiles_y = std::clamp(settings.tiles_y, 1, kMaxTiles);
  return params;
}

}  // namespace histeq
