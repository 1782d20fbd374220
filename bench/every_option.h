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

}  // namespace bench
