// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include "params.h"

namespace bench {

// Every option on at once (strength 0.8, clip limit 2, smoothing 10, statistics), as the
// benchmarks, GPU and CPU, time what the options cost.
inline histeq::Params every_option() {
  histeq::Settings settings;
  settings.strength = 0.8;
  settings.clip_limit = 2;
  settings.smoothing = 10;
  settings.statistics = true;
  return histeq::to_params(settings);
}

// CLAHE as the benchmarks time it: OpenCV's default 8x8 grid with clip limit 2, alone or with
// every other option on.
inline histeq::Params clahe(bool every_option) {
  histeq::Settings settings;
  settings.mode = histeq::Mode::kClahe;
  settings.clip_limit = 2;
  if (every_option) {
    settings.strength = 0.8;
    settings.smoothing = 10;
    settings.statistics = true;
  }
  return histeq::to_params(settings);
}

}  // namespace bench
