// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "device_plane.h"
#include "methods.h"

namespace histeq::cuda {

// Where the map kernel reads the LUT from. `texture` is a texture object over d_lut; `slot`
// picks the constant-memory LUT, filled from d_lut on the stream before the map.
struct LutSource {
  LutMemory memory = LutMemory::kShared;
  const std::uint8_t *d_lut = nullptr;
  cudaTextureObject_t texture = 0;
  int constant_slot = 0;
};

// out[y][x] = lut[plane[y][x]] for the visible width of every row, on `stream`; `out` is the
// same size as `plane` and may be `plane` (in place).
cudaError_t launch_map(const LutSource &lut, const DevicePlane &plane, const DevicePlane &out,
                       int sm_count, cudaStream_t stream);

}  // namespace histeq::cuda
