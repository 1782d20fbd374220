// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// The floor of the stream ring's design end to end. Every output byte depends on the whole
// frame's histogram, so a ring that equalizes on the GPU must run something between a frame's
// upload and its download, and the next frame for a busy slot waits for that download. These
// rows run FrameEngine's own per-frame chain (same pinned frames, same depth, same pitched 2D
// copies on a slot's stream, the same wait for the oldest frame) with no equalization: the
// upload followed directly by the download, and the same with one empty cooperative kernel on
// the engine's grid in between (launched and crossing its grid barrier, doing nothing else).
// At the same depth no equalizer of this design can beat the first row, and none launching one
// cooperative kernel per frame the second. Their outputs must equal their inputs.

#include <vector>

#include "contenders.h"
#include "frames.h"

namespace bench {

// The two floors at `depth` (1..8); empty when the benchmark is built without the engine.
std::vector<EndToEndContender> ring_chain_floor_contenders(const HostFrame &frame, int depth);

// Their row names, for the bound printed under the goals.
std::string ring_chain_floor_name(int depth, bool with_kernel);

}  // namespace bench
