// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "device_tone.h"
#include "equalization.h"
#include "methods.h"

namespace histeq::cuda {

// One block: reads the 256-bin d_histogram, zeroes it for the next frame, scans it with
// `method` (resolved, not kAuto) and writes d_lut[v] = histeq::equalized_level(...), the very
// function the CPU element uses.
cudaError_t launch_build_lut(ScanMethod method, unsigned long long *d_histogram, OutputRange range,
                             std::uint8_t *d_lut, cudaStream_t stream);

// The same with the options of `tone` (block_tone.cuh), for the separate kernels; d_histogram
// counts a frame of `pixels` pixels.
cudaError_t launch_build_tone_lut(unsigned long long *d_histogram, unsigned long long pixels,
                                  OutputRange range, const DeviceTone &tone, std::uint8_t *d_lut,
                                  cudaStream_t stream);

}  // namespace histeq::cuda
