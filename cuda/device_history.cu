// SPDX-License-Identifier: LGPL-2.1-or-later
#include "device_history.h"

#include "cuda_check.h"

namespace histeq::cuda {

DeviceHistory::~DeviceHistory() {
  if (written_) cudaEventDestroy(written_);
  cudaFree(d_buffers_);
}

cudaError_t DeviceHistory::init() {
  if (d_buffers_) return cudaErrorInitializationError;
  HISTEQ_CUDA_TRY(cudaEventCreateWithFlags(&written_, cudaEventDisableTiming));
  HISTEQ_CUDA_TRY(
      cudaMalloc(reinterpret_cast<void **>(&d_buffers_), 2 * kMaxLevels * sizeof(*d_buffers_)));
  capacity_ = kMaxLevels;
  valid_ = recorded_ = false;
  return cudaSuccess;
}

cudaError_t DeviceHistory::attach(cudaStream_t stream, const HistoryShape &shape,
                                  DeviceTone *tone) {
  if (!written_) return cudaErrorInitializationError;
  tone->d_history_in = nullptr;
  tone->d_history_out = nullptr;
  if (!tone->params.keep_history) {
    valid_ = false;
    return cudaSuccess;
  }
  const std::size_t bins = shape.bins();
  if (shape.sample.bits < 1 || shape.sample.levels() > std::uint32_t(kMaxLevels) ||
      bins > kMaxClaheTileBins)
    return cudaErrorInvalidValue;
  if (bins > capacity_) {
    // Every frame that kept the history waited for the one before it: after the last, none
    // reads or writes the buffers. The old ones stay until the new ones are there.
    if (recorded_) HISTEQ_CUDA_TRY(cudaEventSynchronize(written_));
    valid_ = recorded_ = false;
    unsigned long long *grown = nullptr;
    HISTEQ_CUDA_TRY(cudaMalloc(reinterpret_cast<void **>(&grown), 2 * bins * sizeof(*d_buffers_)));
    cudaFree(d_buffers_);
    d_buffers_ = grown;
    capacity_ = bins;
  }
  if (recorded_) HISTEQ_CUDA_TRY(cudaStreamWaitEvent(stream, written_, 0));
  if (valid_ && shape == shape_) tone->d_history_in = d_buffers_ + current_ * capacity_;
  tone->d_history_out = d_buffers_ + (1 - current_) * capacity_;
  attaching_ = shape;
  return cudaSuccess;
}

cudaError_t DeviceHistory::attached(cudaStream_t stream, const DeviceTone &tone) {
  if (!tone.params.keep_history) return cudaSuccess;
  HISTEQ_CUDA_TRY(cudaEventRecord(written_, stream));
  current_ = 1 - current_;
  shape_ = attaching_;
  valid_ = recorded_ = true;
  return cudaSuccess;
}

}  // namespace histeq::cuda
