// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// cudahisteq's GPU engine in the CUDA context it lives in: one histeq::cuda::FrameEngine for
// every frame, whether its luma is in system memory or in GstCudaMemory, so that the stream's
// history follows frame order across both and one count of frames in flight holds for both.
//
//   CudaFrameEngine engine(filter);
//   engine.start(device, depth, kernels);   // the device's primary context
//   engine.use_context(context);            // CUDAMemory caps, or upstream's memory elsewhere
//   engine.submit(&frame, settings);        // a mapped system-memory frame, or
//   engine.submit_cuda_memory(info, buffer, settings);
//   engine.wait(&report);                   // the oldest frame is done, whatever its path
//
// The engine starts in the device's primary context (the CUDA runtime's own, entered with
// cudaSetDevice), so a system-memory pipeline needs no GstCudaContext. Where frames may come in
// GstCudaMemory it is recreated inside the pipeline's GstCudaContext: the engine uses the CUDA
// runtime, and with that context pushed on the calling thread the runtime works in it, so the
// device pointers GStreamer hands out are the engine's to use. System-memory frames then go
// through the same engine in that context (its pinned memory is portable: pinned in every
// context). Every call enters the engine's context for its own duration, as buffers may arrive
// on any thread and the runtime's current context is per thread. Failures become element errors.
//
// One thread may submit while another waits (the element's streaming and output threads);
// start, use_context, discard and stop need the engine to themselves.

#include <memory>

#include <gst/cuda/gstcudacontext.h>
#include <gst/video/video.h>

#include "device_tone.h"
#include "frame_engine.h"
#include "gsthisteqbase.h"
#include "methods.h"

class CudaFrameEngine {
 public:
  // Errors are posted on `filter`; the NO_SPACE_LEFT one names its input frame size.
  explicit CudaFrameEngine(GstVideoFilter *filter);
  ~CudaFrameEngine();  // stop()
  CudaFrameEngine(const CudaFrameEngine &) = delete;
  CudaFrameEngine &operator=(const CudaFrameEngine &) = delete;

  // Creates the engine with `depth` slots in `device`'s primary context. FALSE, with an element
  // error posted, when it cannot be.
  gboolean start(int device, int depth, histeq::cuda::KernelConfig kernels);
  // Recreates the engine inside `context` unless it lives there already, once the frames in
  // flight are done (the history restarts). FALSE, with an element error posted, when it cannot
  // be used; the next call tries again.
  gboolean use_context(GstCudaContext *context);
  // The GstCudaContext the engine lives in; nullptr for the device's primary context.
  GstCudaContext *context() const { return context_; }
  int device() const { return device_; }

  int capacity() const;
  int in_flight() const;
  bool full() const { return engine_ && engine_->full(); }

  // Enqueue a frame, following the history of the frames before it (`settings.reset` restarts
  // it), and return at once; at most capacity() in flight. A mapped system-memory `frame` (kept
  // mapped by the caller until wait() hands it back) is equalized in place, its luma plane or
  // its packed pixels as far as histeq_luma_plane shows them; so is `buffer` (writable, its
  // first memory a GstCudaMemory of context()).
  GstFlowReturn submit(GstVideoFrame *frame, const HistEqFrame &settings);
  GstFlowReturn submit_cuda_memory(const GstVideoInfo *info, GstBuffer *buffer,
                                   const HistEqFrame &settings);
  // Waits until the oldest submitted frame is done, so downstream may read it; `report` gets its
  // report when it kept the history (FrameEngine::wait says how). The frame is handed back even
  // on an error.
  GstFlowReturn wait(histeq::cuda::FrameReport *report);
  // Waits for every frame in flight and forgets them and the history (flush, stop).
  void discard();
  // Frees the engine and drops the context.
  void stop();

 private:
  // Posts the element error for `status`, which `call` returned while equalizing `frame`.
  GstFlowReturn failed(const char *call, cudaError_t status, const char *frame = "a frame") const;

  GstVideoFilter *filter_;
  int device_ = 0;
  int depth_ = 0;
  histeq::cuda::KernelConfig kernels_;
  GstCudaContext *context_ = nullptr;
  std::unique_ptr<histeq::cuda::FrameEngine> engine_;
};

// The CUDA device a context was made on.
guint histeq_cuda_context_device(GstCudaContext *context);
