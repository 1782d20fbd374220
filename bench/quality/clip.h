// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace quality {

// One 8-bit full-range luma frame, rows of exactly `width` bytes.
using Frame = std::vector<std::uint8_t>;

struct Rect {
  int x = 0;
  int y = 0;
  int width = 0;
  int height = 0;
};

// A synthetic clip and where to look at it. The region of interest may move from frame to
// frame (a pan follows the same piece of the scene), so there is one per frame.
struct Clip {
  std::string name;
  std::string models;  // the real-video problem it stands for
  std::string roi_note;
  int width = 0;
  int height = 0;
  std::vector<Frame> frames;
  std::vector<Rect> roi;
  int cut = -1;           // first frame of the second scene, or -1
  bool flat_roi = false;  // the ROI is flat: its output spread is amplified noise
};

}  // namespace quality
