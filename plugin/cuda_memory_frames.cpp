// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cuda_memory_frames.h"

#include <cuda_runtime_api.h>
#include <gst/cuda/gstcudamemory.h>

#include "cuda_check.h"
#include "device_equalizer.h"
#include "device_history.h"
#include "pinned_memory.h"

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

// Everything here belongs to context_ and is created and destroyed with it pushed. Frames run
// in order on one stream; each one's event marks its end, and its report (when it keeps the
// history) lands in its own pinned buffer.
struct CudaMemoryFrames::Scratch {
  cudaStream_t stream = nullptr;
  cudaEvent_t done[kMaxInFlight] = {};
  histeq::cuda::FrameReport *h_reports = nullptr;  // kMaxInFlight, pinned
  bool reported[kMaxInFlight] = {};
  histeq::cuda::FrameReport *d_report = nullptr;
  histeq::cuda::DeviceEqualizer equalizer;
  histeq::cuda::DeviceHistory history;

  cudaError_t create() {
    HISTEQ_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    for (cudaEvent_t &event : done)
      HISTEQ_CUDA_TRY(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    HISTEQ_CUDA_TRY(histeq::cuda::allocate_pinned(kMaxInFlight * sizeof(*h_reports),
                                                  reinterpret_cast<void **>(&h_reports)));
    HISTEQ_CUDA_TRY(cudaMalloc(reinterpret_cast<void **>(&d_report), sizeof(*d_report)));
    HISTEQ_CUDA_TRY(history.init());
    return equalizer.init(0);
  }
  ~Scratch() {
    if (stream) cudaStreamSynchronize(stream);
    for (cudaEvent_t event : done)
      if (event) cudaEventDestroy(event);
    if (stream) cudaStreamDestroy(stream);
    histeq::cuda::free_pinned(h_reports);
    cudaFree(d_report);
  }
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
  oldest_ = next_;
  in_flight_.store(0, std::memory_order_release);
  gst_clear_object(&context_);
}

void CudaMemoryFrames::discard() {
  if (scratch_) {
    const ContextScope scope(context_);
    cudaStreamSynchronize(scratch_->stream);
    scratch_->history.forget();
  }
  oldest_ = next_;
  in_flight_.store(0, std::memory_order_release);
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
      status = scratch->create();
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
  const histeq::cuda::DevicePlane luma{
      static_cast<std::uint8_t *>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0)),
      GST_VIDEO_FRAME_COMP_WIDTH(&frame, 0), GST_VIDEO_FRAME_COMP_HEIGHT(&frame, 0),
      std::size_t(GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0))};
  const int slot = next_;
  histeq::cuda::DeviceTone tone;
  tone.params = params;
  tone.reset = reset;
  tone.d_report = scratch_->d_report;
  scratch_->reported[slot] = params.keep_history;
  cudaError_t status = scratch_->history.attach(scratch_->stream, &tone);
  const char *call = "DeviceHistory::attach";
  if (status == cudaSuccess) {
    status = scratch_->equalizer.equalize(luma, range, kernels, scratch_->stream, tone);
    call = "DeviceEqualizer::equalize";
  }
  if (status == cudaSuccess) {
    status = scratch_->history.attached(scratch_->stream, tone);
    call = "DeviceHistory::attached";
  }
  if (status == cudaSuccess && params.keep_history) {
    status = cudaMemcpyAsync(&scratch_->h_reports[slot], scratch_->d_report,
                             sizeof(histeq::cuda::FrameReport), cudaMemcpyDeviceToHost,
                             scratch_->stream);
    call = "cudaMemcpyAsync";
  }
  if (status == cudaSuccess) {
    status = cudaEventRecord(scratch_->done[slot], scratch_->stream);
    call = "cudaEventRecord";
  }
  // A kernel enqueued before the failure may still write the frame: it finishes before the
  // caller gets the buffer back with the error.
  if (status != cudaSuccess) cudaStreamSynchronize(scratch_->stream);
  // The device pointer stays valid while the caller holds the buffer; unmapping only records
  // that the newest bytes are on the device.
  gst_video_frame_unmap(&frame);
  if (status != cudaSuccess) return cuda_failed(element, call, status);
  next_ = (next_ + 1) % kMaxInFlight;
  in_flight_.fetch_add(1, std::memory_order_release);
  return GST_FLOW_OK;
}

GstFlowReturn CudaMemoryFrames::wait_oldest(GstElement *element,
                                            histeq::cuda::FrameReport *report) {
  if (in_flight() == 0) return cuda_failed(element, "wait_oldest", cudaErrorNotReady);
  const ContextScope scope(context_);
  const cudaError_t status =
      scope.pushed() ? cudaEventSynchronize(scratch_->done[oldest_]) : cudaErrorDeviceUninitialized;
  if (report) {
    *report = status == cudaSuccess && scratch_->reported[oldest_] ? scratch_->h_reports[oldest_]
                                                                   : histeq::cuda::FrameReport{};
  }
  oldest_ = (oldest_ + 1) % kMaxInFlight;
  in_flight_.fetch_sub(1, std::memory_order_release);
  return status == cudaSuccess ? GST_FLOW_OK : cuda_failed(element, "cudaEventSynchronize", status);
}
