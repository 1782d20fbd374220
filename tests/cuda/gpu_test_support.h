// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "device_plane.h"

// Skips the test, with the reason, on machines without a usable CUDA device (CI).
#define SKIP_WITHOUT_CUDA_DEVICE()                           \
  do {                                                       \
    const std::string reason = cuda_device_missing_reason(); \
    if (!reason.empty()) GTEST_SKIP() << reason;             \
  } while (0)

// Empty when a CUDA device is usable, else why not (the CUDA error text).
std::string cuda_device_missing_reason();

// The call runs once: its status is kept for the message (a failed submit or wait must not be
// repeated by the assertion itself).
#define ASSERT_CUDA(call)                                                                       \
  do {                                                                                          \
    const cudaError_t histeq_assert_status_ = (call);                                           \
    ASSERT_EQ(histeq_assert_status_, cudaSuccess) << cudaGetErrorString(histeq_assert_status_); \
  } while (0)

// Device memory freed with the scope (nullptr data where the allocation failed).
struct DeviceBytes {
  std::uint8_t *data = nullptr;
  explicit DeviceBytes(std::size_t bytes) { cudaMalloc(reinterpret_cast<void **>(&data), bytes); }
  ~DeviceBytes() { cudaFree(data); }
  DeviceBytes(const DeviceBytes &) = delete;
  DeviceBytes &operator=(const DeviceBytes &) = delete;
};

// A pitched plane the device addresses, with guard bands before and after it and padding after
// every row, all filled with a known byte, so any write outside the visible image is caught.
// In device memory, or in pinned host memory (what the zero-copy kernels read and write).
class GuardedDevicePlane {
 public:
  static constexpr std::uint8_t kGuard = 0xC7;
  static constexpr std::size_t kBand = 4096;
  enum class Memory { kDevice, kPinnedHost };

  GuardedDevicePlane(int width, int height, std::size_t pitch, Memory memory = Memory::kDevice);
  ~GuardedDevicePlane();

  histeq::cuda::DevicePlane plane() const;
  cudaError_t upload(const std::vector<std::uint8_t> &packed);
  // The visible pixels, tightly packed; also checks every guard and padding byte.
  cudaError_t download(std::vector<std::uint8_t> &packed, bool &guards_intact) const;

 private:
  int width_, height_;
  std::size_t pitch_;
  std::size_t bytes_;
  Memory memory_;
  std::uint8_t *base_ = nullptr;    // as the host addresses it (device memory: the same)
  std::uint8_t *d_base_ = nullptr;  // as the device addresses it
};
