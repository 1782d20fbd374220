// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// Frames that already live in device memory (the cudahisteq element's frames in GstCudaMemory),
// equalized in place, in order, on one stream of the current device or context, following the
// stream's history:
//
//   histeq::cuda::DeviceFrames frames;
//   frames.init();                                      // stream, scratch, history
//   frames.submit(plane, range, params, reset, {});     // enqueues, returns at once
//   frames.wait_oldest(&report);                        // the oldest frame is done
//
// One thread may submit while another waits; init, discard and destruction need the object to
// themselves. Every call that touches the GPU must run in the context init() ran in.

#include <atomic>
#include <memory>

#include <cuda_runtime_api.h>

#include "device_plane.h"
#include "device_tone.h"
#include "equalization.h"
#include "methods.h"
#include "params.h"
#include "stream_ring.h"

namespace histeq::cuda {

class DeviceFrames {
 public:
  // As many as StreamRing takes at its largest depth.
  static constexpr int kMaxInFlight = 2 * StreamRing::kMaxDepth;

  DeviceFrames();
  ~DeviceFrames();  // waits for the frames in flight
  DeviceFrames(const DeviceFrames &) = delete;
  DeviceFrames &operator=(const DeviceFrames &) = delete;

  cudaError_t init();

  // Enqueues the equalization of `plane` in place with `params` (`reset` restarts the history)
  // and returns without waiting; cudaErrorNotReady when kMaxInFlight frames are in flight. On
  // an error, what was enqueued has finished when it returns.
  cudaError_t submit(const DevicePlane &plane, OutputRange range, const Params &params, bool reset,
                     KernelConfig config);
  // Blocks until the oldest frame is equalized; `report` (optional) gets its report when it
  // kept the history (else zeros). The frame is handed back even on an error.
  cudaError_t wait_oldest(FrameReport *report);
  int in_flight() const { return in_flight_.load(std::memory_order_acquire); }
  // Waits for every frame in flight and forgets them and the history (flush).
  cudaError_t discard();

 private:
  struct Scratch;
  std::unique_ptr<Scratch> scratch_;
  int next_ = 0;    // slot of the next submit (the submitting thread's)
  int oldest_ = 0;  // slot of the oldest frame in flight (the waiting thread's)
  std::atomic<int> in_flight_{0};
};

}  // namespace histeq::cuda
