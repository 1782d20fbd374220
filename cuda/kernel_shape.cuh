// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

namespace histeq::cuda {

// The shape the engine's kernels share: 8-bit luma has 256 levels, and blocks have one thread
// per level, so the histogram, scan and LUT steps map thread t to level t.
constexpr int kLevels = 256;
constexpr int kBlock = kLevels;
constexpr int kLanes = 32;
constexpr int kWarps = kBlock / kLanes;

}  // namespace histeq::cuda
