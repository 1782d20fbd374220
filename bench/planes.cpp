// SPDX-License-Identifier: LGPL-2.1-or-later
#include "planes.h"

#include <algorithm>

namespace bench {

DevicePlanes::DevicePlanes(const HostFrame &frame, std::size_t min_rotation_bytes, long frames)
    : size_(frame.size), pitch_(frame.pitch), pristine_(device_buffer(plane_bytes())) {
  BENCH_CUDA(
      cudaMemcpy(pristine_.get(), frame.bytes.data(), plane_bytes(), cudaMemcpyHostToDevice));
  const std::size_t rotation =
      std::max<std::size_t>(3, (min_rotation_bytes + plane_bytes() - 1) / plane_bytes());
  const std::size_t sources = std::max(rotation, std::size_t(std::max(frames, 1L)));
  for (std::size_t i = 0; i < sources; ++i) src_.push_back(device_buffer(plane_bytes()));
  for (std::size_t i = 0; i < rotation; ++i) dst_.push_back(device_buffer(plane_bytes()));
  reset(nullptr);
}

void DevicePlanes::reset(cudaStream_t stream) const {
  for (const DeviceBuffer &s : src_) {
    BENCH_CUDA(
        cudaMemcpyAsync(s.get(), pristine_.get(), plane_bytes(), cudaMemcpyDeviceToDevice, stream));
  }
  for (const DeviceBuffer &d : dst_)
    BENCH_CUDA(cudaMemsetAsync(d.get(), 0x5A, plane_bytes(), stream));
  BENCH_CUDA(cudaStreamSynchronize(stream));
}

void DevicePlanes::reset_one(long i, cudaStream_t stream) const {
  BENCH_CUDA(
      cudaMemcpyAsync(src(i), pristine_.get(), plane_bytes(), cudaMemcpyDeviceToDevice, stream));
  BENCH_CUDA(cudaMemsetAsync(dst(i), 0x5A, plane_bytes(), stream));
  BENCH_CUDA(cudaStreamSynchronize(stream));
}

std::vector<std::uint8_t> DevicePlanes::download(const std::uint8_t *plane) const {
  std::vector<std::uint8_t> out(plane_bytes());
  BENCH_CUDA(cudaMemcpy(out.data(), plane, plane_bytes(), cudaMemcpyDeviceToHost));
  return out;
}

}  // namespace bench
