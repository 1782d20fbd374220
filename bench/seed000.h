// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// The "seed-000 baseline": the CUDA pipeline of the project's first reference report (seed 000),
// reproduced as it describes it: a histogram kernel with a shared-memory histogram and run
// aggregation, a Kogge-Stone scan in one block of 256 threads, a NormalizeCdf kernel in 32-bit
// integers, and an EqualizeHistogram kernel with the CDF in shared memory; 512 threads per
// block and a 1D grid of a quarter of ceil(pixels / 512) blocks for the two image kernels; all
// on the legacy default stream, with synchronous cudaMemcpy of the whole image each way.
//
// Its defects are kept, because they are what it measured: 32-bit (cdf - cdf_min) * 255
// overflows above 16.8 M pixels (8K frames), and a single-level frame divides by zero. The
// benchmark reports those mismatches as the seed's, not the engine's. It reads contiguous
// images only (pitch == width). The buffers are allocated once, outside the timed region.

#include <cstdint>

#include "frames.h"
#include "resources.h"

namespace bench {

class Seed000 {
 public:
  static constexpr int kThreads = 512;

  explicit Seed000(FrameSize size, std::ptrdiff_t pitch);

  // Device-resident: d_in -> d_out. The report launched on the legacy default stream (pass
  // nullptr); a graph capture passes its stream, the kernels and shapes are the same.
  void run_device(const std::uint8_t *d_in, std::uint8_t *d_out, cudaStream_t stream) const;
  // End to end as the report timed it: cudaMemcpy H2D, the kernels, cudaMemcpy D2H.
  void run_end_to_end(const std::uint8_t *h_in, std::uint8_t *h_out) const;

 private:
  FrameSize size_;
  unsigned pixels_;
  DeviceBuffer in_, out_, histogram_, cdf_;
};

}  // namespace bench
