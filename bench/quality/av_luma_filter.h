// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// One FFmpeg filter run through libavfilter (buffer -> FILTER -> buffersink) over a clip's
// luma frames, in order, as a player would run it: temporal filters see the whole sequence,
// and frames a filter holds back (tmidequalizer looks ahead) are drained at the end.

#include <string>
#include <vector>

#include "clip.h"

namespace quality {

struct AvResult {
  bool ok = false;
  std::string error;         // "not available" when this libavfilter lacks the filter
  std::string pixel_format;  // what the filter was fed
  std::vector<Frame> frames;
};

// `filter` is the filter's name, `options` its option string ("smoothing=10" or "").
AvResult run_av_filter(const std::string &filter, const std::string &options, const Clip &clip);

}  // namespace quality
