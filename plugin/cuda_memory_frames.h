// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// cudahisteq's zero-copy path: frames already in GstCudaMemory (cudaupload, nvh264dec and the
// other nvcodec elements) are equalized in place in device memory by the engine's DeviceFrames,
// inside the pipeline's GstCudaContext. The engine uses the CUDA runtime; with that context
// pushed on the calling thread, the runtime works in it, so the device pointers GStreamer hands
// out are the engine's to use. This adapter pushes the context, maps the frames and turns
// failures into element errors. One thread may submit while another waits (the element's
// streaming and output threads); use_context, discard and release need it to themselves.

#include <memory>

#include <gst/cuda/gstcudacontext.h>
#include <gst/video/video.h>

#include "device_frames.h"
#include "device_tone.h"
#include "equalization.h"
#include "methods.h"
#include "params.h"

class CudaMemoryFrames {
 public:
  static constexpr int kMaxInFlight = histeq::cuda::DeviceFrames::kMaxInFlight;

  CudaMemoryFrames();
  ~CudaMemoryFrames();  // waits for the frames in flight, frees the engine's inside its context
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
  int in_flight() const;
  // Waits for every frame in flight and forgets them and the history (flush).
  void discard();

  // Frees the scratch and drops the context (stop).
  void release();

 private:
  struct Scratch;

  GstCudaContext *context_ = nullptr;
  std::unique_ptr<Scratch> scratch_;
};

// The CUDA device a context was made on.
guint histeq_cuda_context_device(GstCudaContext *context);
