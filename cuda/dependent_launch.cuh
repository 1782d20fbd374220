// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Programmatic dependent launch (compute capability 9.0 and up): a producer kernel lets its
// consumer, the next kernel on its stream, start before the producer ends; the consumer does what
// needs none of the producer's results (loading its first pixels), then waits for the producer to
// be complete, its writes visible. On older GPUs, and for a consumer launched without the
// attribute, the stream runs the consumer after the producer ends and the two device functions
// below do nothing.

#include <cstddef>

#include <cuda_runtime.h>

#include "cuda_check.h"

namespace histeq::cuda {

__device__ __forceinline__ void let_next_kernel_start() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
}

__device__ __forceinline__ void wait_for_preceding_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
}

// Whether `kernel` may start before the kernel it follows ends: only where the code the device
// runs was compiled for 9.0 and up, and so waits (PTX for older GPUs, compiled for a newer one
// when it loads, has no wait).
inline cudaError_t may_start_early(const void *kernel, bool *early) {
  cudaFuncAttributes code{};
  HISTEQ_CUDA_TRY(cudaFuncGetAttributes(&code, kernel));
  *early = code.ptxVersion >= 90;
  return cudaSuccess;
}

// Launches `kernel` (`args` as for cudaLaunchKernel) on `stream`, allowed to start before the
// kernel before it ends where `early` (may_start_early); `cooperative` as
// cudaLaunchCooperativeKernel launches it (every block resident at once, for grid barriers).
inline cudaError_t launch_dependent(const void *kernel, dim3 grid, dim3 block,
                                    std::size_t shared_bytes, cudaStream_t stream, void **args,
                                    bool early, bool cooperative = false) {
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  cudaLaunchAttribute attributes[2]{};
  unsigned count = 0;
  if (early) {
    attributes[count].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attributes[count].val.programmaticStreamSerializationAllowed = 1;
    ++count;
  }
  if (cooperative) {
    attributes[count].id = cudaLaunchAttributeCooperative;
    attributes[count].val.cooperative = 1;
    ++count;
  }
  config.attrs = attributes;
  config.numAttrs = count;
  return cudaLaunchKernelExC(&config, kernel, args);
}

}  // namespace histeq::cuda
