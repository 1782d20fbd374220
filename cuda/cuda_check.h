// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <cuda_runtime_api.h>

// Returns the error of a failing CUDA call from the enclosing function, which returns
// cudaError_t. The engine never exits or throws: the caller (an element) turns the error into a
// message a user can read.
#define HISTEQ_CUDA_TRY(call)                                 \
  do {                                                        \
    const cudaError_t histeq_status_ = (call);                \
    if (histeq_status_ != cudaSuccess) return histeq_status_; \
  } while (0)

// A kernel launch reports configuration errors only through the runtime's per-thread last
// error, which also still holds the failure of any earlier call (already returned to that call's
// caller: a refused allocation, say). So a launch site clears it first and reads it right after:
//   HISTEQ_CUDA_BEFORE_LAUNCH();  kernel<<<grid, block, 0, stream>>>(...);
//   HISTEQ_CUDA_TRY_LAUNCH();
#define HISTEQ_CUDA_BEFORE_LAUNCH() static_cast<void>(cudaGetLastError())
#define HISTEQ_CUDA_TRY_LAUNCH() HISTEQ_CUDA_TRY(cudaGetLastError())
