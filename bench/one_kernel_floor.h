// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// The floor of a single-kernel equalizer shaped like the engine's (its grid, its register cache
// of kFusedCachedChunks chunks per thread, one grid barrier): one cooperative kernel that reads
// the plane (the first chunks into registers, the rest read and dropped), waits once at a
// grid-wide barrier, and writes the plane back in place (the chunks beyond the registers read
// again first). It does no counting, merging, LUT or lookup, so what the engine's kernel costs
// beyond this row is the equalization itself. A design keeping more of a large plane on chip
// (8K does not fit the engine's registers) could go below it; one of the engine's shape cannot.

#include <cuda_runtime_api.h>

#include "planes.h"
#include "timing.h"

namespace bench {

// Per frame, in place on planes.src(i); the grid is the engine's (fused_blocks_for). 0 when the
// benchmark is built without the engine (no grid to reproduce).
double one_kernel_floor_us(const DevicePlanes &planes, cudaStream_t stream, const Repeats &r,
                           Launch launch);

}  // namespace bench
