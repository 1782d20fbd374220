// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Peer: what a CUDA developer writes with CUB in an afternoon. cub::DeviceHistogram::
// HistogramEven over the pitched plane, the LUT from histeq::equalized_level in one block, and
// a 16-byte LUT map kernel. Three launches per frame; scratch allocated once.

#include <cstdint>

#include "frames.h"
#include "resources.h"

namespace bench {

class CubPipeline {
 public:
  CubPipeline(FrameSize size, std::ptrdiff_t pitch, int sms);
  void run(const std::uint8_t *d_in, std::uint8_t *d_out, cudaStream_t stream);

 private:
  FrameSize size_;
  std::ptrdiff_t pitch_;
  int sms_;
  DeviceBuffer histogram_, lut_, scratch_;
};

}  // namespace bench
