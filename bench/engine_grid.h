// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// The grid DeviceEqualizer launches its single kernel on for a plane, for the floors that must
// run on that same grid (the one-kernel floor, the ring chain floor's empty kernel).

#include "device_plane.h"

namespace bench {

// Throws bench::Failure when the device cannot be queried.
int engine_grid(const histeq::cuda::DevicePlane &plane);

}  // namespace bench
