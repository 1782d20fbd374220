// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// The GPU engine's contenders (cuda/): every kernel variant device-resident, and the stream
// ring end to end at several depths and host-memory kinds. Built from engine_contenders.cu
// when the engine is part of the build, from engine_absent.cpp (empty lists) otherwise.

#include <string>
#include <vector>

#include "contenders.h"
#include "frames.h"
#include "goals.h"

namespace bench {

struct EngineInfo {
  bool present = false;
  std::string description;  // one line for the header of the output
  // What issue 3 asks to measure that the engine does not offer (so is not measured).
  std::string not_offered;
};

EngineInfo engine_info();

// Device-resident variants. `all_variants` gives the full cross product instead of one factor
// at a time around the default.
std::vector<DeviceContender> engine_device_contenders(FrameSize size, std::ptrdiff_t pitch,
                                                      bool all_variants);

// End to end: the stream ring from pinned memory at depths 1, 2, 3 and from pageable memory
// at depth 2 (staged by the ring), and DeviceEqualizer on mapped and on managed memory.
// `frames_per_batch`: frames per timed batch (in-place contenders get that many buffers).
std::vector<EndToEndContender> engine_end_to_end_contenders(const HostFrame &frame,
                                                            int frames_per_batch);

// The engine rows the goals compare; the peer rows are filled in by main().
GoalRows engine_goal_rows();

}  // namespace bench
