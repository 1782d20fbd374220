// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

// cudahisteq's zero-copy path: frames already in GstCudaMemory (cudaupload, nvh264dec and the
// other nvcodec elements) are equalized in place in device memory, inside the pipeline's
// GstCudaContext. Our kernels use the CUDA runtime; with that context pushed on the calling
// thread, the runtime works in it, so the device pointers GStreamer hands out are ours to use.

#include <memory>

#include <gst/cuda/gstcudacontext.h>
#include <gst/video/video.h>

#include "equalization.h"
#include "methods.h"

class CudaMemoryFrames {
 public:
  CudaMemoryFrames();
  ~CudaMemoryFrames();  // frees the device scratch inside its context
  CudaMemoryFrames(const CudaMemoryFrames &) = delete;
  CudaMemoryFrames &operator=(const CudaMemoryFrames &) = delete;

  // (Re)creates the scratch inside `context` unless it lives there already. FALSE, with an
  // element error posted, when the context cannot be used.
  gboolean use_context(GstElement *element, GstCudaContext *context);
  GstCudaContext *context() const { return context_; }

  // Equalizes the luma of `buffer` (writable, its first memory a GstCudaMemory of this
  // context) in place on the device and waits for it, so downstream reads a finished frame.
  GstFlowReturn equalize(GstElement *element, const GstVideoInfo *info, GstBuffer *buffer,
                         histeq::OutputRange range, histeq::cuda::KernelConfig kernels);

  // Frees the scratch and drops the context (stop).
  void release();

 private:
  struct Scratch;

  GstCudaContext *context_ = nullptr;
  std::unique_ptr<Scratch> scratch_;
};

// The CUDA device a context was made on.
guint histeq_cuda_context_device(GstCudaContext *context);
