// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "device_plane.h"
#include "equalization.h"

namespace histeq::cuda {

// One cooperative kernel per frame: every block counts its share of the plane (16-byte loads,
// keeping the first chunks in registers), the grid synchronizes once, every block builds the
// LUT from the 256 device bins in its own shared memory, then maps the same share. The plane
// crosses DRAM about as often as in a copy, and there is one launch instead of three.
struct FusedLaunch {
  int blocks = 0;  // co-resident blocks for the whole device, from fused_grid_size()
  unsigned long long *d_histogram = nullptr;       // this frame's bins, zero on entry
  unsigned long long *d_next_histogram = nullptr;  // zeroed here for the next frame
  std::uint8_t *d_lut = nullptr;                   // receives the LUT (for statistics)
};

// The largest grid whose blocks can all be resident at once on the current device.
cudaError_t fused_grid_size(int *blocks);

cudaError_t launch_fused(const FusedLaunch &launch, const DevicePlane &plane, OutputRange range,
                         cudaStream_t stream);

}  // namespace histeq::cuda
