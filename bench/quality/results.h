// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <string>
#include <vector>

#include "clip.h"
#include "contenders.h"

namespace quality {

struct RowResult {
  std::string label;
  bool ok = false;
  std::string note;
  double flicker = 0;
  double noise_gain = -1;  // -1: not measured on this clip
  int settle = -1;         // -1: no cut
  int restarts = -1;
};

struct ClipResult {
  std::string name;
  bool has_cut = false;
  bool flat_roi = false;
  std::vector<RowResult> rows;
  // The scene-threshold study on the input: the largest TV distance between consecutive
  // frames other than the real cut (and which frame it steps into), and the one at the cut.
  double max_tv = 0;
  int max_tv_frame = 0;
  double cut_tv = -1;
};

// Runs every contender on the clip and measures its output.
ClipResult measure(const Clip &clip, const std::vector<Contender> &contenders);

const RowResult *find_row(const ClipResult &result, const std::string &label);

}  // namespace quality
