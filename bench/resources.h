// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Owners for the CUDA resources the benchmark allocates (device, pinned, mapped and managed
// memory, streams, events). Creation is checked and throws; destruction cannot report, so it
// only frees.

#include <cstddef>
#include <cstdint>
#include <utility>

#include <cuda_runtime_api.h>

#include "check.h"

namespace bench {

enum class HostMemory { kPinned, kMapped };

template <typename Release>
class Owned {
 public:
  Owned() = default;
  Owned(void *p, std::size_t bytes) : p_(p), bytes_(bytes) {}
  ~Owned() { reset(); }
  Owned(Owned &&o) noexcept : p_(std::exchange(o.p_, nullptr)), bytes_(o.bytes_) {}
  Owned &operator=(Owned &&o) noexcept {
    if (this != &o) {
      reset();
      p_ = std::exchange(o.p_, nullptr);
      bytes_ = o.bytes_;
    }
    return *this;
  }
  Owned(const Owned &) = delete;
  Owned &operator=(const Owned &) = delete;

  std::uint8_t *get() const { return static_cast<std::uint8_t *>(p_); }
  template <typename T>
  T *as() const {
    return static_cast<T *>(p_);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  void reset() {
    if (p_) Release()(p_);
    p_ = nullptr;
  }
  void *p_ = nullptr;
  std::size_t bytes_ = 0;
};

struct ReleaseDevice {
  void operator()(void *p) const { cudaFree(p); }
};
struct ReleaseHost {
  void operator()(void *p) const { cudaFreeHost(p); }
};

using DeviceBuffer = Owned<ReleaseDevice>;  // cudaMalloc and cudaMallocManaged
using HostBuffer = Owned<ReleaseHost>;      // cudaHostAlloc

inline DeviceBuffer device_buffer(std::size_t bytes) {
  void *p = nullptr;
  BENCH_CUDA(cudaMalloc(&p, bytes));
  return DeviceBuffer(p, bytes);
}

inline DeviceBuffer managed_buffer(std::size_t bytes) {
  void *p = nullptr;
  BENCH_CUDA(cudaMallocManaged(&p, bytes, cudaMemAttachGlobal));
  return DeviceBuffer(p, bytes);
}

inline HostBuffer host_buffer(std::size_t bytes, HostMemory kind = HostMemory::kPinned) {
  void *p = nullptr;
  BENCH_CUDA(cudaHostAlloc(
      &p, bytes, kind == HostMemory::kMapped ? cudaHostAllocMapped : cudaHostAllocDefault));
  return HostBuffer(p, bytes);
}

class Stream {
 public:
  Stream() { BENCH_CUDA(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(s_); }
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;
  cudaStream_t get() const { return s_; }
  void sync() const { BENCH_CUDA(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_ = nullptr;
};

// `flags` cudaEventDisableTiming for an event only waited for: timing events recorded between a
// ring's steps slow the ring down (ring_shapes.cu has the figures).
class Event {
 public:
  explicit Event(unsigned flags = cudaEventDefault) {
    BENCH_CUDA(cudaEventCreateWithFlags(&e_, flags));
  }
  ~Event() { cudaEventDestroy(e_); }
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;
  cudaEvent_t get() const { return e_; }
  void record(cudaStream_t s) const { BENCH_CUDA(cudaEventRecord(e_, s)); }
  // Milliseconds from `start` to this event; both must have completed.
  float since(const Event &start) const {
    BENCH_CUDA(cudaEventSynchronize(e_));
    float ms = 0;
    BENCH_CUDA(cudaEventElapsedTime(&ms, start.e_, e_));
    return ms;
  }

 private:
  cudaEvent_t e_ = nullptr;
};

}  // namespace bench
