// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// cudahisteq's zero-copy path: frames already in GstCudaMemory (cudaupload, nvh264dec and the
// other nvcodec elements) are equalized in place in device memory, inside the pipeline's
// GstCudaContext. Our kernels use the CUDA runtime; with that context pushed on the calling
// thread, the runtime works in it, so the device pointers GStreamer hands out are ours to use.
// One thread may submit while another waits (the element's streaming and output threads);
// use_context, discard and release need it to themselves.

#include <atomic>
#include <memory>

#include <gst/cuda/gstcudacontext.h>
#include <gst/video/video.h>

#include "device_tone.h"
#include "equalization.h"
#include "methods.h"
#include "params.h"
#include "stream_ring.h"

class CudaMemoryFrames {
 public:
  // As many as the element lets the ring take at its largest depth.
  static constexpr int kMaxInFlight = 2 * histeq::cuda::StreamRing::kMaxDepth;

  CudaMemoryFrames();
  ~CudaMemoryFrames();  // waits for the frames in flight, frees the scratch inside its context
  CudaMemoryFrames(const CudaMemoryFrames &) = delete;
  CudaMemoryFrames &operator=(const CudaMemoryFrames &) = delete;

  // (Re)creates the scratch inside `context` unless it lives there already (frames in flight
  // are waited for first). FALSE, with an element error posted, when it cannot be used.
  gboolean use_context(GstElement *element, GstCudaContext *context);
  GstCudaContext *context() const { return context_; }

  // Enqueues the equalization of `buffer`'s luma (writable, its first memory a GstCudaMemory
  // of this context) in place on the device with `params`, following the history of the frames
  // before it (`reset` restarts it), and returns at once; at most kMaxInFlight frames.
  GstFlowReturn submit(GstElement *element, const GstVideoInfo *info, GstBuffer *buffer,
                       histeq::OutputRange range, const histeq::Params &params, bool reset,
                       histeq::cuda::KernelConfig kernels);
  // Waits until the oldest submitted frame is equalized, so downstream may read it; `report`
  // (optional) gets its report when it kept the history (StreamRing::wait says how).
  GstFlowReturn wait_oldest(GstElement *element, histeq::cuda::FrameReport *report);
  int in_flight() const { return in_flight_.load(std::memory_order_acquire); }
  // Waits for every frame in flight and forgets them and the history (flush).
  void discard();

  // Frees the scratch and drops the context (stop).
  void release();

 private:
  struct Scratch;

  GstCudaContext *context_ = nullptr;
  std::unique_ptr<Scratch> scratch_;
  int next_ = 0;    // event slot of the next submit (the submitting thread's)
  int oldest_ = 0;  // event slot of the oldest frame in flight (the waiting thread's)
  std::atomic<int> in_flight_{0};
};

// The CUDA device a context was made on.
guint histeq_cuda_context_device(GstCudaContext *context);
