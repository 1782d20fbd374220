// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// The floor of an equalizer that reads the frame twice, as the engine's deep luma path does (a
// count kernel, then a map kernel): two kernels per frame, one that only reads every byte of the
// frame and one that reads and writes every byte back in place, each over as many blocks as the
// GPU holds at once, with no counting, table or lookup. Whatever such an equalizer does beyond
// its two passes (the histogram's bins, their merge and scan, the LUT's way to the SMs) comes
// on top of this row.

#include <cuda_runtime_api.h>

#include "planes.h"
#include "timing.h"

namespace bench {

// Per frame, both passes on planes.src(i), whole rows of the pitch (as the copy moves them).
double two_pass_floor_us(const DevicePlanes &planes, cudaStream_t stream, const Repeats &r);

}  // namespace bench
