// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gpu_test_support.h"

std::string cuda_device_missing_reason() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();
    return std::string("no usable CUDA device: ") + cudaGetErrorString(status);
  }
  if (count == 0) return "no CUDA device on this machine";
  return {};
}

GuardedDevicePlane::GuardedDevicePlane(int width, int height, std::size_t pitch, Memory memory)
    : width_(width),
      height_(height),
      pitch_(pitch),
      bytes_(2 * kBand + pitch * height),
      memory_(memory) {
  void *base = nullptr, *d_base = nullptr;
  if (memory == Memory::kDevice) {
    if (cudaMalloc(&base, bytes_) != cudaSuccess) return;
    d_base = base;
  } else if (cudaHostAlloc(&base, bytes_, cudaHostAllocPortable) != cudaSuccess ||
             cudaHostGetDevicePointer(&d_base, base, 0) != cudaSuccess) {
    cudaFreeHost(base);
    return;
  }
  base_ = static_cast<std::uint8_t *>(base);
  d_base_ = static_cast<std::uint8_t *>(d_base);
  if (cudaMemset(d_base_, kGuard, bytes_) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess)
    d_base_ = nullptr;
}

GuardedDevicePlane::~GuardedDevicePlane() {
  if (memory_ == Memory::kDevice) {
    cudaFree(base_);
  } else {
    cudaFreeHost(base_);
  }
}

histeq::cuda::DevicePlane GuardedDevicePlane::plane() const {
  return {d_base_ ? d_base_ + kBand : nullptr, width_, height_, pitch_};
}

cudaError_t GuardedDevicePlane::upload(const std::vector<std::uint8_t> &packed) {
  if (!d_base_) return cudaErrorMemoryAllocation;
  if (width_ == 0 || height_ == 0) return cudaSuccess;
  const cudaError_t status =
      cudaMemcpy2D(base_ + kBand, pitch_, packed.data(), std::size_t(width_), std::size_t(width_),
                   std::size_t(height_), cudaMemcpyDefault);
  if (status != cudaSuccess) return status;
  // From pageable memory the copy may return before its DMA lands, and the engine's streams do
  // not wait for the legacy stream: the plane is complete when this returns, as a decoder's
  // frame is when it is handed over.
  return cudaStreamSynchronize(cudaStreamLegacy);
}

cudaError_t GuardedDevicePlane::download(std::vector<std::uint8_t> &packed,
                                         bool &guards_intact) const {
  if (!d_base_) return cudaErrorMemoryAllocation;
  std::vector<std::uint8_t> all(bytes_);
  const cudaError_t status = cudaMemcpy(all.data(), base_, bytes_, cudaMemcpyDefault);
  if (status != cudaSuccess) return status;
  guards_intact = true;
  packed.assign(std::size_t(width_) * height_, 0);
  for (std::size_t i = 0; i < kBand; ++i)
    guards_intact &= all[i] == kGuard && all[bytes_ - 1 - i] == kGuard;
  for (int y = 0; y < height_; ++y) {
    const std::uint8_t *row = all.data() + kBand + y * pitch_;
    std::copy(row, row + width_, packed.begin() + std::size_t(y) * width_);
    for (std::size_t x = std::size_t(width_); x < pitch_; ++x) guards_intact &= row[x] == kGuard;
  }
  return cudaSuccess;
}
