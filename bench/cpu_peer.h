// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Peer and reference: the core's CPU element (histeq::CpuEqualizer), in place on host memory.
// Its output is the reference every GPU contender's bytes are compared with.

#include <cstdint>
#include <vector>

#include "cpu_equalizer.h"
#include "every_option.h"
#include "frames.h"
#include "params.h"

namespace bench {

// The frame equalized by the core (full range), the bytes every contender must produce; with
// `params`, as the first frame of a stream (its history restarting there).
std::vector<std::uint8_t> cpu_reference(const HostFrame &frame, const histeq::Params &params = {});

// Median microseconds per frame of CpuEqualizer(threads).equalize with each of `settings`, as a
// stream of that frame would be, over `runs` rounds after one warm-up round (the frame is
// restored before each run, outside the timed region). Each round runs every setting once, in
// turn, so a host whose speed drifts moves all of them alike and their ratios stay side by side.
std::vector<double> cpu_us_per_frame(histeq::CpuEqualizer &equalizer, const HostFrame &frame,
                                     int runs, const std::vector<histeq::Params> &settings);

}  // namespace bench
