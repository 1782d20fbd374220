// SPDX-License-Identifier: LGPL-2.1-or-later
// The benchmark built without the GPU engine (cuda/ not in this build): peers only.
#include "engine_contenders.h"
#include "one_kernel_floor.h"
#include "ring_chain_floor.h"

namespace bench {

EngineInfo engine_info() {
  return {false, "GPU engine not built into this benchmark (cuda_engine_dep not found)",
          "all (no engine)"};
}

std::vector<DeviceContender> engine_device_contenders(FrameSize, std::ptrdiff_t, bool) {
  return {};
}

std::vector<EndToEndContender> engine_end_to_end_contenders(const HostFrame &, int) {
  return {};
}

// Without the engine there is no grid to reproduce: 0, and main() leaves the row out.
double one_kernel_floor_us(const DevicePlanes &, cudaStream_t, const Repeats &, Launch) {
  return 0;
}

// Nor a grid for the ring chain's kernel: no rows.
std::vector<EndToEndContender> ring_chain_floor_contenders(const HostFrame &, int) {
  return {};
}

std::string ring_chain_floor_name(int, bool) {
  return {};
}

GoalRows engine_goal_rows() {
  return {};
}

}  // namespace bench
