// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// The rows of the table: our equalizer under several settings and FFmpeg's filters, each
// turning a clip's input frames into output frames.

#include <functional>
#include <string>
#include <vector>

#include "clip.h"

namespace quality {

struct Output {
  bool ok = false;
  std::string note;  // why there is no output, or how a peer was fed
  std::vector<Frame> frames;
  int restarts = -1;  // frames after the first where our history restarted; -1 = no history
};

struct Contender {
  std::string label;
  std::function<Output(const Clip &)> run;
};

// Labels the goals look up.
extern const char kPerFrame[];
extern const char kClip2[];
extern const char kSmoothing10[];
extern const char kSmoothing30[];

std::vector<Contender> contenders();

}  // namespace quality
