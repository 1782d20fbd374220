// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Peer and reference: the core's CPU element (histeq::CpuEqualizer), in place on host memory.
// Its output is the reference every GPU contender's bytes are compared with.

#include <cstdint>
#include <vector>

#include "cpu_equalizer.h"
#include "frames.h"

namespace bench {

// The frame equalized by the core (full range), the bytes every contender must produce.
std::vector<std::uint8_t> cpu_reference(const HostFrame &frame);

// Median microseconds per frame of CpuEqualizer(threads).equalize over `runs` runs after one
// warm-up (the frame is restored before each run, outside the timed region).
double cpu_us_per_frame(histeq::CpuEqualizer &equalizer, const HostFrame &frame, int runs);

}  // namespace bench
