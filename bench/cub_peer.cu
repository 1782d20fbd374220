// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cub_peer.h"

#include <cub/device/device_histogram.cuh>

#include "lut_kernels.h"

namespace bench {

namespace {

constexpr int kLevels = 257;  // 256 bins of width 1 over [0, 256)

cudaError_t histogram_even(void *scratch, std::size_t &scratch_bytes, const std::uint8_t *in,
                           unsigned *histogram, FrameSize size, std::ptrdiff_t pitch,
                           cudaStream_t stream) {
  return cub::DeviceHistogram::HistogramEven(scratch, scratch_bytes, in, histogram, kLevels, 0, 256,
                                             size.width, size.height, std::size_t(pitch), stream);
}

}  // namespace

CubPipeline::CubPipeline(FrameSize size, std::ptrdiff_t pitch, int sms)
    : size_(size),
      pitch_(pitch),
      sms_(sms),
      histogram_(device_buffer(256 * sizeof(unsigned))),
      lut_(device_buffer(256)) {
  std::size_t bytes = 0;
  BENCH_CUDA(
      histogram_even(nullptr, bytes, nullptr, histogram_.as<unsigned>(), size_, pitch_, nullptr));
  scratch_ = device_buffer(bytes > 0 ? bytes : 1);
}

void CubPipeline::run(const std::uint8_t *d_in, std::uint8_t *d_out, cudaStream_t stream) {
  std::size_t bytes = scratch_.bytes();
  BENCH_CUDA(histogram_even(scratch_.get(), bytes, d_in, histogram_.as<unsigned>(), size_, pitch_,
                            stream));
  enqueue_build_lut(histogram_.as<unsigned>(), size_.pixels(), histeq::full_range(8), lut_.get(),
                    stream);
  enqueue_map(d_in, pitch_, d_out, pitch_, size_.width, size_.height, lut_.get(), sms_, stream);
}

}  // namespace bench
