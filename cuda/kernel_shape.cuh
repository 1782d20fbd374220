// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

namespace histeq::cuda {

// The shape the engine's kernels share: 8-bit luma has 256 levels, and blocks have one thread
// per level, so the histogram, scan and LUT steps map thread t to level t.
constexpr int kLevels = 256;
constexpr int kBlock = kLevels;
constexpr int kLanes = 32;
constexpr int kWarps = kBlock / kLanes;

// The sum of `value` over a whole warp, in every lane (one REDUX where the GPU has it).
__device__ __forceinline__ unsigned warp_sum(unsigned value) {
#if __CUDA_ARCH__ >= 800
  return __reduce_add_sync(0xffffffffu, value);
#else
#pragma unroll
  for (int offset = kLanes / 2; offset > 0; offset /= 2)
    value += __shfl_xor_sync(0xffffffffu, value, offset);
  return value;
#endif
}

}  // namespace histeq::cuda
