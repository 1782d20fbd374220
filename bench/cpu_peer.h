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

// Median microseconds per frame of CpuEqualizer(threads).equalize over `runs` runs after one
// warm-up (the frame is restored before each run, outside the timed region), with `params`
// as a stream of that frame would be.
double cpu_us_per_frame(histeq::CpuEqualizer &equalizer, const HostFrame &frame, int runs,
                        const histeq::Params &params = {});

}  // namespace bench
