// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <cuda_runtime_api.h>

#include "device_plane.h"
#include "methods.h"

namespace histeq::cuda {

// Adds the plane's luma counts to d_histogram (256 64-bit bins, zero on entry) on `stream`.
// `method` must be resolved (not kAuto).
cudaError_t launch_histogram(HistogramMethod method, const DevicePlane &plane,
                             unsigned long long *d_histogram, int sm_count, cudaStream_t stream);

}  // namespace histeq::cuda
