// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// What a machine gives threads that share no data: each thread equalizes a frame of its own on
// an equalizer of its own, all at once, sharing only the machine (its caches, memory and, on a
// virtual machine, the host's cores). Beside one frame split over the same threads, it tells the
// machine's part of that split's scaling from the split's own.

#include <cstdint>
#include <functional>
#include <vector>

#include "side_by_side.h"

namespace bench {

// Each call gives a new equalizer.
using MakeEqualize = std::function<Equalize()>;

// `threads` threads at once, each with an equalizer of its own.
struct ThreadsOfFrames {
  MakeEqualize make;
  unsigned threads;
};

// Frames per second of each contender, frames back to back as a transcode hands them over,
// timed in turns as fps_side_by_side times its contenders: a turn is `in_a_row` frames, the first
// two not timed (they find the contender's threads asleep, the second because the first came
// after the idle gap); fewer than 3 are taken as 3. Each of the contender's threads equalizes its
// own copy of `frame` on an equalizer of its own, made once for all turns. Each frame starts on
// every thread at once, after each restored its copy; a frame's time is the slowest thread's, and
// the frames per second are the threads' frames over it.
std::vector<double> fps_frame_a_thread(const std::vector<ThreadsOfFrames> &contenders,
                                       const std::vector<std::uint8_t> &frame, int runs,
                                       int in_a_row);

}  // namespace bench
