// SPDX-License-Identifier: LGPL-2.1-or-later
#include "planes.h"

#include <algorithm>

namespace bench {

DevicePlanes::DevicePlanes(const HostFrame &frame, std::size_t min_bytes)
    : size_(frame.size), pitch_(frame.pitch), frame_(frame) {
  const std::size_t pair = 2 * plane_bytes();
  const std::size_t n = std::max<std::size_t>(3, (min_bytes + pair - 1) / pair);
  for (std::size_t i = 0; i < n; ++i) {
    src_.push_back(device_buffer(plane_bytes()));
    dst_.push_back(device_buffer(plane_bytes()));
  }
  reset(nullptr);
  BENCH_CUDA(cudaDeviceSynchronize());
}

void DevicePlanes::reset(cudaStream_t stream) const {
  for (long i = 0; i < count(); ++i) reset_one(i, stream);
}

void DevicePlanes::reset_one(long i, cudaStream_t stream) const {
  BENCH_CUDA(
      cudaMemcpyAsync(src(i), frame_.bytes.data(), plane_bytes(), cudaMemcpyHostToDevice, stream));
  BENCH_CUDA(cudaMemsetAsync(dst(i), 0x5A, plane_bytes(), stream));
  BENCH_CUDA(cudaStreamSynchronize(stream));
}

std::vector<std::uint8_t> DevicePlanes::download_dst(long i) const {
  std::vector<std::uint8_t> out(plane_bytes());
  BENCH_CUDA(cudaMemcpy(out.data(), dst(i), plane_bytes(), cudaMemcpyDeviceToHost));
  return out;
}

std::vector<std::uint8_t> DevicePlanes::download_src(long i) const {
  std::vector<std::uint8_t> out(plane_bytes());
  BENCH_CUDA(cudaMemcpy(out.data(), src(i), plane_bytes(), cudaMemcpyDeviceToHost));
  return out;
}

}  // namespace bench
