// SPDX-License-Identifier: LGPL-2.1-or-later
#include "engine_grid.h"

#include "check.h"
#include "fused_kernel.h"

namespace bench {

int engine_grid(const histeq::cuda::DevicePlane &plane) {
  int device = 0, sms = 0, engine_blocks = 0;
  BENCH_CUDA(cudaGetDevice(&device));
  BENCH_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  BENCH_CUDA(histeq::cuda::fused_grid_size(&engine_blocks, false));
  return histeq::cuda::fused_blocks_for(plane, engine_blocks, sms);
}

}  // namespace bench
