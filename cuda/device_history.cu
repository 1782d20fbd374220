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
  valid_ = recorded_ = false;
  return cudaSuccess;
}

cudaError_t DeviceHistory::attach(cudaStream_t stream, SampleLayout sample, DeviceTone *tone) {
  if (!d_buffers_) return cudaErrorInitializationError;
  tone->d_history_in = nullptr;
  tone->d_history_out = nullptr;
  if (!tone->params.keep_history) {
    valid_ = false;
    return cudaSuccess;
  }
  if (sample.bits < 1 || sample.levels() > std::uint32_t(kMaxLevels)) return cudaErrorInvalidValue;
  if (recorded_) HISTEQ_CUDA_TRY(cudaStreamWaitEvent(stream, written_, 0));
  const bool same_samples = sample.bits == sample_.bits && sample.shift == sample_.shift;
  if (valid_ && same_samples) tone->d_history_in = d_buffers_ + current_ * kMaxLevels;
  tone->d_history_out = d_buffers_ + (1 - current_) * kMaxLevels;
  attaching_ = sample;
  return cudaSuccess;
}

cudaError_t DeviceHistory::attached(cudaStream_t stream, const DeviceTone &tone) {
  if (!tone.params.keep_history) return cudaSuccess;
  HISTEQ_CUDA_TRY(cudaEventRecord(written_, stream));
  current_ = 1 - current_;
  sample_ = attaching_;
  valid_ = recorded_ = true;
  return cudaSuccess;
}

}  // namespace histeq::cuda
