// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cuda_memory_frames.h"

#include <cuda_runtime_api.h>
#include <gst/cuda/gstcudamemory.h>

#include "device_frames.h"
#include "luma_frame.h"

namespace {

// Pushes `context` on this thread for the scope's CUDA runtime calls.
class ContextScope {
 public:
  explicit ContextScope(GstCudaContext *context) : pushed_(gst_cuda_context_push(context)) {}
  ~ContextScope() {
    if (pushed_) gst_cuda_context_pop(nullptr);
  }
  bool pushed() const { return pushed_; }

 private:
  bool pushed_;
};

GstFlowReturn cuda_failed(GstElement *element, const char *call, cudaError_t status) {
  GST_ELEMENT_ERROR(element, RESOURCE, FAILED,
                    ("The GPU failed while equalizing a frame in CUDA memory (CUDA error: %s).",
                     cudaGetErrorString(status)),
                    ("%s returned %s", call, cudaGetErrorName(status)));
  return GST_FLOW_ERROR;
}

}  // namespace

// The device frames belong to context_: created, used and destroyed with it pushed.
struct CudaMemoryFrames::Scratch {
  histeq::cuda::DeviceFrames frames;
};

guint histeq_cuda_context_device(GstCudaContext *context) {
  guint device = 0;
  g_object_get(context, "cuda-device-id", &device, nullptr);
  return device;
}

CudaMemoryFrames::CudaMemoryFrames() = default;

CudaMemoryFrames::~CudaMemoryFrames() {
  release();
}

void CudaMemoryFrames::release() {
  if (!context_) return;
  {
    const ContextScope scope(context_);
    scratch_.reset();
  }
  gst_clear_object(&context_);
}

void CudaMemoryFrames::discard() {
  if (!scratch_) return;
  const ContextScope scope(context_);
  scratch_->frames.discard();
}

gboolean CudaMemoryFrames::use_context(GstElement *element, GstCudaContext *context) {
  if (context == context_ && scratch_) return TRUE;
  release();
  // context_ is only set together with its scratch: after a failure nothing is half set up,
  // and the next frame from this context tries again.
  std::unique_ptr<Scratch> scratch;
  cudaError_t status = cudaErrorDeviceUninitialized;
  {
    const ContextScope scope(context);
    if (scope.pushed()) {
      scratch = std::make_unique<Scratch>();
      status = scratch->frames.init();
      if (status != cudaSuccess) scratch.reset();  // destroyed with its context pushed
    }
  }
  if (status != cudaSuccess) {
    GST_ELEMENT_ERROR(element, RESOURCE, OPEN_READ_WRITE,
                      ("Could not set up cudahisteq in the pipeline's CUDA context on device %u "
                       "(%s).",
                       histeq_cuda_context_device(context), cudaGetErrorString(status)),
                      ("%s", cudaGetErrorName(status)));
    return FALSE;
  }
  context_ = GST_CUDA_CONTEXT(gst_object_ref(context));
  scratch_ = std::move(scratch);
  return TRUE;
}

GstFlowReturn CudaMemoryFrames::submit(GstElement *element, const GstVideoInfo *info,
                                       GstBuffer *buffer, histeq::OutputRange range,
                                       const histeq::Params &params, bool reset,
                                       histeq::cuda::KernelConfig kernels) {
  if (in_flight() == kMaxInFlight) return cuda_failed(element, "submit", cudaErrorNotReady);
  if (!histeq_check_frame_layout(element, info, buffer)) return GST_FLOW_ERROR;
  const ContextScope scope(context_);
  if (!scope.pushed())
    return cuda_failed(element, "gst_cuda_context_push", cudaErrorDeviceUninitialized);
  GstVideoFrame frame;
  if (!gst_video_frame_map(&frame, info, buffer, GstMapFlags(GST_MAP_READWRITE | GST_MAP_CUDA))) {
    GST_ELEMENT_ERROR(element, STREAM, FORMAT,
                      ("A frame in CUDA memory could not be mapped on the device as %dx%d %s.",
                       GST_VIDEO_INFO_WIDTH(info), GST_VIDEO_INFO_HEIGHT(info),
                       gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(info))),
                      ("gst_video_frame_map(GST_MAP_CUDA) failed on %" GST_PTR_FORMAT, buffer));
    return GST_FLOW_ERROR;
  }
  const histeq::LumaPlane8 visible = histeq_luma_plane(&frame);
  const histeq::cuda::DevicePlane luma{visible.data, visible.width, visible.height,
                                       std::size_t(visible.stride)};
  const cudaError_t status = scratch_->frames.submit(luma, range, params, reset, kernels);
  // The device pointer stays valid while the caller holds the buffer; unmapping only records
  // that the newest bytes are on the device.
  gst_video_frame_unmap(&frame);
  return status == cudaSuccess ? GST_FLOW_OK : cuda_failed(element, "DeviceFrames::submit", status);
}

GstFlowReturn CudaMemoryFrames::wait_oldest(GstElement *element,
                                            histeq::cuda::FrameReport *report) {
  if (!scratch_) return cuda_failed(element, "DeviceFrames::wait_oldest", cudaErrorNotReady);
  const ContextScope scope(context_);
  const cudaError_t status =
      scope.pushed() ? scratch_->frames.wait_oldest(report) : cudaErrorDeviceUninitialized;
  return status == cudaSuccess ? GST_FLOW_OK
                               : cuda_failed(element, "DeviceFrames::wait_oldest", status);
}

int CudaMemoryFrames::in_flight() const {
  return scratch_ ? scratch_->frames.in_flight() : 0;
}
