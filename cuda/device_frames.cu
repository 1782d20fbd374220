// SPDX-License-Identifier: LGPL-2.1-or-later
#include "device_frames.h"

#include "cuda_check.h"
#include "device_equalizer.h"
#include "device_history.h"
#include "pinned_memory.h"

namespace histeq::cuda {

// Each frame's event marks its end on the stream; its report (when it keeps the history) lands
// in its own pinned slot.
struct DeviceFrames::Scratch {
  cudaStream_t stream = nullptr;
  cudaEvent_t done[kMaxInFlight] = {};
  FrameReport *h_reports = nullptr;  // kMaxInFlight, pinned
  bool reported[kMaxInFlight] = {};
  FrameReport *d_report = nullptr;
  DeviceEqualizer equalizer;
  DeviceHistory history;

  ~Scratch() {
    if (stream) cudaStreamSynchronize(stream);
    for (cudaEvent_t event : done)
      if (event) cudaEventDestroy(event);
    if (stream) cudaStreamDestroy(stream);
    free_pinned(h_reports);
    cudaFree(d_report);
  }
};

DeviceFrames::DeviceFrames() = default;
DeviceFrames::~DeviceFrames() = default;

cudaError_t DeviceFrames::init() {
  if (scratch_) return cudaErrorInitializationError;
  auto scratch = std::make_unique<Scratch>();
  HISTEQ_CUDA_TRY(cudaStreamCreateWithFlags(&scratch->stream, cudaStreamNonBlocking));
  for (cudaEvent_t &event : scratch->done)
    HISTEQ_CUDA_TRY(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  HISTEQ_CUDA_TRY(allocate_pinned(kMaxInFlight * sizeof(FrameReport),
                                  reinterpret_cast<void **>(&scratch->h_reports)));
  HISTEQ_CUDA_TRY(cudaMalloc(reinterpret_cast<void **>(&scratch->d_report), sizeof(FrameReport)));
  // Copied whole, its padding too: defined from the start (compute-sanitizer's initcheck).
  HISTEQ_CUDA_TRY(cudaMemset(scratch->d_report, 0, sizeof(FrameReport)));
  HISTEQ_CUDA_TRY(scratch->history.init());
  HISTEQ_CUDA_TRY(scratch->equalizer.init(0));
  scratch_ = std::move(scratch);
  return cudaSuccess;
}

cudaError_t DeviceFrames::submit(const DevicePlane &plane, OutputRange range, const Params &params,
                                 bool reset, KernelConfig config) {
  if (!scratch_) return cudaErrorInitializationError;
  if (in_flight() == kMaxInFlight) return cudaErrorNotReady;
  Scratch &s = *scratch_;
  const int slot = next_;
  DeviceTone tone;
  tone.params = params;
  tone.reset = reset;
  tone.d_report = s.d_report;
  s.reported[slot] = params.keep_history;
  const auto enqueue = [&]() -> cudaError_t {
    HISTEQ_CUDA_TRY(s.history.attach(s.stream, &tone));
    HISTEQ_CUDA_TRY(s.equalizer.equalize(plane, range, config, s.stream, tone));
    HISTEQ_CUDA_TRY(s.history.attached(s.stream, tone));
    if (params.keep_history)
      HISTEQ_CUDA_TRY(cudaMemcpyAsync(&s.h_reports[slot], s.d_report, sizeof(FrameReport),
                                      cudaMemcpyDeviceToHost, s.stream));
    return cudaEventRecord(s.done[slot], s.stream);
  };
  const cudaError_t status = enqueue();
  if (status != cudaSuccess) {
    // A kernel enqueued before the failure may still write the frame: it finishes before the
    // caller gets the frame back with the error.
    cudaStreamSynchronize(s.stream);
    return status;
  }
  next_ = (next_ + 1) % kMaxInFlight;
  in_flight_.fetch_add(1, std::memory_order_release);
  return cudaSuccess;
}

cudaError_t DeviceFrames::wait_oldest(FrameReport *report) {
  if (!scratch_ || in_flight() == 0) return cudaErrorNotReady;
  Scratch &s = *scratch_;
  const cudaError_t status = cudaEventSynchronize(s.done[oldest_]);
  if (report)
    *report = status == cudaSuccess && s.reported[oldest_] ? s.h_reports[oldest_] : FrameReport{};
  oldest_ = (oldest_ + 1) % kMaxInFlight;
  in_flight_.fetch_sub(1, std::memory_order_release);
  return status;
}

cudaError_t DeviceFrames::discard() {
  cudaError_t status = cudaSuccess;
  if (scratch_) {
    status = cudaStreamSynchronize(scratch_->stream);
    scratch_->history.forget();
  }
  oldest_ = next_;
  in_flight_.store(0, std::memory_order_release);
  return status;
}

}  // namespace histeq::cuda
